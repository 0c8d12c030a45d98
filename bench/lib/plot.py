"""Bar plots of a benchmark's table, written as PNG into the output folder
(lib.env.out_dir); skipped with a message where matplotlib is missing."""

import os

from lib.env import out_dir


def bars(name, title, ylabel, labels, series, lines=(), out=None):
    """A grouped bar chart: `series` is [(legend, values)], one value per
    label; `lines` is [(legend, y)] drawn across. Writes out_dir()/name."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: matplotlib not available")
        return None
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / max(1, len(series))
    for i, (legend, values) in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width
        ax.bar([x + offset for x in range(len(labels))], values, width, label=legend)
    for (legend, y), style in zip(lines, ("--", ":", "-.")):
        ax.axhline(y, color="gray", ls=style, lw=1, label=legend)
    ax.set_xticks(list(range(len(labels))), labels, rotation=20, fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir(out), name)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print("plot:", path)
    return path
