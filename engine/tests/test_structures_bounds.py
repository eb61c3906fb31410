"""What validate-structure spends grows with the atoms, whatever the file: overlapping atoms, atoms
packed closer than matter, an atom with more bonds than any has, CONECT records out of proportion
to the atoms and overlong lines are refused (the structure's invalid answer, with the line), before
they cost memory or time that grows faster than the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from polyforge_engine.structures.readers import StructureError, read_structure
from polyforge_engine.structures.validate_structure import validate_structure

DATA = Path(__file__).parent / "structure_files"
MAX_LINE_BYTES = 4096  # as GROMACS reads lines


def atom(serial: int, xyz: tuple[float, float, float], name: str = "C1", element: str = "C", residue: int = 1) -> str:
    x, y, z = xyz
    return f"HETATM{serial:5d} {name:<4} MOL A{residue:4d}    {x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {element:>2}\n"


def problem(path: Path) -> StructureError:
    with pytest.raises(StructureError) as caught:
        validate_structure(path)
    return caught.value


def test_atoms_at_one_point_are_refused_with_their_lines(tmp_path: Path) -> None:
    # every pair was a bond: memory and time grew with the square of the atoms
    path = tmp_path / "point.pdb"
    path.write_text("REMARK   one point\n" + "".join(atom(i + 1, (1.0, 1.0, 1.0)) for i in range(2000)) + "END\n")
    error = problem(path)
    assert error.line == 3 and error.code == "INVALID_STRUCTURE"
    assert "Line 3: the atom C1 is 0.000 Å from the atom C1 on line 2; atoms closer than 0.4 Å overlap" in error.message


def test_two_atoms_closer_than_the_overlap_distance_are_refused_wherever_they_sit(tmp_path: Path) -> None:
    lines = [atom(1, (0.0, 0.0, 0.0), "O1", "O"), atom(2, (0.96, 0.0, 0.0), "H1", "H"), "TER\n"]
    lines += [atom(3 + i, (5.0 + 3.0 * i, 5.0, 5.0), "C1", "C", 2) for i in range(3)]
    lines += ["TER\n", atom(6, (5.0 + 3.0 * 2, 5.0, 5.35), "C2", "C", 3), "END\n"]  # 0.35 Å from atom 5
    path = tmp_path / "close.pdb"
    path.write_text("".join(lines))
    error = problem(path)
    assert error.line == 8
    assert "the atom C2 is 0.350 Å from the atom C1 on line 6" in error.message


def test_an_atom_on_a_periodic_image_of_another_is_refused(tmp_path: Path) -> None:
    # 0.2 Å apart through the cell's face, 29.8 Å apart as written
    lines = ["CRYST1   30.000   30.000   30.000  90.00  90.00  90.00 P 1           1\n"]
    lines += [atom(1, (0.1, 5.0, 5.0), "C1"), atom(2, (29.9, 5.0, 5.0), "C2"), atom(3, (10.0, 10.0, 10.0), "C3"), "END\n"]
    path = tmp_path / "image.pdb"
    path.write_text("".join(lines))
    error = problem(path)
    assert error.line == 3 and "the atom C2 is 0.200 Å from the atom C1 on line 2" in error.message


def test_atoms_packed_closer_than_matter_are_refused(tmp_path: Path) -> None:
    # a lattice 0.45 Å apart: no two atoms overlap, but each has ~300 within its bonding reach
    grid = np.stack(np.meshgrid(*[np.arange(10) * 0.45] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    path = tmp_path / "dense.pdb"
    path.write_text("".join(atom(i + 1, tuple(xyz)) for i, xyz in enumerate(grid.tolist())) + "END\n")
    error = problem(path)
    assert "has more than 128 atoms within 1.92 Å; no molecule packs atoms this closely" in error.message
    assert error.line is not None and 1 <= error.line <= len(grid)


def test_an_atom_with_more_bonds_than_any_atom_has_is_refused(tmp_path: Path) -> None:
    # 17 hydrogens 1.0 Å around one carbon, each at least 0.6 Å from the others
    golden = np.pi * (3 - np.sqrt(5))
    heights = 1 - 2 * (np.arange(17) + 0.5) / 17
    ring = np.sqrt(1 - heights**2)
    around = np.column_stack([ring * np.cos(golden * np.arange(17)), ring * np.sin(golden * np.arange(17)), heights])
    lines = [atom(1, (5.0, 5.0, 5.0), "C1", "C")] + [atom(i + 2, tuple(5.0 + around[i]), f"H{i + 1}", "H") for i in range(17)]
    path = tmp_path / "crowded.pdb"
    path.write_text("".join(lines) + "END\n")
    error = problem(path)
    assert error.line == 1
    assert "the atom C1 is within bonding distance of 17 atoms; an atom has at most 16 bonds" in error.message


def test_conect_records_out_of_proportion_to_the_atoms_are_refused_at_their_line(tmp_path: Path) -> None:
    path = tmp_path / "conect.pdb"
    path.write_text(atom(1, (0.0, 0.0, 0.0)) + atom(2, (1.5, 0.0, 0.0)) + "CONECT    1    2    2    2    2\n" * 5000 + "END\n")
    error = problem(path)
    # 16 pairs per atom: the 33rd pair is on the 9th record (line 11)
    assert error.line == 11
    assert "the CONECT records name more than 16 partners per atom of the 2 atoms before them" in error.message


def test_conect_records_bonding_one_atom_to_seventeen_are_refused(tmp_path: Path) -> None:
    lines = [atom(1, (0.0, 0.0, 0.0))] + [atom(i + 2, (3.0 * (i + 1), 0.0, 0.0), f"C{i + 2}") for i in range(17)]
    partners = list(range(2, 19))
    lines += ["CONECT    1" + "".join(f"{p:5d}" for p in partners[k : k + 4]) + "\n" for k in range(0, 17, 4)]
    path = tmp_path / "conect17.pdb"
    path.write_text("".join(lines) + "END\n")
    error = problem(path)
    assert error.line == 19  # the first CONECT record naming it
    assert "the CONECT records bond atom 1 to 17 atoms; an atom has at most 16 bonds" in error.message
    # The same bonds listed from both ends, and a pair repeated for a double bond, count once.
    lines = [atom(1, (0.0, 0.0, 0.0)), atom(2, (1.3, 0.0, 0.0)), "CONECT    1    2    2\n", "CONECT    2    1    1\n", "END\n"]
    path.write_text("".join(lines))
    assert validate_structure(path)["molecules"] == 1


@pytest.mark.parametrize(("length", "line"), [(MAX_LINE_BYTES + 10, 2), (9 * 1024 * 1024, 2)])
def test_an_overlong_line_is_refused_with_its_number(tmp_path: Path, length: int, line: int) -> None:
    # a line within a block, and one past the 8 MB blocks (refused as it is read, never gathered)
    path = tmp_path / "long.pdb"
    path.write_text(atom(1, (0.0, 0.0, 0.0)) + "REMARK " + "A" * length + "\n" + atom(2, (1.5, 0.0, 0.0)) + "END\n")
    error = problem(path)
    assert error.line == line
    assert f"the line is longer than {MAX_LINE_BYTES} characters" in error.message
    gro = tmp_path / "long.gro"
    gro.write_text("title " + "x" * length + "\n    1\n    1MOL     C1    1   0.000   0.000   0.000\n   1.0   1.0   1.0\n")
    assert problem(gro).line == 1


@pytest.mark.parametrize("name", sorted(path.name for path in DATA.iterdir() if path.suffix in {".pdb", ".gro"}))
def test_every_atom_knows_its_line(name: str) -> None:
    atoms = read_structure(DATA / name)
    lines = (DATA / name).read_bytes().split(b"\n")
    xyz = atoms.xyz()
    for index in range(atoms.count):
        text = lines[atoms.line_of(index) - 1]
        if name.endswith(".gro"):
            assert float(text[20:28]) * 10 == pytest.approx(xyz[index, 0], abs=1e-3)
        else:
            assert text[:6] in (b"ATOM  ", b"HETATM") and float(text[30:38]) == pytest.approx(xyz[index, 0], abs=1e-3)
