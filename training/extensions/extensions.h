#pragma once
// chainer.training.extensions: every trainer extension in one include.
//
//   #include "training/extensions/extensions.h"
//   namespace extensions = rensa::training::extensions;
//   trainer.extend(std::make_shared<extensions::LogReport>());

#include "training/extensions/dump_graph.h"
#include "training/extensions/lr_shifts.h"
#include "training/extensions/micro_average.h"
#include "training/extensions/observe_value.h"
#include "training/extensions/parameter_statistics.h"
#include "training/extensions/plot_report.h"
#include "training/extensions/svg_chart.h"

// The extensions of the other parts of the training module.
#include "training/extensions/evaluator.h"
#include "training/extensions/fail_on_non_number.h"
#include "training/extensions/log_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"
#include "training/extensions/snapshot.h"
