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
from polyforge_engine.structures.molecules import perceive_bonds, usable_cell, whole_molecules
from polyforge_engine.structures.readers import read_structure
from test_structures_topology_includes import self_contained
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


@needs_gromacs
def test_water_and_ions_get_tip3p_and_joung_cheatham(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "CCO.[Na+].[Cl-].O.O"}, tmp_path / "mix")
    assert code == 0, events[-1]
    generate(tmp_path / "mix" / "structure.pdb", tmp_path / "potential", steps=1)
    top = (tmp_path / "potential" / "topology" / "system.top").read_text()
    itp = (tmp_path / "potential" / "topology" / "molecules.itp").read_text() if "molecules.itp" in top else ""
    text = top + itp
    # AmberTools' TIP3P (OW charge -0.834) and Joung-Cheatham 2008 ions for TIP3P
    assert "-0.834" in text and "0.417" in text
    for atom_type in ("OW", "HW", "Na+", "Cl-"):
        assert f"\n{atom_type} " in text or f"\n{atom_type}\t" in text or f" {atom_type} " in text, atom_type
    names = dict(molecules_section(tmp_path / "potential"))
    assert names.get("WAT") == 2 and names.get("NA") == 1 and names.get("CL") == 1
    grompp(tmp_path / "potential")


@needs_gromacs
def test_a_gromacs_water_box_is_parametrised_once(tmp_path: Path) -> None:
    source = Path("/usr/share/gromacs/top/spc216.gro")
    if not source.is_file():
        pytest.skip("GROMACS's spc216.gro is not installed")
    lines = source.read_text().splitlines()
    atoms, side = lines[2:-1], float(lines[-1].split()[0])
    tiled = []
    for shift in np.ndindex(2, 2, 2):  # 2 x 2 x 2 copies: 1,728 waters in a 3.72 nm cube
        offset = np.array(shift) * side
        for line in atoms:
            xyz = np.array([float(line[20 + 8 * k : 28 + 8 * k]) for k in range(3)]) + offset
            tiled.append(line[:20] + "".join(f"{v:8.3f}" for v in xyz))
    path = tmp_path / "water.gro"
    path.write_text("\n".join(["tiled spc216", f"{len(tiled):5d}", *tiled, f"{2 * side:10.5f}" * 3]) + "\n")
    result = generate(path, tmp_path / "potential", steps=1)
    assert result["summary"]["molecules"] == 1728
    assert molecules_section(tmp_path / "potential") == [("WAT", 1728)]
    grompp(tmp_path / "potential")


@pytest.fixture(scope="module")
def ethanol_in_water(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """generate-potential for an ethanol and three waters converted from SMILES."""
    workdir = tmp_path_factory.mktemp("ethanol-water")
    code, events = run_engine("convert-smiles", {"smiles": "CCO.O.O.O"}, workdir / "structure")
    assert code == 0, events[-1]
    generate(workdir / "structure" / "structure.pdb", workdir / "potential", steps=1)
    return workdir / "potential" / "topology"


def validate_topology(topology: Path, structure: Path, workdir: Path) -> dict[str, Any]:
    code, events = run_engine("validate-topology", {"topology_file": str(topology), "structure_file": str(structure)}, workdir)
    assert code == 0, events[-1]  # an invalid topology is an answer, not an engine failure
    return events[-1]


def test_validate_topology_accepts_what_generate_potential_wrote(ethanol_in_water: Path, tmp_path: Path) -> None:
    (tmp_path / "system.top").write_text(self_contained(ethanol_in_water / "system.top"))
    result = validate_topology(tmp_path / "system.top", ethanol_in_water / "system.gro", tmp_path)
    assert result["valid"] is True and result["atoms"] == 9 + 9 and result["molecules"] == 4


def test_validate_topology_without_defaults(ethanol_in_water: Path, tmp_path: Path) -> None:
    text = self_contained(ethanol_in_water / "system.top")
    start = text.index("[ defaults ]")
    end = text.index("[", start + 1)
    (tmp_path / "system.top").write_text(text[:start] + text[end:])
    result = validate_topology(tmp_path / "system.top", ethanol_in_water / "system.gro", tmp_path)
    assert result["valid"] is False and "no [ defaults ] section" in result["message"]


def test_validate_topology_names_the_copy_whose_atoms_are_out_of_order(ethanol_in_water: Path, tmp_path: Path) -> None:
    lines = (ethanol_in_water / "system.gro").read_text().splitlines()
    water = [index for index, line in enumerate(lines) if line[5:10].strip() == "WAT"]
    second = water[3:6]  # the second water: O H1 H2 -> H1 O H2
    lines[second[0]], lines[second[1]] = lines[second[1]], lines[second[0]]
    (tmp_path / "swapped.gro").write_text("\n".join(lines) + "\n")
    (tmp_path / "system.top").write_text(self_contained(ethanol_in_water / "system.top"))
    result = validate_topology(tmp_path / "system.top", tmp_path / "swapped.gro", tmp_path)
    assert result["valid"] is False
    assert f"Atom {second[0] - 1} is H1 in the structure but O in the topology (molecule WAT, copy 2)" in result["message"]


def test_the_bundle_holds_each_gaff_kinds_antechamber_and_parmchk2_output(ethanol_in_water: Path) -> None:
    import zipfile

    bundle = ethanol_in_water.parent / "test_files.zip"
    names = zipfile.ZipFile(bundle).namelist()
    # ethanol is GAFF-typed (antechamber mol2, parmchk2 frcmod); the waters are TIP3P and have none
    assert {"force_field/README.md", "force_field/C2H6O.mol2", "force_field/C2H6O.frcmod"} <= set(names)
    assert not [name for name in names if name.startswith("force_field/") and "WAT" in name]
    mol2 = zipfile.ZipFile(bundle).read("force_field/C2H6O.mol2").decode()
    assert "@<TRIPOS>ATOM" in mol2 and " oh " in mol2  # the hydroxyl oxygen's GAFF2 type
    assert {"system.top", "molecules.itp", "system.gro", "system.prmtop", "system.inpcrd"} <= set(names)


def test_the_summary_lists_each_kinds_atom_types(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "CCO.O"}, tmp_path / "structure")
    assert code == 0, events[-1]
    result = generate(tmp_path / "structure" / "structure.sdf", tmp_path / "potential", steps=0)
    kinds = {kind["name"]: kind for kind in result["summary"]["charges"]["molecules"]}
    assert kinds["C2H6O"]["atom_types"] == ["c3", "h1", "hc", "ho", "oh"]
    assert kinds["H2O"]["atom_types"] == ["HW", "OW"]  # TIP3P, not GAFF
