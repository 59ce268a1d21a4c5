// rensa._core.training.extensions: LogReport, PrintReport and ProgressBar, their output going
// to a Python file object (sys.stdout by default, looked up at each write).
#include <utility>

#include "python/src/training/training.h"
#include "training/extensions/log_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"

namespace rensa::python {

namespace {

namespace ext = training::extensions;
using training::Extension;

// Owns the Python stream the report writes to (initialized before the report's base).
struct StreamOwner {
    explicit StreamOwner(py::object file) : out{std::make_unique<PyOStream>(std::move(file))} {}
    std::unique_ptr<PyOStream> out;
};

class PyPrintReport final : private StreamOwner, public ext::PrintReport {
public:
    PyPrintReport(py::object file, std::vector<std::string> entries, ext::PrintReportOptions options)
        : StreamOwner{std::move(file)}, ext::PrintReport{std::move(entries), with_stream(std::move(options))} {}

private:
    ext::PrintReportOptions with_stream(ext::PrintReportOptions options) {
        options.out = &out->stream;
        options.is_terminal = out->buf.is_terminal();
        return options;
    }
};

class PyProgressBar final : private StreamOwner, public ext::ProgressBar {
public:
    PyProgressBar(py::object file, ext::ProgressBarOptions options)
        : StreamOwner{std::move(file)}, ext::ProgressBar{with_stream(std::move(options))} {}

private:
    ext::ProgressBarOptions with_stream(ext::ProgressBarOptions options) {
        options.out = &out->stream;
        options.is_terminal = out->buf.is_terminal();
        return options;
    }
};

py::dict entry_to_python(const ext::LogEntry& entry) {
    py::dict d;
    for (const auto& [k, v] : entry) {
        if ((k == "epoch" || k == "iteration") && v == static_cast<double>(static_cast<int64_t>(v))) {
            d[py::str(k)] = py::int_(static_cast<int64_t>(v));
        } else {
            d[py::str(k)] = py::float_(v);
        }
    }
    return d;
}

}  // namespace

void bind_training_reports(py::module_& t) {
    py::module_ m = t.def_submodule("extensions");

    py::classh<ext::LogReport, Extension>(
        m, "LogReport",
        R"doc(Logs the means of the reported values (chainer.training.extensions.LogReport).

At every iteration it adds the trainer's observation to a summary; when ``trigger`` fires it
appends the means, with ``epoch``, ``iteration`` and ``elapsed_time``, to ``log`` and rewrites
``<out>/<filename>`` as Chainer's JSON list of dicts (atomically: the previous file stays intact
when writing fails).

Args:
    keys: the reported keys to log (None: every key).
    trigger: when an entry is made: a trigger or a ``(period, unit)`` tuple.
    postprocess: ``postprocess(entry)`` may edit each entry (a dict) before it is logged.
    filename (str): the file name under the trainer's ``out``; ``{name}`` fields are replaced by
        the entry's values (``log_{iteration}``); None writes no file.
    log_name (str): Chainer's older name of ``filename``.)doc")
        .def(py::init([](py::object keys, py::object trigger, py::object postprocess, py::object filename,
                         py::object log_name) {
                 ext::LogReportOptions o;
                 if (!keys.is_none()) o.keys = keys.cast<std::vector<std::string>>();
                 o.trigger = to_trigger_arg(trigger);
                 if (o.trigger.empty()) o.trigger = training::TriggerArg{1, "epoch"};
                 if (!postprocess.is_none()) {
                     PyRef fn = make_py_ref(std::move(postprocess));
                     o.postprocess = [fn](ext::LogEntry& entry) {
                         py::gil_scoped_acquire gil;
                         py::dict d = entry_to_python(entry);
                         (*fn)(d);
                         entry.clear();
                         for (const auto& [k, v] : d) entry[py::cast<std::string>(k)] = py::cast<double>(v);
                     };
                 }
                 // Chainer's log_name is the old name of filename.
                 if (!log_name.is_none()) filename = log_name;
                 if (filename.is_none()) {
                     o.filename = std::nullopt;
                 } else {
                     o.filename = filename.cast<std::string>();
                 }
                 return std::make_shared<ext::LogReport>(std::move(o));
             }),
             py::arg("keys") = py::none(), py::arg("trigger") = py::make_tuple(1, "epoch"),
             py::arg("postprocess") = py::none(), py::arg("filename") = "log", py::arg("log_name") = py::none())
        .def_property_readonly(
            "log",
            [](const ext::LogReport& self) {
                py::list out;
                for (const ext::LogEntry& entry : self.log()) out.append(entry_to_python(entry));
                return out;
            },
            "The entries made so far: a list of dicts (the means of the reported values, ``epoch``, ``iteration`` "
            "and ``elapsed_time``).");

    py::classh<ext::PrintReport, Extension>(m, "PrintReport",
                                            R"doc(Prints chosen entries of a LogReport's log as aligned columns
(chainer.training.extensions.PrintReport): the header once, then one row per new log entry.

Args:
    entries: the keys to print, in order (None: ``epoch``, ``iteration``, the other keys sorted,
        ``elapsed_time``, from the first entry printed).
    log_report: the name of a LogReport registered to the trainer, or a LogReport of its own.
    out: the stream to write to (sys.stdout by default).)doc")
        .def(py::init([](py::object entries, py::object log_report, py::object out) {
                 ext::PrintReportOptions o;
                 if (py::isinstance<py::str>(log_report)) {
                     o.log_report = log_report.cast<std::string>();
                 } else {
                     o.log_report = log_report.cast<std::shared_ptr<ext::LogReport>>();
                 }
                 std::vector<std::string> e;
                 if (!entries.is_none()) e = entries.cast<std::vector<std::string>>();
                 return std::shared_ptr<ext::PrintReport>(
                     std::make_shared<PyPrintReport>(std::move(out), std::move(e), std::move(o)));
             }),
             py::arg("entries") = py::none(), py::arg("log_report") = "LogReport", py::arg("out") = py::none())
        .def_property_readonly("entries", &ext::PrintReport::entries, "The names of the columns it prints.");

    py::classh<ext::ProgressBar, Extension>(
        m, "ProgressBar",
        R"doc(Shows the progress of training (chainer.training.extensions.ProgressBar): a bar of the whole
training, a bar of the current epoch, the counters, the speed and the estimated time to finish.
On a terminal the lines are redrawn in place; otherwise they are written as plain lines.

Args:
    training_length: ``(length, unit)`` of the whole training (None: the stop trigger's).
    update_interval (int): draws every ``update_interval`` iterations.
    bar_length (int): characters per bar.
    out: the stream to write to (sys.stdout by default).)doc")
        .def(
            py::init([](py::object training_length, int64_t update_interval, int bar_length, py::object out) {
                ext::ProgressBarOptions o;
                if (!training_length.is_none()) {
                    o.training_length = training_length.cast<std::pair<int64_t, std::string>>();
                }
                o.update_interval = update_interval;
                o.bar_length = bar_length;
                return std::shared_ptr<ext::ProgressBar>(std::make_shared<PyProgressBar>(std::move(out), std::move(o)));
            }),
            py::arg("training_length") = py::none(), py::arg("update_interval") = 100, py::arg("bar_length") = 50,
            py::arg("out") = py::none());
}

}  // namespace rensa::python
