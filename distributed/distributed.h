#pragma once
// rensa::distributed (chainermn): everything of the distributed module in one include.
//
//   auto comm = distributed::create_communicator("flat");        // MPI starts here
//   auto train = distributed::scatter_dataset(rank0_only_dataset, comm, {.shuffle = true});
//   auto opt = distributed::create_multi_node_optimizer(std::make_shared<optimizers::Adam>(), comm);
//   trainer.extend(distributed::create_multi_node_evaluator(evaluator, comm));
//
// Run under `mpiexec -n N`; alone, the same program is a job of size 1.

#include "distributed/allreduce_persistent.h"
#include "distributed/checkpoint.h"
#include "distributed/communicator.h"
#include "distributed/functions/point_to_point.h"
#include "distributed/links/multi_node_batch_normalization.h"
#include "distributed/links/multi_node_chain_list.h"
#include "distributed/multi_node_early_stopping_trigger.h"
#include "distributed/multi_node_evaluator.h"
#include "distributed/multi_node_optimizer.h"
#include "distributed/scatter_dataset.h"
