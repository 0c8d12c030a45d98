"""Quire: a tile-language compiler for NVIDIA GPUs with first-class paged loads.

`import quire` needs neither torch nor numpy nor a GPU; launching a kernel
needs the CUDA driver.
"""

from .jit import CompilationError, Kernel, compile

__all__ = ["CompilationError", "Kernel", "compile"]
__version__ = "0.1.0"
