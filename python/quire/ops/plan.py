"""Plans: an attention call's launches made once, then replayed by swapping
pointers (FlashInfer's plan/run split).

    plan = quire.ops.plan_attention(q, k, v, out, cu_seqlens_q, max_seqlen_q,
                                    seqused_k, max_seqlen_k, scale, True,
                                    (-1, -1), block_table, 0.0, None, None,
                                    None)
    for step in steps:
        plan.run(q, k, v, out, cu_seqlens_q, seqused_k, block_table)

Making a plan runs the op's whole host path once (validation, the kernel
choice and split count, specialization, compilation), recording its
launches instead of making them (decode.run). Each launch keeps its
parameter buffer packed, its function handle and grid; `run` checks that
its tensors are laid out as the plan's were (dtype, shape, strides, device,
16-byte alignment) and hands their addresses to libquire's
quireLaunchKernels, which writes them into the buffers and makes the
launches on torch's current stream in one call (a library without it: one
driver call per launch from Python). Nothing in a plan depends on tensor values, so it
holds for every batch of the same layout: the lengths and block tables
change between steps, the plan does not.

The plain calls (paged_decode_attention, paged_prefill_attention,
unified_attention) keep a plan per layout of their CUDA tensors and value
of their other arguments, and run it: a repeated call skips the host path.
A plan from plan_attention owns the split partials' workspace, so its runs
must be ordered on one stream (as FlashInfer's wrappers' are); the plain
calls share one workspace per stream (grown to the largest they need, and
replaced by a fresh allocation from torch's caching allocator while the
stream is captured into a CUDA graph).

numpy arrays make host plans, whose runs go through the interpreter with the
same substitution; that is how the recording is tested without a GPU.
"""

import ctypes
import sys
import threading

from .. import _args, _cuda, _lib
from ..tools.tensor_descriptor import TensorDescriptor
from . import decode, launch

# The most layouts the plain calls keep plans for; past it the cache starts
# over (a serving engine uses a handful of batch shapes per layer).
MAX_CACHED = 512

_cache = {}
_cache_lock = threading.Lock()
stats = {"plans": 0, "hits": 0, "uncached": 0}


class _Recorder:
    """What decode.run would have launched ([(host, kernels, launches,
    device)]) and the tensors the op allocated meanwhile."""

    def __init__(self, fused_combine=False):
        self.runs = []
        self.created = []
        self.fused_combine = fused_combine


def record(call, fused_combine=False):
    """(result, recorder) of `call()` with decode.run recording instead of
    launching; with `fused_combine` split-KV launches merge their splits
    themselves (decode_kernels.py's FUSED; None: up to
    configs.FUSED_MAX_SPLITS splits)."""
    rec = _Recorder(fused_combine)
    decode._local.recorder = rec
    try:
        result = call()
    finally:
        decode._local.recorder = None
    return result, rec


class _Launch:
    """One recorded launch: the specialization, grid and parameter values
    with `slots` [(index, role)] to fill with tensors; on the GPU also the
    kernel's function, block, shared memory and a packed buffer."""

    __slots__ = ("spec", "grid", "values", "slots", "maps", "function",
                 "threads", "shared", "struct", "buf", "arg_ptrs", "offsets")


class _Native:
    """A plan's launches as libquire sees them (Plan._native)."""

    def __init__(self, launch, driver, groups, slots, addresses, failed,
                 keep):
        self.launch, self.driver, self.groups = launch, driver, groups
        self.slots, self.addresses, self.failed = slots, addresses, failed
        self.addresses_at = ctypes.addressof(addresses)
        self.failed_at = ctypes.addressof(failed)
        self.keep = keep

    def fill(self, ptr):
        addresses = self.addresses
        for role, i in self.slots:
            addresses[i] = ptr[role]


class Plan:
    """The recorded launches of one call, replayed by `run(...)` with the
    tensors named `roles` (positionally or by name). See the module's
    docstring."""

    def __init__(self, what, roles, given, result, rec, concurrent=True):
        out, lse = result if isinstance(result, tuple) else (result, None)
        self.what = what
        self.roles = tuple(roles)
        first = given[self.roles[0]]
        self.host = not _is_torch_cuda(first) and _view(first).device == "cpu"
        self._lock = threading.Lock()
        ids, self._sig = {}, {}
        for role in self.roles:
            obj = out if role == "out" else given[role]
            if obj is not None:
                ids.setdefault(id(obj), []).append(role)
            self._sig[role] = None if obj is None else _sig(obj, self.host)
        # Roles planned as one tensor must be one tensor in a run too.
        self._aliases = [r for r in ids.values() if len(r) > 1]
        self._new_out = given.get("out") is None
        # The GPU run's check: (role, (dtype, shape, strides, device),
        # aligned) of each planned tensor, and the roles that must be None.
        self._expect = [(r, self._sig[r][:4], self._sig[r][4])
                        for r in self.roles if self._sig[r] is not None]
        self._absent = [r for r in self.roles if self._sig[r] is None]
        self._out_shape = tuple(_view(out).shape)
        self._lse = None if lse is None else tuple(_view(lse).shape)
        if lse is not None:
            ids[id(lse)] = ["lse"]
        # The split partials: the plan keeps the recorded buffers as its
        # workspace and knows their shapes for a fresh one.
        self._scratch = []                  # [(role, shape)]
        self._workspace = {}                # {role: buffer}
        for obj in rec.created:
            if id(obj) not in ids:
                role = f"scratch{len(self._scratch)}"
                ids[id(obj)] = [role]
                self._scratch.append((role, tuple(_view(obj).shape)))
                self._workspace[role] = obj
        # A fresh workspace on the GPU: one f32 buffer of _scratch_floats,
        # the pieces at 16-byte aligned _scratch_pieces [(role, offset)].
        self._scratch_pieces, end = [], 0
        for role, shape in self._scratch:
            self._scratch_pieces.append((role, end))
            end += 16 * -(-_numel(shape) // 4)
        self._scratch_floats = end // 4
        self.device = None
        self._launches = []
        # The launches of each run the op made, in order. A unified call of
        # a mixed batch makes two (the decode kernels, the prefill kernel),
        # which write disjoint rows and read nothing the other writes: with
        # `concurrent` a GPU run puts the second on a side stream, forked
        # from the caller's and joined back, so the kernels overlap (CUDA
        # graphs capture the fork as parallel branches).
        self._groups = []
        for host, kernels, launches, device in rec.runs:
            self.device = device
            group = []
            for i, (spec, grid, values, _) in enumerate(launches):
                group.append(self._launch(
                    spec, grid, values, ids, None if host else kernels[i],
                    device))
            self._groups.append(group)
            self._launches += group
        self.concurrent = bool(concurrent) and not self.host and \
            len(self._groups) > 1
        self._maps = [L for L in self._launches if L.maps]
        self._native_launch = None if self.host else self._native()
        if self.concurrent:
            # Made now, outside any CUDA graph capture of the runs.
            self._events = (_cuda.Event(timing=False),
                            _cuda.Event(timing=False))
            self._side = _cuda.side_stream(self.device)

    def _launch(self, spec, grid, values, ids, kernel, device):
        L = _Launch()
        # Slots and maps index the kernel's parameters, which are
        # spec.order's but for a descriptor's (launch.launch).
        L.spec, L.grid, L.slots, L.maps, vals = spec, grid, [], [], []
        for name in spec.order:
            x = values[name]
            if isinstance(x, (int, float)):
                vals.append(x)
                continue
            if isinstance(x, TensorDescriptor):
                # A role's tensor as a descriptor (the prefill caches'
                # pages through TMA): its parameters, the first (the base)
                # a slot and the last (the tensor map) a map, [index, role,
                # encoder, address encoded]: a run whose tensor lies
                # elsewhere encodes it again. Only GPU launches take
                # descriptors.
                roles = ids.get(id(x.base))
                if roles is None or kernel is None:
                    raise AssertionError(f"{self.what}: the plan cannot "
                                         f"place {spec.name}'s tensor "
                                         f"descriptor {name}")
                params = launch.descriptor_params(x, 0)
                L.slots.append((len(vals), roles[0]))
                L.maps.append([len(vals) + len(params) - 1, roles[0],
                               x.encoder(), x._view.ptr])
                vals += params
                continue
            roles = ids.get(id(x))
            if roles is None:
                raise AssertionError(f"{self.what}: the plan cannot place "
                                     f"{spec.name}'s parameter {name}")
            L.slots.append((len(vals), roles[0]))
            vals.append(0)
        L.values = vals
        if kernel is not None:
            packing, convert = kernel._packing()
            slotted = {j for j, _ in L.slots}
            L.values = [v if c is None or j in slotted else c(v)
                        for j, (v, c) in enumerate(zip(vals, convert))]
            module = kernel._module(device)
            L.function, L.shared = module.function, module.shared_bytes
            L.threads, L.struct = kernel.threads, packing.struct
            L.buf = ctypes.create_string_buffer(packing.size or 1)
            base = ctypes.addressof(L.buf)
            L.arg_ptrs = (ctypes.c_void_p * max(1, len(packing.offsets)))(
                *[base + off for off in packing.offsets])
            L.offsets = packing.offsets
            # The constants stay; a run writes the pointer slots.
            L.struct.pack_into(L.buf, 0, *L.values)
        return L

    def _native(self):
        """The launches as libquire's QuireLaunch arrays, one per group,
        and the address array their pointer slots read (a run fills it
        and makes each group's launches in one call), or None where the
        library lacks quireLaunchKernels."""
        try:
            launch_kernels = _lib.lib().quireLaunchKernels
        except (_lib.LibraryError, AttributeError):
            return None
        index = {}
        for L in self._launches:
            for _, role in L.slots:
                index.setdefault(role, len(index))
        addresses = (ctypes.c_uint64 * max(1, len(index)))()
        groups, keep = [], []
        for group in self._groups:
            arr = (_lib.Launch * len(group))()
            keep.append(arr)
            for c, L in zip(arr, group):
                offsets = (ctypes.c_uint32 * max(1, len(L.slots)))(
                    *[L.offsets[j] for j, _ in L.slots])
                indices = (ctypes.c_uint32 * max(1, len(L.slots)))(
                    *[index[role] for _, role in L.slots])
                keep += [offsets, indices]
                c.function = L.function.value
                c.grid[:] = list(L.grid)
                c.block[:] = [L.threads, 1, 1]
                c.shared_bytes = L.shared
                c.params = ctypes.addressof(L.arg_ptrs)
                c.buffer = ctypes.addressof(L.buf)
                c.slot_offsets = ctypes.addressof(offsets)
                c.slot_indices = ctypes.addressof(indices)
                c.num_slots = len(L.slots)
            groups.append((ctypes.addressof(arr), len(group)))
        failed = ctypes.c_size_t()
        driver = ctypes.cast(_cuda._driver().cuLaunchKernel,
                             ctypes.c_void_p).value
        return _Native(launch_kernels, driver, groups, list(index.items()),
                       addresses, failed, keep)

    def run(self, *args, **kwargs):
        """The planned launches over these tensors; returns out, or (out,
        lse) for a plan made with return_lse."""
        given = _bind(self.roles, args, kwargs, self.what)
        if self.host:
            self._check(given)
            return self._run(given, self._workspace)
        if self._workspace and self._native_launch is not None:
            self._fix_workspace()
        return self._run(given, self._workspace, self._addresses(given))

    def _fix_workspace(self):
        """Writes the addresses of the plan's own workspace into libquire's
        address array once, for every run (they never change), so a run
        fills only its tensors' slots."""
        native = self._native_launch
        with self._lock:
            if not self._workspace:     # another thread's run fixed it
                return
            fixed = {}
            for role, x in self._workspace.items():
                fixed[role] = x if isinstance(x, int) else x.data_ptr()
            for role, i in native.slots:
                if role in fixed:
                    native.addresses[i] = fixed[role]
            native.slots = [(r, i) for r, i in native.slots if r not in fixed]
            # The buffers stay the plan's; runs no longer pass them.
            self._owned, self._workspace = self._workspace, {}

    def _addresses(self, given):
        """{role: address} of a GPU run's tensors, each checked against the
        plan's layout (the full check, for its message, on a mismatch)."""
        ptr = {}
        try:
            for role, layout, aligned in self._expect:
                x = given[role]
                if x is None:
                    if role == "out" and self._new_out:
                        continue
                    raise LookupError
                p = x.data_ptr()
                if (x.dtype, x.shape, x.stride(), x.get_device()) != layout \
                        or (aligned and p & 15):
                    raise LookupError
                ptr[role] = p
            for role in self._absent:
                if given[role] is not None:
                    raise LookupError
        except (LookupError, AttributeError, TypeError):
            # The full check names a mismatch; what passes it is a CUDA
            # array other than torch's (cupy, __cuda_array_interface__),
            # read through its view.
            self._check(given)
            ptr = {role: _view(given[role]).ptr
                   for role, _, _ in self._expect
                   if given[role] is not None}
        if self._aliases:
            self._check_aliases(given)
        return ptr

    def _run(self, given, workspace, ptr=None):
        """Runs with `given` {role: tensor} already known to match (and on
        the GPU `ptr`, their addresses); a workspace of None allocates a
        fresh one."""
        like = given[self.roles[0]]
        out = given.get("out")
        if out is None:
            out = given["out"] = decode.allocate_like(like, self._out_shape,
                                                      "out")
            if ptr is not None:
                ptr["out"] = out.data_ptr()
        lse = None
        if self._lse is not None:
            lse = given["lse"] = decode.allocate_lse(like, *self._lse)
            if ptr is not None:
                ptr["lse"] = lse.data_ptr()
        # A fresh workspace's buffer is held until the launches are
        # enqueued: the caching allocator may hand a freed block to the
        # next allocation on the stream, which must come after them.
        held = stream = None
        if self._scratch:
            if workspace is None:
                if ptr is not None and _is_torch_cuda(like):
                    stream = _cuda.stream_handle(None, self.device)
                    workspace, held = self._stream_workspace(like, stream)
                else:
                    workspace, held = self._fresh_workspace(like)
            if ptr is None:
                given.update(workspace)
            else:
                for role, x in workspace.items():
                    ptr[role] = x if isinstance(x, int) else x.data_ptr()
        if self.host:
            for L in self._launches:
                vals = dict(zip(L.spec.order, L.values))
                for j, role in L.slots:
                    vals[L.spec.order[j]] = given[role]
                launch.interpret(L.spec, L.grid, vals)
        elif self._launches:
            self._launch_all(ptr, stream)
        del held
        return out if lse is None else (out, lse)

    def _launch_all(self, ptr, main=None):
        device = self.device
        _cuda.make_current(device)
        if main is None:
            main = _cuda.stream_handle(None, device)
        with self._lock:
            for L in self._maps:
                for m in L.maps:
                    j, role, encode, at = m
                    if ptr[role] != at:
                        L.buf[L.offsets[j]:L.offsets[j] + 128] = \
                            encode(ptr[role])
                        m[3] = ptr[role]
            if self._native_launch is not None:
                self._native_launch.fill(ptr)
            if not self.concurrent:
                for i in range(len(self._groups)):
                    self._launch_group(i, ptr, main)
                return
            fork, join = self._events
            side = self._side
            fork.record(main)
            fork.wait(side)
            self._launch_group(0, ptr, main)
            for i in range(1, len(self._groups)):
                self._launch_group(i, ptr, side)
            join.record(side)
            join.wait(main)

    def _launch_group(self, i, ptr, stream):
        """The launches of group `i` on `stream`: through libquire in one
        call (the addresses already filled in), or one driver call each
        from Python."""
        native = self._native_launch
        if native is not None:
            address, count = native.groups[i]
            status = native.launch(native.driver, address, count,
                                   native.addresses_at, stream,
                                   native.failed_at)
            if status:
                name = self._groups[i][native.failed.value].spec.name
                _cuda.check(status, f"cuLaunchKernel ({name})")
            return
        launch_kernel = _cuda._driver().cuLaunchKernel
        handle = ctypes.c_void_p(stream)
        for L in self._groups[i]:
            for j, role in L.slots:
                ctypes.c_uint64.from_buffer(L.buf, L.offsets[j]).value = \
                    ptr[role]
            g = L.grid
            status = launch_kernel(L.function, g[0], g[1], g[2], L.threads,
                                   1, 1, L.shared, handle, L.arg_ptrs, None)
            if status:
                _cuda.check(status, f"cuLaunchKernel ({L.spec.name})")

    def _stream_workspace(self, like, stream):
        """A plain call's workspace on the GPU: pieces of the buffer this
        device and `stream` keep for every plain call's split partials
        (_stream_buffer), or a fresh one while the stream is captured."""
        if _cuda.capturing(stream):
            return self._fresh_workspace(like)
        buf, base = _stream_buffer(like, self.device, stream,
                                   self._scratch_floats)
        return {role: base + off for role, off in self._scratch_pieces}, buf

    def _fresh_workspace(self, like):
        """({role: buffer}, what holds the memory) for the split partials:
        on the GPU one buffer from the tensors' framework (torch: its
        caching allocator) cut into 16-byte aligned pieces, as addresses;
        on the host numpy arrays."""
        if self.host:
            import numpy
            pieces = {role: numpy.empty(shape, numpy.float32)
                      for role, shape in self._scratch}
            return pieces, pieces
        total = self._scratch_floats
        if _is_torch_cuda(like):
            import torch
            # new_empty: the caching allocator without a torch.device made.
            buf = like.new_empty((total,), dtype=torch.float32)
        else:
            buf = decode.allocate_scratch(like, (total,))
        base = buf.data_ptr()
        return {role: base + off for role, off in self._scratch_pieces}, buf

    def _check(self, given):
        for role in self.roles:
            want, x = self._sig[role], given[role]
            if x is None:
                if want is not None and not (role == "out" and
                                             self._new_out):
                    raise ValueError(f"{self.what}: {role}: the plan was "
                                     "made with a tensor here; pass one")
                continue
            if want is None:
                raise ValueError(f"{self.what}: {role}: the plan was made "
                                 "without it; make one that has it")
            try:
                got = _sig(x, self.host)
            except TypeError as e:
                raise TypeError(f"{self.what}: {role}: {e}") from None
            if got[:4] != want[:4] or (want[4] and not got[4]):
                raise ValueError(f"{self.what}: {role}: "
                                 f"{_difference(got, want)}")
        self._check_aliases(given)

    def _check_aliases(self, given):
        for group in self._aliases:
            for r in group[1:]:
                if given[r] is not given[group[0]]:
                    raise ValueError(
                        f"{self.what}: {r}: the plan was made with the "
                        f"same tensor as {group[0]}; pass that one")


def cached(what, roles, tensors, scalars, call):
    """A plain call: runs the plan of this layout of `tensors` (in `roles`
    order) and `scalars`, made by recording `call()` the first time. Calls
    whose tensors are not all distinct torch CUDA tensors (or None) run
    `call()` itself."""
    key, addresses = _key(what, tensors, scalars)
    try:
        plan = None if key is None else _cache.get(key)
    except TypeError:                   # a scalar that cannot be hashed
        key = None
    if key is None:
        stats["uncached"] += 1
        return call()
    if plan is None:
        result, rec = record(call)
        plan = Plan(what, roles, dict(zip(roles, tensors)), result, rec)
        # Plain calls take their workspace from their stream's buffer
        # (_stream_buffer): the recorded one is not kept.
        plan._workspace = None
        with _cache_lock:
            if len(_cache) >= MAX_CACHED:
                _cache.clear()
            _cache[key] = plan
            stats["plans"] += 1
    else:
        stats["hits"] += 1
    return plan._run(dict(zip(roles, tensors)), None,
                     dict(zip(roles, addresses)))


# The plain calls' split partials: one float32 buffer per (device, stream),
# grown to the largest a call has needed, shared by every plan. Launches on
# one stream run in order, so a call's kernels read its partials before the
# next call's overwrite them; a buffer is used only on the stream it was
# allocated on, so replacing it frees it to torch's caching allocator as a
# per-call allocation would be freed (the caller holds it until its
# launches are enqueued). Never used while a stream is captured: a graph
# keeps the addresses it was captured with, and this buffer may be replaced
# or written by an eager call on another stream while the graph replays.
# FlashInfer's wrappers keep one workspace the same way.
_stream_buffers = {}        # (device, stream) -> (tensor, floats, address)
MAX_STREAMS = 16


def _stream_buffer(like, device, stream, floats):
    """(the buffer, its address) of at least `floats` float32 kept for
    plain calls on `stream` of `device`, allocated (on that stream: torch's
    current) when missing or too small."""
    key = (device, stream)
    held = _stream_buffers.get(key)
    if held is None or held[1] < floats:
        import torch
        buf = like.new_empty((floats,), dtype=torch.float32)
        held = (buf, floats, buf.data_ptr())
        with _cache_lock:
            if len(_stream_buffers) >= MAX_STREAMS:
                _stream_buffers.clear()
            _stream_buffers[key] = held
    return held[0], held[2]


def _key(what, tensors, scalars):
    """(the plan cache's key, the tensors' addresses, None for None) of a
    plain call, or (None, None) when its tensors are not all distinct torch
    CUDA tensors (or None). The key may hold an unhashable scalar (the
    cache lookup says so)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None, None
    Tensor = torch.Tensor
    parts = [what]
    addresses = []
    seen = set()
    for t in tensors:
        if t is None:
            parts.append(None)
            addresses.append(None)
            continue
        if not isinstance(t, Tensor) or not t.is_cuda or id(t) in seen:
            return None, None
        seen.add(id(t))
        p = t.data_ptr()
        parts.append(_layout(t, p))
        addresses.append(p)
    for s in scalars:
        parts.append((type(s), tuple(s) if isinstance(s, list) else s))
    return tuple(parts), addresses


def _layout(t, address):
    """A torch CUDA tensor's dtype, shape, strides, device, and whether its
    `address` is 16-byte aligned."""
    return (t.dtype, t.shape, t.stride(), t.get_device(), address & 15 == 0)


def _sig(x, host):
    """What a plan depends on in a tensor: dtype, shape, strides, device,
    and whether its address is 16-byte aligned (a plan made on an aligned
    tensor may assume it; one made on an unaligned tensor takes both)."""
    if not host and _is_torch_cuda(x):
        return _layout(x, x.data_ptr())
    v = _view(x)
    return (v.dtype, tuple(v.shape), tuple(v.strides), v.device,
            v.ptr % 16 == 0)


def _view(x):
    v = _args.view(x, "tensor")
    if v is None:
        raise TypeError(f"expected a tensor, got {_args.describe(x)}")
    return v


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _difference(got, want):
    names = ("dtype", "shape", "strides", "device", "16-byte alignment")
    for name, g, w in zip(names, got, want):
        if g != w:
            fmt = lambda x: str(list(x)) if isinstance(x, tuple) else str(x)
            return f"{name} {fmt(g)} differs from the plan's {fmt(w)}"
    return "differs from the plan's layout"


def _is_torch_cuda(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor) and x.is_cuda


def _bind(roles, args, kwargs, what):
    if not kwargs and len(args) == len(roles):
        return dict(zip(roles, args))
    if len(args) > len(roles):
        raise TypeError(f"{what}: run() takes at most {len(roles)} tensors "
                        f"({', '.join(roles)}), got {len(args)}")
    given = dict.fromkeys(roles)
    given.update(zip(roles, args))
    for n, x in kwargs.items():
        if n not in given:
            raise TypeError(f"{what}: run() got an unexpected argument "
                            f"{n!r} (it takes {', '.join(roles)})")
        if roles.index(n) < len(args):
            raise TypeError(f"{what}: run() got {n} twice")
        given[n] = x
    return given
