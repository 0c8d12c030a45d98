"""`quire.autotune`, `quire.Config` and `quire.heuristics` (Triton's).

    @quire.autotune(configs=[quire.Config({"BLOCK": 64}, num_warps=4),
                             quire.Config({"BLOCK": 128}, num_warps=8)],
                    key=["n"])
    @quire.jit
    def kernel(x, n, BLOCK: tl.constexpr): ...

The first launch for a new key (the values of the `key` arguments and the
dtypes of the tensor arguments) times every config with
quire.testing.do_bench and keeps the fastest, in memory and on disk
($QUIRE_CACHE_DIR/autotune), so a new process does not tune again. A
progress line goes to stderr while it tunes; QUIRE_PRINT_AUTOTUNING=1
prints the choice. Under the interpreter nothing is timed (the first config
runs) unless a `do_bench` is given.
"""

import hashlib
import json
import math
import os
import sys
import time

from .. import _cache, _cuda, _kernel
from .jit import JITFunction, _env_flag, _write_atomic


class Config:
    """One tuning point: constexpr values and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=2, num_ctas=1,
                 maxnreg=None, pre_hook=None, num_buffers_warp_spec=0,
                 num_consumer_groups=0, reg_dec_producer=0,
                 reg_inc_consumer=0):
        if not isinstance(kwargs, dict):
            raise TypeError("Config needs a dict of constexpr values")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        out = dict(self.kwargs)
        out["num_warps"] = self.num_warps
        out["num_stages"] = self.num_stages
        if self.maxnreg is not None:
            out["maxnreg"] = self.maxnreg
        if self.num_ctas not in (None, 1):
            out["num_ctas"] = self.num_ctas  # refused at launch, not ignored
        return out

    def _key(self):
        return json.dumps(sorted((k, repr(v)) for k, v in
                                 self.all_kwargs().items()))

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}",
                  f"num_stages: {self.num_stages}"]
        if self.maxnreg is not None:
            parts.append(f"maxnreg: {self.maxnreg}")
        return ", ".join(parts)

    __repr__ = __str__


def _base(fn):
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


class KernelInterface:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


class Autotuner(KernelInterface):
    def __init__(self, fn, configs, key, reset_to_zero=None,
                 restore_value=None, pre_hook=None, post_hook=None,
                 prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=True):
        if not configs:
            raise ValueError("quire.autotune needs at least one Config")
        self.fn = fn
        self.base = _base(fn)
        self.arg_names = self.base.arg_names
        self.configs = list(configs)
        self.keys = list(key)
        for k in self.keys:
            if k not in self.arg_names:
                raise ValueError(f"autotune key '{k}' is not a parameter of "
                                 f"'{self.base.__name__}'")
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.pre_hook, self.post_hook = pre_hook, post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.warmup = 25 if warmup is None else warmup
        self.rep = 100 if rep is None else rep
        self.do_bench = do_bench
        self.cache_results = cache_results
        self.cache = {}
        self.best_config = None
        self.configs_timings = None
        self.__name__ = self.base.__name__
        self.__doc__ = self.base.__doc__

    def __repr__(self):
        return f"Autotuner({self.base!r})"

    def _disk_path(self):
        h = hashlib.sha256()
        h.update(self.base.cache_key().encode())
        for c in self.configs:
            h.update(c._key().encode())
        h.update(_cache.compiler_id().encode())
        return os.path.join(_cache.cache_dir(), "autotune",
                            h.hexdigest() + ".json")

    def _load(self, key_text):
        if not (self.cache_results and _cache.enabled()):
            return None
        try:
            with open(self._disk_path(), encoding="utf-8") as f:
                entries = json.load(f)
            i = entries.get(key_text)
        except (OSError, ValueError, AttributeError):
            return None
        if isinstance(i, int) and 0 <= i < len(self.configs):
            return self.configs[i]
        return None

    def _store(self, key_text, config):
        if not (self.cache_results and _cache.enabled()):
            return
        path = self._disk_path()
        try:
            with open(path, encoding="utf-8") as f:
                entries = json.load(f)
            if not isinstance(entries, dict):
                entries = {}
        except (OSError, ValueError):
            entries = {}
        entries[key_text] = self.configs.index(config)
        _write_atomic(path, json.dumps(entries, indent=1, sort_keys=True))

    def prune_configs(self, kwargs):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(self.configs, kwargs))
        if self.perf_model:
            k = self.top_k
            if isinstance(k, float) and k <= 1.0:
                k = max(1, int(len(configs) * k))
            est = sorted(configs, key=lambda c: self.perf_model(
                **kwargs, **c.all_kwargs()))
            configs = est[:k]
        return configs

    def _bench(self, config, args, kwargs, grid):
        from .. import testing
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        saved = {}
        for name in self.restore_value:
            saved[name] = _clone(named[name])

        def call():
            for name in self.reset_to_zero:
                _zero(named[name])
            if config.pre_hook:
                config.pre_hook({**named, **config.all_kwargs()})
            if self.pre_hook:
                self.pre_hook({**named, **config.all_kwargs()})
            self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())
            if self.post_hook:
                self.post_hook({**named, **config.all_kwargs()}, None)

        try:
            bench = self.do_bench or (lambda f: testing.do_bench(
                f, warmup=self.warmup, rep=self.rep))
            t = bench(call)
        except (_kernel.CompilationError, _cuda.CudaError) as e:
            t = math.inf
            if _env_flag("QUIRE_PRINT_AUTOTUNING"):
                print(f"quire.autotune: {config} failed: "
                      f"{str(e).splitlines()[0]}", file=sys.stderr)
        finally:
            for name, value in saved.items():
                _copy_into(named[name], value)
        return t[0] if isinstance(t, (list, tuple)) else t

    def run(self, *args, grid, **kwargs):
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        missing = [k for k in self.keys if k not in named]
        if missing:
            raise TypeError(f"{self.__name__}(): the autotune key "
                            f"argument '{missing[0]}' is missing")
        key = [named[k] for k in self.keys]
        for v in named.values():
            dt = getattr(v, "dtype", None)
            if dt is not None and not isinstance(dt, type):
                key.append(str(dt))
        key = tuple(key)
        interpret = bool(self.base.interpret) if self.base.interpret is not \
            None else _env_flag("QUIRE_INTERPRET")
        config = self.cache.get(key)
        if config is None:
            if len(self.configs) == 1 or (interpret and
                                          self.do_bench is None):
                config = self.configs[0]
            else:
                key_text = repr(key) + "@" + _device_name()
                config = self._load(key_text)
                if config is None:
                    config = self._tune(args, kwargs, grid, key)
                    self._store(key_text, config)
                elif _env_flag("QUIRE_PRINT_AUTOTUNING"):
                    print(f"quire.autotune: {self.__name__} {key}: {config} "
                          "(from the cache)", file=sys.stderr)
            self.cache[key] = config
        self.best_config = config
        if config.pre_hook:
            config.pre_hook({**named, **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())

    def _tune(self, args, kwargs, grid, key):
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        configs = self.prune_configs(named)
        start = time.time()
        timings = {}
        tty = sys.stderr.isatty()
        for i, c in enumerate(configs):
            line = (f"quire.autotune {self.__name__}: config {i + 1}/"
                    f"{len(configs)} ({c})")
            print(("\r\033[K" if tty else "") + line, end="" if tty else "\n",
                  file=sys.stderr, flush=True)
            timings[c] = self._bench(c, args, kwargs, grid)
        if tty:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
        best = min(timings, key=timings.get)
        if math.isinf(timings[best]):
            raise _kernel.CompilationError(
                f"quire.autotune: every config of {self.__name__} failed")
        self.configs_timings = timings
        if _env_flag("QUIRE_PRINT_AUTOTUNING"):
            print(f"quire.autotune: {self.__name__} {key} finished after "
                  f"{time.time() - start:.2f}s; best config: {best} "
                  f"({timings[best] * 1000:.1f} us)", file=sys.stderr)
        return best

    def warmup(self, *args, **kwargs):
        return [self.fn.warmup(*args, **kwargs, **c.all_kwargs())
                for c in self.configs]


def _zero(t):
    if hasattr(t, "zero_"):
        t.zero_()
    else:
        t[...] = 0  # numpy, under the interpreter


def _clone(t):
    return t.clone() if hasattr(t, "clone") else t.copy()


def _copy_into(dst, src):
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src


def _device_name():
    try:
        return f"sm_{_cuda.compute_capability(_cuda.current_device())}"
    except _cuda.CudaError:
        return "nodevice"


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None,
             restore_value=None, pre_hook=None, post_hook=None, warmup=None,
             rep=None, use_cuda_graph=False, do_bench=None,
             cache_results=True):
    """Triton's @triton.autotune: picks the fastest of `configs` for each
    value of the `key` arguments (see the module docstring)."""

    def decorator(fn):
        return Autotuner(fn, configs, key, reset_to_zero=reset_to_zero,
                         restore_value=restore_value, pre_hook=pre_hook,
                         post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup,
                         rep=rep, do_bench=do_bench,
                         cache_results=cache_results)
    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, values):
        self.fn = fn
        self.base = _base(fn)
        self.arg_names = self.base.arg_names
        self.values = dict(values)
        self.__name__ = self.base.__name__

    def run(self, *args, grid, **kwargs):
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        for name, fn in self.values.items():
            kwargs[name] = fn(named)
            named[name] = kwargs[name]
        return self.fn.run(*args, grid=grid, **kwargs)

    def warmup(self, *args, **kwargs):
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        for name, fn in self.values.items():
            kwargs[name] = fn(named)
        return self.fn.warmup(*args, **kwargs)


def heuristics(values):
    """Triton's @triton.heuristics: `values` maps constexpr names to
    functions of the launch's arguments (a dict by name)."""

    def decorator(fn):
        return Heuristics(fn, values)
    return decorator
