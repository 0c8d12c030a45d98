"""Every class of frontend error is a quire.CompilationError located at the
Python file, line and column of the expression (the line carries a
`# ERR:<name>` marker here); errors of the C++ side (passes, verifier) point
at Python lines through the MLIR locations the frontend emits."""

import os

import pytest

import quire
import quire.language as tl
import helpers
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")

HERE = os.path.abspath(__file__)


def marker_line(name):
    return helpers.marker_line(HERE, name)


def ptr(typestr="<f4"):
    return FakeCudaArray((1024,), typestr)


def compile_error(kernel, *args, **kwargs):
    with pytest.raises(quire.CompilationError) as info:
        kernel.warmup(*args, sm=90, **kwargs)
    return info.value


def check(err, name, message, col=None):
    assert err.location is not None, str(err)
    file, line, column = err.location
    assert os.path.abspath(file) == HERE, str(err)
    assert line == marker_line(name), str(err)
    if col is not None:
        assert column == col, str(err)
    assert message in str(err), str(err)
    assert f"test_frontend_errors.py:{line}:" in str(err)


@quire.jit
def unsupported_kernel(x_ptr):
    for i in range(4):
        break  # ERR:break


def test_unsupported_construct():
    check(compile_error(unsupported_kernel, ptr()), "break", "break is not "
          "supported", col=9)


@quire.jit
def lambda_kernel(x_ptr):
    f = lambda v: v  # ERR:lambda


def test_unsupported_expression():
    check(compile_error(lambda_kernel, ptr()), "lambda",
          "Lambda is not supported")


@quire.jit
def shape_kernel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, a + b)  # ERR:shape


def test_shape_mismatch():
    err = compile_error(shape_kernel, ptr("<i4"))
    check(err, "shape", "incompatible shapes")
    # The column is the one of the `a + b` expression.
    assert err.location[2] == 25


@quire.jit
def type_kernel(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16))
    w = v // 2  # ERR:floordiv


def test_type_mismatch():
    check(compile_error(type_kernel, ptr()), "floordiv",
          "// needs integer operands")


@quire.jit
def dot_type_kernel(x_ptr):
    r = tl.arange(0, 16)
    v = tl.load(x_ptr + r[:, None] * 16 + r[None, :])
    d = tl.dot(v, v)  # ERR:dot


def test_builtin_type_error():
    check(compile_error(dot_type_kernel, ptr("<i4")), "dot",
          "tl.dot: operands must be float16, bfloat16 or float32")


@quire.jit
def constexpr_kernel(x_ptr, n):
    r = tl.arange(0, n)  # ERR:constexpr


def test_constexpr_needed():
    check(compile_error(constexpr_kernel, ptr(), 16), "constexpr",
          "tl.arange needs constexpr bounds")


@quire.jit
def _two_args(a, b):
    return a + b


@quire.jit
def argcount_kernel(x_ptr):
    y = _two_args(x_ptr)  # ERR:argcount


def test_wrong_argument_count_in_a_call():
    check(compile_error(argcount_kernel, ptr()), "argcount",
          "_two_args(): missing a required argument: 'b'")


def test_wrong_argument_count_at_launch():
    with pytest.raises(TypeError, match=r"argcount_kernel\(\)"):
        argcount_kernel[(1,)]()
    with pytest.raises(TypeError, match="unexpected keyword argument 'Q'"):
        argcount_kernel[(1,)](ptr(), Q=3)


@quire.jit
def name_kernel(x_ptr):
    tl.store(x_ptr, undefined_name)  # noqa: F821  # ERR:name


def test_undefined_name():
    check(compile_error(name_kernel, ptr()), "name",
          "name 'undefined_name' is not defined")


@quire.jit
def _bad_helper(x):
    return x + tl.arange(0, 8) + tl.arange(0, 4)  # ERR:callee


@quire.jit
def caller_kernel(x_ptr):
    y = _bad_helper(1)  # ERR:caller


def test_errors_in_inlined_calls_name_both_lines():
    err = compile_error(caller_kernel, ptr())
    check(err, "callee", "incompatible shapes")
    assert f"{marker_line('caller')}:" in str(err)
    assert "note: called from" in str(err)


@quire.jit
def loop_type_kernel(x_ptr):
    acc = tl.zeros((16,), tl.float32)
    for i in range(4):
        acc = tl.zeros((16,), tl.int32)  # noqa
    tl.store(x_ptr + tl.arange(0, 16), acc)  # ERR:loop


def test_loop_carried_type_change():
    err = compile_error(loop_type_kernel, ptr())
    assert "loop-carried variable 'acc'" in str(err)
    assert err.location[1] == marker_line("loop") - 2  # the for statement


@quire.jit
def branch_kernel(x_ptr, n):
    if n > 0:
        y = 1.0
    tl.store(x_ptr, y)  # ERR:branch


def test_value_defined_in_one_branch():
    check(compile_error(branch_kernel, ptr(), 3), "branch",
          "'y' is assigned in only one branch")


@quire.jit
def return_value_kernel(x_ptr):
    return 3  # ERR:return


def test_kernel_returning_a_value():
    check(compile_error(return_value_kernel, ptr()), "return",
          "a kernel cannot return a value")


@quire.jit
def static_assert_kernel(x_ptr, B: tl.constexpr):
    tl.static_assert(B % 16 == 0, "B must be a multiple of 16")  # ERR:static


def test_static_assert():
    check(compile_error(static_assert_kernel, ptr(), B=8), "static",
          "static_assert failed: B must be a multiple of 16")


def _python_helper(x):
    return x


@quire.jit
def python_call_kernel(x_ptr):
    v = tl.load(x_ptr)
    w = _python_helper(v)  # ERR:pycall


def test_calling_python_with_tensors():
    check(compile_error(python_call_kernel, ptr()), "pycall",
          "'_python_helper' is not a @quire.jit function")


@quire.jit
def fp8_kernel(x_ptr):
    v = tl.load(x_ptr).to(tl.float8e4b15)  # ERR:fp8


def test_fp8_names_are_accepted_and_reported_unsupported():
    check(compile_error(fp8_kernel, ptr()), "fp8",
          "float8e4b15 is not supported by Quire's backend (its fp8 "
          "types are float8e4nv and float8e5")


@quire.jit
def fp8_arith_kernel(x_ptr):
    v = tl.load(x_ptr).to(tl.float8e4nv)
    w = v * 2.0  # ERR:fp8arith


def test_fp8_arithmetic_is_a_located_error():
    check(compile_error(fp8_arith_kernel, ptr()), "fp8arith",
          "* on tl.float8e4nv values is not supported: fp8 is loaded, "
          "stored and converted")


@quire.jit
def join_kernel(x_ptr):
    v = tl.join(tl.arange(0, 16), tl.arange(0, 16))  # ERR:join


def test_unimplemented_triton_builtin():
    check(compile_error(join_kernel, ptr()), "join",
          "tl.join is not supported by Quire")


@quire.jit
def paged_kernel(cache_ptr, bt_ptr, out_ptr, seq_len):
    tile = tl.paged_load(cache_ptr, bt_ptr, 0, 0, (16, 64), 16,  # ERR:paged
                         (1024, 64, 0), seq_len)
    r = tl.arange(0, 16)
    c = tl.arange(0, 64)
    tl.store(out_ptr + r[:, None] * 64 + c[None, :], tile)


def test_pass_errors_point_at_python_lines():
    # Checked mode needs num_blocks on every paged load: an error of the
    # C++ lowering pass, located through the frontend's MLIR locations.
    err = compile_error(paged_kernel, ptr("<f2"), ptr("<i4"), ptr("<f2"), 100,
                        checked=True)
    check(err, "paged", "num_blocks")


def test_errors_in_interpreter_mode_too(monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    with pytest.raises(quire.CompilationError) as info:
        shape_kernel[(1,)](np.zeros(16, np.int32))
    assert info.value.location[1] == marker_line("shape")


def test_calling_a_kernel_directly_is_an_error():
    with pytest.raises(RuntimeError, match=r"launch it with"):
        shape_kernel(ptr())


def test_launch_argument_errors_name_the_argument():
    with pytest.raises(TypeError, match="argument 'x_ptr' of 'shape_kernel'"):
        shape_kernel.warmup("not a tensor", sm=90)



@pytest.mark.parametrize("options,error,message", [
    (dict(num_stages=-1), ValueError, "num_stages must be an int in [0, 8]"),
    (dict(num_stages="x"), ValueError, "num_stages must be an int"),
    (dict(maxnreg=7), ValueError, "maxnreg must be 0 or an int in [24, 255]"),
    (dict(sm=75), ValueError, "sm must be one of 80, 86, 89, 90, got 75"),
    (dict(sm="90"), TypeError, "sm: expected an int, got str"),
    (dict(debug="yes"), TypeError, "debug must be True or False"),
])
def test_launch_options_checked_in_interpreter_mode(monkeypatch, options,
                                                    error, message):
    """The interpreter rejects the options a GPU compile would (it took
    them silently; sm='90' was a TypeError from a comparison)."""
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    with pytest.raises(error) as info:
        shape_kernel[(1,)](np.zeros(16, np.int32), **options)
    assert message in str(info.value)


def test_too_many_positional_arguments_name_the_kernel():
    """Not 'multiple values for argument _quire_grid' (an internal name)."""
    with pytest.raises(TypeError, match=r"shape_kernel\(\) takes 1 "
                       "positional argument but 2"):
        shape_kernel[(1,)](ptr(), ptr())

@quire.jit
def slice_kernel(x_ptr):
    v = tl.arange(0, 8)
    w = v[1:3]  # ERR:slice


def test_tensor_slices_are_refused():
    check(compile_error(slice_kernel, ptr()), "slice",
          "tensors cannot be sliced")


@quire.jit
def carried_tuple_kernel(x_ptr, n):
    t = (0, 0)
    for i in range(n):  # ERR:carried
        t = (i, i)
    tl.store(x_ptr, t[0])


def test_compile_time_values_reassigned_in_loops_are_refused():
    check(compile_error(carried_tuple_kernel, ptr("<i4"), 3), "carried",
          "'t' is tuple before the loop and reassigned in it")


@quire.jit
def too_large_kernel(x_ptr, WHAT: tl.constexpr):
    if WHAT == "arange":
        a = tl.arange(0, 2**21)  # ERR:numel-arange
        tl.store(x_ptr + a, a)
    elif WHAT == "zeros":
        z = tl.zeros((1024, 2048), tl.float32)  # ERR:numel-zeros
        tl.store(x_ptr, tl.sum(tl.sum(z, 1), 0))
    else:
        a = tl.arange(2**31 - 16, 2**31)  # ERR:arange-int32
        tl.store(x_ptr + a, a)


@pytest.mark.parametrize("what,marker,message", [
    ("arange", "numel-arange", "a tensor of shape [2097152] has 2097152 "
     "elements; tensors hold at most 1048576"),
    ("zeros", "numel-zeros", "a tensor of shape [1024, 2048] has 2097152 "
     "elements"),
    ("int32", "arange-int32", "exceeds int32"),
])
def test_tensor_size_limits(what, marker, message):
    """Tensors hold at most 2**20 elements (as Triton's), so an outsized
    one is a located error, not minutes of LLVM; tl.arange's bounds fit
    int32 (the end, 2**31, wrapped in the MLIR before)."""
    check(compile_error(too_large_kernel, ptr("<i4"), WHAT=what), marker,
          message)


@quire.jit
def bad_builtin_argument_kernel(x_ptr, WHAT: tl.constexpr):
    o = tl.arange(0, 16)
    if WHAT == "other":
        v = tl.load(x_ptr + o, mask=o < 3, other="a")  # ERR:other
    elif WHAT == "store":
        tl.store(x_ptr + o, tl.float32)  # ERR:store
        v = o
    elif WHAT == "precision":
        a = tl.zeros((16, 16), tl.float32)
        v = tl.sum(tl.dot(a, a, input_precision="bogus"), 1)  # ERR:precision
    elif WHAT == "constancy":
        v = tl.max_constancy(o, -3)  # ERR:constancy
    elif WHAT == "nan":
        v = tl.maximum(o * 1.0, 2.0, propagate_nan="x")  # ERR:nan
    elif WHAT == "seed":
        v = tl.rand(1.5, o)  # ERR:seed
    elif WHAT == "offset":
        v = tl.rand(3, o * 1.0)  # ERR:offset
    else:
        v = tl.rand(3, o, n_rounds=0)  # ERR:rounds
    tl.store(x_ptr + o, v)


@pytest.mark.parametrize("what,message", [
    ("other", "expected a tensor or a number, got str"),
    ("store", "expected a tensor or a number, got dtype"),
    ("precision", "input_precision must be 'tf32', 'tf32x3' or 'ieee'"),
    ("constancy", "hint values must be positive constexpr ints, got -3"),
    ("nan", "propagate_nan must be tl.PropagateNan.NONE or .ALL"),
    ("seed", "the seed must be an integer"),
    ("offset", "the offsets must be integers of 32 bits or fewer"),
    ("rounds", "n_rounds must be an int in [1, 64]"),
])
def test_builtin_arguments_are_checked(what, message):
    """A builtin given a value of the wrong kind says so at the call, not
    with an AttributeError from inside quire (other=, store's value) or by
    going on (a float seed or offset, n_rounds=0, an unknown precision)."""
    err = compile_error(bad_builtin_argument_kernel, ptr(), WHAT=what)
    marker = {"other": "other", "store": "store", "precision": "precision",
              "constancy": "constancy", "nan": "nan", "seed": "seed",
              "offset": "offset", "rounds": "rounds"}[what]
    if what in ("seed", "offset", "rounds"):
        # Raised in quire/language/random.py, called from the marked line.
        assert message in str(err), str(err)
        assert (f"test_frontend_errors.py:{marker_line(marker)}:"
                in str(err)), str(err)
    else:
        check(err, marker, message)
