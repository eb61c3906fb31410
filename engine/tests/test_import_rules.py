"""The engine's import rules (pyproject.toml [tool.importlinter], import_rules.py) fail when broken:
each test copies the package with its rules, breaks one rule in the copy with one import, and runs
lint-imports on the copy as `make lint` runs it on the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The package's sources and stubs, pyproject.toml and import_rules.py, in a directory of their own."""
    shutil.copytree(ENGINE / "polyforge_engine", tmp_path / "polyforge_engine", ignore=shutil.ignore_patterns("__pycache__", "*.c", "*.h", "*.json"))
    for name in ("pyproject.toml", "import_rules.py"):
        shutil.copy(ENGINE / name, tmp_path / name)
    return tmp_path


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports run in `root`, whose copy of the package comes first on the path."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())", "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "COLUMNS": "400"},
        timeout=300,
    )


def add_line(root: Path, module: str, line: str) -> None:
    path = root / "polyforge_engine" / module
    path.write_text(path.read_text() + "\n" + line + "\n")


def broken(run: subprocess.CompletedProcess[str]) -> set[str]:
    """The names of the contracts lint-imports says are broken."""
    return {line.removesuffix(" BROKEN").strip() for line in run.stdout.splitlines() if line.rstrip().endswith(" BROKEN")}


def test_the_package_as_it_is_keeps_every_rule(copy: Path) -> None:
    run = lint(copy)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 kept, 0 broken" in run.stdout


E1 = (
    "E1 engine floors: cli -> commands -> workflow -> bundle | potential -> simulate | parametrise | construct | structures -> job | runtime | residues -> "
    "versions -> events"
)
E1_BUNDLE = "E1 the bundle reads simulate.protocol and simulate.mdp only"
E2 = (
    "E2 simulate floors: run | properties -> md | gromacs | gromacs_minimise -> gromacs_run -> engine_probe | equilibration | mdp | minimise | gromacs_files | "
    "trajectory | references -> protocol"
)
E3 = "E3 imports at the top, no private names or modules across packages"

# (module of the copy, the line added to it, the one contract it breaks, what lint-imports says)
BREACHES = {
    "a floor importing a higher one": (
        "construct/arrays.py",
        "from polyforge_engine.workflow import stage_progress",
        E1,
        "polyforge_engine.construct.arrays -> polyforge_engine.workflow",
    ),
    "two packages of one floor": (
        "parametrise/errors.py",
        "from polyforge_engine.simulate.protocol import CUTOFF_NM",
        E1,
        "polyforge_engine.parametrise.errors -> polyforge_engine.simulate.protocol",
    ),
    "the bundle running a simulation": (
        "bundle/writer.py",
        "from polyforge_engine.simulate.run import run_protocol",
        E1_BUNDLE,
        "polyforge_engine.simulate.run",
    ),
    "the OpenMM runner importing the mdrun one": (
        "simulate/md.py",
        "from polyforge_engine.simulate.gromacs import run_gromacs_dynamics",
        E2,
        "polyforge_engine.simulate.md -> polyforge_engine.simulate.gromacs",
    ),
    "the protocol importing what stands on it": (
        "simulate/protocol.py",
        "from polyforge_engine.simulate import mdp",
        E2,
        "polyforge_engine.simulate.protocol -> polyforge_engine.simulate.mdp",
    ),
    # A downward import, allowed at the top of the module: only where it stands is wrong.
    "an import inside a function": (
        "simulate/run.py",
        "def later() -> None:\n    from polyforge_engine.simulate.protocol import CUTOFF_NM  # noqa: F401",
        E3,
        "imports polyforge_engine.simulate.protocol inside a function or TYPE_CHECKING block",
    ),
    "an import only while type checking": (
        "simulate/run.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from polyforge_engine.simulate.mdp import TAU_P_PS",
        E3,
        "imports polyforge_engine.simulate.mdp inside a function or TYPE_CHECKING block",
    ),
    "a private name from another module": (
        "simulate/run.py",
        "from polyforge_engine.simulate.md import _stage_label",
        E3,
        "private name(s) _stage_label from polyforge_engine.simulate.md",
    ),
    # commands may import construct, not construct's own compiled extension.
    "a compiled module used outside its package": (
        "commands/build_structure.py",
        "from polyforge_engine.construct import _growth",
        E3,
        "imports a private module of polyforge_engine.construct from outside it",
    ),
}


@pytest.mark.parametrize("breach", sorted(BREACHES))
def test_each_rule_fails_on_a_breach_of_it_alone(copy: Path, breach: str) -> None:
    module, line, contract, said = BREACHES[breach]
    add_line(copy, module, line)
    run = lint(copy)
    assert run.returncode == 1, run.stdout + run.stderr
    assert broken(run) == {contract}
    assert said in " ".join(run.stdout.split())
