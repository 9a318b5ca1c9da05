"""A distributed sweep (issue 13.8): verify through a dask.distributed cluster's executor."""
import pytest

from symconv import verify
from symconv.registry import load_claims

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")

from symconv import Claim, Instance, Layer, Signature, SizeParam, Stack, Variant, sym  # noqa: E402
from symconv.blocks import rows  # noqa: E402


def difference(offset=0):
    """A claim built from closures and lambdas: y[i] - y[i-1], plus ``offset`` (then wrong)."""
    def build(z):
        N = z["N"]
        y = sym("y", N)
        layer = Layer(W=[[0]], h=[[1], [-1]], b1=[[1]], b2=[[0]])
        return Instance(y, Stack(N, 1, (layer,)), (rows(y, 0, 1) | (rows(y, 1, N) - rows(y, 0, N - 1))) + offset)
    return Claim("mine.1", "difference", "y[i] - y[i-1]", (SizeParam("N", 2),),
                 lambda z: Signature(z["N"], 1, 1, z["N"], 1), (Variant("construction", build),))


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_sweep_on_a_local_cluster_matches_the_serial_sweep(client):
    for claim in (difference(), difference(offset=2)):
        serial = verify(claim, max_size=6)
        spread = verify(claim, max_size=6, executor=client.get_executor())
        assert [(v.verdict, v.failure, v.sizes_checked) for v in spread] == \
               [(v.verdict, v.failure, v.sizes_checked) for v in serial]
    assert spread[0].failure is not None and serial[0].verdict == "fails"


def test_a_paper_proof_on_the_cluster(client):
    (claim,) = [c for c in load_claims() if c.name == "add_n"]
    serial = verify(claim, max_size=4)
    spread = verify(claim, max_size=4, executor=client.get_executor())
    assert [(v.variant, v.verdict) for v in spread] == [(v.variant, v.verdict) for v in serial]
    assert {v.verdict for v in spread} == {"holds", "fails"}
