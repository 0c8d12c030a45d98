"""Host-side helpers for kernels (Triton's triton.tools)."""
