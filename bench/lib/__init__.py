"""Helpers shared by the checks and benchmarks: the environment (lib.env),
timing (lib.timing), float64 references and inputs (lib.reference,
lib.prefill), the Quire kernels they build (lib.kernels), bandwidth
ceilings (lib.bandwidth) and plots (lib.plot). Nothing here imports torch at
import time except the modules that compute with it; scripts parse their
arguments first, then call lib.env.require_torch()."""
