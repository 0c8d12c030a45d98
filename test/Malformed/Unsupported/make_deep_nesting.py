#!/usr/bin/env python3
"""Writes the deep-nesting inputs of ../deep-nesting.mlir.

Each input nests one construct N levels deep. MLIR's recursive-descent parser
(and the tile dialect's !tile.ptr parser) recurse once or more per level, so
deep enough nesting would overflow the stack or take minutes; the tools
reject nesting beyond quire::kMaxNestingDepth with a located error first.
usage: make_deep_nesting.py [OUT_DIR]
"""
import os
import sys

CASES = {
    # 20000 nested `[` in a dense literal (upstream TensorLiteralParser).
    "deep-dense-nesting.mlir": lambda: (
        "// 20000 nested brackets in a dense literal overflow the parser's stack.\n"
        "func.func @k() attributes {tile.kernel} {\n"
        "  %a = arith.constant dense<" + "[" * 20000 + "1" + "]" * 20000
        + "> : tensor<1xi32>\n  return\n}\n"),
    # 10000 nested !tile.ptr<...> (tile PointerType::parse recurses).
    "deep-ptr-nesting.mlir": lambda: (
        "// 10000 nested !tile.ptr types overflow the parser's stack.\n"
        "func.func @k(%p: " + "!tile.ptr<" * 10000 + "f32" + ">" * 10000
        + ") attributes {tile.kernel} {\n  return\n}\n"),
    # 30000 nested dictionary attributes (upstream parseAttributeDict).
    "deep-attr-nesting.mlir": lambda: (
        "// 30000 nested dictionary attributes overflow the parser's stack.\n"
        "func.func @k() attributes {tile.kernel, a = " + "{a = " * 30000 + "1"
        + "}" * 30000 + "} {\n  return\n}\n"),
    # 20000 nested scf.if regions (upstream parseRegion/parseOperation).
    "deep-region-nesting.mlir": lambda: (
        "// 20000 nested scf.if regions overflow the parser's stack.\n"
        "func.func @k(%c: i1) attributes {tile.kernel} {\n"
        + "scf.if %c {\n" * 20000 + "}\n" * 20000 + "  return\n}\n"),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
    for name, make in CASES.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(make())


if __name__ == "__main__":
    main()
