"""A small builder of tile-dialect MLIR text.

The frontend emits MLIR as text (docs/language.md, "How it works"): ops are
records of text parts, so that attributes (the hints of `tl.multiple_of`) can
be attached after an op is emitted and regions can be filled before the op
that owns them is printed. Every op carries the location of the Python
expression it came from, so diagnostics of the C++ side point at Python
lines.

    b = Builder()
    x = b.op("arith.addi {0}, {1}", [a, c], "i32")     # %3 = arith.addi ...
    print(b.function("add", [...], kernel=True))
"""


class Value:
    """An SSA value: its name in the text (`%7`, `%7#1`, `%arg0`) and its
    MLIR type (`tensor<64xf32>`). `owner` is the Op that defines it, or
    ("arg", i) for the i-th kernel argument, or None for a block argument."""

    __slots__ = ("name", "type", "owner")

    def __init__(self, name, type, owner=None):
        self.name, self.type, self.owner = name, type, owner

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"<{self.name} : {self.type}>"


class Block:
    """A list of ops; `header` is the `^bb0(...)` line for regions whose op
    syntax does not declare the block's arguments (scf.while's `do`)."""

    __slots__ = ("ops", "header")

    def __init__(self, header=None):
        self.ops, self.header = [], header


class Op:
    """One operation. `parts` are the text pieces in order: strings and
    Blocks (each Block printed as a `{ ... }` region); `attrs` (a dict of
    name -> attribute text) is printed as an attr-dict at `attr_pos`, the
    index of the part it precedes."""

    __slots__ = ("results", "parts", "attrs", "attr_pos", "loc")

    def __init__(self, parts, loc, attr_pos=None):
        self.results = []
        self.parts = parts
        self.attrs = {}
        self.attr_pos = len(parts) if attr_pos is None else attr_pos
        self.loc = loc


def quote(s):
    """An MLIR string literal."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def file_loc(filename, line, col):
    return f"{quote(filename)}:{line}:{col}"


class Builder:
    """Emits ops into the innermost open block. `loc` is the location
    text (without `loc(...)`) given to every op emitted; the code
    generator sets it as it walks the AST."""

    def __init__(self):
        self._next = 0
        self._blocks = [Block()]
        self.loc = '"<unknown>":0:0'
        self.args = []   # (Value, attrs dict)

    # Names and blocks --------------------------------------------------

    def _name(self):
        self._next += 1
        return f"%{self._next - 1}"

    def block_arg(self, type):
        return Value(self._name(), type)

    @property
    def block(self):
        return self._blocks[-1]

    def push_block(self, block=None):
        block = block or Block()
        self._blocks.append(block)
        return block

    def pop_block(self):
        return self._blocks.pop()

    def add_arg(self, type, attrs=None):
        v = Value(f"%arg{len(self.args)}", type, ("arg", len(self.args)))
        self.args.append((v, dict(attrs or {})))
        return v

    # Emission ----------------------------------------------------------

    def op(self, text, operands=(), result_types=(), attrs=None):
        """Emits `text` with `{0}`, `{1}`, ... replaced by the operands'
        names; `result_types` is one type string or a list. Returns the
        result Value, a list of them for several, or None."""
        if isinstance(result_types, str):
            result_types = [result_types]
        body = text.format(*[v.name for v in operands]) if operands else text
        # The attr-dict of the custom forms emitted here precedes the type
        # signature (`arith.addi %a, %b {attrs} : i32`), or ends the op.
        colon = body.find(" : ")
        if colon < 0:
            op = Op([body], self.loc)
        else:
            op = Op([body[:colon], body[colon:]], self.loc, attr_pos=1)
        if attrs:
            op.attrs.update(attrs)
        return self._finish(op, result_types)

    def op_parts(self, parts, result_types=(), attr_pos=None):
        """Emits an op made of text parts and Blocks (regions)."""
        if isinstance(result_types, str):
            result_types = [result_types]
        return self._finish(Op(list(parts), self.loc, attr_pos), result_types)

    def _finish(self, op, result_types):
        if len(result_types) == 1:
            op.results = [Value(self._name(), result_types[0], op)]
        elif result_types:
            base = self._name()
            op.results = [Value(f"{base}#{i}", t, op)
                          for i, t in enumerate(result_types)]
        self.block.ops.append(op)
        if not op.results:
            return None
        return op.results[0] if len(op.results) == 1 else op.results

    # Printing ----------------------------------------------------------

    def _print_block(self, block, indent, out):
        pad = "  " * indent
        if block.header:
            out.append("  " * (indent - 1) + block.header + "\n")
        for op in block.ops:
            out.append(pad)
            res = op.results
            if len(res) == 1:
                out.append(res[0].name + " = ")
            elif res:
                out.append(f"{res[0].name.split('#')[0]}:{len(res)} = ")
            for i, part in enumerate(op.parts + [""]):
                if i == op.attr_pos and op.attrs:
                    out.append(" {" + ", ".join(f"{k} = {v}" for k, v in
                                                 sorted(op.attrs.items()))
                               + "}")
                if i == len(op.parts):
                    break
                if isinstance(part, Block):
                    out.append("{\n")
                    self._print_block(part, indent + 1, out)
                    out.append(pad + "}")
                else:
                    out.append(part)
            out.append(f" loc({op.loc})\n")

    def function(self, name, kernel=True, loc=None, header_comment=None):
        """The module text: one func.func holding everything emitted."""
        assert len(self._blocks) == 1, "unbalanced blocks"
        out = []
        if header_comment:
            out.extend(f"// {line}\n" for line in header_comment.splitlines())
        args = []
        for v, attrs in self.args:
            a = f"{v.name}: {v.type}"
            if attrs:
                a += " {" + ", ".join(f"{k} = {val}" for k, val in
                                      sorted(attrs.items())) + "}"
            args.append(a)
        out.append(f"func.func @{name}({', '.join(args)})")
        if kernel:
            out.append(" attributes {tile.kernel}")
        out.append(" {\n")
        self._print_block(self._blocks[0], 1, out)
        out.append("}" + (f" loc({loc})" if loc else "") + "\n")
        return "".join(out)
