"""system.pdb and system.gro as another program reads them back (OpenMM's readers), past the
99,999 atoms after which PDB atom numbers turn hexadecimal, with one molecule straddling the switch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from conftest import ETHYLENE, homopolymer_job
from openmm import app, unit
from polyforge_engine.construct.writers import write_gro, write_pdb
from test_build_sequence import assembled


def test_pdb_and_gro_read_back_past_99999_atoms(tmp_path: Path) -> None:
    [kind] = assembled(homopolymer_job(ETHYLENE, 1000, 1))  # 6,002 atoms
    copies = 18  # 108,036 atoms: molecule 17 holds atoms 96,033-102,034, molecule 18 only larger numbers
    atoms = copies * kind.atom_count
    positions = np.random.default_rng(1).uniform(0.0, 300.0, size=(atoms, 3))
    box = np.array([300.0, 300.0, 300.0])
    write_pdb(tmp_path / "system.pdb", [kind], [0] * copies, positions, box)
    write_gro(tmp_path / "system.gro", "test", [kind], [0] * copies, positions, box)

    # The numbering convention itself: 99999, then A0000 (hexadecimal from 10 * 16**4 on).
    serials = [line[6:11] for line in (tmp_path / "system.pdb").read_text().splitlines() if line.startswith("ATOM")]
    assert serials[99_998:100_001] == ["99999", "A0000", "A0001"] and serials[-1] == f"{0xA0000 + atoms - 100_000:5X}"

    pdb = app.PDBFile(str(tmp_path / "system.pdb"))
    assert pdb.topology.getNumAtoms() == atoms
    read = np.asarray(pdb.getPositions(asNumpy=True).value_in_unit(unit.angstrom))
    assert np.abs(read - positions).max() <= 0.0005 + 1e-9
    offsets = np.repeat(np.arange(copies) * kind.atom_count, len(kind.bonds))[:, None]
    expected = np.sort(np.tile(kind.bonds, (copies, 1)) + offsets, axis=1)
    bonds = np.sort(np.array([(a.index, b.index) for a, b in pdb.topology.bonds()]), axis=1)
    assert {tuple(pair) for pair in bonds.tolist()} == {tuple(pair) for pair in expected.tolist()}
    residues = list(pdb.topology.residues())
    assert len(residues) == copies * 1000 and {r.name for r in residues} == {"UNI"}
    names = [a.name for a in pdb.topology.atoms()]
    assert names[: kind.atom_count] == list(kind.atom_names) and names[-kind.atom_count :] == list(kind.atom_names)

    gro = app.GromacsGroFile(str(tmp_path / "system.gro"))
    assert len(gro.getPositions()) == atoms
    read = np.asarray(gro.getPositions(asNumpy=True).value_in_unit(unit.angstrom))
    assert np.abs(read - positions).max() <= 0.005 + 1e-9
    assert gro.atomNames == list(kind.atom_names) * copies
