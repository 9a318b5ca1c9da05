"""``symconv crosscheck``, the CuPy dispatch on a stand-in namespace, parallel sweeps, plots."""
import json
import sys
import textwrap

import numpy as np
import pytest

from symconv import cli
from symconv.claims import verify
from symconv.commands import crosscheck as cc
from symconv.model import HypothesisError
from symconv.registry import load_claims, select

PROOF = '''
import numpy as np
from symconv import Claim, Instance, SizeParam, Variant, sym, zeros
from symconv.claims import NumericCase
from symconv.constructions.shifts import shift_down

def build(z):
    y = sym("y", z["N"])
    return Instance(y, shift_down(z["N"], 1), zeros(1) | sym("y", z["N"] - 1))

def numeric(shift_in_reference):
    def hook(N, d, batch, rng):
        def reference(u):
            out = u * 0
            out[:, shift_in_reference:] = u[:, : N - shift_in_reference]
            return out
        return NumericCase(shift_down(N, 1, d), rng.standard_normal((batch, N, d)), reference)
    return hook

CLAIMS = [
    Claim("X.1", "shift_right", "shift by one", (SizeParam("N", 2),), None,
          (Variant("construction", build, numeric=numeric(1)),)),
    Claim("X.2", "shift_wrong", "shift by one, wrong expected output", (SizeParam("N", 2),), None,
          (Variant("construction", build, numeric=numeric(2)),)),
    Claim("X.3", "shift_erratum", "a recorded erratum", (SizeParam("N", 2),), None,
          (Variant("as printed", build, expect="fails", fails_at="output", numeric=numeric(2)),)),
    Claim("X.4", "no_hook", "no numeric hook", (SizeParam("N", 2),), None,
          (Variant("construction", build),)),
]
'''


@pytest.fixture()
def proofs(tmp_path, request):
    d = tmp_path / "proofs"
    d.mkdir()
    # a unique file name: proof modules are cached by name
    (d / f"h99_{request.node.name.replace('[', '_').replace(']', '').replace('-', '_')}.py").write_text(PROOF)
    return str(d)


def run_cli(argv, capsys):
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("backend", ["numpy", "exact"])
def test_a_right_claim_holds_and_exits_zero(proofs, capsys, backend):
    rc, out, _ = run_cli(["crosscheck", "X.1", "--proofs", proofs, "--N", "4096", "--backend", backend,
                          "--format", "json", "--quiet"], capsys)
    (row,) = json.loads(out)
    assert rc == 0 and row["status"] == "holds" and row["ok"] is True and row["N"] == 4096
    if backend == "numpy":
        assert row["max_abs_error"] <= row["bound"] < 1e-6


@pytest.mark.parametrize("backend", ["numpy", "exact"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_wrong_expected_output_fails_and_exits_one(proofs, capsys, backend, dtype):
    rc, out, err = run_cli(["crosscheck", "X.2", "--proofs", proofs, "--N", "1024", "--backend", backend,
                            "--dtype", dtype, "--quiet"], capsys)
    assert rc == 1
    assert "fails  <-- recorded: holds" in out
    assert "differ from what their proofs record" in err


def test_a_recorded_erratum_that_fails_is_ok(proofs, capsys):
    rc, out, _ = run_cli(["crosscheck", "X.3", "--proofs", proofs, "--N", "512", "--format", "json", "--quiet"],
                         capsys)
    (row,) = json.loads(out)
    assert rc == 0 and row["status"] == "fails" and row["ok"] is True


def test_claims_without_a_hook_are_listed_or_refused_when_named(proofs, capsys):
    rc, out, _ = run_cli(["crosscheck", "--proofs", proofs, "--N", "256", "--format", "json", "--quiet"], capsys)
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows["X.4"]["status"] == "no numeric hook" and rows["X.4"]["ok"] is None
    assert rc == 1  # X.2 fails
    rc, _, err = run_cli(["crosscheck", "X.4", "--proofs", proofs, "--quiet"], capsys)
    assert rc == 2 and "no numeric hook" in err


def test_progress_goes_to_stderr(proofs, capsys):
    rc, out, err = run_cli(["crosscheck", "X.1", "--proofs", proofs, "--N", "256"], capsys)
    assert rc == 0 and "X.1 shift_right [construction] numpy N=256" in err and "holds" in err


def test_explain_bound(capsys):
    rc, out, _ = run_cli(["crosscheck", "--explain-bound"], capsys)
    assert rc == 0 and "log2 F" in out and "Higham" in out


def test_cupy_backend_without_cupy_is_a_clear_error(proofs, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    rc, _, err = run_cli(["crosscheck", "X.1", "--proofs", proofs, "--backend", "cupy", "--quiet"], capsys)
    assert rc == 2 and "cupy is not installed" in err


def test_cupy_backend_dispatches_to_the_namespace_path(proofs, capsys, monkeypatch):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_symconv_test_numeric", Path(__file__).with_name("test_numeric.py"))
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)
    GuardArray, fake = helpers.GuardArray, helpers.RecordingNamespace()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    rc, out, _ = run_cli(["crosscheck", "X.1", "--proofs", proofs, "--backend", "cupy", "--N", "512",
                          "--format", "json", "--quiet"], capsys)
    (row,) = json.loads(out)
    assert rc == 0 and row["status"] == "holds" and row["backend"] == "cupy"
    assert "fft.rfft" in fake.calls and "fft.irfft" in fake.calls
    assert isinstance(fake.asarray(np.ones(2)), GuardArray)


def test_every_registered_claim_with_a_hook_holds_at_2_16():
    claims = select(load_claims(), ["H.8", "H.9"])
    for backend in ("numpy", "exact"):
        outs = cc.crosscheck(claims, N=1 << 16, d=2, backend=backend)
        ran = [o for o in outs if o.status != "no numeric hook"]
        assert ran and all(o.ok for o in ran), [(o.id, o.variant, o.status) for o in ran]
        assert all(o.N >= 1 << 16 for o in ran)


def test_bad_sizes_name_the_parameter():
    with pytest.raises(HypothesisError, match="N: must be a positive integer"):
        cc.crosscheck([], N=0)
    with pytest.raises(HypothesisError, match="backend"):
        cc.crosscheck([], backend="jax")


# ----------------------------------------------------------------- parallel sweeps


def test_verify_with_a_process_pool_gives_the_same_verdicts():
    from concurrent.futures import ProcessPoolExecutor

    claims = select(load_claims(), ["H.8"])
    serial = [v for c in claims for v in verify(c, max_size=4)]
    with ProcessPoolExecutor(2) as ex:
        parallel = [v for c in claims for v in verify(c, max_size=4, executor=ex)]
    key = lambda v: (v.id, v.name, v.variant, v.verdict, v.sizes_checked, v.signature_built,  # noqa: E731
                     v.failure.describe() if v.failure else None)
    assert [key(v) for v in parallel] == [key(v) for v in serial]
    assert any(v.verdict == "fails" for v in parallel)  # the printed shift_up route


def test_verify_command_takes_workers(capsys):
    rc, out, _ = run_cli(["verify", "H.9", "--max-size", "4", "--workers", "2", "--format", "json"], capsys)
    rows = json.loads(out)
    assert rc == 0 and {r["verdict"] for r in rows} == {"holds", "fails"}
    rc, _, err = run_cli(["verify", "H.9", "--workers", "0"], capsys)
    assert rc == 2 and "--workers" in err


# ----------------------------------------------------------------- plots


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    from symconv.plot import plot_numeric

    path = tmp_path / "numeric.png"
    plot_numeric({"time": {"ours": [(1024, 1e-3), (2048, 2.2e-3)], "floor": [(1024, 8e-4), (2048, 1.7e-3)]},
                  "error": {"float64": [(1024, 1e-14), (2048, 2e-14)]}}, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_a_clear_error(tmp_path, monkeypatch):
    from symconv.plot import plot_numeric

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(HypothesisError, match="pip install 'symconv\\[plot\\]'"):
        plot_numeric({"time": {"x": [(1, 1.0)]}}, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_torch_zoology_layer_computes_the_same_layer():
    torch = pytest.importorskip("torch")
    from symconv import numeric
    from symconv.bench.numeric import dense_layer, torch_layer
    from symconv.model import Stack

    N, d = 256, 4
    layer = dense_layer(N, d)
    fwd = torch_layer(N, d, layer, 1)
    u = np.random.default_rng(0).standard_normal((2, N, d))
    ours = numeric.run(Stack(N, d, (layer,)), u)
    assert np.allclose(fwd(torch.from_numpy(u)).numpy(), ours, atol=1e-10)


def _shift_case(N=32):
    from symconv.claims import NumericCase
    from symconv.constructions.shifts import shift_down

    def ref(u):
        out = u * 0
        out[:, 1:] = u[:, :-1]
        return out
    rng = np.random.default_rng(0)
    return NumericCase(shift_down(N, 1), rng.standard_normal((1, N, 1)), ref)


def test_a_hook_over_its_size_budget_is_reported_not_run_and_the_rest_still_runs():
    from symconv import Claim, Variant

    def too_big(N, d, batch, rng):
        raise HypothesisError(f"N: this hook runs up to N = 64, got {N}")

    claim = Claim("T.9", "budget", "test", (), None,
                  (Variant("big", lambda z: None, numeric=too_big),
                   Variant("small", lambda z: None, numeric=lambda N, d, b, rng: _shift_case())))
    out = cc.crosscheck([claim], N=1 << 16, d=1)
    assert [o.status for o in out] == ["not run", "holds"]
    assert out[0].ok is None and "up to N = 64" in out[0].detail


def test_an_uninformative_bound_is_decided_exactly_and_can_fail(monkeypatch):
    case = _shift_case()
    real = cc.numeric.run_bounded

    def vacuous(prep, u, **kw):
        out, _ = real(prep, u, **kw)
        return out, float("inf")
    monkeypatch.setattr(cc.numeric, "run_bounded", vacuous)
    for dtype in ("float64", "float32"):
        good = cc.check_float(case, dtype=dtype)
        assert good["vacuous"] and good["holds"] and good["method"] == "exact mod p"
        wrong = type(case)(case.stack, case.input, lambda u: case.reference(u) * 3)
        bad = cc.check_float(wrong, dtype=dtype)
        assert bad["vacuous"] and not bad["holds"] and "mismatch" in bad["exact_detail"]


def _deep_float32_case(wrong_by=0.0, S=14, L=50, N=1024):
    """S squaring layers, then L − S two-tap averages: the float32 a-priori bound exceeds the output
    (it doubles with every squaring), the float64 one does not.  The reference applies the same
    operations directly (products and shifts, no FFT)."""
    from symconv.claims import NumericCase
    from symconv.model import Layer, Stack

    sq = [Layer(W=[[1.0]], h=[[1.0]], b1=[[0.0]], b2=[[0.0]]) for _ in range(S)]
    av = [Layer(W=[[0.0]], h=[[0.5], [0.5]], b1=[[1.0]], b2=[[0.0]]) for _ in range(L - S)]
    rng = np.random.default_rng(1)
    u = rng.choice([-1.0, 1.0], size=(1, N, 1)) * rng.uniform(0.999, 1.001, size=(1, N, 1)) ** (2.0 ** -S)

    def reference(x):
        z = np.array(x, dtype=np.float64)
        for _ in range(S):
            z = z * z
        for _ in range(L - S):
            z[:, 1:], z[:, :1] = 0.5 * z[:, 1:] + 0.5 * z[:, :-1], 0.5 * z[:, :1]
        return z * (1 + wrong_by)
    return NumericCase(Stack(N, 1, tuple(sq + av)), u, reference)


def test_a_deep_float32_stack_wrong_by_2e_4_fails_and_the_right_one_holds():
    right = cc.check_float(_deep_float32_case(), dtype="float32")
    assert right["vacuous"] and right["method"] == "float64 reference run" and right["holds"]
    assert right["reference_error"] <= right["reference_bound"] < 1e-6  # the float64 run decides
    wrong = cc.check_float(_deep_float32_case(wrong_by=2e-4), dtype="float32")
    assert wrong["vacuous"] and wrong["method"] == "float64 reference run" and not wrong["holds"]
    assert wrong["reference_error"] > wrong["reference_bound"]
    # a fixed relative tolerance could not have told them apart: float32 itself is off by more than 2e-4
    assert right["max_rel_error"] > 2e-4


# ----------------------------------------------------------------- budgets, streaming


def test_rows_stream_one_by_one_and_jsonl_is_one_object_per_line(proofs, capsys, monkeypatch):
    seen = []
    real = cc.RowWriter.write

    def spy(self, o):
        real(self, o)
        seen.append(capsys.readouterr().out)  # what had reached stdout when this variant finished
    monkeypatch.setattr(cc.RowWriter, "write", spy)
    rc, _, _ = run_cli(["crosscheck", "--proofs", proofs, "--N", "256", "--format", "jsonl", "--quiet"], capsys)
    assert rc == 1 and len(seen) == 4
    rows = [json.loads(chunk) for chunk in seen]  # each chunk is exactly one JSON line
    assert [r["id"] for r in rows] == ["X.1", "X.2", "X.3", "X.4"]
    assert [r["status"] for r in rows] == ["holds", "fails", "fails", "no numeric hook"]


def test_a_variant_over_the_memory_budget_is_not_run_and_says_how_much(proofs, capsys):
    rc, out, _ = run_cli(["crosscheck", "X.1", "X.2", "--proofs", proofs, "--N", str(1 << 20), "--memory", "16MiB",
                          "--quiet"], capsys)
    assert rc == 0  # nothing ran, nothing differs
    assert out.count("not run (needs 0.125 GiB, budget 0.0156 GiB)") == 2
    rows = cc.crosscheck(select(load_claims(proofs), ["X.1"]), N=1 << 20, d=4, memory="16MiB")
    assert rows[0].status == "not run" and rows[0].need_bytes == cc.estimate_case(1 << 20, 4, 1)
    assert rows[0].budget_bytes == 16 << 20


def test_a_hook_that_runs_smaller_than_asked_says_so():
    from symconv import Claim, Variant

    claim = Claim("T.8", "smaller", "test", (), None,
                  (Variant("small", lambda z: None, numeric=lambda N, d, b, rng: _shift_case(32)),))
    (o,) = cc.crosscheck([claim], N=1 << 10, d=1)
    assert o.status == "holds" and o.smaller and "(ran at N=32, d=1; asked N=1024, d=1)" in o.outcome_text()
    assert o.as_dict()["smaller_than_asked"] is True


def test_a_crosscheck_at_2_31_ends_promptly_within_its_budget(proofs, tmp_path):
    import subprocess
    import time

    script = (
        "import resource, sys\n"
        "from symconv import cli\n"
        "from symconv.registry import load_claims\n"
        f"load_claims({proofs!r})\n"  # the proofs' own imports are not the crosscheck's allocations
        "print('BASE', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        f"rc = cli.main(['crosscheck', '--proofs', {proofs!r}, '--N', str(2 ** 31), '--memory', '512MiB', "
        "'--quiet', '--format', 'jsonl'])\n"
        "print('RSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(rc)\n")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["status"] for r in rows] == ["not run"] * 3 + ["no numeric hook"]
    assert all(r["need_bytes"] >= 2 ** 31 * 8 and r["budget_bytes"] == 512 << 20 for r in rows[:3])
    base_kib = int(p.stderr.split("BASE")[-1].split()[0])
    rss_kib = int(p.stderr.split("RSS")[-1].split()[0])
    assert (rss_kib - base_kib) * 1024 < 512 << 20, (base_kib, rss_kib)  # nothing of size N was allocated
    assert took < 60


def test_no_informative_bound_and_a_reference_that_cannot_run_mod_p_is_no_verdict(monkeypatch):
    from symconv import Claim, Variant

    case = _shift_case()
    real = cc.numeric.run_bounded

    def vacuous(prep, u, **kw):
        out, _ = real(prep, u, **kw)
        return out, float("inf")

    def floats_only(u):
        if np.asarray(u).dtype.kind != "f":
            raise TypeError("this reference takes floats only")
        return case.reference(u)
    monkeypatch.setattr(cc.numeric, "run_bounded", vacuous)
    r = cc.check_float(type(case)(case.stack, case.input, floats_only))
    assert r["holds"] is None and r["method"] == "undecided" and "floats only" in r["exact_detail"]
    claim = Claim("T.7", "undecided", "test", (), None,
                  (Variant("v", lambda z: None, numeric=lambda N, d, b, rng: type(case)(case.stack, case.input,
                                                                                       floats_only)),))
    (o,) = cc.crosscheck([claim], N=32, d=1)
    assert o.status == "not run" and o.ok is None and "no verdict" in o.detail


def test_every_claims_hooks_agree_with_their_records_at_small_n():
    """Every numeric hook of every claim, at N = 4, d = 2, through crosscheck's own code path: no outcome
    differs from its record.  Issue 11: the deep 'in place, any M' stacks of H.16 and H.18 have no
    informative float bound, so crosscheck decides them exactly mod p on their float parameters; those
    must be exact (dyadic test matrices), else the exact decision reports the rounding as 'fails'.  The one
    'any M' stack shallow enough for the a-priori bound at this size is also run on the exact backend."""
    claims = load_claims()
    outs = cc.crosscheck(claims, N=4, d=2)
    ran = [o for o in outs if o.status != "no numeric hook"]
    assert ran and all(o.ok is not False for o in ran), [(o.id, o.variant, o.status) for o in ran if o.ok is False]
    ours = [o for o in ran if o.id in ("H.16", "H.18")]
    assert len(ours) == 12 and all(o.ok for o in ours)
    any_m = [o for o in ours if o.variant == "in place, any M"]
    assert [(o.status, o.method) for o in any_m] == [("holds", "a-priori bound"), ("holds", "exact mod p"),
                                                      ("holds", "exact mod p")]
    (factor,) = [c for c in claims if c.id == "H.16" and c.name == "butterfly_factor_matrix"]
    exact_outs = cc.crosscheck([factor], N=4, d=2, backend="exact")
    assert [o.status for o in exact_outs if o.variant == "in place, any M"] == ["holds"]
    assert all(o.ok for o in exact_outs if o.status != "no numeric hook")
