"""The wheel's platform tag (pyproject.toml has the rest).

The package is pure Python around libquire.so, which it loads with ctypes,
so one wheel serves every Python 3 on x86-64 Linux: py3-none-linux_x86_64,
not a CPython-specific tag and not "any" (the library is native code)."""

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    """Native code inside: the package installs to platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", "linux_x86_64"


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
