"""Step(comm=...) in one process: MPI.COMM_WORLD of a process started
without mpirun is one rank, whose step trains as a step without a
communicator does; misuse raises AmpError. Two ranks are tested under
mpirun (test/Python/data-parallel.test)."""

import numpy as np
import pytest
from mpi4py import MPI

import ampmlir
from ampmlir import AmpError

from conftest import EXAMPLES


@pytest.fixture(scope="module")
def mlp_dp(tmp_path_factory):
    return ampmlir.compile(EXAMPLES / "mlp.mlir",
                           tmp_path_factory.mktemp("mlp_dp"),
                           compute_type="f16",
                           train_options="data-parallel=true")


def test_one_rank_trains_as_one_process(mlp_dp):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 784)).astype(np.float32)
    labels = rng.integers(0, 10, size=64)
    with mlp_dp.load(comm=MPI.COMM_WORLD) as joined, mlp_dp.load() as alone:
        assert (joined.rank, joined.replicas) == (0, 1)
        assert (alone.rank, alone.replicas) == (0, 1)
        joined.init(seed=3)
        alone.init(seed=3)
        for _ in range(3):
            joined.run(x, labels)
            alone.run(x, labels)
        joined.check_replicas()
        assert joined.loss == alone.loss
        for name in ("w1", "b2"):
            np.testing.assert_array_equal(joined.read(name), alone.read(name))


def test_a_step_without_data_parallelism_refuses_a_comm(mlp_f16):
    with pytest.raises(AmpError, match="compiled without data parallelism"):
        mlp_f16.load(comm=MPI.COMM_WORLD)


def test_comm_must_be_an_mpi4py_communicator(mlp_dp):
    with pytest.raises(AmpError, match="must be an mpi4py communicator"):
        mlp_dp.load(comm=object())
    with pytest.raises(AmpError, match="comm_timeout must be positive"):
        mlp_dp.load(comm=MPI.COMM_WORLD, comm_timeout=0)
    with pytest.raises(AmpError, match="transport must be 'mpi' or 'nccl'"):
        mlp_dp.load(comm=MPI.COMM_WORLD, transport="gloo")


def test_nccl_needs_a_gpu_on_every_rank(mlp_dp):
    if not ampmlir.cuda_available():
        with pytest.raises(AmpError, match="has no CUDA device|has no NCCL"):
            mlp_dp.load(comm=MPI.COMM_WORLD, transport="nccl")
        return
    # With a GPU, one rank joins through NCCL; this host step's reductions
    # go through MPI.
    with mlp_dp.load(comm=MPI.COMM_WORLD, transport="nccl") as step:
        assert (step.rank, step.replicas) == (0, 1)
        step.init(seed=1)


@pytest.fixture
def launch_env(monkeypatch):
    """No launch variables but those a test sets."""
    for name in ("RANK", "WORLD_SIZE", "AMP_NCCL_ID_FILE", "NCCL_COMM_ID",
                 "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_env_comm_names_what_is_missing_or_wrong(mlp_dp, launch_env):
    with pytest.raises(AmpError, match="WORLD_SIZE is not set"):
        mlp_dp.load(comm="env")
    launch_env.setenv("WORLD_SIZE", "2")
    launch_env.setenv("RANK", "5")
    with pytest.raises(AmpError, match="RANK=5: need a whole number from 0 "
                                       "to 1"):
        mlp_dp.load(comm="env")
    launch_env.setenv("RANK", "1")
    with pytest.raises(AmpError, match="no way to NCCL's unique id"):
        mlp_dp.load(comm="env")
    with pytest.raises(AmpError, match="reduce through NCCL, not "
                                       "transport='mpi'"):
        mlp_dp.load(comm="env", transport="mpi")
    with pytest.raises(AmpError, match="or 'env', not 'environment'"):
        mlp_dp.load(comm="environment")


def test_env_comm_of_one_rank(mlp_dp, launch_env, tmp_path):
    """Rank 0 of 1 writes NCCL's id to the file, and removes it whether
    or not it can go on: without a GPU (or NCCL) it refuses."""
    id_file = tmp_path / "job.id"
    launch_env.setenv("RANK", "0")
    launch_env.setenv("WORLD_SIZE", "1")
    launch_env.setenv("AMP_NCCL_ID_FILE", str(id_file))
    if not ampmlir.cuda_available():
        with pytest.raises(AmpError, match="this rank has no CUDA device|"
                                           "this build of the runtime has "
                                           "no NCCL"):
            mlp_dp.load(comm="env")
        assert not id_file.exists()
        return
    # The communicator's own collectives (the fingerprints) through NCCL.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 784)).astype(np.float32)
    labels = rng.integers(0, 10, size=64)
    with mlp_dp.load(comm="env") as step:
        assert (step.rank, step.replicas) == (0, 1)
        assert not id_file.exists()
        step.init(seed=1)
        step.run(x, labels)
        step.check_replicas()
