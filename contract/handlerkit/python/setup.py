"""Build hook: copy the repository's schema files into the package first.

Everything else is in pyproject.toml.
"""
import importlib.util
import os

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))


def _sync():
    spec = importlib.util.spec_from_file_location("sync_schema", os.path.join(HERE, "sync_schema.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.sync(required=True)


class BuildPy(build_py):
    def run(self):
        _sync()
        super().run()


class SDist(sdist):
    def run(self):
        _sync()
        super().run()


setup(cmdclass={"build_py": BuildPy, "sdist": SDist})
