"""generate-potential on whole structures (real antechamber/sqm, parmchk2 and tleap), and GROMACS's
own `gmx grompp` on the topology it writes: a single molecule, a mixture, a charged system, and
chains wrapped into their cell as `gmx trjconv -pbc atom` writes them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from polyforge_engine.potential.generate import whole_molecules
from polyforge_engine.structures.molecules import perceive_bonds, usable_cell
from polyforge_engine.structures.readers import read_structure
from test_structures_validate import _chains_wrapped_into_cell, run_engine

GMX = shutil.which("gmx")
needs_gromacs = pytest.mark.skipif(GMX is None and not os.environ.get("CI"), reason="GROMACS (make gromacs) is not installed")


def generate(structure: Path, workdir: Path, charge: int = 0, steps: int = 5) -> dict[str, Any]:
    job = {
        "structure_file": str(structure),
        "force_field": "GAFF2",
        "charge": charge,
        "minimization_steps": steps,
        "system": {"name": "Test", "sanitized_name": "test"},
    }
    code, events = run_engine("generate-potential", job, workdir)
    assert code == 0, events[-1]
    return events[-1]


def grompp(workdir: Path) -> str:
    """grompp on the written topology, structure and minimisation settings, warnings fatal."""
    assert GMX is not None, "gmx is missing: run make gromacs"
    topology = workdir / "topology"
    process = subprocess.run(
        [GMX, "grompp", "-f", str(workdir / "minimization.mdp"), "-c", "system.gro", "-p", "system.top",
         "-o", str(workdir / "em.tpr"), "-po", str(workdir / "mdout.mdp"), "-maxwarn", "0"],
        cwd=topology, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert process.returncode == 0, process.stderr[-2000:]
    assert (workdir / "em.tpr").stat().st_size > 0
    return process.stderr


def molecules_section(workdir: Path) -> list[tuple[str, int]]:
    text = (workdir / "topology" / "system.top").read_text()
    rows = text[text.index("[ molecules ]") :].splitlines()[1:]
    return [(row.split()[0], int(row.split()[1])) for row in rows if row.strip() and not row.startswith(";")]


@needs_gromacs
def test_a_single_molecule_gets_a_box_grompp_accepts(tmp_path: Path) -> None:
    # Before: the .gro box was the molecule's own extent (1.0 x 0.9 x 0.7 nm) and grompp refused
    # "The cut-off length is longer than half the shortest box vector".
    code, events = run_engine("convert-smiles", {"smiles": "c1ccccc1O"}, tmp_path / "phenol")
    assert code == 0, events[-1]
    generate(tmp_path / "phenol" / "structure.gro", tmp_path / "potential")
    box = [float(v) for v in (tmp_path / "potential" / "topology" / "system.gro").read_text().splitlines()[-1].split()]
    assert min(box) > 2.0  # nm: twice the 1.0 nm cutoff, plus a margin
    grompp(tmp_path / "potential")


@needs_gromacs
def test_a_charged_mixture_passes_grompp(tmp_path: Path) -> None:
    # acetate and tetramethylammonium: each molecule's charge perceived from its bonds, summed, checked
    code, events = run_engine("convert-smiles", {"smiles": "CC(=O)[O-].C[N+](C)(C)C.CCO"}, tmp_path / "mix")
    assert code == 0, events[-1]
    structure = tmp_path / "mix" / "structure.gro"  # a .gro has no charge columns
    job = {"structure_file": str(structure), "force_field": "GAFF2", "charge": 1, "minimization_steps": 0}
    code, events = run_engine("generate-potential", job, tmp_path / "wrong")
    assert code == 1 and events[-1]["code"] == "WRONG_NET_CHARGE"
    assert "net charge of 0 (1 × C2H3O2-, 1 × C4H12N+), but +1 was requested" in events[-1]["message"]
    result = generate(structure, tmp_path / "potential")
    assert result["summary"]["charges"]["total_charge"] == pytest.approx(0, abs=1e-4)
    grompp(tmp_path / "potential")


@needs_gromacs
def test_wrapped_chains_are_made_whole_and_parametrised_once(tmp_path: Path) -> None:
    wrapped, _ = _chains_wrapped_into_cell(tmp_path, count=3)
    result = generate(wrapped, tmp_path / "potential", steps=1)
    assert result["summary"]["molecules"] == 3
    assert molecules_section(tmp_path / "potential") == [("EIC", 3)]  # one kind, three copies
    grompp(tmp_path / "potential")


def test_whole_molecules_undo_the_wrapping(tmp_path: Path) -> None:
    wrapped, whole = _chains_wrapped_into_cell(tmp_path)
    atoms = read_structure(wrapped)
    bonds = perceive_bonds(atoms)
    made_whole = whole_molecules(atoms.xyz().astype(float), bonds, usable_cell(atoms.cell, atoms.xyz()))
    reference = read_structure(whole).xyz().astype(float)
    lengths = np.linalg.norm(made_whole[bonds[:, 0]] - made_whole[bonds[:, 1]], axis=1)
    assert lengths.max() < 2.0  # every bond short again
    # each molecule is the reference molecule moved by whole cells
    per_molecule = (made_whole - reference).reshape(10, 62, 3)
    assert np.ptp(per_molecule, axis=1).max() < 0.02


def test_a_system_in_a_cell_too_small_for_the_cutoff_is_refused(tmp_path: Path) -> None:
    source = Path("/usr/share/gromacs/top/spc216.gro")
    if not source.is_file():
        pytest.skip("GROMACS's spc216.gro is not installed")
    job = {"structure_file": str(source), "force_field": "GAFF2", "charge": 0, "minimization_steps": 0}
    code, events = run_engine("generate-potential", job, tmp_path)
    assert code == 1
    assert events[-1]["code"] == "CELL_TOO_SMALL"
    assert "18.6 × 18.6 × 18.6 Å" in events[-1]["message"] and "21 Å" in events[-1]["message"]
