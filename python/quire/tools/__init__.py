"""Host-side helpers for kernels (Triton's triton.tools)."""

from . import tensor_descriptor  # noqa: F401 (triton.tools.tensor_descriptor)
