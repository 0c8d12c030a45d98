"""Errors of the frontend, located at Python source lines.

A frontend error is a quire.CompilationError whose text has the form of an
MLIR diagnostic (`file.py:12:5: error: message`, the source line, a caret,
then `note: called from` lines for inlined calls), so frontend errors and
errors of the C++ side read the same and parse the same (`e.location`).
"""

import linecache

from .._kernel import CompilationError


def _source_line(filename, line, col):
    text = linecache.getline(filename, line).rstrip("\n")
    if not text:
        return ""
    return f"{text}\n{' ' * max(col - 1, 0)}^\n"


def format_diagnostic(frames, message, severity="error"):
    """`frames`: [(file, line, col), ...], innermost first."""
    out = []
    for i, (filename, line, col) in enumerate(frames):
        if i == 0:
            out.append(f"{filename}:{line}:{col}: {severity}: {message}\n")
        else:
            out.append(f"{filename}:{line}:{col}: note: called from\n")
        out.append(_source_line(filename, line, col))
    return "".join(out)


def compilation_error(frames, message):
    filename = frames[0][0] if frames else None
    return CompilationError(format_diagnostic(frames, message), filename)
