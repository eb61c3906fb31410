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


def test_a_floor_importing_a_higher_one_breaks_e1(copy: Path) -> None:
    add_line(copy, "construct/arrays.py", "from polyforge_engine.workflow import stage_progress")
    run = lint(copy)
    assert run.returncode == 1
    assert {name[:2] for name in broken(run)} == {"E1"}
    assert "polyforge_engine.construct.arrays -> polyforge_engine.workflow" in run.stdout


def test_two_packages_of_one_floor_importing_each_other_breaks_e1(copy: Path) -> None:
    add_line(copy, "parametrise/errors.py", "from polyforge_engine.simulate.protocol import CUTOFF_NM")
    run = lint(copy)
    assert run.returncode == 1
    assert {name[:2] for name in broken(run)} == {"E1"}
    assert "polyforge_engine.parametrise.errors -> polyforge_engine.simulate.protocol" in run.stdout


def test_the_bundle_running_a_simulation_breaks_its_rule(copy: Path) -> None:
    add_line(copy, "bundle/writer.py", "from polyforge_engine.simulate.run import run_protocol")
    run = lint(copy)
    assert run.returncode == 1
    assert broken(run) == {"E1 the bundle reads simulate.protocol and simulate.mdp only"}


def test_the_openmm_runner_importing_the_gromacs_one_breaks_e2(copy: Path) -> None:
    add_line(copy, "simulate/md.py", "from polyforge_engine.simulate.gromacs import run_gromacs_dynamics")
    run = lint(copy)
    assert run.returncode == 1
    assert {name[:2] for name in broken(run)} == {"E2"}
    assert "polyforge_engine.simulate.md -> polyforge_engine.simulate.gromacs" in run.stdout


def test_the_protocol_importing_a_runner_breaks_e2(copy: Path) -> None:
    add_line(copy, "simulate/protocol.py", "from polyforge_engine.simulate import mdp")
    run = lint(copy)
    assert run.returncode == 1
    assert {name[:2] for name in broken(run)} == {"E2"}


def test_an_import_inside_a_function_breaks_e3(copy: Path) -> None:
    # A downward import, allowed at the top of the module: only where it stands is wrong.
    add_line(copy, "simulate/run.py", "def later() -> None:\n    from polyforge_engine.simulate.protocol import CUTOFF_NM  # noqa: F401")
    run = lint(copy)
    assert run.returncode == 1
    assert broken(run) == {"E3 imports at the top, no private names or modules across packages"}
    assert "polyforge_engine.simulate.run:" in run.stdout and "inside a function or TYPE_CHECKING block" in run.stdout


def test_an_import_only_while_type_checking_breaks_e3(copy: Path) -> None:
    add_line(copy, "simulate/run.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from polyforge_engine.simulate.mdp import TAU_P_PS")
    run = lint(copy)
    assert run.returncode == 1
    assert broken(run) == {"E3 imports at the top, no private names or modules across packages"}


def test_a_private_name_from_another_module_breaks_e3(copy: Path) -> None:
    add_line(copy, "simulate/run.py", "from polyforge_engine.simulate.md import _stage_label")
    run = lint(copy)
    assert run.returncode == 1
    assert broken(run) == {"E3 imports at the top, no private names or modules across packages"}
    assert "private name(s) _stage_label from polyforge_engine.simulate.md" in run.stdout


def test_a_compiled_module_used_outside_its_package_breaks_e3(copy: Path) -> None:
    # commands may import construct, not construct's own compiled extension.
    add_line(copy, "commands/build_structure.py", "from polyforge_engine.construct import _growth")
    run = lint(copy)
    assert run.returncode == 1
    assert broken(run) == {"E3 imports at the top, no private names or modules across packages"}
    assert "imports a private module of polyforge_engine.construct from outside it" in run.stdout
