"""PyTorch interop (issue 13.6): to_module matches numeric.run; from_module reads BaseConv blocks."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the torch extra is not installed (pip install torch==2.13.0)")

from symconv import numeric  # noqa: E402
from symconv.constructions.random import random_stack  # noqa: E402
from symconv.model import HypothesisError  # noqa: E402
from symconv.torch import from_module, to_module  # noqa: E402

nn = torch.nn


# ---------------------------------------------------------------- reference zoology-style block
# Written from the description: y = conv(u) ⊙ projection(u) + u, with a long convolution
# (explicit filter, causal, by FFT of length 2N) plus its skip term D ⊙ u.


class LongConvolution(nn.Module):
    def __init__(self, d, l_max, skip=True):
        super().__init__()
        self.filter = nn.Parameter(torch.randn(d, l_max, dtype=torch.float64) / l_max)
        if skip:
            self.D = nn.Parameter(torch.randn(d, dtype=torch.float64))

    def forward(self, u):  # (B, N, d)
        N = u.shape[1]
        x = u.transpose(1, 2)
        n = 2 * N
        y = torch.fft.irfft(torch.fft.rfft(x, n=n) * torch.fft.rfft(self.filter[:, :N], n=n), n=n)[..., :N]
        if hasattr(self, "D"):
            y = y + x * self.D[:, None]
        return y.transpose(1, 2)


class ShortConvolution(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.conv = nn.Conv1d(d, d, k, groups=d, padding=k - 1, dtype=torch.float64)

    def forward(self, u):
        return self.conv(u.transpose(1, 2))[..., : u.shape[1]].transpose(1, 2)


class BaseConvBlock(nn.Module):
    def __init__(self, d, l_max, conv=None, use_act=False):
        super().__init__()
        self.projection = nn.Linear(d, d, dtype=torch.float64)
        self.conv = conv if conv is not None else LongConvolution(d, l_max)
        self.use_act = use_act
        if use_act:
            self.act = nn.SiLU()

    def forward(self, u):
        c = self.conv(u)
        if self.use_act:
            c = self.act(c)
        return c * self.projection(u) + u


# ---------------------------------------------------------------- to_module


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-10), (torch.float32, 1e-4)])
@pytest.mark.parametrize("conv", ["causal", "circular"])
def test_to_module_matches_numeric_run(dtype, tol, conv):
    for seed in range(4):
        stack = random_stack(N=6, d=2, L=3, N_int=9, d_int=3, seed=seed, conv=conv)
        u = np.random.default_rng(seed).standard_normal((5, 6, 2))
        want = numeric.run(stack, u, dtype="float64")
        m = to_module(stack, dtype=dtype)
        got = m(torch.tensor(u, dtype=dtype)).detach().double().numpy()
        assert got.shape == want.shape == (5, 6, 2)
        scale = max(1.0, np.abs(want).max())
        assert np.abs(got - want).max() <= tol * scale
        if dtype == torch.float32:  # the float32 module agrees with the float32 interpreter too
            w32 = numeric.run(stack, u, dtype="float32")
            assert np.abs(got - w32).max() <= tol * scale


def test_to_module_is_trainable_and_checks_shapes():
    stack = random_stack(N=4, d=1, L=2, seed=1)
    m = to_module(stack)
    assert sum(p.numel() for p in m.parameters()) > 0
    m(torch.randn(3, 4, 1, dtype=torch.float64)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    with pytest.raises(HypothesisError, match=r"u: expected shape \(\.\.\., 4, 1\)"):
        m(torch.randn(3, 5, 1))
    with pytest.raises(HypothesisError, match="dtype"):
        to_module(stack, dtype=torch.int64)


def test_symbolic_parameters_are_refused_by_name():
    from symconv import Layer, Stack, sym

    a = sym("a", 1)[0, 0]
    stack = Stack(2, 1, (Layer(W=[[a]], h=[[1]], b1=[[0]], b2=[[0]]),))
    with pytest.raises(HypothesisError, match=r"layers\[0\]\.W: to_module needs numeric parameters"):
        to_module(stack)


# ---------------------------------------------------------------- from_module


def test_from_module_reads_a_block_exactly():
    torch.manual_seed(0)
    block = BaseConvBlock(3, 16)
    stack = from_module(block, N=10)
    assert stack.signature.L == 3 and (stack.N_int, stack.d_int) == (10, 6)
    u = torch.randn(4, 10, 3, dtype=torch.float64)
    want = block(u).detach().numpy()
    assert np.abs(numeric.run(stack, u.numpy()) - want).max() < 1e-10
    assert np.abs(to_module(stack)(u).detach().numpy() - want).max() < 1e-10


def test_from_module_sequences_short_convolutions_and_no_residual():
    torch.manual_seed(1)
    net = nn.Sequential(BaseConvBlock(2, 8, conv=ShortConvolution(2, 3)), BaseConvBlock(2, 8))
    stack = from_module(net, N=8)
    u = torch.randn(2, 8, 2, dtype=torch.float64)
    assert stack.signature.L == 6
    assert np.abs(numeric.run(stack, u.numpy()) - net(u).detach().numpy()).max() < 1e-10
    block = BaseConvBlock(2, 8)
    one = from_module(block, N=8, residual=False)
    assert one.signature.L == 1 and one.d_int == 2
    want = (block(u) - u).detach().numpy()
    assert np.abs(numeric.run(one, u.numpy()) - want).max() < 1e-10


def test_parts_without_an_exact_form_are_named():
    with pytest.raises(HypothesisError, match=r"module\.act: the activation SiLU"):
        from_module(BaseConvBlock(2, 8, use_act=True), N=8)
    implicit = BaseConvBlock(2, 8)
    implicit.conv = nn.Sequential(nn.Linear(1, 2))  # a filter generated by a network
    with pytest.raises(HypothesisError, match="no explicit filter"):
        from_module(implicit, N=8)
    extra = BaseConvBlock(2, 8)
    extra.norm = nn.LayerNorm(2)
    with pytest.raises(HypothesisError, match=r"module\.norm: LayerNorm has no exact BaseConv form"):
        from_module(extra, N=8)
    with pytest.raises(HypothesisError, match="longer than the filter"):
        from_module(BaseConvBlock(2, 8), N=9)
    wide = BaseConvBlock(2, 8)
    wide.projection = nn.Linear(2, 3)
    with pytest.raises(HypothesisError, match="projection: maps 2 to 3"):
        from_module(wide, N=8)
