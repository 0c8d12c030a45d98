"""The code generator: a @quire.jit function's Python AST -> tile MLIR text.

One visitor per AST node kind, as Triton's compiler/code_generator.py (the
model; none of its code is copied). Values are tensors (quire.language's,
holding an SSA value) or compile-time Python values (constexprs: ints,
floats, bools, None, strings, tuples, dtypes, functions); operations on
compile-time values fold in Python, operations on tensors emit MLIR through
language/semantic.py.

Control flow (docs/language.md, "Control flow"):
- `if` on a constexpr picks a branch at compile time; on a run-time scalar
  it becomes scf.if, whose results are the variables either branch assigns
  that live on after it.
- `for ... in range(...)` / `tl.range(...)` becomes scf.for; variables the
  body assigns that were defined before the loop are loop-carried
  (iter_args). A variable that starts as a Python number takes the type
  the body gives it. `tl.static_range` unrolls.
- `while` on a run-time scalar becomes scf.while, carrying the same way.
- A `return` inside an `if` moves the statements after the `if` into the
  branches that do not return, so every path ends in one place; returns
  inside loops are refused.
- Calls of other @quire.jit functions are inlined; their ops carry
  callsite locations, so diagnostics name both lines.
"""

import ast
import builtins

from .. import language as tl
from ..language import core, semantic
from . import ir
from ..tools import tensor_descriptor
from .errors import compilation_error, CompilationError

_MISSING = object()


class Undefined:
    """A name that exists on some paths only (assigned in one branch of a
    run-time if, or first assigned inside a loop body)."""

    def __init__(self, why):
        self.why = why


class FrontendBuilder(ir.Builder):
    """ir.Builder plus what builtins ask of the code generator."""

    def __init__(self, debug):
        super().__init__()
        self.debug = debug
        self.where_text = ""
        self.used_globals = []  # (globals dict, name, value) read

    def where(self):
        return self.where_text


def _is_compile_time(v):
    return not isinstance(v, core.tensor)


def _assigned_names(stmts):
    """Names stored to by `stmts` (not inside nested functions)."""
    names = []

    class V(ast.NodeVisitor):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)

        def visit_FunctionDef(self, node):
            pass

        visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    for s in stmts:
        V().visit(s)
    return names


def _contains_return(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Return):
            return True
    return False


def _terminates(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


def _py_binop(op, a, b):
    import operator
    fn = {ast.Add: operator.add, ast.Sub: operator.sub,
          ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
          ast.Pow: operator.pow, ast.BitAnd: operator.and_,
          ast.BitOr: operator.or_, ast.BitXor: operator.xor,
          ast.LShift: operator.lshift, ast.RShift: operator.rshift,
          ast.MatMult: operator.matmul}[type(op)]
    return fn(a, b)


_SEMANTIC_BINOPS = {
    ast.Add: semantic.add, ast.Sub: semantic.sub, ast.Mult: semantic.mul,
    ast.Div: semantic.truediv, ast.FloorDiv: semantic.floordiv,
    ast.Mod: semantic.mod, ast.Pow: semantic.pow, ast.BitAnd: semantic.and_,
    ast.BitOr: semantic.or_, ast.BitXor: semantic.xor_,
    ast.LShift: semantic.shl, ast.RShift: semantic.shr,
}

_CMP_OPS = {ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">=",
            ast.Eq: "==", ast.NotEq: "!="}

# Tensor methods: x.sum(axis=0) is tl.sum(x, axis=0), as in Triton.
_MEMBERS = ("sum", "max", "min", "argmax", "argmin", "exp", "exp2", "log",
            "log2", "sqrt", "rsqrt", "abs", "sigmoid", "softmax", "trans",
            "permute", "broadcast_to", "expand_dims", "reshape", "view",
            "cos", "sin", "floor", "ceil", "erf", "tanh", "cast")


class CodeGenerator(ast.NodeVisitor):
    """Emits one function body. `scope` maps names to values; `fn` is the
    JITFunction whose source is being visited; `call_loc` is the location
    text of the call site when inlined (None for the kernel)."""

    def __init__(self, builder, fn, scope, call_loc=None, call_frames=(),
                 depth=0):
        self.builder = builder
        self.fn = fn
        self.src = fn._parsed()
        self.scope = scope
        self.call_loc = call_loc
        self.call_frames = list(call_frames)
        self.depth = depth
        self.returned = False
        self.ret = None
        self.globals = fn.fn.__globals__
        self.node = None
        self.loop_depth = 0

    # Locations and errors ---------------------------------------------

    def _pos(self, node):
        line = node.lineno + self.src.line_offset
        col = node.col_offset + 1 + self.src.col_offset
        return self.src.filename, line, col

    def _loc_text(self, node):
        f, line, col = self._pos(node)
        own = ir.file_loc(f, line, col)
        return f"callsite({own} at {self.call_loc})" if self.call_loc else own

    def error(self, node, message):
        frames = [self._pos(node)] if node is not None and \
            hasattr(node, "lineno") else []
        return compilation_error(frames + self.call_frames, message)

    def visit(self, node):
        if not hasattr(node, "lineno"):
            return super().visit(node)
        b = self.builder
        saved = (b.loc, b.where_text, self.node)
        b.loc = self._loc_text(node)
        f, line, col = self._pos(node)
        b.where_text = f"{f}:{line}"
        self.node = node
        try:
            return super().visit(node)
        except CompilationError:
            raise
        except core.CompileTimeError as e:
            raise self.error(node, str(e)) from None
        except RecursionError:
            raise self.error(node, "the kernel nests too deeply (recursion "
                             "limit)") from None
        except Exception as e:  # compile-time Python raised
            raise self.error(node, f"{type(e).__name__}: {e}") from e
        finally:
            b.loc, b.where_text, self.node = saved

    def generic_visit(self, node):
        raise core.CompileTimeError(
            f"{type(node).__name__} is not supported in a @quire.jit "
            "function")

    # Statements -------------------------------------------------------

    def visit_body(self, stmts):
        for i, stmt in enumerate(stmts):
            if self.returned:
                return
            rest = stmts[i + 1:]
            if isinstance(stmt, ast.If) and rest and _contains_return(stmt):
                # Move what follows into the branches that fall through.
                body = stmt.body if _terminates(stmt.body) else \
                    stmt.body + rest
                orelse = stmt.orelse if _terminates(stmt.orelse) else \
                    stmt.orelse + rest
                merged = ast.If(test=stmt.test, body=body, orelse=orelse)
                ast.copy_location(merged, stmt)
                self.visit(merged)
                return
            self.visit(stmt)

    def visit_FunctionDef(self, node):
        raise core.CompileTimeError("nested function definitions are not "
                                    "supported in a @quire.jit function")

    def visit_Pass(self, node):
        pass

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            return  # a docstring
        self.visit(node.value)

    def _assign(self, target, value):
        if isinstance(target, ast.Name):
            if isinstance(value, core.constexpr):
                value = value.value
            self.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, core.tensor) or not isinstance(
                    value, (tuple, list)):
                raise core.CompileTimeError(
                    f"cannot unpack {type(value).__name__} into "
                    f"{len(target.elts)} names")
            if len(value) != len(target.elts):
                raise core.CompileTimeError(
                    f"cannot unpack {len(value)} values into "
                    f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self._assign(t, v)
        else:
            raise core.CompileTimeError(
                f"assignment to {type(target).__name__.lower()} targets is "
                "not supported (only names and tuples of names)")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for t in node.targets:
            self._assign(t, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.visit(node.value)
        ann = self._annotation(node.annotation)
        if ann is core.constexpr:
            if isinstance(value, core.tensor):
                raise core.CompileTimeError(
                    f"'{getattr(node.target, 'id', '?')}' is annotated "
                    "tl.constexpr but its value is a run-time tensor")
        elif isinstance(ann, core.dtype):
            value = semantic.cast(value, ann, self.builder)
        self._assign(node.target, value)

    def _annotation(self, node):
        try:
            return self.visit(node)
        except CompilationError:
            return None

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise core.CompileTimeError("augmented assignment needs a name "
                                        "target")
        cur = self._lookup(node.target.id, node.target)
        value = self._binop(node.op, cur, self.visit(node.value))
        self.scope[node.target.id] = value

    def visit_Return(self, node):
        if self.loop_depth:
            raise core.CompileTimeError("return inside a loop is not "
                                        "supported")
        value = None if node.value is None else self.visit(node.value)
        if self.depth == 0 and value is not None:
            raise core.CompileTimeError("a kernel cannot return a value")
        self.ret = value
        self.returned = True

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = "" if node.msg is None else self.visit(node.msg)
        if _is_compile_time(cond):
            tl.static_assert(cond, msg, _builder=self.builder)
        else:
            tl.device_assert(cond, msg, _builder=self.builder)

    def visit_Break(self, node):
        raise core.CompileTimeError("break is not supported (use a while "
                                    "loop whose condition ends it)")

    def visit_Continue(self, node):
        raise core.CompileTimeError("continue is not supported")

    # if ----------------------------------------------------------------

    def _scalar_cond(self, cond, what):
        if cond.type.is_block():
            raise core.CompileTimeError(
                f"the condition of {what} must be a scalar, got a tensor of "
                f"shape {cond.shape}")
        return semantic.to_bool(cond, self.builder)

    def _branch(self, stmts, scope):
        """Visits `stmts` in a new block with a copy of `scope`."""
        b = self.builder
        block = b.push_block()
        saved = (self.scope, self.returned, self.ret)
        self.scope, self.returned, self.ret = dict(scope), False, None
        try:
            self.visit_body(stmts)
            result = (block, self.scope, self.returned, self.ret)
        finally:
            b.pop_block()
            self.scope, self.returned, self.ret = saved
        return result

    def visit_If(self, node):
        cond = self.visit(node.test)
        if _is_compile_time(cond):
            self.visit_body(node.body if cond else node.orelse)
            return
        cond = self._scalar_cond(cond, "if")
        before = self.scope
        tb, ts, tret, tval = self._branch(node.body, before)
        eb, es, eret, evals = self._branch(node.orelse, before)
        if tret or eret:
            # Both paths end the function (see visit_body): the if's
            # results are the returned values.
            merged = self._merge_values([tval], [evals], tb, eb, "the return "
                                        "value")
            self._emit_if(cond, tb, eb, merged)
            self.ret = merged.rebuild()[0]
            self.returned = True
            return
        names = [n for n in list(ts) + [n for n in es if n not in ts]
                 if ts.get(n, _MISSING) is not es.get(n, _MISSING)]
        live, tvals, evs = [], [], []
        for n in names:
            tv, ev = ts.get(n, _MISSING), es.get(n, _MISSING)
            if tv is _MISSING or ev is _MISSING or \
                    isinstance(tv, Undefined) or isinstance(ev, Undefined):
                self.scope[n] = Undefined(
                    f"'{n}' is assigned in only one branch of the run-time "
                    f"if at line {self._pos(node)[1]}")
                continue
            live.append(n)
            tvals.append(tv)
            evs.append(ev)
        merged = self._merge_values(tvals, evs, tb, eb, None, live)
        self._emit_if(cond, tb, eb, merged)
        for n, v in zip(live, merged.rebuild()):
            self.scope[n] = v

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if _is_compile_time(cond):
            return self.visit(node.body if cond else node.orelse)
        cond = self._scalar_cond(cond, "a conditional expression")
        b = self.builder
        values = []
        blocks = []
        for expr in (node.body, node.orelse):
            blk = b.push_block()
            try:
                values.append(self.visit(expr))
            finally:
                b.pop_block()
            blocks.append(blk)
        merged = self._merge_values([values[0]], [values[1]], blocks[0],
                                    blocks[1], "the conditional expression")
        self._emit_if(cond, blocks[0], blocks[1], merged)
        return merged.rebuild()[0]

    def _emit_if(self, cond, tb, eb, merged):
        b = self.builder
        types = merged.types
        for blk, ys in ((tb, merged.then_yields), (eb, merged.else_yields)):
            if ys:
                b.push_block(blk)
                b.op("scf.yield " + ", ".join(y.name for y in ys) + " : " +
                     ", ".join(y.type for y in ys))
                b.pop_block()
        head = f"scf.if {cond.handle.name}"
        if types:
            head += " -> (" + ", ".join(types) + ")"
        parts = [head + " ", tb]
        if eb.ops or types:
            parts += [" else ", eb]
        res = b.op_parts(parts, types)
        merged.bind(res)

    def _merge_values(self, tvals, evals, tb, eb, what, names=None):
        """Unifies the values two branches produce: equal compile-time
        values stay compile-time; everything else becomes a result of the
        scf.if, numbers materialized in their branch."""
        return _Merge(self, tvals, evals, tb, eb, what, names)

    # Loops -------------------------------------------------------------

    def _range_args(self, call_args):
        a1, a2, a3 = call_args
        if a2 is None:
            lb, ub = 0, a1
        else:
            lb, ub = a1, a2
        step = 1 if a3 is None else a3
        return lb, ub, step

    def visit_For(self, node):
        if node.orelse:
            raise core.CompileTimeError("for ... else is not supported")
        if not isinstance(node.target, ast.Name):
            raise core.CompileTimeError("the loop variable must be a single "
                                        "name")
        it = node.iter
        kind, args, stages = None, None, None
        if isinstance(it, ast.Call):
            fn = self.visit(it.func)
            if fn is builtins.range or fn is tl.range or fn is tl.static_range:
                pos = [self.visit(a) for a in it.args]
                kw = {k.arg: self.visit(k.value) for k in it.keywords}
                try:
                    obj = fn(*pos, **kw) if fn is not builtins.range else \
                        tl.range(*pos)
                except TypeError as e:
                    raise core.CompileTimeError(f"bad loop arguments: {e}")
                args = [core._unwrap(a) for a in obj.args]
                kind = "static" if fn is tl.static_range else "dynamic"
                stages = getattr(obj, "num_stages", None)
                if stages is not None and (
                        isinstance(stages, bool) or
                        not isinstance(stages, int) or not 0 <= stages <= 8):
                    raise core.CompileTimeError(
                        f"tl.range: num_stages must be a constexpr int in "
                        f"[0, 8], got {stages!r}")
        if kind is None:
            seq = self.visit(it)
            if isinstance(seq, (tuple, list)):
                for v in seq:
                    self.scope[node.target.id] = v
                    self._loop_body(node.body)
                return
            raise core.CompileTimeError(
                "a for loop must iterate over range(...), tl.range(...), "
                "tl.static_range(...) or a compile-time tuple")
        lb, ub, step = self._range_args(args)
        if kind == "static":
            for v in (lb, ub, step):
                if isinstance(v, core.tensor) or not isinstance(v, int):
                    raise core.CompileTimeError(
                        "tl.static_range needs constexpr int bounds")
            for i in builtins.range(lb, ub, step):
                self.scope[node.target.id] = i
                self._loop_body(node.body)
            return
        self._dynamic_for(node, lb, ub, step, stages)

    def _loop_body(self, stmts):
        if _contains_return(ast.Module(body=stmts, type_ignores=[])):
            raise core.CompileTimeError("return inside a loop is not "
                                        "supported")
        self.loop_depth += 1
        try:
            self.visit_body(stmts)
        finally:
            self.loop_depth -= 1

    def _carried(self, stmts, exclude=()):
        """Names the loop body assigns that live before it, in the order
        they were defined (so iter_args follow the source's order)."""
        assigned = set(_assigned_names(stmts)) - set(exclude)
        return [n for n, v in self.scope.items() if n in assigned and
                (isinstance(v, core.tensor) or semantic.is_num(v))]

    def _iv_type(self, values):
        dt = tl.int32
        for v in values:
            if isinstance(v, core.tensor):
                if v.type.is_block() or not v.dtype.is_int():
                    raise core.CompileTimeError(
                        "loop bounds must be integer scalars")
                if v.dtype.int_bitwidth == 64:
                    dt = tl.int64
            elif not isinstance(v, int) or isinstance(v, bool):
                raise core.CompileTimeError(
                    f"loop bounds must be integers, got {v!r}")
            elif not -2**31 <= v < 2**31:
                dt = tl.int64
        return dt

    def _dynamic_for(self, node, lb, ub, step, stages=None):
        b = self.builder
        dt = self._iv_type((lb, ub, step))
        neg = isinstance(step, int) and step < 0
        if isinstance(step, int) and step == 0:
            raise core.CompileTimeError("the loop step must not be zero")
        # A negative step counts its iterations in 64 bits: lb - ub and the
        # count can pass 2**31 even where every i fits dt.
        loop_dt = tl.int64 if neg else dt
        if neg:
            # for i in range(lb, ub, -s): j in [0, ceil((lb - ub) / s)),
            # i = lb - j * s.
            s = -step
            span = semantic.sub(
                semantic.cast(semantic.to_tensor(lb, b, dt), loop_dt, b),
                semantic.cast(semantic.to_tensor(ub, b, dt), loop_dt, b), b)
            count = semantic.floordiv(semantic.add(span, s - 1, b), s, b)
            count = semantic.maximum(count, 0, None, b)
            lo, hi, st = semantic.const(b, 0, loop_dt), count, \
                semantic.const(b, 1, loop_dt)
        else:
            lo = semantic.cast(semantic.to_tensor(lb, b, dt), dt, b)
            hi = semantic.cast(semantic.to_tensor(ub, b, dt), dt, b)
            st = semantic.cast(semantic.to_tensor(step, b, dt), dt, b)
        target = node.target.id
        carried = self._carried(node.body, exclude=(target,))

        def header(iv, args, inits):
            text = f"scf.for {iv.name} = {lo.handle.name} to " \
                   f"{hi.handle.name} step {st.handle.name}"
            if args:
                text += " iter_args(" + ", ".join(
                    f"{a.name} = {i.handle.name}"
                    for a, i in zip(args, inits)) + ") -> (" + ", ".join(
                    i.type.mlir for i in inits) + ")"
            return text + f" : {loop_dt.mlir} "

        def bind_iv(iv):
            ivt = core.tensor(iv, loop_dt)
            if neg:
                # In [ub + 1, lb]: back to dt without loss.
                i = semantic.sub(
                    semantic.cast(semantic.to_tensor(lb, b, dt), loop_dt, b),
                    semantic.mul(ivt, -step, b), b)
                return semantic.cast(i, dt, b)
            return ivt

        self._emit_loop(node, carried, header, bind_iv, target, "for",
                        attrs=None if stages is None else
                        {"tile.num_stages": f"{stages} : i32"})

    def _emit_loop(self, node, carried, header, bind_iv, target, kind,
                   cond_node=None, attrs=None):
        """Emits scf.for (kind "for") or scf.while (kind "while"), retrying
        when a carried variable that started as a Python number gets
        another type in the body."""
        b = self.builder
        before = self.scope
        init_types = {}
        for attempt in builtins.range(4):
            inits = []
            for n in carried:
                v = before[n]
                want = init_types.get(n)
                if isinstance(v, core.tensor):
                    inits.append(v if want is None else
                                 semantic.broadcast_to(
                                     semantic.cast(v, want.scalar, b),
                                     list(want.shape) if want.is_block()
                                     else [], b))
                else:
                    dt = want.scalar if want is not None else \
                        semantic.number_dtype(v)
                    shape = list(want.shape) if want is not None and \
                        want.is_block() else None
                    inits.append(semantic.const(b, v, dt, shape))
            body = ir.Block()
            cond_block = None
            b.push_block(body)
            saved = self.scope
            self.scope = dict(before)
            try:
                if kind == "for":
                    iv = b.block_arg(None)
                    args = [b.block_arg(i.type.mlir) for i in inits]
                    self.scope[target] = bind_iv(iv)
                else:
                    args = [b.block_arg(i.type.mlir) for i in inits]
                    body.header = "^bb0(" + ", ".join(
                        f"{a.name}: {a.type}" for a in args) + "):"
                for n, a, i in zip(carried, args, inits):
                    self.scope[n] = core.tensor(a, i.type)
                self._loop_body(node.body)
                after = self.scope
                retry = False
                yields = []
                for n, i in zip(carried, inits):
                    y = after.get(n, _MISSING)
                    if isinstance(y, Undefined):
                        raise core.CompileTimeError(y.why)
                    if semantic.is_num(y):
                        y = semantic.const(
                            b, y, i.dtype,
                            i.shape if i.type.is_block() else None)
                    elif not isinstance(y, core.tensor):
                        raise core.CompileTimeError(
                            f"loop-carried variable '{n}' is assigned a "
                            f"{type(y).__name__} in the loop")
                    if y.type != i.type:
                        if not isinstance(before[n], core.tensor) and \
                                init_types.get(n) != y.type:
                            init_types[n] = y.type
                            retry = True
                        else:
                            raise core.CompileTimeError(
                                f"loop-carried variable '{n}' has type "
                                f"{i.type!r} before the loop but "
                                f"{y.type!r} at the end of the body; make "
                                "the types agree (e.g. with .to())")
                    yields.append(y)
                if retry:
                    continue
                if yields:
                    b.op("scf.yield " + ", ".join(y.handle.name for y in yields)
                         + " : " + ", ".join(y.type.mlir for y in yields))
                elif kind == "while":
                    # scf.for's empty yield is implicit; scf.while's is not.
                    b.op("scf.yield")
            finally:
                b.pop_block()
                self.scope = saved
            break
        else:
            raise core.CompileTimeError("loop-carried types do not settle")
        types = [i.type.mlir for i in inits]
        if kind == "for":
            res = b.op_parts([header(iv, args, inits), body], types)
            if attrs:
                # In the op's attr-dict, after its region (with any hint a
                # later tl.multiple_of puts on its result).
                b.block.ops[-1].attrs.update(attrs)
        else:
            cond_block, bargs = self._while_cond(cond_node, carried, inits)
            parts = ["scf.while (" + ", ".join(
                f"{a.name} = {i.handle.name}" for a, i in zip(bargs, inits))
                + ") : (" + ", ".join(types) + ") -> (" + ", ".join(types) +
                ") ", cond_block, " do ", body]
            res = b.op_parts(parts, types)
        if len(types) == 1:
            res = [res]
        for n, r, i in zip(carried, res or [], inits):
            self.scope[n] = core.tensor(r, i.type)
        for n in _assigned_names(node.body):
            if n in carried or n == target:
                continue
            if before.get(n, _MISSING) is _MISSING or \
                    isinstance(before[n], Undefined):
                # Not defined before this loop (or only on some paths):
                # local to the body, as a name first assigned in it.
                self.scope[n] = Undefined(
                    f"'{n}' is assigned only inside the loop at line "
                    f"{self._pos(node)[1]}; define it before the loop to use "
                    "it after")
            elif after.get(n, _MISSING) is not before[n] and \
                    not (type(after.get(n)) is type(before[n]) and
                         _is_compile_time(before[n]) and
                         after.get(n) == before[n]):
                raise core.CompileTimeError(
                    f"'{n}' is {type(before[n]).__name__} before the loop and "
                    "reassigned in it; a run-time loop carries only tensors "
                    "and numbers (start it as one, e.g. tl.zeros(...))")

    def _while_cond(self, test, carried, inits):
        b = self.builder
        block = b.push_block()
        saved = self.scope
        self.scope = dict(saved)
        try:
            args = [b.block_arg(i.type.mlir) for i in inits]
            for n, a, i in zip(carried, args, inits):
                self.scope[n] = core.tensor(a, i.type)
            cond = self.visit(test)
            if _is_compile_time(cond):
                raise core.CompileTimeError(
                    "the while condition must be a run-time value once the "
                    "loop runs")
            cond = self._scalar_cond(cond, "while")
            b.op("scf.condition({0})" + ("".join(
                f" {a.name}" if k == 0 else f", {a.name}"
                for k, a in enumerate(args))) +
                (" : " + ", ".join(i.type.mlir for i in inits) if args
                 else ""), [cond.handle])
        finally:
            b.pop_block()
            self.scope = saved
        return block, args

    def visit_While(self, node):
        if node.orelse:
            raise core.CompileTimeError("while ... else is not supported")
        # A condition false at compile time skips the loop.
        probe = self._probe_constant(node.test)
        if probe is not _MISSING:
            if not probe:
                return
            raise core.CompileTimeError(
                "a while loop whose condition is always true needs break, "
                "which is not supported")
        carried = self._carried(node.body)
        self._emit_loop(node, carried, None, None, None, "while",
                        cond_node=node.test)

    def _probe_constant(self, test):
        """The condition's value when it is compile-time without emitting
        anything, else _MISSING."""
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        for n in names:
            if isinstance(self.scope.get(n), core.tensor):
                return _MISSING
        b = self.builder
        blk = b.push_block()
        try:
            v = self.visit(test)
        finally:
            b.pop_block()
        if blk.ops or not _is_compile_time(v):
            return _MISSING
        return v

    # Expressions -------------------------------------------------------

    def visit_Constant(self, node):
        if isinstance(node.value, (bytes, complex)):
            raise core.CompileTimeError(
                f"{type(node.value).__name__} constants are not supported")
        return node.value

    def _lookup(self, name, node):
        v = self.scope.get(name, _MISSING)
        if isinstance(v, Undefined):
            raise core.CompileTimeError(v.why)
        if v is not _MISSING:
            return v
        if name in self.globals:
            return self._global(name, self.globals[name])
        return _builtin_namespace(name)

    def _global(self, name, value):
        from ..runtime.jit import JITFunction
        import types as pytypes
        if isinstance(value, (core.constexpr, int, float, bool, str, tuple,
                              core.dtype)):
            self.builder.used_globals.append(
                (self.globals, name, core._unwrap(value)))
        if isinstance(value, core.constexpr):
            return value.value
        if isinstance(value, (JITFunction, core.dtype, pytypes.ModuleType,
                              int, float, bool, str, type(None), tuple)) or \
                callable(value):
            return value
        raise core.CompileTimeError(
            f"global '{name}' ({type(value).__name__}) cannot be used in a "
            "kernel; globals must be constexprs (tl.constexpr(...), ints, "
            "floats), dtypes, modules or functions")

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            return self._lookup(node.id, node)
        raise core.CompileTimeError("unexpected name context")

    def visit_Tuple(self, node):
        return tuple(self._elements(node.elts))

    def visit_List(self, node):
        return list(self._elements(node.elts))

    def _elements(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.visit(e.value)
                if not isinstance(v, (tuple, list)):
                    raise core.CompileTimeError("only tuples can be unpacked "
                                                "with *")
                out.extend(v)
            else:
                out.append(self.visit(e))
        return out

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.visit(v.value)
                if isinstance(val, core.tensor):
                    raise core.CompileTimeError(
                        "f-strings can only format compile-time values")
                spec = "" if v.format_spec is None else \
                    self.visit(v.format_spec)
                if v.conversion == ord("r"):
                    val = repr(val)
                elif v.conversion == ord("s"):
                    val = str(val)
                parts.append(format(val, spec))
        return "".join(parts)

    def visit_Attribute(self, node):
        obj = self.visit(node.value)
        attr = node.attr
        if isinstance(obj, core.tensor):
            return self._tensor_attr(obj, attr)
        if isinstance(obj, Undefined):
            raise core.CompileTimeError(obj.why)
        try:
            value = getattr(obj, attr)
        except AttributeError:
            what = getattr(obj, "__name__", type(obj).__name__)
            raise core.CompileTimeError(f"'{what}' has no attribute "
                                        f"'{attr}'") from None
        import types as pytypes
        if isinstance(obj, pytypes.ModuleType) and isinstance(
                value, (core.constexpr, int, float, bool, str, tuple)):
            # A module's constant is a global too (Triton's rule).
            self.builder.used_globals.append(
                (vars(obj), attr, core._unwrap(value)))
        return value

    def _tensor_attr(self, t, attr):
        b = self.builder
        if attr == "dtype":
            return t.dtype
        if attr == "shape":
            return tuple(t.shape)
        if attr == "type":
            return t.type
        if attr == "numel":
            return t.numel
        if attr == "ndim":
            return len(t.shape)
        if attr == "T":
            return semantic.trans(t, None, b)
        if attr == "to":
            def to(dtype, fp_downcast_rounding=None, bitcast=False,
                   _builder=None):
                return semantic.cast(t, core._unwrap(dtype), b,
                                     bitcast=core._unwrap(bitcast))
            setattr(to, core.BUILTIN, True)
            return to
        if attr in _MEMBERS:
            fn = getattr(tl, attr)

            def member(*args, _builder=None, **kwargs):
                return fn(t, *args, _builder=_builder, **kwargs)
            setattr(member, core.BUILTIN, True)
            member.__name__ = attr
            return member
        raise core.CompileTimeError(f"tensors have no attribute '{attr}'")

    def visit_Subscript(self, node):
        value = self.visit(node.value)
        index = self.visit(node.slice)
        if isinstance(value, core.tensor):
            return self._index_tensor(value, index)
        if isinstance(index, core.tensor) or (
                isinstance(index, tuple) and
                any(isinstance(i, core.tensor) for i in index)):
            raise core.CompileTimeError("compile-time values can only be "
                                        "indexed by constexprs")
        fix = lambda i: builtins.slice(None) if i is _SLICE else i  # noqa
        index = tuple(fix(i) for i in index) if isinstance(index, tuple) \
            else fix(index)
        return value[index]

    def visit_Slice(self, node):
        parts = [None if e is None else self.visit(e)
                 for e in (node.lower, node.upper, node.step)]
        if all(p is None for p in parts):
            return _SLICE
        for p in parts:
            if isinstance(p, core.tensor):
                raise core.CompileTimeError("slice bounds must be constexprs")
        return builtins.slice(*parts)

    def _index_tensor(self, t, index):
        items = list(index) if isinstance(index, tuple) else [index]
        b = self.builder
        rank = len(t.shape)
        for i in items:
            if isinstance(i, builtins.slice):
                raise core.CompileTimeError(
                    "tensors cannot be sliced; only ':' (a whole "
                    "dimension) and None (a new one) index them")
            if not (i is None or i is _SLICE):
                raise core.CompileTimeError(
                    "tensors can only be indexed with None and ':' "
                    "(x[:, None]), not by position")
        slices = sum(1 for i in items if i is _SLICE)
        if slices > rank:
            raise core.CompileTimeError(
                f"a rank-{rank} tensor has {rank} dimensions, indexed with "
                f"{slices} ':'")
        # As numpy: missing trailing dimensions are whole ones (x[None]).
        items += [_SLICE] * (rank - slices)
        out = t
        for axis, i in enumerate(items):
            if i is None:
                out = semantic.expand_dims(out, axis, b)
        return out

    def _binop(self, op, lhs, rhs):
        if isinstance(lhs, Undefined) or isinstance(rhs, Undefined):
            raise core.CompileTimeError(
                (lhs if isinstance(lhs, Undefined) else rhs).why)
        if _is_compile_time(lhs) and _is_compile_time(rhs):
            return _py_binop(op, lhs, rhs)
        fn = _SEMANTIC_BINOPS.get(type(op))
        if fn is None:
            raise core.CompileTimeError(f"operator {type(op).__name__} is "
                                        "not supported on tensors")
        return fn(lhs, rhs, self.builder)

    def visit_BinOp(self, node):
        return self._binop(node.op, self.visit(node.left),
                           self.visit(node.right))

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        b = self.builder
        if _is_compile_time(v):
            return {ast.USub: lambda x: -x, ast.UAdd: lambda x: +x,
                    ast.Not: lambda x: not x, ast.Invert: lambda x: ~x}[
                type(node.op)](v)
        if isinstance(node.op, ast.USub):
            return semantic.minus(v, b)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return semantic.not_(v, b)
        return semantic.invert(v, b)

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        v = self.visit(node.values[0])
        for expr in node.values[1:]:
            if _is_compile_time(v):
                if bool(v) != is_and:
                    return v  # short-circuit, as Python
                v = self.visit(expr)
            else:
                w = self.visit(expr)
                v = (semantic.logical_and if is_and else
                     semantic.logical_or)(v, w, self.builder)
        return v

    def visit_Compare(self, node):
        left = self.visit(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.visit(right_node)
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                if isinstance(op, (ast.In, ast.NotIn)) and \
                        not (_is_compile_time(left) and
                             _is_compile_time(right)):
                    raise core.CompileTimeError("'in' needs compile-time "
                                                "values")
                r = {ast.Is: lambda a, c: a is c,
                     ast.IsNot: lambda a, c: a is not c,
                     ast.In: lambda a, c: a in c,
                     ast.NotIn: lambda a, c: a not in c}[type(op)](left, right)
            elif _is_compile_time(left) and _is_compile_time(right):
                r = {ast.Lt: lambda a, c: a < c, ast.Gt: lambda a, c: a > c,
                     ast.LtE: lambda a, c: a <= c,
                     ast.GtE: lambda a, c: a >= c,
                     ast.Eq: lambda a, c: a == c,
                     ast.NotEq: lambda a, c: a != c}[type(op)](left, right)
            else:
                r = semantic.compare(_CMP_OPS[type(op)], left, right,
                                     self.builder)
            if result is None:
                result = r
            elif _is_compile_time(result) and _is_compile_time(r):
                result = result and r
            else:
                result = semantic.logical_and(result, r, self.builder)
            left = right
        return result

    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = self._elements(node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                v = self.visit(kw.value)
                if not isinstance(v, dict):
                    raise core.CompileTimeError("** needs a compile-time "
                                                "dict")
                kwargs.update(v)
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        for v in list(args) + list(kwargs.values()):
            if isinstance(v, Undefined):
                raise core.CompileTimeError(v.why)
        return self.call(fn, args, kwargs, node)

    def call(self, fn, args, kwargs, node):
        from ..runtime.jit import JITFunction
        if isinstance(fn, JITFunction):
            return self._inline(fn, args, kwargs, node)
        if core.is_builtin(fn):
            try:
                r = fn(*args, _builder=self.builder, **kwargs)
            except TypeError as e:
                if "_builder" in str(e) or "argument" in str(e):
                    raise core.CompileTimeError(
                        f"bad arguments to {getattr(fn, '__name__', 'call')}"
                        f"(): {e}") from None
                raise
            return core._unwrap(r)
        if fn is core.constexpr:
            return core._unwrap(args[0]) if args else None
        if fn in _PY_BUILTINS_REPLACED:
            return _PY_BUILTINS_REPLACED[fn](self, args, kwargs)
        if fn is builtins.range or fn is tl.range or fn is tl.static_range:
            raise core.CompileTimeError("range() can only be used as the "
                                        "iterable of a for loop")
        if not callable(fn):
            raise core.CompileTimeError(f"'{type(fn).__name__}' object is "
                                        "not callable")
        if any(isinstance(v, core.tensor) for v in
               list(args) + list(kwargs.values())):
            name = getattr(fn, "__name__", repr(fn))
            raise core.CompileTimeError(
                f"'{name}' is not a @quire.jit function or a quire.language "
                "builtin, so it cannot take run-time values; decorate it "
                "with @quire.jit")
        r = fn(*args, **kwargs)  # compile-time Python on constexprs
        if isinstance(r, core.tensor):
            raise core.CompileTimeError("a Python function returned a tensor")
        return core._unwrap(r)

    def _inline(self, fn, args, kwargs, node):
        if self.depth > 64:
            raise core.CompileTimeError(
                f"@quire.jit calls nest deeper than 64 levels (recursion in "
                f"'{fn.__name__}'?)")
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise core.CompileTimeError(f"{fn.__name__}(): {e}") from None
        bound.apply_defaults()
        scope = {}
        for p in fn.params:
            v = core._unwrap(bound.arguments[p.name])
            if p.is_constexpr and isinstance(v, core.tensor):
                raise core.CompileTimeError(
                    f"{fn.__name__}(): '{p.name}' is a tl.constexpr "
                    "parameter but got a run-time value")
            if p.annotation is not None and isinstance(v, core.tensor):
                v = semantic.cast(v, p.annotation, self.builder)
            scope[p.name] = v
        gen = CodeGenerator(self.builder, fn, scope,
                            call_loc=self._loc_text(node),
                            call_frames=[self._pos(node)] + self.call_frames,
                            depth=self.depth + 1)
        fdef = gen.src.tree
        gen.visit_body(fdef.body)
        return gen.ret


class _Slice:
    def __repr__(self):
        return ":"


_SLICE = _Slice()


class _Merge:
    """The results of a run-time if (see CodeGenerator._merge_values):
    `types` and the values each branch yields, and `slots` describing how
    to rebuild each merged value (tuples included) from the op's results."""

    def __init__(self, gen, tvals, evals, tb, eb, what, names):
        self.b = gen.builder
        self.tb, self.eb = tb, eb
        self.types, self.then_yields, self.else_yields = [], [], []
        self._results = []
        self.slots = [self._leaf(tv, ev, what or f"'{names[k]}'")
                      for k, (tv, ev) in enumerate(zip(tvals, evals))]

    def _leaf(self, tv, ev, label):
        if isinstance(tv, tuple) and isinstance(ev, tuple):
            if len(tv) != len(ev):
                raise core.CompileTimeError(
                    f"{label} is a tuple of {len(tv)} in one branch and of "
                    f"{len(ev)} in the other")
            return ("tuple", [self._leaf(a, c, label) for a, c in zip(tv, ev)])
        if _is_compile_time(tv) and _is_compile_time(ev) and \
                (tv is ev or (type(tv) is type(ev) and tv == ev)):
            return ("const", tv)
        for v in (tv, ev):
            if not (isinstance(v, core.tensor) or semantic.is_num(v)):
                raise core.CompileTimeError(
                    f"{label} has different compile-time values in the two "
                    f"branches of a run-time if ({tv!r} and {ev!r})")
        if isinstance(tv, core.tensor) and isinstance(ev, core.tensor):
            if tv.type != ev.type:
                raise core.CompileTimeError(
                    f"{label} has type {tv.type!r} in one branch of a "
                    f"run-time if and {ev.type!r} in the other; make them "
                    "agree (e.g. with .to())")
            ty = tv.type
        elif isinstance(tv, core.tensor):
            ty = tv.type
        elif isinstance(ev, core.tensor):
            ty = ev.type
        else:
            ty = semantic.computation_type(
                semantic.number_dtype(tv), False, semantic.number_dtype(ev),
                False, False)
        ys = []
        for v, blk in ((tv, self.tb), (ev, self.eb)):
            if semantic.is_num(v):
                self.b.push_block(blk)
                try:
                    v = semantic.const(self.b, v, ty.scalar,
                                       list(ty.shape) if ty.is_block()
                                       else None)
                finally:
                    self.b.pop_block()
            ys.append(v.handle)
        self.then_yields.append(ys[0])
        self.else_yields.append(ys[1])
        self.types.append(ty.mlir)
        return ("result", len(self.types) - 1, ty)

    def bind(self, res):
        if res is None:
            res = []
        elif not isinstance(res, list):
            res = [res]
        self._results = res

    def rebuild(self):
        def walk(s):
            if s[0] == "result":
                return core.tensor(self._results[s[1]], s[2])
            if s[0] == "const":
                return s[1]
            return tuple(walk(x) for x in s[1])
        return [walk(s) for s in self.slots]


def _py_min_max(which):
    def fn(gen, args, kwargs):
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = list(args[0])
        if all(_is_compile_time(a) for a in args):
            return (builtins.min if which == "min" else builtins.max)(
                *args, **kwargs)
        b = gen.builder
        acc = args[0]
        for a in args[1:]:
            acc = (semantic.minimum if which == "min" else semantic.maximum)(
                acc, a, None, b)
        return acc
    return fn


def _py_abs(gen, args, kwargs):
    if _is_compile_time(args[0]):
        return builtins.abs(args[0])
    return semantic.math_unary("abs", args[0], gen.builder)


def _py_print(gen, args, kwargs):
    """print() of compile-time values prints while compiling; with run-time
    values it is tl.device_print (as in Triton): the strings before the
    first tensor make the prefix, the rest are printed."""
    if not any(isinstance(a, core.tensor) for a in args):
        print(*args, **kwargs)
        return None
    if kwargs:
        raise core.CompileTimeError(
            f"print of run-time values takes no keyword arguments, got "
            f"{', '.join(kwargs)}")
    first = next(i for i, a in enumerate(args) if isinstance(a, core.tensor))
    words = [str(a) for a in args[:first]]
    prefix = " ".join(words)
    return semantic.device_print(prefix, list(args[first:]), False,
                                 gen.builder)


def _py_len(gen, args, kwargs):
    v = args[0]
    if isinstance(v, core.tensor):
        if not v.shape:
            raise core.CompileTimeError("len() of a scalar")
        return v.shape[0]
    return len(v)


def _py_conv(kind):
    def fn(gen, args, kwargs):
        v = args[0] if args else 0
        if isinstance(v, core.tensor):
            raise core.CompileTimeError(
                f"{kind.__name__}() of a run-time value; use .to(tl.int32) "
                "or .to(tl.float32)")
        return kind(v)
    return fn


_PY_BUILTINS_REPLACED = {
    builtins.min: _py_min_max("min"), builtins.max: _py_min_max("max"),
    builtins.abs: _py_abs, builtins.print: _py_print, builtins.len: _py_len,
    builtins.int: _py_conv(int), builtins.float: _py_conv(float),
    builtins.bool: _py_conv(bool),
}

_ALLOWED_BUILTINS = {"range", "min", "max", "abs", "len", "int", "float",
                     "bool", "print", "isinstance", "getattr", "hasattr",
                     "tuple", "list", "str", "repr", "enumerate", "zip",
                     "True", "False", "None", "ValueError", "TypeError",
                     "AssertionError", "round", "pow", "divmod", "sorted",
                     "any", "all", "reversed"}


def _builtin_namespace(name):
    if name in _ALLOWED_BUILTINS and hasattr(builtins, name):
        return getattr(builtins, name)
    raise core.CompileTimeError(f"name '{name}' is not defined")


class DescriptorArg:
    """The arg spec of a TensorDescriptor parameter: the kernel takes its
    base (16-byte aligned), its shape (i32) and its strides but the last
    (i64, multiples of 16 bytes; the last is 1), and makes the descriptor
    from them. `shape_div16`/`stride_div16`: which are multiples of 16.
    With TMA on and a block TMA can stage (tensor_descriptor.tma_box), the
    kernel also takes the descriptor's tensor map (!tile.tensormap)."""

    def __init__(self, dtype, block_shape, padding, shape_div16,
                 stride_div16):
        self.dtype, self.block_shape, self.padding = dtype, block_shape, \
            padding
        self.shape_div16, self.stride_div16 = shape_div16, stride_div16

    def _key(self):
        return (self.dtype, tuple(self.block_shape), self.padding,
                tuple(self.shape_div16), tuple(self.stride_div16))

    # (Specializations are cached by their arguments' specs.)
    def __eq__(self, other):
        return isinstance(other, DescriptorArg) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def emit(self, b, tma=False):
        ptr = core.pointer_type(self.dtype)
        div16 = {"tile.divisibility": "16 : i32"}
        base = core.tensor(b.add_arg(ptr.mlir, div16), ptr)
        sizes = [core.tensor(b.add_arg("i32", div16 if d else {}), core.int32)
                 for d in self.shape_div16]
        # A stride is a multiple of 16 bytes (the descriptor's rule).
        elems = max(1, 16 // (self.dtype.primitive_bitwidth // 8))
        steps = [core.tensor(b.add_arg("i64", {"tile.divisibility":
                                               f"{16 if d else elems} : i32"}),
                             core.int64) for d in self.stride_div16]
        steps.append(semantic.const(b, 1, core.int64))
        semantic.check_block_shape(self.block_shape,
                                   self.dtype.primitive_bitwidth,
                                   "TensorDescriptor argument")
        tm = None
        if tma and tensor_descriptor.tma_box(self.dtype.primitive_bitwidth,
                                             self.block_shape, self.padding):
            tm = b.add_arg("!tile.tensormap")
        return semantic._descriptor(base, sizes, steps, list(self.block_shape),
                                    self.padding, b, tensormap=tm)


def generate(fn, scope_values, arg_specs, options, name=None,
             with_globals=False):
    """The MLIR text of kernel `fn` specialized as given.

    `scope_values`: {param name: compile-time value} for constexpr (and
    specialized) parameters; `arg_specs`: [(param name, dtype, attrs)] for
    the kernel's run-time arguments, in order. `options`: {"debug": bool}.
    """
    src = fn._parsed()
    b = FrontendBuilder(debug=options.get("debug", False))
    gen = CodeGenerator(b, fn, {})
    fdef = src.tree
    b.loc = ir.file_loc(*gen._pos(fdef))
    scope = dict(scope_values)
    for pname, dt, attrs in arg_specs:
        if isinstance(dt, DescriptorArg):
            scope[pname] = dt.emit(b, tma=options.get("tma", False))
            continue
        try:
            mlir_type = dt.mlir
        except core.CompileTimeError as e:
            raise gen.error(fdef, f"argument '{pname}': {e}") from None
        if dt.is_fp8():
            raise gen.error(fdef, f"argument '{pname}': fp8 scalar arguments "
                            f"are not supported (pass a float32 and convert "
                            f"with .to({dt!r}))")
        v = b.add_arg(mlir_type, attrs)
        scope[pname] = core.tensor(v, dt)
    gen.scope = scope
    gen.visit_body(fdef.body)
    b.loc = ir.file_loc(*gen._pos(fdef))
    b.op("return")
    header = (f"Generated by quire.jit from {src.filename}:"
              f"{fdef.lineno + src.line_offset} ({fn.__name__})")
    if b.used_globals:
        names = {n for g, n, _ in b.used_globals if g is fn.fn.__globals__}
        if names:
            header += "\nglobals: " + " ".join(sorted(names))
    text = b.function(name or fn.__name__, kernel=True,
                      loc=ir.file_loc(*gen._pos(fdef)),
                      header_comment=header)
    return (text, b.used_globals) if with_globals else text
