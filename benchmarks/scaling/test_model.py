"""Checks of the scaling model on synthetic data (no measurement):
    python3 benchmarks/scaling/test_model.py    (or run.py --self-check)"""
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import model  # noqa: E402
import networks  # noqa: E402
import profiles  # noqa: E402

SIZES = [1 << k for k in range(12, 29)]


class FitTest(unittest.TestCase):
    def test_recovers_a_line_through_noise(self):
        rng = random.Random(0)
        truth = model.Line(20e-6, 1 / 5e9)
        points = [(n, truth(n) * (1 + rng.uniform(-0.03, 0.03))) for n in SIZES]
        line = model.fit_line(points)
        self.assertAlmostEqual(line.a / truth.a, 1.0, delta=0.05)
        self.assertAlmostEqual(line.b / truth.b, 1.0, delta=0.05)
        self.assertLess(model.fit_error(line, points), 0.03)

    def test_ring_terms_round_trip(self):
        link = model.Link(3e-6, 1 / 100e9)
        line = model.Line(6 * link.alpha, 6 / 4 * link.beta)  # the ring line of 4 ranks
        back = model.ring_link(line, 4)
        self.assertAlmostEqual(back.alpha, link.alpha)
        self.assertAlmostEqual(back.beta, link.beta)


    def test_two_regimes_are_found(self):
        # A cache regime (20 GB/s) up to 2 MiB and a memory regime (8 GB/s) from 4 MiB.
        points = [(n, 2e-6 + n / (20e9 if n <= 1 << 21 else 8e9)) for n in SIZES]
        curve = model.fit_curve(points)
        self.assertEqual(curve.split, 1 << 21)  # the largest size seen in the cache regime
        self.assertAlmostEqual(curve.small.gbps, 20.0, delta=0.5)
        self.assertAlmostEqual(curve.large.gbps, 8.0, delta=0.2)
        self.assertLess(model.fit_error(curve, points), 0.01)
        link = model.ring_link(curve, 2)
        self.assertEqual(link.at(1 << 26).alpha, link.at(4096).alpha)  # latency from small messages
        self.assertAlmostEqual(1e-9 / link.at(1 << 26).beta, 8.0, delta=0.2)

    def test_a_straight_line_stays_one_line(self):
        rng = random.Random(1)
        points = [(n, (5e-6 + n / 10e9) * (1 + rng.uniform(-0.05, 0.05))) for n in SIZES]
        self.assertIsNone(model.fit_curve(points).large)


    def test_straggler(self):
        self.assertEqual(model.straggler([0.0] * 10, 8), 0.0)
        # Two equally likely values +-1: the max of 2 is +1 with probability 3/4.
        self.assertAlmostEqual(model.straggler([-1.0, 1.0], 2), 0.5)
        self.assertEqual(model.straggler([0.3, -0.3], 1), 0.0)
        rng = random.Random(3)
        normal = [rng.gauss(0, 1) for _ in range(20000)]
        self.assertAlmostEqual(model.straggler(normal, 2), 1 / math.sqrt(math.pi), delta=0.03)


class AllreduceTest(unittest.TestCase):
    cluster = model.Cluster(8, model.Link(2e-6, 1 / 400e9), model.Link(14e-6, 1 / 50e9))

    def test_one_node_is_one_ring(self):
        for n in (4096, 1 << 26):
            self.assertAlmostEqual(model.hierarchical_time(n, 8, self.cluster),
                                   model.flat_ring_time(n, 8, self.cluster))

    def test_hierarchical_beats_flat_ring_across_nodes(self):
        for ranks in (16, 128, 1024):
            self.assertLess(model.hierarchical_time(1 << 25, ranks, self.cluster),
                            model.flat_ring_time(1 << 25, ranks, self.cluster))

    def test_ring_bandwidth_term_tends_to_2n_beta(self):
        link = model.Link(0.0, 1e-9)
        self.assertAlmostEqual(model.ring_time(1e6, 1000, link), 2 * 999 / 1000 * 1e6 * 1e-9)


class PipelineTest(unittest.TestCase):
    def setUp(self):
        self.net = networks.resnet50(32)

    def test_networks(self):
        self.assertEqual(self.net.param_count, 25557032)
        self.assertEqual(networks.mlp().grad_bytes, 4 * (784 * 1000 + 1000 + 1000 * 1000 + 1000 + 10 * 1000 + 10))
        self.assertAlmostEqual(self.net.macs / 1e9, 4.089, places=2)

    def test_buckets_cover_every_gradient_once(self):
        layout = model.buckets(self.net, 25 << 20)
        self.assertEqual(sum(size for size, _ in layout), self.net.grad_bytes)
        self.assertTrue(all(size >= 25 << 20 for size, _ in layout[:-1]))
        self.assertEqual(len(model.buckets(networks.mlp(), 25 << 20)), 1)

    def test_free_communication_costs_nothing(self):
        self.assertEqual(model.exposed_comm(self.net, 1.0, lambda n: 0.0, 25 << 20, True), 0.0)

    def test_overlap_hides_all_but_the_tail(self):
        # Every bucket takes 1 ms; backward 1 s: only the last bucket (ready at the end) shows.
        exposed = model.exposed_comm(self.net, 1.0, lambda n: 1e-3, 25 << 20, True)
        self.assertAlmostEqual(exposed, 1e-3)
        self.assertAlmostEqual(model.exposed_comm(self.net, 1.0, lambda n: 1e-3, 25 << 20, False),
                               1e-3 * len(model.buckets(self.net, 25 << 20)))

    def test_slow_links_are_fully_exposed(self):
        # Comm far longer than backward: exposed ~ all of it minus when the first bucket started.
        exposed = model.exposed_comm(self.net, 1e-3, lambda n: 1.0, 25 << 20, True)
        self.assertGreater(exposed, len(model.buckets(self.net, 25 << 20)) - 1e-2)

    def test_efficiency_falls_with_ranks(self):
        cluster, _ = profiles.gpu_cluster()
        work = model.Workload(self.net, 7e-3, lambda ranks: 7e-3)
        curve = [model.efficiency(work, n, lambda s, n=n: model.hierarchical_time(s, n, cluster), 25 << 20, True)
                 for n in (1, 8, 64, 512)]
        self.assertEqual(curve[0], 1.0)
        self.assertTrue(all(a >= b for a, b in zip(curve, curve[1:])))
        self.assertTrue(all(0 < e <= 1 and not math.isnan(e) for e in curve))


def main():
    result = unittest.main(module=__name__, argv=[sys.argv[0]], exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
