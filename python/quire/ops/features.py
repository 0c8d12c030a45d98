"""The optional parts of attention every op takes: a sliding window, a
logit soft cap, ALiBi slopes, attention sinks, the log-sum-exp output and
descale factors. Each is a constexpr of the kernels (off: not compiled in),
and this module turns the op's keyword arguments into those constexprs and
into the kernels' run-time arguments, the same parameter names for the
decode and the prefill kernels."""

from . import launch, validation as val

# The kernels' parameters of each feature, absent (None) when it is off.
_PARAMS = {
    "WINDOW": ("window_left",),
    "SOFTCAP": ("softcap",),
    "ALIBI": ("alibi_slopes",),
    "SINKS": ("sinks",),
    "LSE": ("lse", "lse_head_stride"),
    "Q_DESCALE": ("q_descale", "qd_seq_stride", "qd_head_stride"),
    "K_DESCALE": ("k_descale", "kd_seq_stride", "kd_head_stride"),
    "V_DESCALE": ("v_descale", "vd_seq_stride", "vd_head_stride"),
}
FLAGS = tuple(_PARAMS)


class Features:
    """The validated optional arguments of one call."""

    __slots__ = ("window_left", "softcap", "alibi", "sinks", "lse",
                 "descale", "flags", "key")

    def __init__(self, window_left, softcap, alibi, sinks, lse, descale):
        self.window_left = window_left    # -1: none
        self.softcap = softcap            # 0.0: none
        self.alibi = alibi                # view or None
        self.sinks = sinks                # view or None
        self.lse = lse                    # bool
        self.descale = descale            # {"q"|"k"|"v": (view, s0, s1)}
        self.flags = {
            "WINDOW": window_left >= 0, "SOFTCAP": softcap > 0.0,
            "ALIBI": alibi is not None, "SINKS": sinks is not None,
            "LSE": lse, "Q_DESCALE": "q" in descale,
            "K_DESCALE": "k" in descale, "V_DESCALE": "v" in descale}
        # What the specialization depends on: the flags and the dtypes of
        # the feature tensors.
        self.key = (tuple(self.flags.values()),
                    None if alibi is None else alibi.dtype,
                    None if sinks is None else sinks.dtype)

    def spec(self, consts, args):
        """Adds the features' constexprs and parameters to a kernel
        specialization being built."""
        I32, I64, F32 = launch.I32, launch.I64, launch.F32
        consts.update(self.flags)
        types = {"window_left": (I32, 1), "softcap": (F32, 1),
                 "lse": (launch.core.pointer_type(F32), 1),
                 "lse_head_stride": (I64, 1)}
        if self.alibi is not None:
            types["alibi_slopes"] = (launch.ptr(self.alibi), 1)
        if self.sinks is not None:
            types["sinks"] = (launch.ptr(self.sinks), 1)
        for x, (view, _, _) in self.descale.items():
            types[f"{x}_descale"] = (launch.ptr(view), 1)
            types[f"{x}d_seq_stride"] = (I32, 1)
            types[f"{x}d_head_stride"] = (I32, 1)
        for flag, params in _PARAMS.items():
            for p in params:
                if self.flags[flag]:
                    args[p] = types[p]
                else:
                    consts[p] = None

    def values(self, values, lse=None, lse_head_stride=0):
        """Adds the features' run-time arguments to a launch's values."""
        values["window_left"] = self.window_left
        values["softcap"] = self.softcap
        if self.alibi is not None:
            values["alibi_slopes"] = self.alibi.obj
        if self.sinks is not None:
            values["sinks"] = self.sinks.obj
        values["lse"] = lse
        values["lse_head_stride"] = lse_head_stride
        for x, (view, s0, s1) in self.descale.items():
            values[f"{x}_descale"] = view.obj
            values[f"{x}d_seq_stride"] = s0
            values[f"{x}d_head_stride"] = s1

    def views(self):
        out = []
        if self.alibi is not None:
            out.append(self.alibi)
        if self.sinks is not None:
            out.append(self.sinks)
        out += [view for view, _, _ in self.descale.values()]
        return out


def parse(v, optional, num_heads, num_seqs, num_kv_heads, causal,
          window_size, softcap, return_lse):
    """The Features of a call whose tensors `v` (views by name) include the
    given `optional` ones (alibi_slopes, sinks, q/k/v_descale)."""
    left = val.check_window(window_size, causal)
    cap = val.check_softcap(softcap)
    val.check_bool(return_lse, "return_lse")
    alibi = sinks = None
    if "alibi_slopes" in optional:
        val.head_vector(v, "alibi_slopes", num_heads)
        alibi = v["alibi_slopes"]
    if "sinks" in optional:
        val.head_vector(v, "sinks", num_heads, ("f32", "f16", "bf16"))
        sinks = v["sinks"]
    descale = {}
    for x in "qkv":
        name = f"{x}_descale"
        if name in optional:
            s0, s1 = val.descale_strides(v, name, num_seqs, num_kv_heads)
            descale[x] = (v[name], s0, s1)
    return Features(left, cap, alibi, sinks, return_lse, descale)


def optional_items(alibi_slopes, sinks, q_descale, k_descale, v_descale):
    """The view items of the optional tensors that were given (for
    validation.views), and their names."""
    dims = {"alibi_slopes": ("num_heads",), "sinks": ("num_heads",)}
    items = [(n, x, dims[n]) for n, x in (("alibi_slopes", alibi_slopes),
                                          ("sinks", sinks)) if x is not None]
    for n, x in (("q_descale", q_descale), ("k_descale", k_descale),
                 ("v_descale", v_descale)):
        if x is not None:
            rank = len(getattr(x, "shape", (None, None)))
            items.append((n, x, {0: (), 1: ("1",)}.get(
                rank, ("num_seqs", "num_kv_heads"))))
    return items, [n for n, _, _ in items]
