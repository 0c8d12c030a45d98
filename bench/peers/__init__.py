"""Triton peers: kernels written as a competent Triton user (or vLLM) would
write them, timed next to Quire's in the same process."""
