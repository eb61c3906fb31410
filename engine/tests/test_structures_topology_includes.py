"""validate-topology reads only the files of its job: an `#include` of anything else (absolute, `..`,
a symlink out of the job directory, a file that does not exist) is refused with the same words and
none of the file's text; a file including itself is invalid, not a crash; repeated includes and long
lines are refused before they cost time or memory."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from engine_cli import run_engine

SECRET = "ZZSECRET1 ZZSECRET2 ZZSECRET3 ZZSECRET4 ZZSECRET5"
REFUSED = "includes a file that is not part of this upload"


def self_contained(top: Path) -> str:
    """The engine's system.top with the files it includes (molecules.itp) written in place: a
    topology as a user uploads it, one file."""
    return re.sub(r'^#include "([^"]+)"$', lambda match: (top.parent / match.group(1)).read_text(), top.read_text(), flags=re.MULTILINE)


def waters_top(waters: int, atoms_section_extra: str = "", before_molecules: str = "") -> str:
    """A self-contained TIP3P-like topology of `waters` waters named as the .gro names them."""
    return f"""; water box
[ defaults ]
1 2 yes 0.5 0.8333

[ atomtypes ]
OW  8 15.9994 0.0 A 0.315061 0.636386
HW  1  1.008  0.0 A 0.0 0.0

[ moleculetype ]
SOL 2

[ atoms ]
1 OW 1 SOL OW  1 -0.834 15.9994
2 HW 1 SOL HW1 1  0.417  1.008
3 HW 1 SOL HW2 1  0.417  1.008
{atoms_section_extra}
[ system ]
waters
{before_molecules}
[ molecules ]
SOL {waters}
"""


def waters_gro(waters: int) -> str:
    lines = ["three waters", str(3 * waters)]
    for index in range(waters):
        x = 0.5 + 0.4 * index
        for offset, name in enumerate(("OW", "HW1", "HW2")):
            lines.append(f"{index + 1:5d}{'SOL':<5}{name:>5}{3 * index + offset + 1:5d}{x + 0.09 * offset:8.3f}{1.000:8.3f}{1.000:8.3f}")
    lines.append("   3.00000   3.00000   3.00000")
    return "\n".join(lines) + "\n"


@pytest.fixture
def job(tmp_path: Path) -> Path:
    """A job directory (as the server makes it) beside a secret the topology must not reach."""
    (tmp_path / "secret.txt").write_text(f"[ atoms ]\n1 {SECRET}\n")
    workdir = tmp_path / "jobs" / "potential-1"
    workdir.mkdir(parents=True)
    (workdir / "structure.gro").write_text(waters_gro(3))
    return workdir


def validate(workdir: Path, top: str, name: str = "system.top") -> dict[str, Any]:
    (workdir / name).write_text(top)
    code, events = run_engine("validate-topology", {"topology_file": name, "structure_file": "structure.gro"}, workdir)
    assert code == 0, events[-1]  # an invalid topology is an answer, not an engine failure
    return events[-1]


def included_in_atoms(workdir: Path, name: str) -> dict[str, Any]:
    """The topology with `#include "<name>"` (or `#include <name>` for `<…>`) inside its [ atoms ]
    section (line 16)."""
    argument = name if name.startswith("<") else f'"{name}"'
    return validate(workdir, waters_top(3, atoms_section_extra=f"#include {argument}"))


def test_a_self_contained_topology_is_valid_and_an_inactive_include_is_not_read(job: Path) -> None:
    # The usual GROMACS position restraints: included only when POSRES is defined.
    result = validate(job, waters_top(3, before_molecules='#ifdef POSRES\n#include "/etc/passwd"\n#endif\n'))
    assert result["valid"] is True and result["atoms"] == 9 and result["molecules"] == 3


@pytest.mark.parametrize(
    "name",
    [
        "../../secret.txt",
        "{tmp}/secret.txt",
        "/proc/net/tcp",
        "/etc/passwd",
        "missing.itp",
        "../../missing.txt",
        "/nonexistent/x.itp",
        "../..",
        "<forcefield.itp>",
    ],
)
def test_an_include_outside_the_job_is_refused_without_its_text(job: Path, name: str) -> None:
    name = name.replace("{tmp}", str(job.parent.parent))
    result = included_in_atoms(job, name)
    assert result["valid"] is False and result["error_code"] == "INVALID_TOPOLOGY"
    # The same words whether the file exists or not (no existence oracle), and nothing of it.
    assert result["message"].startswith(f"system.top line 16 {REFUSED}."), result["message"]
    assert "ZZSECRET" not in result["message"] and "00000000" not in result["message"] and "root" not in result["message"]
    assert name not in result["message"]


def test_a_symlink_in_the_job_directory_pointing_outside_is_refused(job: Path) -> None:
    (job / "forcefield.itp").symlink_to(job.parent.parent / "secret.txt")
    (job / "loop.itp").symlink_to(job / "loop.itp")
    for name in ("forcefield.itp", "loop.itp"):
        result = included_in_atoms(job, name)
        assert result["valid"] is False and result["message"].startswith(f"system.top line 16 {REFUSED}."), result["message"]
        assert "ZZSECRET" not in result["message"]


def test_a_symlink_to_a_job_file_is_followed(job: Path) -> None:
    """Checked after symlinks: a link to the structure is the structure (included once, its lines
    read as topology lines, which is the user's own text)."""
    (job / "alias.gro").symlink_to(job / "structure.gro")
    result = included_in_atoms(job, "alias.gro")
    assert result["valid"] is False
    assert result["message"].startswith("structure.gro line 1: an [ atoms ] line needs"), result["message"]


def test_a_topology_including_itself_is_invalid_not_a_crash(job: Path) -> None:
    result = validate(job, waters_top(3, atoms_section_extra='#include "system.top"'))
    assert result["valid"] is False and result["error_code"] == "INVALID_TOPOLOGY"
    assert result["message"] == "system.top line 16 includes itself."
    # through the structure: its title line is an include of the topology
    (job / "structure.gro").write_text('#include "system.top"\n' + waters_gro(3).split("\n", 1)[1])
    result = validate(job, waters_top(3, before_molecules='#include "structure.gro"\n'))
    assert result["valid"] is False
    assert "structure.gro line 1 includes system.top, which includes structure.gro" in result["message"]


def test_the_structure_included_again_and_again_is_refused_at_the_second_include(job: Path) -> None:
    # the time grew with the structure's size times the includes
    result = validate(job, '#include "structure.gro"\n' * 20_000 + waters_top(3))
    assert result["valid"] is False
    assert result["message"].startswith("system.top line 2 includes structure.gro a second time"), result["message"]


def test_a_line_longer_than_the_limit_is_refused_with_its_number(job: Path) -> None:
    result = validate(job, waters_top(3) + "; " + "x" * 100_000 + "\n")
    assert result["valid"] is False
    assert "system.top line 22: the line is longer than 65536 characters" in result["message"], result["message"]
