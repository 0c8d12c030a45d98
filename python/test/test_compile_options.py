"""The compile options' table (quire._lib.OPTIONS) drives the C API calls,
quire.compile's validation and cache key, Kernel.asm and the jit's launch
options: it agrees with quire.compile's signature, and every option off its
default compiles a kernel of its own, keeps it in Kernel.options and reaches
the C API."""

import inspect

import pytest

import quire
import quire.language as tl
from quire import _lib

SRC = "func.func @k() attributes {tile.kernel} { return }"


def _other(option):
    if option.name == "num_stages":
        return 3
    if option.name == "max_registers":
        return 64
    if option.name == "producer_registers":
        return 40
    return not option.default


def test_table_matches_compile_signature():
    params = inspect.signature(quire.compile).parameters
    for option in _lib.OPTIONS:
        assert option.name in params, option.name
        assert params[option.name].default == option.default, option.name


@pytest.mark.parametrize("option", _lib.OPTIONS, ids=lambda o: o.name)
def test_each_option_keys_its_own_kernel(option):
    plain = quire.compile(SRC, sm=90)
    other = quire.compile(SRC, sm=90, **{option.name: _other(option)})
    assert other is not plain
    assert other.options[option.name] == _other(option)
    assert getattr(other, option.name) == _other(option)
    assert plain.options == _lib.OPTION_DEFAULTS
    # The kernel's asm() recompiles with its own options.
    assert other.asm("tile")


def test_unknown_option_is_an_error():
    with pytest.raises(TypeError, match="unknown compile option 'fast'"):
        _lib.compile(SRC.encode(), "k", 90, 4, "ptx", fast=True)


@quire.jit
def _copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@pytest.mark.parametrize("option", [o for o in _lib.OPTIONS
                                    if isinstance(o.default, bool)],
                         ids=lambda o: o.name)
def test_flags_are_launch_options(option):
    from conftest import FakeCudaArray
    args = (FakeCudaArray((64,)), FakeCudaArray((64,)))
    plain = _copy.warmup(*args, grid=(1,), sm=90, BLOCK=64)
    other = _copy.warmup(*args, grid=(1,), sm=90, BLOCK=64,
                         **{option.name: not option.default})
    assert other is not plain
    with pytest.raises(TypeError, match=f"{option.name} must be True or "
                                        "False, got int"):
        _copy.warmup(*args, grid=(1,), sm=90, BLOCK=64,
                     **{option.name: int(option.default)})


def test_producer_registers_is_a_launch_option():
    # Like maxnreg, an int launch option: part of the key, checked.
    from conftest import FakeCudaArray
    args = (FakeCudaArray((64,)), FakeCudaArray((64,)))
    plain = _copy.warmup(*args, grid=(1,), sm=90, BLOCK=64)
    other = _copy.warmup(*args, grid=(1,), sm=90, BLOCK=64,
                         producer_registers=40)
    assert other is not plain
    assert other.kernel.options["producer_registers"] == 40
    for bad in (44, 16, 264, True, "40"):
        with pytest.raises(ValueError, match="producer_registers must be 0 "
                                             "or a multiple of 8"):
            _copy.warmup(*args, grid=(1,), sm=90, BLOCK=64,
                         producer_registers=bad)
