"""Performance: Quire against its peers (Triton, torch) in one process, each
kernel checked against float64 before it is timed; tables on stdout, plots
into the output folder."""
