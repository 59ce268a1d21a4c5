"""ChainerMN scripts (tests/python/chainer_style/mn_*.py) run on rensa under mpiexec with only
their imports changed, and print the same first losses as real ChainerMN where it is
installed."""
from chainer_style_harness import assert_same_first_losses, first_losses, run_ported, run_on_chainer


def test_model_parallel(tmp_path):
    """MultiNodeChainList with send/recv between two ranks, an empty dataset on rank 1, and
    comm.mpi_comm (mpi4py) at the end: a Barrier and allreduce(op=MPI.MAX); the job exits 0."""
    ours = run_ported('mn_model_parallel.py', tmp_path, '--out', tmp_path / 'result', mpiexec_n=2, timeout=120)
    assert len(first_losses(ours)) == 6
    assert 'rank 0 of 2 done' in ours and 'rank 1 of 2 done' in ours
    theirs = run_on_chainer('mn_model_parallel.py', '--out', tmp_path / 'chainer', mpiexec_n=2, timeout=120)
    assert_same_first_losses(ours, theirs)


def test_dual_parallel(tmp_path):
    """Model-parallel pairs inside data-parallel groups (comm.split), four ranks."""
    ours = run_ported('mn_dual_parallel.py', tmp_path, '--out', tmp_path / 'result', mpiexec_n=4, timeout=120)
    assert len(first_losses(ours)) == 8  # rank 0's six, then each pair's first
    theirs = run_on_chainer('mn_dual_parallel.py', '--out', tmp_path / 'chainer', mpiexec_n=4, timeout=120)
    assert_same_first_losses(ours, theirs)
