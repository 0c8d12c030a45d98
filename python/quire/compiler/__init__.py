"""The frontend's compiler: Python AST -> tile-dialect MLIR text
(code_generator.py over the text builder in ir.py)."""

from .code_generator import generate

__all__ = ["generate"]
