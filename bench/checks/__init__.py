"""Correctness on the GPU: every kernel against a float64 reference on
fresh random inputs with NaN-poisoned outputs, and the launches
compute-sanitizer runs. Each exits non-zero on a failure."""
