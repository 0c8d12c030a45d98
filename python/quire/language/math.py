"""`tl.math`: the math functions of quire.language under Triton's
`triton.language.math` names."""

from .core import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma,
                   log, log2, rsqrt, sigmoid, sin, sqrt, sqrt_rn, tanh,
                   umulhi)
from .core import cdiv  # noqa: F401  (also in triton.language.math)

__all__ = ["abs", "cdiv", "ceil", "cos", "div_rn", "erf", "exp", "exp2",
           "fdiv", "floor", "fma", "log", "log2", "rsqrt", "sigmoid", "sin",
           "sqrt", "sqrt_rn", "tanh", "umulhi"]
