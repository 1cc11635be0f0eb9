"""stridedarray chunks on a dask.distributed cluster of two worker processes: arrays travel
between processes (pickle protocol 5), the design notes' workload scaled out computes right,
each chunk takes the pack-once route, and the workers' BLAS pools run one thread each."""

from __future__ import annotations

import os

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import stridedarray as sa  # noqa: E402

S = 256
B = 8


@pytest.fixture(scope="module")
def client():
    # Starting worker processes sets OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and others to 1 in
    # this process's own environment (distributed's pre-spawn settings) and leaves them: a
    # later test's child (the benchmark's quick run) would then run at one thread.
    environ = dict(os.environ)
    try:
        yield from _cluster_client()
    finally:
        os.environ.clear()
        os.environ.update(environ)


def _cluster_client():
    with distributed.LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        dashboard_address=None,
        worker_dashboard_address=None,
    ) as c:
        with distributed.Client(c) as cl:
            yield cl


def _explain(lhs: sa.Array, rhs: sa.Array) -> dict:
    return sa.matmul_explain(lhs, rhs).to_dict()


def _blas_threads() -> tuple[int, list[int]]:
    from threadpoolctl import threadpool_info

    from stridedarray._matmul.ffi import lib

    numpy_pools = [
        p["num_threads"] for p in threadpool_info() if p.get("internal_api") == "openblas"
    ]
    return lib.scipy_openblas_get_num_threads(), numpy_pools


def _route_and_type(lhs: sa.Array, rhs: sa.Array) -> tuple[str, str]:
    return sa.matmul_explain(lhs, rhs).to_dict()["route"], type(lhs @ rhs).__name__


def test_design_workload_scaled_out_over_two_worker_processes(client):
    rng = np.random.default_rng(7)
    shared = rng.standard_normal((1, S, S))
    batch = rng.standard_normal((B, S, S))
    lhs = da.from_array(sa.asarray(shared)[..., ::-1], chunks=(1, S, S), asarray=False)
    rhs = da.from_array(sa.asarray(batch), chunks=(2, S, S), asarray=False)
    prod = lhs @ rhs
    assert isinstance(prod._meta, sa.Array)
    got = prod.compute()
    assert isinstance(got, sa.Array)
    np.testing.assert_allclose(np.asarray(got), shared[..., ::-1] @ batch, rtol=1e-10, atol=1e-10)
    # Each chunk's product: the reversed shared operand is packed once for its batch.
    rhs_chunk = sa.asarray(batch[:2])
    fut = client.submit(_route_and_type, sa.asarray(shared)[..., ::-1], rhs_chunk, pure=False)
    route, kind = fut.result(timeout=60)
    assert route == "pack_blas" and kind == "Array"
    # Both workers took part.
    assert len(client.scheduler_info()["workers"]) == 2


def test_arrays_travel_between_workers_and_back(client):
    x = sa.reshape(sa.arange(24.0), (4, 6))[::-1, ::2]
    workers = list(client.scheduler_info()["workers"])
    f1 = client.scatter(x, workers=[workers[0]])
    f2 = client.submit(lambda a: a[::-1] * 2, f1, workers=[workers[1]], pure=False)
    back = f2.result(timeout=60)
    assert isinstance(back, sa.Array)
    np.testing.assert_array_equal(np.asarray(back), np.asarray(x)[::-1] * 2)


def test_worker_blas_pools_run_one_thread_per_task(client):
    for ours, numpys in client.run(_blas_threads).values():
        assert ours == 1
        assert all(n == 1 for n in numpys)


def test_distributed_serialization_ships_the_payload_out_of_band():
    from distributed.protocol import deserialize, serialize

    x = sa.reshape(sa.arange(4096.0), (64, 64))[:, ::-1]
    header, frames = serialize(x)
    assert header["serializer"] == "pickle"
    sizes = sorted(memoryview(f).nbytes for f in frames)
    assert len(frames) == 2 and sizes[-1] == 4096 * 8  # the elements: one buffer, not pickled
    y = deserialize(header, frames)
    assert isinstance(y, sa.Array) and y.strides == x.strides
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))


def test_documented_map_blocks_asarray_pattern_on_the_cluster(client):
    # docs/scale-out.md: NumPy chunks become ours with `map_blocks(sa.asarray)`; the graph
    # ships sa.asarray (a C callable) and the operations' functions to the worker processes,
    # which needs them to pickle (by reference, docs/reliability.md)
    rng = np.random.default_rng(3)
    a_np = rng.standard_normal((8, 6, 6))
    b_np = rng.standard_normal((6, 5))
    a = da.from_array(a_np, chunks=(2, 6, 6)).map_blocks(sa.asarray)
    b = da.from_array(b_np, chunks=(6, 5)).map_blocks(sa.asarray)
    # the functions themselves travel too, as task arguments
    exp = a.map_blocks(sa.exp)
    summed = (a * 2 + 1).sum(axis=0)
    prod = a @ b
    got_exp, got_sum, got_prod = client.compute([exp, summed, prod], sync=True)
    for got, want in (
        (got_exp, np.exp(a_np)),
        (got_sum, (a_np * 2 + 1).sum(axis=0)),
        (got_prod, a_np @ b_np),
    ):
        assert isinstance(got, sa.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
    (back,) = client.gather([client.submit(sa.add, sa.asarray([1.0]), 2.0, pure=False)])
    assert np.asarray(back).tolist() == [3.0]
