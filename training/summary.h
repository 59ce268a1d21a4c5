#pragma once
// chainer.reporter.Summary and DictSummary: running mean and standard deviation of
// reported values, what LogReport, PrintReport and Evaluator aggregate.

#include <cstdint>
#include <map>
#include <string>

#include "core/array.h"
#include "core/reporter.h"
#include "serializers/serializer.h"

namespace rensa::training {

// Sum, sum of squares and count of added values (each weighted by `weight`).
class Summary {
public:
    // `value` is a number or an Array of any shape (reduced to its float64 mean, as a
    // number); `weight` scales it (Chainer's add(value, weight): x += w*v, n += w; the
    // count is an integer here, so a fractional weight is truncated in n).
    void add(double value, double weight = 1.0);
    void add(const Array& value, double weight = 1.0);
    // ValueError when nothing was added.
    double compute_mean() const;
    // {mean, std} (population std); ValueError when nothing was added.
    std::pair<double, double> make_statistics() const;
    int64_t count() const { return n_; }
    // "_x", "_x2", "_n" as Chainer.
    void serialize(const serializers::Serializer& serializer);

private:
    double x_ = 0.0, x2_ = 0.0;
    int64_t n_ = 0;
};

// One Summary per key.
class DictSummary {
public:
    // Adds each value of `observation` under its key. As Chainer, only scalars count:
    // arrays with ndim > 0 and non-numeric arrays are skipped.
    void add(const Observation& observation);
    void add(const std::map<std::string, double>& values);
    // key -> mean, ordered by key.
    std::map<std::string, double> compute_mean() const;
    // key -> mean and key + ".std" -> std.
    std::map<std::string, double> make_statistics() const;
    bool empty() const { return summaries_.empty(); }
    // As Chainer: the keys as a JSON list string under "_names" and key i's Summary under
    // "_summaries/<i>/". Loading replaces every summary (all-or-nothing: the new map is
    // swapped in by a deferred assignment, see Serializer::read_string).
    void serialize(const serializers::Serializer& serializer);

private:
    std::map<std::string, Summary> summaries_;
};

}  // namespace rensa::training
