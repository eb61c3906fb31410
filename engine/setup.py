"""The engine's compiled modules (plain C against Python's own headers, sharing construct/*.h): the
relaxation of dense builds (on the job's threads, OpenMP), the distance checks of chain growth and the
closest-contact measurement.
Everything else about the package is in pyproject.toml. Compiled with -Wall -Wextra: a warning is a
defect to fix, not noise."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            f"polyforge_engine.construct.{name}",
            [f"polyforge_engine/construct/{name}.c"],
            depends=["polyforge_engine/construct/buffers.h", "polyforge_engine/construct/cells.h"],  # rebuilt when a shared header changes
            extra_compile_args=["-O3", "-Wall", "-Wextra", *openmp],
            extra_link_args=openmp,
        )
        for name, openmp in (("_relax", ["-fopenmp"]), ("_growth", []), ("_contacts", []))
    ]
)
