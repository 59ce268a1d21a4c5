"""Hardware profiles of the scaling model: the GPU cluster (published figures, each with its
source) and this machine (built by run.py from what it measures here).

GPU cluster: H100/H200 nodes of 8 GPUs on NVLink/NVSwitch, one 400 Gb/s InfiniBand NDR port
per GPU. Figures, and where each comes from:

  intra-node all-reduce  NVIDIA nccl-tests `all_reduce_perf -b 8 -e 8G -f 2 -g 8` (NCCL_ALGO=NVLS,
                         in-place bus bandwidth) on an Azure ND H200 v5 VM (8x H200, NCCL 2.20.5),
                         published in Azure/AI-benchmarking-guide, Azure_Results/ND_H200_v5_results.md
                         (https://github.com/Azure/AI-benchmarking-guide). The H100 twin of that table
                         (ND_H100_v5_results.md, NCCL 2.18.5) is within 3% from 256 KiB up.
                         Bus bandwidth -> time with nccl-tests' own definition
                         (doc/PERFORMANCE.md: busbw = algbw * 2(n-1)/n, n = 8), then fitted like
                         the measured sizes here (4 KiB to 256 MiB; model.fit_curve).
  inter-node bandwidth   400 Gb/s NDR per GPU, 8 per node; achieved "greater than 750 Gbit/s"
                         bidirectional ib_write_bw between a pair of ports on Lambda's H100 SXM5
                         cluster (https://lambdalabs.com/blog/deepchat-3-step-training-at-scale-
                         nvidia-h100-sxm5-vs-a100-sxm4): 375 Gb/s = 46.9 GB/s per direction.
  inter-node latency     14.0 us per ring step over the network: NCCL's own cost model,
                         hwLat[NET][Ring][Simple] in src/graph/tuning.cc (NVIDIA/nccl, the Hopper-era
                         tables; NVLink ring steps there: 3.4 us).
  ResNet-50 step         NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/
                         README.md: 2470 img/s per A100 80GB (DGX A100, mixed precision, batch 256),
                         times 1.8 for H100 over A100 on ResNet-50 in MLPerf Training v3.0 (Dell's
                         16-GPU submissions, 7.8 vs 14.4 minutes; https://silvertonconsulting.com/
                         2023/07/12/mlperf-results-show-h100-v-a100-and-v-habana-gaudi2-gpus/):
                         4446 img/s, so 32 / 4446 = 7.2 ms per step at batch 32. A batch-256
                         throughput makes this a lower bound on the batch-32 step (small batches
                         run less efficiently), so the predicted efficiency is a lower bound too.
  MLP step               no published figure: the ResNet-50 rate scaled by FLOPs (networks.py),
                         an optimistic (short) step, so again a lower bound on the efficiency.
"""
from model import Cluster, Link, fit_curve, ring_link

GPU_PER_NODE = 8

# (message bytes, in-place bus bandwidth GB/s) from the ND H200 v5 table cited above, 4 KiB..256 MiB
# (its rows are labelled 4K, 8K, ..., 268M: powers of two).
H200_NVLS_BUSBW = ((1 << 12, 0.23), (1 << 13, 0.47), (1 << 14, 0.93), (1 << 15, 1.84), (1 << 16, 3.72),
                   (1 << 17, 7.39), (1 << 18, 14.75), (1 << 19, 29.38), (1 << 20, 52.96), (1 << 21, 88.78),
                   (1 << 22, 138.44), (1 << 23, 181.94), (1 << 24, 240.41), (1 << 25, 300.91),
                   (1 << 26, 368.11), (1 << 27, 412.45), (1 << 28, 432.24))

IB_GBPS_PER_DIRECTION = 375.0 / 8  # GB/s: half of the 750 Gb/s bidirectional ib_write_bw
NCCL_NET_RING_STEP_S = 14.0e-6
A100_RESNET50_IMG_S = 2470.0
H100_OVER_A100_RESNET50 = 1.8


def busbw_to_time(size, busbw_gbps, ranks):
    """nccl-tests: busbw = (size / t) * 2(n-1)/n."""
    return size * 2 * (ranks - 1) / ranks / (busbw_gbps * 1e9)


def gpu_intra_points():
    return [(size, busbw_to_time(size, bw, GPU_PER_NODE)) for size, bw in H200_NVLS_BUSBW]


def gpu_cluster():
    """The GPU cluster's links (the fitted NVLink all-reduce as ring hops, and InfiniBand), and
    the NVLink fit itself."""
    intra = fit_curve(gpu_intra_points())
    return Cluster(GPU_PER_NODE, ring_link(intra, GPU_PER_NODE),
                   Link(NCCL_NET_RING_STEP_S, 1.0 / (IB_GBPS_PER_DIRECTION * 1e9))), intra


def gpu_resnet50_step(batch):
    return batch / (A100_RESNET50_IMG_S * H100_OVER_A100_RESNET50)


def machine_cluster(flat_2, mpi_2, per_node=2):
    """This machine as the node of a hypothetical cluster: `per_node` ranks per node reduced by the
    flat communicator (its measured 2-rank curve as ring hops); between nodes, what MPI moves
    between two processes here (its 2-rank MPI_Allreduce curve as a ring hop). No network was
    measured (loopback only), so the inter-node link is an optimistic stand-in."""
    return Cluster(per_node, ring_link(flat_2, 2), ring_link(mpi_2, 2))
