"""Real ChainerMN 7.8.1 running rensa's distributed MLP benchmark (train_mlp_distributed.cc).

The same job written the ChainerMN way: MLP 784-1000-1000-10 (ReLU) in L.Classifier,
Adam in a multi-node optimizer, batch 100 per process (weak scaling), Fashion-MNIST
loaded on rank 0 and shuffled out by scatter_dataset, SerialIterator + concat_examples +
optimizer.update, 300 timed steps after 20 warm-up steps, barriers around the timed loop.
    [mpiexec -n N] .venv-chainermn/bin/python benchmarks/distributed/chainermn_mlp.py
        [--iterations 300] [--warmup 20] [--communicator naive|flat|...|none]
Rank 0 prints one JSON line, the same fields as rensa's program. Run it with
OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1 (chainermn_side.py does). Without
mpiexec it is a singleton MPI job: the 1-process baseline through the multi-node optimizer.
The venv comes from scripts/install-chainermn-bench.sh.
"""
import argparse
import json
import os
import sys
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "train_mlp"))
import bench_common  # noqa: E402  (Fashion-MNIST from Debian's package, as rensa's benchmarks read it)


class MLP(chainer.Chain):
    """Chainer's train_mnist MLP with the input size given, as benchmarks/train_mlp/mlp.h."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, 1000)
            self.l2 = L.Linear(1000, 1000)
            self.l3 = L.Linear(1000, 10)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def load_train():
    # Chainer's get_fashion_mnist() layout: float32 (784,) in [0, 1], int32 labels.
    images, labels = bench_common.load_train()
    return chainer.datasets.TupleDataset(images, labels.astype(np.int32))


def main():
    parser = argparse.ArgumentParser(description="ChainerMN MLP throughput on Fashion-MNIST")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--communicator", default="naive",
                        help="a ChainerMN communicator (naive is the one for CPU arrays), or none: "
                             "plain Adam without ChainerMN or MPI")
    args = parser.parse_args()

    np.random.seed(0)  # the initializers and SerialIterator draw from numpy's global generator
    model = L.Classifier(MLP())
    model.compute_accuracy = False
    optimizer = chainer.optimizers.Adam()
    if args.communicator == "none":
        comm, train = None, load_train()
    else:
        import chainermn  # imported here: it initializes MPI through mpi4py
        comm = chainermn.create_communicator(args.communicator)
        optimizer = chainermn.create_multi_node_optimizer(optimizer, comm)
        # Rank 0 alone reads the files; every rank gets its shuffled shard.
        train = load_train() if comm.rank == 0 else None
        train = chainermn.scatter_dataset(train, comm, shuffle=True, seed=0)
    optimizer.setup(model)
    it = chainer.iterators.SerialIterator(train, 100)

    def step():
        x, t = chainer.dataset.concat_examples(it.next())
        optimizer.update(model, x, t)

    for _ in range(args.warmup):
        step()
    if comm is not None:
        comm.mpi_comm.Barrier()
    start = time.perf_counter()
    for _ in range(args.iterations):
        step()
    if comm is not None:
        comm.mpi_comm.Barrier()
    seconds = time.perf_counter() - start

    # The last loss averaged over the ranks, as rensa's program reports it.
    loss = float(model.loss.array)
    processes = 1 if comm is None else comm.size
    if comm is not None:
        loss = comm.allreduce_obj(loss) / comm.size
    if comm is None or comm.rank == 0:
        print(json.dumps({"images_per_s": round(args.iterations * 100 * processes / seconds, 1),
                          "seconds": round(seconds, 3), "step_ms": round(seconds * 1e3 / args.iterations, 3),
                          "iterations": args.iterations, "processes": processes,
                          "last_loss": round(loss, 4)}), flush=True)


if __name__ == "__main__":
    main()
