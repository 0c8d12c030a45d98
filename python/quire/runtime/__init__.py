"""The frontend's runtime: @quire.jit launches (jit.py) and autotuning
(autotuner.py)."""

from . import driver
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .jit import CompiledKernel, JITFunction, jit

__all__ = ["Autotuner", "CompiledKernel", "Config", "Heuristics",
           "JITFunction", "autotune", "driver", "heuristics", "jit"]
