"""libquire.so itself: what it exports, what it links, and that the C API
survives hostile calls (NULLs, bad enums) that a binding might forward."""

import ctypes
import os
import shutil
import subprocess

import pytest

from quire import _lib


@pytest.fixture(scope="module")
def lib():
    return _lib.lib()


@pytest.fixture(scope="module")
def path():
    return _lib.library_path()


def test_exports_only_the_c_api(path):
    if not shutil.which("nm"):
        pytest.skip("nm is not installed")
    out = subprocess.run(["nm", "-D", "--defined-only", path],
                         capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert "quireCompile" in names and "quireInterpret" in names
    assert [n for n in names if not n.startswith("quire")] == []


def test_links_no_llvm_or_mlir(path):
    if not shutil.which("readelf"):
        pytest.skip("readelf is not installed")
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, check=True).stdout
    needed = [line.split("[")[1].rstrip("]") for line in out.splitlines()
              if "(NEEDED)" in line]
    assert needed, out
    assert not [n for n in needed if "LLVM" in n or "MLIR" in n], needed


def test_versions(lib):
    assert lib.quireGetAPIVersion() == _lib.API_VERSION
    assert lib.quireGetVersion().decode() == "0.1.0"
    build = lib.quireGetBuildID().decode()
    assert len(build) >= 16 and all(c in "0123456789abcdef" for c in build)


def test_null_results_are_safe(lib):
    size = ctypes.c_size_t(7)
    assert lib.quireResultSucceeded(None) == 0
    assert ctypes.string_at(lib.quireResultGetDiagnostics(None)) == b""
    assert ctypes.string_at(lib.quireResultGetOutput(None, ctypes.byref(size))) == b""
    assert size.value == 0
    lib.quireResultDestroy(None)
    lib.quireCompileOptionsDestroy(None)
    lib.quireCompileOptionsSetSM(None, 90)


def test_every_compile_option_has_a_null_safe_setter(lib):
    # The table quire.compile and the jit use (quire._lib.OPTIONS): each
    # option's setter is exported and ignores a NULL options handle.
    for option in _lib.OPTIONS:
        getattr(lib, option.setter)(None, int(option.default))


def _diagnostics(lib, handle):
    try:
        assert lib.quireResultSucceeded(handle) == 0
        return ctypes.string_at(lib.quireResultGetDiagnostics(handle)).decode()
    finally:
        lib.quireResultDestroy(handle)


def test_null_source_with_a_size(lib):
    assert "source is NULL" in _diagnostics(lib, lib.quireCompile(None, 10, None, None))
    assert "source is NULL" in _diagnostics(lib, lib.quireGetKernelInfo(None, 3, None))


def test_empty_source_has_no_kernel(lib):
    assert "no kernel" in _diagnostics(lib, lib.quireCompile(None, 0, None, None))


def test_bad_emit_kind(lib):
    opts = lib.quireCompileOptionsCreate()
    lib.quireCompileOptionsSetEmit(opts, 99)
    try:
        src = b"module {}"
        assert "unknown emit kind 99" in _diagnostics(
            lib, lib.quireCompile(src, len(src), b"x.mlir", opts))
    finally:
        lib.quireCompileOptionsDestroy(opts)


def test_bad_sm_and_warps_are_diagnostics(lib):
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                            "vector_add.mlir"), "rb").read()
    for setter, value, message in (
            (lib.quireCompileOptionsSetSM, 75, "not supported"),
            (lib.quireCompileOptionsSetNumWarps, 3, "num-warps")):
        opts = lib.quireCompileOptionsCreate()
        setter(opts, value)
        try:
            assert message in _diagnostics(
                lib, lib.quireCompile(src, len(src), None, opts))
        finally:
            lib.quireCompileOptionsDestroy(opts)


def test_interpret_rejects_null_grid_and_bad_kinds(lib):
    src = b"module {}"
    arg = _lib.InterpArg()
    arg.kind = 7
    assert "grid is NULL" in _diagnostics(
        lib, lib.quireInterpret(src, len(src), None, None, None, None, 0))
    grid = (ctypes.c_int64 * 3)(1, 1, 1)
    assert "unknown kind 7" in _diagnostics(
        lib, lib.quireInterpret(src, len(src), None, None, grid,
                                ctypes.byref(arg), 1))
    assert "args is NULL" in _diagnostics(
        lib, lib.quireInterpret(src, len(src), None, None, grid, None, 2))
    arg.kind, arg.data, arg.bytes = _lib.INTERP_BUFFER, None, 64
    assert "has no data" in _diagnostics(
        lib, lib.quireInterpret(src, len(src), None, None, grid,
                                ctypes.byref(arg), 1))


def test_interpret_reports_a_missing_kernel(lib):
    src = b"module {}"
    grid = (ctypes.c_int64 * 3)(1, 1, 1)
    assert "no kernel" in _diagnostics(
        lib, lib.quireInterpret(src, len(src), None, b"", grid, None, 0))


def test_compile_outputs(lib):
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                            "vector_add.mlir"), "rb").read()
    res = _lib.compile(src, "vector_add.mlir", 90, 4, "llvm")
    assert res.ok, res.diagnostics
    assert b"define" in res.output and ".entry vector_add" in res.ptx
    assert res.metadata["kernels"][0]["name"] == "vector_add"
    res = _lib.compile(src, "vector_add.mlir", 90, 4, "tile")
    assert res.ok and b"tile.blocked" in res.output and res.ptx == ""
    res = _lib.compile(src, "vector_add.mlir", 90, 4, "meta")
    assert res.ok and b'"kernels"' in res.output


def test_launch_kernels_fills_the_slots_and_stops_at_a_failure(lib):
    # quireLaunchKernels with a stand-in for the driver's cuLaunchKernel
    # that reads the parameters the way the driver does (through params).
    u32, u64, vp = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
    proto = ctypes.CFUNCTYPE(ctypes.c_int, vp, ctypes.c_uint, ctypes.c_uint,
                             ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                             ctypes.c_uint, ctypes.c_uint, vp,
                             ctypes.POINTER(vp), vp)
    seen = []

    def fake(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        p = [params[i] for i in range(3)]
        seen.append((function, (gx, gy, gz), (bx, by, bz), shared, stream,
                     u32.from_address(p[0]).value, u64.from_address(p[1]).value,
                     u64.from_address(p[2]).value, extra))
        return 700 if function == 2 else 0

    driver = proto(fake)
    bufs, keep = [], []
    launches = (_lib.Launch * 3)()
    for n, c in enumerate(launches):
        buf = ctypes.create_string_buffer(24)
        u32.from_buffer(buf, 0).value = 7 + n     # a constant parameter
        params = (vp * 3)(*[ctypes.addressof(buf) + o for o in (0, 8, 16)])
        offsets, indices = (u32 * 2)(8, 16), (u32 * 2)(1, 0)
        keep += [params, offsets, indices]
        bufs.append(buf)
        c.function = n + 1
        c.grid[:] = [4, 5, 6]
        c.block[:] = [128, 1, 1]
        c.shared_bytes = 4096
        c.params = ctypes.addressof(params)
        c.buffer = ctypes.addressof(buf)
        c.slot_offsets = ctypes.addressof(offsets)
        c.slot_indices = ctypes.addressof(indices)
        c.num_slots = 2 if n < 2 else 0
    addresses = (u64 * 2)(0x1122334455667788, 0xfedcba9876543210)
    failed = ctypes.c_size_t(99)
    fn = ctypes.cast(driver, vp).value
    status = lib.quireLaunchKernels(fn, ctypes.addressof(launches), 3,
                                    ctypes.addressof(addresses), 0xabc,
                                    ctypes.addressof(failed))
    # The second launch fails: its status and index come back, the third
    # is not made.
    assert status == 700 and failed.value == 1
    assert [s[0] for s in seen] == [1, 2]
    for n, s in enumerate(seen):
        assert s[1:5] == ((4, 5, 6), (128, 1, 1), 4096, 0xabc)
        assert s[5:] == (7 + n, 0xfedcba9876543210, 0x1122334455667788, None)
    # Every launch made, none failing; no launches at all.
    seen.clear()
    addresses[1] = 42
    launches[1].function = 5
    assert lib.quireLaunchKernels(fn, ctypes.addressof(launches), 3,
                                  ctypes.addressof(addresses), 0, None) == 0
    assert [s[0] for s in seen] == [1, 5, 3]
    assert seen[1][6] == 42 and seen[1][4] is None
    assert lib.quireLaunchKernels(fn, ctypes.addressof(launches), 0,
                                  ctypes.addressof(addresses), 0, None) == 0
    assert len(seen) == 3


def test_launch_kernels_refuses_null_arguments(lib):
    called = []
    proto = ctypes.CFUNCTYPE(ctypes.c_int, *([ctypes.c_void_p] + [ctypes.c_uint] * 7 +
                                             [ctypes.c_void_p] * 3))
    driver = proto(lambda *a: called.append(a) or 0)
    fn = ctypes.cast(driver, ctypes.c_void_p).value
    launches = (_lib.Launch * 2)()
    failed = ctypes.c_size_t(99)
    # No driver function, no launches: 1 (CUDA_ERROR_INVALID_VALUE).
    assert lib.quireLaunchKernels(None, ctypes.addressof(launches), 2, None,
                                  0, ctypes.addressof(failed)) == 1
    assert failed.value == 0
    assert lib.quireLaunchKernels(fn, None, 2, None, 0, None) == 1
    # The second launch has a slot but there are no addresses: the first
    # is made, the second refused.
    buf = ctypes.create_string_buffer(8)
    one = (ctypes.c_uint32 * 1)(0)
    launches[1].num_slots = 1
    launches[1].buffer = ctypes.addressof(buf)
    launches[1].slot_offsets = launches[1].slot_indices = ctypes.addressof(one)
    assert lib.quireLaunchKernels(fn, ctypes.addressof(launches), 2, None,
                                  0, ctypes.addressof(failed)) == 1
    assert failed.value == 1 and len(called) == 1
    # A NULL slot array with addresses given is refused too.
    launches[1].slot_offsets = None
    addresses = (ctypes.c_uint64 * 1)(5)
    assert lib.quireLaunchKernels(fn, ctypes.addressof(launches), 2,
                                  ctypes.addressof(addresses), 0,
                                  ctypes.addressof(failed)) == 1
    assert failed.value == 1 and len(called) == 2
    # Nothing to launch needs nothing.
    assert lib.quireLaunchKernels(None, None, 0, None, 0, None) == 0
