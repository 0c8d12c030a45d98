"""quire.compile: every example compiles, the metadata is right, and bad
input of any kind is a Python exception with a useful message."""

import os

import pytest

import quire
from quire import _lib
from conftest import EXAMPLES, example, has_gpu

EXAMPLE_SIGNATURES = {
    "vector_add": (["!tile.ptr<f32>"] * 3 + ["i32"], [16, 16, 16, 1]),
    "softmax": (["!tile.ptr<f32>"] * 2 + ["i32", "i32"], [16, 16, 1, 1]),
    "matmul": (["!tile.ptr<f16>"] * 3 + ["i32"] * 6, [16, 16, 16] + [1] * 6),
    "paged_decode_attention": (
        ["!tile.ptr<f16>"] * 4 + ["!tile.ptr<i32>"] * 2 +
        ["f32", "i32", "i32", "i64", "i64", "i64"],
        [16, 16, 16, 16, 16, 1, 1, 1, 1, 16, 16, 16]),
}


ALL_EXAMPLES = sorted(f[:-5] for f in os.listdir(EXAMPLES) if f.endswith(".mlir"))


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_every_example_compiles(name):
    path = example(name + ".mlir")
    info = _lib.kernel_info(open(path, "rb").read(), path)
    assert info.ok, info.diagnostics
    for entry in info.metadata["kernels"]:
        k = quire.compile(path, sm=90, kernel=entry["name"])
        assert k.threads == 128 and k.args == entry["args"]
        assert f".entry {k.name}" in k.ptx and ".target sm_90" in k.ptx
        for a in k.args:
            assert a["kind"] in ("ptr", "int", "float")
            assert a["divisibility"] >= 1 and a["bits"] in (1, 8, 16, 32, 64)


@pytest.mark.parametrize("name", sorted(EXAMPLE_SIGNATURES))
def test_example_metadata(name):
    k = quire.compile(example(name + ".mlir"), sm=90)
    types, divs = EXAMPLE_SIGNATURES[name]
    assert k.name == name
    assert [a["type"] for a in k.args] == types
    assert [a["divisibility"] for a in k.args] == divs
    assert [a["kind"] for a in k.args] == [
        "ptr" if t.startswith("!tile.ptr") else
        "float" if t.startswith("f") else "int" for t in types]
    assert [a["bits"] for a in k.args] == [
        64 if t.startswith("!") else int(t[1:]) for t in types]
    assert k.threads == 128 and k.num_warps == 4 and k.sm == 90
    assert isinstance(k.shared_bytes, int) and k.shared_bytes >= 0
    assert f".entry {name}" in k.ptx and ".target sm_90" in k.ptx
    assert k.source_name == example(name + ".mlir")


def test_options_reach_the_compiler():
    k8 = quire.compile(example("vector_add.mlir"), sm=80, num_warps=8)
    assert k8.threads == 256 and ".target sm_80" in k8.ptx


def test_source_as_text_bytes_and_pathlike():
    import pathlib
    text = open(example("vector_add.mlir")).read()
    a = quire.compile(text, sm=90)
    b = quire.compile(text.encode(), sm=90)
    c = quire.compile(pathlib.Path(example("vector_add.mlir")), sm=90)
    assert a.ptx == b.ptx == c.ptx and a.source_name == "<string>"


def test_asm_kinds():
    k = quire.compile(example("softmax.mlir"), sm=90)
    assert "tile.blocked" in k.asm("tile")
    assert "llvm.func" in k.asm("llvm-mlir")
    assert "define" in k.asm("llvm")
    assert k.asm("ptx") == k.ptx
    with pytest.raises(ValueError, match="kind must be one of"):
        k.asm("sass")


MULTI = """
func.func @a(%x: !tile.ptr<f32>) attributes {tile.kernel} { return }
func.func @b(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} { return }
"""


def test_module_with_several_kernels():
    with pytest.raises(ValueError, match="2 kernels .*kernel=NAME"):
        quire.compile(MULTI, sm=90)
    assert quire.compile(MULTI, sm=90, kernel="b").args[1]["type"] == "i32"
    assert quire.compile(MULTI, sm=90, kernel="@a").name == "a"
    with pytest.raises(ValueError, match="no kernel named 'c'"):
        quire.compile(MULTI, sm=90, kernel="c")


def test_parse_error_is_located():
    src = "func.func @k(%x: i32) attributes {tile.kernel} {\n  %y = arith.addi %x, %x : i64\n  return\n}\n"
    with pytest.raises(quire.CompilationError) as info:
        quire.compile(src, sm=90)
    e = info.value
    assert e.location == ("<string>", 2, 19)
    assert "error: use of value '%x' expects different type" in str(e)
    assert e.errors[0]["severity"] == "error"
    # The source line and a caret follow the message, as mlir-opt prints.
    assert "%y = arith.addi %x, %x : i64" in e.diagnostics
    assert "^" in e.diagnostics


def test_verifier_error_names_the_file(tmp_path):
    path = tmp_path / "bad_kernel.mlir"
    path.write_text(
        "func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {\n"
        "  %r = tile.range 0, 64 : tensor<32xi32>\n"
        "  return\n}\n")
    with pytest.raises(quire.CompilationError) as info:
        quire.compile(str(path), sm=90)
    file, line, col = info.value.location
    assert file == str(path) and line == 2 and col == 8
    assert "tile.range" in str(info.value)


def test_backend_error_is_a_compilation_error():
    src = ("func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {\n"
           "  %r = tile.range 0, 96 : tensor<96xi32>\n"
           "  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<96x!tile.ptr<f32>>\n"
           "  %a = tile.addptr %ps, %r : tensor<96x!tile.ptr<f32>>, tensor<96xi32>\n"
           "  %v = tile.load %a : tensor<96x!tile.ptr<f32>>\n"
           "  tile.store %a, %v : tensor<96x!tile.ptr<f32>>\n"
           "  return\n}\n")
    with pytest.raises(quire.CompilationError, match="powers of two"):
        quire.compile(src, sm=90)
    # The interpreter has no such limit: the signature comes from parsing.
    assert quire.signature(src)["name"] == "k"


@pytest.mark.parametrize("src, message", [
    ("", "no kernel"),
    ("   \n", "no kernel"),
    ("module {}\n", "no kernel"),
    (b"func.func @k\0x() attributes {tile.kernel} { return }", "error"),
    (b"func.func @\xff\xfe() attributes {tile.kernel} { return }\n", "error"),
    ("func.func @k() attributes {tile.kernel} { return \ud800 }\n", "error"),
    ("\0" * 1000, "error"),
    ("func.func @k(" * 2000 + "\n", "error"),
])
def test_malformed_sources_raise(src, message):
    with pytest.raises(quire.CompilationError, match=message):
        quire.compile(src, sm=90)


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(src=None), TypeError, "src must be MLIR text"),
    (dict(src=42), TypeError, "src must be MLIR text"),
    (dict(src=["a"]), TypeError, "src must be MLIR text"),
    (dict(sm="90"), TypeError, "sm: expected an int"),
    (dict(sm=90.0), TypeError, "sm: expected an int"),
    (dict(sm=True), TypeError, "sm: expected an int"),
    (dict(sm=75), ValueError, "sm must be one of"),
    (dict(sm=2 ** 200), ValueError, "sm must be one of"),
    (dict(sm=-90), ValueError, "sm must be one of"),
    (dict(num_warps=3), ValueError, "power of two"),
    (dict(num_warps=0), ValueError, "power of two"),
    (dict(num_warps=64), ValueError, "power of two"),
    (dict(num_warps=2 ** 100), ValueError, "power of two"),
    (dict(num_warps=None), TypeError, "num_warps: expected an int"),
    (dict(num_warps="4"), TypeError, "num_warps: expected an int"),
    (dict(kernel=5), TypeError, "kernel must be a kernel name"),
    (dict(kernel=b"vector_add"), TypeError, "kernel must be a kernel name"),
    (dict(kernel="vector\0add"), ValueError, "NUL"),
    (dict(kernel="nope"), ValueError, "no kernel named 'nope'"),
])
def test_bad_arguments_raise(kwargs, exc, message):
    args = dict(src=example("vector_add.mlir"), sm=90)
    args.update(kwargs)
    with pytest.raises(exc, match=message):
        quire.compile(**args)


def test_nul_and_non_utf8_bytes_are_located_errors():
    """MLIR's lexer takes a NUL between tokens for whitespace, and a NUL or
    bytes that are not UTF-8 in a name into the name (an entry PTX cannot
    name): both are errors at their position, for every entry point."""
    nul = (b"func.func @k(%p: !tile.ptr<f32>) attributes "
           b"{tile.kernel} {\0 return }")
    bad = b'func.func @k() attributes {tile.kernel, s = "\xff"} { return }'
    for src, message in (
            (nul, f"<string>:1:{nul.index(0) + 1}: error: a NUL byte"),
            (bad, f"<string>:1:{bad.index(0xff) + 1}: error: the source "
             "is not UTF-8")):
        for call in (lambda: quire.compile(src, sm=90),
                     lambda: quire.signature(src)):
            with pytest.raises(quire.CompilationError) as info:
                call()
            assert message in str(info.value), str(info.value)


def test_deep_nesting_is_refused_by_every_entry_point():
    """quire.signature and the interpreter (quireGetKernelInfo,
    quireInterpret) check the nesting depth as quire.compile does: their
    parser overflowed the stack at 20000 levels."""
    deep = ("func.func @k() attributes {tile.kernel, a = " + "[" * 20000 +
            "1" + "]" * 20000 + "} { return }")
    for call in (lambda: quire.compile(deep, sm=90),
                 lambda: quire.signature(deep),
                 lambda: quire.interpret(deep, (1,))):
        with pytest.raises(quire.CompilationError,
                           match="nested deeper than 1000 levels"):
            call()


def test_errors_on_long_lines_show_the_columns_around_them():
    """An error on a line of 100000 columns shows about 240 of them around
    its location in every entry point's message, not the whole line."""
    long = ('func.func @k() attributes {tile.kernel, a = "' + "x" * 100000 +
            '", b = } {\n  return\n}\n')
    for call in (lambda: quire.compile(long, sm=90),
                 lambda: quire.signature(long),
                 lambda: quire.interpret(long, (1,))):
        with pytest.raises(quire.CompilationError,
                           match="expected attribute value") as info:
            call()
        assert len(str(info.value)) < 2000
        assert '...' + "x" * 100 in str(info.value)


def test_kernel_names_are_ptx_identifiers():
    """A kernel's name is its PTX entry's: "a b" aborted LLVM (killing the
    process), "1abc" made PTX ptxas rejects."""
    for name in ('"a b"', '"1abc"', '"_"', '"k\\FF"'):
        src = f"func.func @{name}() attributes {{tile.kernel}} {{ return }}"
        with pytest.raises(quire.CompilationError,
                           match="is not a PTX identifier"):
            quire.compile(src, sm=90)
    assert quire.compile("func.func @_k$2() attributes {tile.kernel} "
                         "{ return }", sm=90).name == "_k$2"


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        quire.compile("no/such/kernel.mlir", sm=90)
    with pytest.raises(ValueError):
        quire.compile("bad\0path.mlir", sm=90)


@pytest.mark.skipif(has_gpu(), reason="checks the message without a GPU")
def test_sm_none_without_gpu_is_clear():
    with pytest.raises(quire.CudaError, match=r"sm=None .* Pass sm="):
        quire.compile(example("vector_add.mlir"))


def test_compiler_version():
    v = quire.compiler_version()
    assert v["version"] == "0.1.0" and v["build_id"] and os.path.isfile(v["library"])
