"""bench/run.py, the one entry point of the benchmarks: it lists every
target, bench/README.md lists the same ones, and each target answers --help
without torch or a GPU (targets parse their arguments before importing
torch)."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

RUN = os.path.join(ROOT, "bench", "run.py")
BENCH = os.path.join(ROOT, "bench")


def _run(*args):
    return subprocess.run([sys.executable, RUN, *args], capture_output=True,
                          text=True, timeout=120)


def _targets():
    listing = _run("--list")
    assert listing.returncode == 0, listing.stderr
    return [line.split()[0] for line in listing.stdout.splitlines()]


def test_list_names_every_target_with_a_summary():
    lines = _run("--list").stdout.splitlines()
    assert lines and all(len(line.split(None, 1)) == 2 for line in lines)
    groups = {t.split("/")[0] for t in _targets()}
    assert groups == {"checks", "perf"}


def test_readme_lists_every_target():
    with open(os.path.join(ROOT, "bench", "README.md"), encoding="utf-8") as f:
        readme = f.read()
    missing = [t for t in _targets() if f"`{t}`" not in readme]
    assert not missing, f"bench/README.md does not list {missing}"


@pytest.mark.parametrize("target", _targets())
def test_help_needs_no_torch(target):
    name = target.split("/")[1]
    res = _run(name, "--help")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"usage: bench/run.py {name}")


def test_unknown_target_is_an_error():
    res = _run("no_such_target")
    assert res.returncode == 2
    assert "bench/run.py --list" in res.stderr


def test_decode_rows_are_checked_before_torch():
    res = _run("paged_decode", "--rows", "Llama-70B 32x8192,no such row")
    assert res.returncode == 2
    assert "--rows: no row 'no such row'" in res.stderr
    assert "'Llama-70B 32x8192'" in res.stderr


def test_frontend_decode_rows_fit_its_decode_workload(monkeypatch):
    # The rows come from perf/paged_decode, whose tuple grows with new
    # columns; the frontend benchmark must still unpack them.
    import inspect
    monkeypatch.syspath_prepend(os.path.join(ROOT, "bench"))
    from perf import frontend
    params = list(inspect.signature(frontend.Bench._decode).parameters)
    assert params[:7] == ["self", "name", "S", "Hq", "Hkv", "lens", "page"]
    for quick in (False, True):
        rows = frontend.decode_rows(quick)
        assert rows and all(len(r) == 6 for r in rows)
    assert "Llama-3-8B 64x4096" in [r[0] for r in frontend.decode_rows()]


def test_sass_summary_splits_regions_and_counts_retries(tmp_path):
    # A two-region kernel in ncu's CSV form (lines before the header, a
    # thousands separator): samples and executions per region, stall
    # reasons without the "Not Issued" copies, opcodes without their
    # predicates, the mbarrier waits with their retry loop's executions.
    header = ('"Address","Source","Warp Stall Sampling (All Samples)",'
              '"Instructions Executed","stall_barrier",'
              '"stall_barrier (Not Issued)","stall_long_sb"')
    rows = [
        ('"0x0","LDG.E R2, desc[UR4][R2.64]","5","100","0","0","5"'),
        ('"0x10","@!P0  BRA 0x20","7","1,000","0","0","0"'),
        ('"0x20","USETMAXREG.TRY_ALLOC.CTAPOOL 0xc8","1","4","1","9","0"'),
        ('"0x30","SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR15+0x8800], R0",'
         '"2","64","2","2","0"'),
        ('"0x40","WARPGROUP.DEPBAR.LE gsb0, 0x0","30","64","30","30","0"'),
        ('"0x50","SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR15+0x8800], R0",'
         '"0","1,664","0","0","0"'),
    ]
    path = tmp_path / "k.csv"
    path.write_text("==PROF== Connected\n\"Kernel Name\",\"k\",\n" + header +
                    "\n" + "\n".join(rows) + "\n")
    res = _run("sass_summary", str(path), "--top", "2")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "prologue and producer: 12 stall samples, 1100 warp" in out
    assert "consumers: 33 stall samples, 1796 warp" in out
    assert "by reason: long_sb 5" in out
    assert "by reason: barrier 33" in out and "Not Issued" not in out
    assert "by opcode: BRA 7, LDG 5" in out
    assert "by opcode: WARPGROUP 30, SYNCS 2, USETMAXREG 1" in out
    assert "      5       1664       0  SYNCS.PHASECHK" in out
    # Not a CSV of ncu's source page: a clear error.
    bad = tmp_path / "bad.csv"
    bad.write_text("no header here\n")
    res = _run("sass_summary", str(bad))
    assert res.returncode == 1
    assert "no CSV header" in res.stderr


def test_sass_map_folds_runs_and_keeps_the_waits(tmp_path):
    # cuobjdump's layout: an address comment, the instruction, its encoding.
    sass = [
        ("0000", "MOV R1, c[0x0][0x28]"),
        ("0010", "USETMAXREG.TRY_ALLOC.CTAPOOL 0xc8"),
        ("0020", "FMNMX.NAN R15, R24, R25, !PT"),
        ("0030", "FMNMX.NAN R16, R26, R27, !PT"),
        ("0040", "WARPGROUP.DEPBAR.LE gsb0, 0x0"),
        ("0050", "@!P1 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR23+0x98], RZ"),
        ("0060", "MUFU.EX2 R17, R17"),
        ("0070", "MUFU.EX2 R18, R18"),
        ("0080", "F2FP.F16.F32.PACK_AB R154, R28, R19"),
        ("0090", "@P2 BRA 0x20"),
    ]
    path = tmp_path / "k.sass"
    path.write_text("\tcode for sm_90a\n" + "".join(
        f"        /*{a}*/                   {t} ;   /* 0x0 */\n"
        "                                                   /* 0x0 */\n"
        for a, t in sass))
    res = _run("sass_map", str(path), "--from", "TRY_ALLOC")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "  0010 USETMAXREG x1",
        "  0020 FMNMX x2",
        "  0040   WARPGROUP.DEPBAR.LE gsb0, 0x0",
        "  0050   @!P1 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR23+0x98], RZ",
        "  0060 MUFU x2",
        "  0080 F2FP x1",
        "  0090   @P2 BRA 0x20",
    ]
    res = _run("sass_map", str(path), "--from", "HGMMA")
    assert res.returncode == 1
    assert "no instruction contains 'HGMMA'" in res.stderr
    empty = tmp_path / "empty.sass"
    empty.write_text("not a listing\n")
    res = _run("sass_map", str(empty))
    assert res.returncode == 1 and "no SASS instructions" in res.stderr


def test_paged_prefill_checks_repeat_before_torch():
    res = _run("paged_prefill", "--repeat", "0")
    assert res.returncode == 2
    assert "--repeat: must be >= 1, got 0" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["--columns", "default,nope", "--a", "."], "'nope' is not one of default"),
    (["--order", "abc", "--a", "."], "--order: a sequence of a and b"),
    (["--rows", "0", "--a", "."], "row 0 is not in 1.."),
    (["--a", "."], "--a: no quire package in"),
    ([], "--a: the first build's folder is needed"),
])
def test_prefill_ab_checks_its_arguments_before_torch(args, message):
    res = _run("prefill_ab", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


@pytest.mark.parametrize("args, message", [
    (["--columns", "cache kv,nope"], "'nope' is not one of default"),
    (["--rows", "10"], "row 10 is not in 1.."),
    (["--repeat", "0"], "--repeat: at least 1, got 0"),
])
def test_prefill_clocks_checks_its_arguments_before_torch(args, message):
    res = _run("prefill_clocks", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


def test_clock_sampling_needs_nvidia_smi(tmp_path):
    """Without nvidia-smi on PATH, prefill_clocks and prefill_ab --clocks
    say so before anything runs."""
    env = dict(os.environ, PATH=str(tmp_path))
    for args, message in (
            (["prefill_clocks"], "nvidia-smi is not on PATH"),
            (["prefill_ab", "--a", os.path.join(ROOT, "python"), "--clocks"],
             "--clocks: nvidia-smi is not on PATH")):
        res = subprocess.run([sys.executable, RUN, *args], env=env,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 2 and message in res.stderr, res.stderr


def _bench_module(name):
    """bench/perf's module `name`, imported with bench/ on sys.path."""
    import importlib
    sys.path.insert(0, BENCH)
    try:
        return importlib.import_module(f"perf.{name}")
    finally:
        sys.path.remove(BENCH)


def _prefill_clocks():
    return _bench_module("prefill_clocks")


def test_prefill_clocks_places_each_timing_at_its_clock():
    """nvidia-smi's lines (a bad one left out) read into samples; a
    timing's window takes the samples inside it (median and range of the
    clock, the most power, the power cap's bit); the summary's TFLOP/s per
    GHz scales each timing by its own clock."""
    import datetime
    pc = _prefill_clocks()
    text = "\n".join([
        "2026/12/07 16:44:23.365, 1815, 694.07, 0x0000000000000004",
        "2026/12/07 16:44:23.466, 1515, 697.04, 0x0000000000000004",
        "2026/12/07 16:44:23.566, [N/A], 694.66, 0x0000000000000004",
        "2026/12/07 16:44:23.666, 1980, 410.50, 0x0000000000000000",
        "2026/12/07 16:44:23.766, 1980, 400.00, 0x0000000000000000"])
    samples = pc.parse_samples(text)
    assert [s[1] for s in samples] == [1815, 1515, 1980, 1980]
    t = lambda ms: datetime.datetime(2026, 12, 7, 16, 44, 23, ms * 1000)
    capped = pc.window(samples, t(300), t(500))
    assert capped == (1665, 1515, 1815, 697.04, True)
    free = pc.window(samples, t(600), t(800))
    assert free == (1980, 1980, 1980, 410.5, False)
    assert pc.window(samples, t(900), t(950)) is None
    summary = pc.summarize([("r", "a", 500.0, capped), ("r", "a", 600.0, free),
                            ("r", "b", 400.0, None)])
    tf, mhz, per = summary[("r", "a")]
    assert tf == 550.0 and mhz == (1665 + 1980) / 2
    assert per == pytest.approx((500 / 1.665 + 600 / 1.98) / 2)
    tf, mhz, per = summary[("r", "b")]
    assert tf == 400.0 and mhz != mhz and per != per  # no sample: nan


def _fake_smi(tmp_path, mhz, watts):
    """An executable answering as nvidia-smi -lms does: a FIELDS line with
    the current time every 20 ms until it is stopped."""
    smi = tmp_path / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\nwhile true; do\n"
        f"  echo \"$(date +'%Y/%m/%d %H:%M:%S.%3N'), {mhz}, {watts}, "
        "0x0000000000000004\"\n  sleep 0.02\ndone\n")
    smi.chmod(0o755)
    return str(smi)


def test_prefill_clocks_sampler_and_prefill_ab_per_clock(tmp_path,
                                                        monkeypatch):
    """Sampler runs nvidia-smi into a file and parses its lines; prefill_ab's
    Clocks sums a run up and turns a row's TFLOP/s into TFLOP/s per GHz at
    the clock of each column's window (nan for a window without samples);
    ratios leaves nan out of its means."""
    import datetime
    import time
    pc = _prefill_clocks()
    ab = _bench_module("prefill_ab")
    smi = _fake_smi(tmp_path, 1500, 691.0)
    sampler = pc.Sampler(smi).start()
    time.sleep(0.3)
    samples, err = sampler.stop()
    assert len(samples) >= 5 and not err, err
    assert all(s[1:] == (1500.0, 691.0, 4) for s in samples)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    clocks = ab.Clocks()
    start = datetime.datetime.now()
    clocks.start()
    time.sleep(0.3)
    end = datetime.datetime.now()
    line = clocks.stop()
    assert line.startswith("clocks: SM 1500-1500 MHz (median 1500), at "
                           "most 691 W"), line
    later = end + datetime.timedelta(seconds=5)
    got = clocks.per_ghz(
        {"kv": 450.0, "kv2": 300.0},
        {"kv": [start.isoformat(), end.isoformat()],
         "kv2": [later.isoformat(), later.isoformat()]})
    assert got["kv"] == pytest.approx(300.0) and got["kv2"] != got["kv2"]
    runs = [("a", {"r": {"c": 2.0}}), ("b", {"r": {"c": 3.0}}),
            ("b", {"r": {"c": float("nan")}})]
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ab.ratios("b / a", ["c"], runs)
    assert "| r | 1.500 |" in buf.getvalue()


@pytest.mark.parametrize("args, message", [
    (["--a", ".", "--rows", "6"], "row 6 (ragged"),
    (["--a", ".", "--rows", "10"], "row 10 is not in 1.."),
    (["--a", ".", "--columns", "nope"], "'nope' is not one of default"),
    ([], "--a: the first build's folder is needed"),
    (["--a", "."], "--a: no quire package in"),
    (["--a", os.path.join(ROOT, "python"), "--ncu", "/nonexistent/ncu"],
     "--ncu: /nonexistent/ncu not found"),
])
def test_prefill_cycles_checks_its_arguments_before_torch(args, message):
    res = _run("prefill_cycles", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


# What ncu printed for the prefill kernel on an H200
# (docs/results/ncu_prefill_unshare_h200.txt), with one metric it could
# not collect.
NCU_LINES = """\
  paged_prefill_attention (8, 16, 8)x(384, 1, 1), Context 1, Stream 7
    Section: Command line profiler metrics
    ------------------------------------------------ ----------- ------------
    Metric Name                                      Metric Unit Metric Value
    ------------------------------------------------ ----------- ------------
    gpu__time_duration.sum                                    ms         2.73
    sm__cycles_elapsed.avg                                 cycle 3,711,769.44
    sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
            (!) n/a
    smsp__inst_executed.sum                                 inst  839,025,741
"""


def test_prefill_cycles_reads_ncu_and_counts_flops():
    """ncu's metric lines read into numbers (the duration in us, thousands
    separators dropped, an n/a metric left out); the FLOPs are
    lib/prefill_flops' (the chunk's causal part half, Llama-3-8B's
    heads)."""
    pc = _bench_module("prefill_cycles")
    got = pc.parse_metrics(NCU_LINES)
    assert got == {"gpu__time_duration.sum": 2730.0,
                   "sm__cycles_elapsed.avg": 3711769.44,
                   "smsp__inst_executed.sum": 839025741.0}
    assert pc.parse_metrics("gpu__time_duration.sum  fortnight 3\n"
                            "sm__cycles_elapsed.avg  Mcycle  3.71") == {}
    with pytest.raises(ValueError, match="more than one kernel"):
        pc.parse_metrics(NCU_LINES + NCU_LINES)
    # 2 x ctx 16384 + 2048 at 32 query heads of 128: the count the H200's
    # logs divide by (1.168 TFLOP in 2.37 ms: 492.9 TFLOP/s).
    assert pc.flops([16384] * 2, [2048] * 2) == 1_168_264_658_944


def test_prefill_cycles_runs_ncu_per_build_row_and_column(tmp_path,
                                                         monkeypatch, capsys):
    """With a stand-in ncu, each build, row and column is profiled once
    with the fixed clock and the op's launch (`profile prefill --case`,
    the row's page, the column as --ablation); the table gives TFLOP/s per
    GHz as FLOPs over cycles, and b's cycles over a's."""
    pc = _bench_module("prefill_cycles")
    calls = tmp_path / "calls"
    ncu = tmp_path / "ncu"
    ncu.write_text(
        "#!/bin/sh\n"
        f"echo \"$QUIRE_PYTHONPATH $*\" >> {calls}\n"
        "case \"$QUIRE_PYTHONPATH\" in\n"
        "  */b) c=1,800,000 ;;\n"
        "  *) c=2,000,000 ;;\n"
        "esac\n"
        "echo \"    gpu__time_duration.sum     ms     1.25\"\n"
        "echo \"    sm__cycles_elapsed.avg  cycle  $c\"\n"
        "echo \"    smsp__inst_executed.sum  inst  5,000,000\"\n")
    ncu.chmod(0o755)
    for side in "ab":
        (tmp_path / side / "quire").mkdir(parents=True)
    monkeypatch.setattr(pc, "require_torch", lambda: None)
    monkeypatch.setattr(pc, "print_header", lambda name: None)
    rc = pc.main(["--a", str(tmp_path / "a"), "--b", str(tmp_path / "b"),
                  "--rows", "7,9", "--columns", "default,cache kv",
                  "--ncu", str(ncu)])
    out = capsys.readouterr().out
    assert rc == 0, out
    lines = calls.read_text().splitlines()
    assert len(lines) == 8
    assert all("--clock-control base" in x and "--kernel-name "
               "regex:paged_prefill" in x for x in lines)
    assert any(x.endswith("--case 4,4096,512 --page 128") for x in lines)
    assert any(x.endswith("--case 1,8192,8192 --page 16 --ablation cache kv")
               for x in lines)
    fl = pc.flops([8192], [8192])
    row = [x for x in out.splitlines()
           if x.split()[:1] == ["a"] and "8192 + 8192" in x
           and x.split()[-6] == "default"][0]
    assert row.split()[-5:-1] == ["2.000", "1.600",
                                  f"{fl / 1250 / 1e6:.1f}",
                                  f"{fl / 2e6 / 1e3:.1f}"]
    assert "| 1 x ctx 8192 + 8192 | cache kv | 0.9000 | 1.0000 |" in out
    assert all("--launch-count 1 --print-units base" in x for x in lines)


def test_prefill_cycles_says_when_ncu_gives_no_metrics(tmp_path,
                                                       monkeypatch, capsys):
    """An ncu that fails (or profiles no kernel) ends the run with exit 1
    and its output."""
    pc = _bench_module("prefill_cycles")
    ncu = tmp_path / "ncu"
    ncu.write_text("#!/bin/sh\necho '==ERROR== no GPU here' >&2\nexit 3\n")
    ncu.chmod(0o755)
    (tmp_path / "a" / "quire").mkdir(parents=True)
    monkeypatch.setattr(pc, "require_torch", lambda: None)
    monkeypatch.setattr(pc, "print_header", lambda name: None)
    rc = pc.main(["--a", str(tmp_path / "a"), "--rows", "8",
                  "--ncu", str(ncu)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "no metrics for one kernel from ncu" in out, out
    assert "ncu exited 3" in out and "no GPU here" in out, out


@pytest.mark.parametrize("args, message", [
    (["--row", "8,9"], "--row: one row"),
    (["--row", "10"], "row 10 is not in 1.."),
    (["--column", "nope"], "--column: 'nope' is not one of default"),
    (["--probes", "turn,nope"], "--probes: unknown probe kinds nope"),
    (["--ctas", "0"], "--ctas must be >= 1"),
])
def test_prefill_timeline_checks_its_arguments_before_torch(args, message):
    res = _run("prefill_timeline", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


def _timeline():
    import importlib
    sys.path.insert(0, BENCH)
    try:
        return importlib.import_module("lib.timeline")
    finally:
        sys.path.remove(BENCH)


PROBE_TEXT = {"filled": "cp.async.mbarrier.arrive", "barrier": "bar.sync"}


def test_timeline_probes_the_prefill_kernels_synchronization():
    """The op's default cache-form kernel (a producer warpgroup, two
    consumer warpgroups in turns, the softmax overlap), every kind of
    probe: one after each of its turns, turns passed on, wgmma waits,
    consumers' stage waits and the producer's acquires and fills, each
    after its inline-asm block; the entry takes the records' pointer last.
    With the default kinds ptxas assembles it without spilling."""
    from conftest import ptxas_sm90a
    from test_prefill import _cache_form_kernel
    tl = _timeline()
    kernel, _ = _cache_form_kernel()
    ptx, tags = tl.instrument(kernel.ptx, tuple(tl.PROBES), ctas=4,
                              max_records=64)
    kinds = [k for _, k, _ in tags]
    # A turn and its pass for the peeled iteration, the loop and the last
    # P V; the loop's scores retired with P V in flight (wait1), the others
    # whole (wait0); the producer's first fills (K, V) and its loop's
    # acquires and fills; the consumers' waits for K and V.
    assert kinds.count("turn") == kinds.count("passed") == 3, kinds
    assert kinds.count("wait1") == 1 and kinds.count("wait0") == 3, kinds
    assert kinds.count("free") == 2 and kinds.count("filled") == 4, kinds
    assert kinds.count("ready") == 4, kinds
    assert "wait0" not in tl.DEFAULT_KINDS
    assert [t for t, _, _ in tags] == list(
        range(tl.FIRST_PROBE, tl.FIRST_PROBE + len(tags)))
    lines = ptx.split("\n")
    for _, kind, line in tags:  # after the instruction or its asm block
        assert lines[line - 1].strip() == "// end inline asm" or \
            PROBE_TEXT[kind] in lines[line - 1], (line, lines[line - 1])
        assert lines[line:line + 2] == ["{", ".reg .b32 %tlc;"], line
    assert ".param .u64 .ptr .global .align 8 " \
        "paged_prefill_attention_param_timeline\n)" in ptx
    assert ptx.count("st.global.v2.u32 [%tla]") == len(tags) + 2
    assert ptx.count("mov.u32 %tlc, %clock;") == len(tags) + 1
    assert ptx.count("mov.u32 %tlc, %smid;") == 1
    # The default probes leave the consumers' registers as they were.
    report = ptxas_sm90a(tl.instrument(kernel.ptx)[0], "prefill_timeline",
                         verbose=True)
    assert " 0 bytes spill stores" in report, report
    with pytest.raises(ValueError, match="unknown probe kinds nope"):
        tl.instrument(kernel.ptx, ("turn", "nope"))
    with pytest.raises(ValueError, match="one kernel entry"):
        tl.instrument(kernel.ptx + kernel.ptx[kernel.ptx.index(".visible"):])


def test_prefill_timeline_builds_the_instrumented_kernel():
    """The instrumented kernel takes the op's kernel's arguments and the
    records' pointer last (packed as a 64-bit pointer), with the op's
    options; where quire has a ptxas it is assembled (as the op's own
    cubin) and its registers and spills are reported."""
    from quire import _ptxas
    from test_prefill import _cache_form_kernel
    tl = _timeline()
    timeline_target = _bench_module("prefill_timeline")
    kernel, _ = _cache_form_kernel()
    ptx, _ = tl.instrument(kernel.ptx)
    probe, stats = timeline_target.instrumented(kernel, ptx)
    assert probe.args[:-1] == kernel.args
    assert probe.args[-1]["kind"] == "ptr"
    assert probe.options == kernel.options and probe.ptx == ptx
    packing, own = probe._packing()[0], kernel._packing()[0]
    assert packing.offsets[:-1] == own.offsets
    assert packing.offsets[-1] == -(-own.size // 8) * 8
    assert packing.size == packing.offsets[-1] + 8
    if _ptxas.find() is None:
        assert probe.cubin is None and stats is None
    else:
        assert probe.cubin and stats["spill_stores"] == 0, stats
        assert stats["registers"] == kernel.metadata["registers"]


def test_timeline_reads_records_and_counts_cycles():
    """The buffer's layout as the probes write it (per CTA and warpgroup,
    START, then SMID with the SM's id, then (tag, clock) records until a
    zero tag): the warpgroups that recorded, their SM, and per role the
    cycles between consecutive probes, across the 32-bit clock's wrap."""
    tl = _timeline()
    ctas, wgs, n = 2, 3, 16
    words = [0] * (ctas * wgs * n * 2)
    tags = [(2, "free", 10), (3, "filled", 20), (4, "turn", 30),
            (5, "wait1", 40)]

    def put(cta, wg, smid, seq):
        base = (cta * wgs + wg) * n * 2
        recs = [(tl.START, 7), (tl.SMID, smid)] + seq
        for i, (tag, clock) in enumerate(recs):
            words[base + 2 * i:base + 2 * i + 2] = [tag, clock]

    # a producer: 60 cycles from acquire to fill, 40 to the next acquire
    put(0, 0, 5, [(2 + j, 100 * i + 60 * j) for i in range(4)
                  for j in range(2)])
    start = (1 << 32) - 100  # the consumer's clock wraps
    put(0, 1, 5, [(4, (start + 300 * i) % (1 << 32)) if j == 0 else
                  (5, (start + 300 * i + 200) % (1 << 32))
                  for i in range(4) for j in range(2)])
    put(1, 2, 6, [])  # a warpgroup that passed no probe of the kinds
    recs = tl.records(words, ctas, wgs, n)
    assert sorted(recs) == [(0, 0), (0, 1), (1, 2)]
    assert recs[(0, 0)][:2] == (5, 7)
    seq = recs[(0, 1)][2]
    assert tl.transitions(seq, skip=0) == {(4, 5): [200] * 4,
                                           (5, 4): [100] * 3}
    kinds = {t: k for t, k, _ in tags}
    assert tl.role(recs[(0, 0)][2], kinds) == "producer"
    assert tl.role(seq, kinds) == "consumer"
    text = tl.table(recs, tags, skip=0)
    assert "producer (warpgroup 0)" in text and \
        "consumer (warpgroup 1)" in text, text
    assert "warpgroup 2" not in text, text
    assert tl.periods(seq, skip=0) == {4: [300] * 3, 5: [300] * 3}
    assert "iteration: turn@30 every 300 cycles (median of 3)" in text, text
    assert "| turn@30 | wait1@40 | 4 | 200 | 200 | 72.7% |" in text, text
    assert "| free@10 | filled@20 | 4 | 60 | 60 | 66.7% |" in text, text
    with pytest.raises(ValueError, match="expected 192 words, got 3"):
        tl.records([0, 0, 0], ctas, wgs, n)


@pytest.mark.parametrize("args, message", [
    (["--ctx", "0,100"], "--ctx: 100 is not a multiple of 128"),
    (["--ctx", "a"], "--ctx: expected numbers"),
    (["--chunk", "0"], "--chunk: 0 is not a multiple of 128 of at least 128"),
    (["--chunk", "256,512"], "--chunk: one length"),
    (["--seqs", "0"], "--seqs: at least 1"),
    (["--page", "24"], "--page: a power of two"),
])
def test_prefill_programs_checks_its_arguments_before_torch(args, message):
    res = _run("prefill_programs", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


def test_prefill_programs_fit_recovers_the_costs():
    # Times made from a = 2 us a tile-step and b = 9 us a program over
    # three rows come back exactly.
    sys.path.insert(0, BENCH)
    try:
        from perf.prefill_programs import fit
    finally:
        sys.path.remove(BENCH)
    rows = [(1024, n, 1024 / 132 * (2 * n + 9)) for n in (2.5, 10.5, 34.5)]
    a, b = fit(rows, 132)
    assert abs(a - 2) < 1e-9 and abs(b - 9) < 1e-9


def test_prefill_schedule_models_both_orders_without_a_gpu():
    # The model needs no torch: every rectangular-grid row of paged_prefill
    # with both orders' efficiency in (0, 1] and their K/V megabytes; on 1
    # x 8192 + 8192 the programs running at once read every KV head's cache
    # by head (64 MB) and one KV head's by KV head (8 MB).
    res = _run("prefill_schedule")
    assert res.returncode == 0, res.stderr
    rows = [line.rsplit(None, 4) for line in res.stdout.splitlines()[2:]]
    assert len(rows) == 8 and not any("ragged" in r[0] for r in rows)
    for _, e0, f0, e1, f1 in rows:
        assert 0 < float(e0) <= 1 and 0 < float(e1) <= 1
    assert rows[-1][0].strip() == "1 x ctx 8192 + 8192"
    assert (rows[-1][2], rows[-1][4]) == ("64.0", "8.0")


@pytest.mark.parametrize("args, message", [
    (["--sms", "0"], "--sms: must be >= 1, got 0"),
    (["--fixed", "-1"], "--fixed: must be >= 0, got -1.0"),
    (["--fixed", "nan"], "--fixed: must be >= 0, got nan"),
])
def test_prefill_schedule_checks_its_arguments(args, message):
    res = _run("prefill_schedule", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr


def test_prefill_schedule_candidate_order():
    # --kv-heads 2 adds a column pair: two KV heads' programs at once read
    # 16 MB on 1 x 8192 + 8192; a K that does not divide the 8 KV heads is
    # refused.
    res = _run("prefill_schedule", "--kv-heads", "2")
    assert res.returncode == 0, res.stderr
    assert "by 2 KV heads" in res.stdout.splitlines()[1]
    last = res.stdout.splitlines()[-1].rsplit(None, 6)
    assert last[0].strip() == "1 x ctx 8192 + 8192"
    assert (last[2], last[4], last[6]) == ("64.0", "8.0", "16.0")
    res = _run("prefill_schedule", "--kv-heads", "3")
    assert res.returncode == 2
    assert "--kv-heads: must divide 8, got 3" in res.stderr
