"""The engine's one compiled module (the relaxation of dense builds, plain C against Python's own
headers); everything else about the package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("polyforge_engine.build._relax", ["polyforge_engine/build/_relax.c"], extra_compile_args=["-O3"])])
