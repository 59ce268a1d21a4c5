#pragma once
// The data-parallel glue of the examples (ChainerMN's train_mnist.py): one object that knows
// this process's rank and wraps the optimizer, the datasets and the evaluator. Built with
// MPI (RENSA_HAVE_DISTRIBUTED, set by examples/CMakeLists.txt when rensa_distributed
// exists) it creates a communicator; without MPI it is a single process and every wrapper
// returns its argument, so an example has one code path for both builds.

#include <memory>
#include <string>
#include <utility>

#include "optimizers/optimizer.h"
#include "training/dataset.h"
#include "training/extensions/evaluator.h"

#ifdef RENSA_HAVE_DISTRIBUTED
#include "core/dtype.h"
#include "distributed/communicator.h"
#include "distributed/multi_node_evaluator.h"
#include "distributed/multi_node_optimizer.h"
#include "distributed/scatter_dataset.h"
#endif

namespace examples {

class MultiNode {
public:
    // Creates the communicator `name` ("naive", "flat", ...; initialises MPI) reducing the
    // grads in `grad_dtype` ("float16", "bfloat16", ...; empty: their own dtype). Without
    // MPI only a single process exists and both are ignored.
    explicit MultiNode([[maybe_unused]] const std::string& name, [[maybe_unused]] const std::string& grad_dtype = {}) {
#ifdef RENSA_HAVE_DISTRIBUTED
        rensa::distributed::CommunicatorOptions options;
        if (!grad_dtype.empty()) options.allreduce_grad_dtype = rensa::dtype_from_name(grad_dtype);
        comm_ = rensa::distributed::create_communicator(name, options);
#endif
    }

    [[nodiscard]] int rank() const {
#ifdef RENSA_HAVE_DISTRIBUTED
        return comm_->rank();
#else
        return 0;
#endif
    }
    [[nodiscard]] int size() const {
#ifdef RENSA_HAVE_DISTRIBUTED
        return comm_->size();
#else
        return 1;
#endif
    }
    // Rank 0 loads the data, prints, and writes the logs, plots and snapshots.
    [[nodiscard]] bool is_root() const { return rank() == 0; }

    // A multi-node optimizer around `actual` (gradients averaged over the ranks).
    [[nodiscard]] std::shared_ptr<rensa::optimizers::Optimizer> optimizer(
        std::shared_ptr<rensa::optimizers::Optimizer> actual) const {
#ifdef RENSA_HAVE_DISTRIBUTED
        return rensa::distributed::create_multi_node_optimizer(std::move(actual), comm_);
#else
        return actual;
#endif
    }

    // This rank's shard of the root's `dataset` (null on the other ranks before the call).
    [[nodiscard]] rensa::training::DatasetPtr scatter(rensa::training::DatasetPtr dataset,
                                                      [[maybe_unused]] bool shuffle,
                                                      [[maybe_unused]] uint64_t seed) const {
#ifdef RENSA_HAVE_DISTRIBUTED
        return rensa::distributed::scatter_dataset(std::move(dataset), comm_, {.shuffle = shuffle, .seed = seed});
#else
        return dataset;
#endif
    }

    // An evaluator whose results are the values over every rank's shard.
    [[nodiscard]] std::shared_ptr<rensa::training::extensions::Evaluator> evaluator(
        std::shared_ptr<rensa::training::extensions::Evaluator> local) const {
#ifdef RENSA_HAVE_DISTRIBUTED
        return rensa::distributed::create_multi_node_evaluator(std::move(local), comm_);
#else
        return local;
#endif
    }

    // Root's `error` (empty: none) on every rank, so that a failure on the root (a missing
    // data set) stops every rank with the root's message instead of leaving them waiting.
    [[nodiscard]] std::string share_root_error(std::string error) const {
#ifdef RENSA_HAVE_DISTRIBUTED
        return comm_->bcast_obj(error, 0);
#else
        return error;
#endif
    }

private:
#ifdef RENSA_HAVE_DISTRIBUTED
    rensa::distributed::CommunicatorPtr comm_;
#endif
};

}  // namespace examples
