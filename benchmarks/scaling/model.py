"""The scaling model: alpha-beta all-reduce terms, ring and hierarchical all-reduce, the
bucket pipeline of backward, and the efficiency at N ranks (README.md, "Model").

Times are in seconds, sizes in bytes. An all-reduce term is a line t(n) = a + b*n; a ring of
N ranks has a = 2(N-1)*alpha and b = 2(N-1)/N * beta (alpha per step, beta per byte of the
slowest link), which is how the fitted lines and the per-link terms convert. Where the
measured times bend (a cache regime and a memory regime on this machine), the fit is two such
lines, below and from a split size (Curve), and so are the per-link terms.
"""
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Line:
    """t(n) = a + b*n: latency a (s) and time per byte b (s/B)."""
    a: float
    b: float

    def __call__(self, n):
        return self.a + self.b * n

    @property
    def gbps(self):
        return 1e-9 / self.b if self.b > 0 else float("inf")


@dataclass(frozen=True)
class Curve:
    """One line, or two: `small` up to `split` bytes (the largest size it was fitted on: the cache
    regime is trusted no further than it was seen) and `large` beyond."""
    small: Line
    large: Optional[Line] = None
    split: Optional[int] = None

    def line_for(self, n):
        return self.small if self.large is None or n <= self.split else self.large

    def __call__(self, n):
        return self.line_for(n)(n)

    def regimes(self):
        """[(label, line)] for printing."""
        if self.large is None:
            return [("all sizes", self.small)]
        return [(f"<= {_size(self.split)}", self.small), (f"> {_size(self.split)}", self.large)]


def _size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


@dataclass(frozen=True)
class Link:
    """Per-step latency alpha (s) and per-byte time beta (s/B) of one ring hop."""
    alpha: float
    beta: float

    def at(self, n):
        return self


@dataclass(frozen=True)
class LinkCurve:
    """Per-hop terms by message size, the counterpart of a two-line Curve."""
    small: Link
    large: Link
    split: int

    def at(self, n):
        return self.small if n <= self.split else self.large


def _weighted_sums(points):
    w = [1.0 / (t * t) for _, t in points]
    return (sum(w), sum(wi * n for wi, (n, _) in zip(w, points)), sum(wi * t for wi, (_, t) in zip(w, points)),
            sum(wi * n * n for wi, (n, _) in zip(w, points)), sum(wi * n * t for wi, (n, t) in zip(w, points)))


def fit_line(points):
    """Least squares of t = a + b*n on [(n, t)], weighted by 1/t^2 (relative error), so that
    4 KiB and 256 MiB count alike. A negative term is clipped to 0 (the other refitted)."""
    sw, sx, sy, sxx, sxy = _weighted_sums(points)
    det = sw * sxx - sx * sx
    b = (sw * sxy - sx * sy) / det
    a = (sy - b * sx) / sw
    if a < 0:
        return Line(0.0, sxy / sxx)
    if b < 0:
        return Line(sy / sw, 0.0)
    return Line(a, b)


def _residual(line, points):
    return sum(((line(n) - t) / t) ** 2 for n, t in points)


def fit_curve(points, min_points=3, gain=0.5):
    """One line, or two split at the size that fits best, when two lines cut the squared
    relative residual by more than `gain` (each line on at least `min_points` sizes)."""
    points = sorted(points)
    single = fit_line(points)
    best, best_residual = Curve(single), _residual(single, points)
    for k in range(min_points, len(points) - min_points + 1):
        small, large = fit_line(points[:k]), fit_line(points[k:])
        residual = _residual(small, points[:k]) + _residual(large, points[k:])
        if residual < gain * _residual(single, points) and residual < best_residual:
            best, best_residual = Curve(small, large, points[k - 1][0]), residual
    return best


def fit_error(curve, points):
    """Median relative error of the fit over the points."""
    errors = sorted(abs(curve(n) - t) / t for n, t in points)
    return errors[len(errors) // 2]


def _line_to_link(line, ranks):
    steps = 2 * (ranks - 1)
    return Link(line.a / steps, line.b * ranks / steps)


def ring_link(curve, ranks):
    """The per-hop terms of a ring all-reduce over `ranks` whose total time is `curve` (a Line
    or a Curve). With two lines, the hop's latency is the small messages' alpha throughout (the
    large line's intercept is where the cache regime ends, not a latency) and its beta is each
    regime's own."""
    if isinstance(curve, Line):
        return _line_to_link(curve, ranks)
    if curve.large is None:
        return _line_to_link(curve.small, ranks)
    small, large = _line_to_link(curve.small, ranks), _line_to_link(curve.large, ranks)
    return LinkCurve(small, Link(small.alpha, large.beta), curve.split)


def ring_time(n, ranks, link):
    """Ring all-reduce over `ranks` on one kind of link: 2(N-1)alpha + 2(N-1)/N n beta."""
    if ranks <= 1:
        return 0.0
    hop = link.at(n)
    return 2 * (ranks - 1) * hop.alpha + 2 * (ranks - 1) / ranks * n * hop.beta


@dataclass(frozen=True)
class Cluster:
    """Nodes of `per_node` ranks: `intra` links inside a node, `inter` between nodes (each a
    Link or a LinkCurve)."""
    per_node: int
    intra: object
    inter: object


def flat_ring_time(n, ranks, cluster):
    """One ring over all ranks. Inside a node, the intra link; across nodes, every step waits
    for the inter-node hop (the bandwidth term) and the latency counts 2M inter-node hops and
    the rest intra (NCCL's ring latency model, src/graph/tuning.cc)."""
    if ranks <= cluster.per_node:
        return ring_time(n, ranks, cluster.intra)
    nodes = ranks // cluster.per_node
    steps = 2 * (ranks - 1)
    intra, inter = cluster.intra.at(n), cluster.inter.at(n)
    latency = (steps - 2 * nodes) * intra.alpha + 2 * nodes * inter.alpha
    return latency + steps / ranks * n * inter.beta


def hierarchical_time(n, ranks, cluster):
    """Reduce-scatter in the node, a ring across the nodes on 1/per_node of the data (each
    rank with its own inter-node link), all-gather in the node."""
    g = min(ranks, cluster.per_node)
    nodes = max(1, ranks // cluster.per_node)
    in_node = ring_time(n, g, cluster.intra)  # reduce-scatter + all-gather = one all-reduce's cost
    return in_node + ring_time(n / g, nodes, cluster.inter)


def buckets(network, bucket_bytes):
    """The gradient buckets in the order backward fills them (Note [Gradient buckets]): layers
    last to first, a bucket closing once it reaches bucket_bytes. Returns [(bytes, index of the
    layer whose gradients complete it)]."""
    out, size = [], 0
    for index in range(len(network.layers) - 1, -1, -1):
        for count in network.layers[index].params:
            size += 4 * count
            if size >= bucket_bytes:
                out.append((size, index))
                size = 0
    if size:
        out.append((size, 0))
    return out


def ready_times(network, backward_s):
    """When each layer's gradients are final, from the start of backward: backward time is
    split over the layers in proportion to their forward MACs, last layer first."""
    total = network.macs
    done, times = 0, [0.0] * len(network.layers)
    for index in range(len(network.layers) - 1, -1, -1):
        done += network.layers[index].macs
        times[index] = backward_s * done / total
    return times


def exposed_comm(network, backward_s, allreduce, bucket_bytes, overlap):
    """Communication time not hidden behind backward. Buckets start, in order, once complete
    and once the previous one finished (one all-reduce at a time); what runs past the end of
    backward is exposed. Without overlap (the reduction shares the cores with compute), every
    bucket's time is exposed."""
    layout = buckets(network, bucket_bytes)
    if not overlap:
        return sum(allreduce(size) for size, _ in layout)
    ready = ready_times(network, backward_s)
    end = 0.0
    for size, index in layout:
        end = max(end, ready[index]) + allreduce(size)
    return max(0.0, end - backward_s)


def straggler(jitter, ranks):
    """Expected wait for the slowest of `ranks` ranks per step: E[max of `ranks` independent draws]
    of the per-step compute jitter (samples of step time minus its rank's mean), from the
    empirical distribution: sum_k x_(k) (F_k^N - F_(k-1)^N)."""
    if ranks <= 1 or not jitter:
        return 0.0
    xs, m = sorted(jitter), len(jitter)
    expected = sum(x * (((k + 1) / m) ** ranks - (k / m) ** ranks) for k, x in enumerate(xs))
    return max(0.0, expected - sum(xs) / m)


@dataclass(frozen=True)
class Workload:
    """One network on one profile: the step compute time of one rank alone (t1) and at N ranks
    (compute(N): memory or core sharing), the wait for the slowest rank (skew(N)), and
    backward's share of the compute."""
    network: object
    t1: float
    compute: object  # ranks -> seconds
    skew: object = lambda ranks: 0.0  # ranks -> seconds  # noqa: E731
    backward_share: float = 2.0 / 3.0  # forward:backward = 1:2


def efficiency(workload, ranks, allreduce, bucket_bytes, overlap):
    """E(N) = t1 / (compute(N) + skew(N) + exposed comm): weak scaling, images/s(N) / (N images/s(1))."""
    if ranks == 1:
        return 1.0
    compute = workload.compute(ranks)
    comm = exposed_comm(workload.network, workload.backward_share * compute, allreduce, bucket_bytes, overlap)
    return workload.t1 / (compute + workload.skew(ranks) + comm)
