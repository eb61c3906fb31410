"""The MMFF94 terms growth weighs a unit's states with, in one home for the two modules that sum
them: chain_statistics.py (the transfer tables) and relaxed_torsions.py (the rigid half of each
relaxation correction, which must be the tables' own terms to cancel them)."""

from __future__ import annotations

import numpy as np

from polyforge_engine.construct import _growth

COULOMB = 332.0716  # kcal Å / (mol e²), MMFF's constant
ELECTROSTATIC_BUFFER = 0.05  # Å, MMFF's buffered Coulomb
ELECTROSTATIC_14 = 0.75  # MMFF scales 1-4 electrostatics by this


def rigid_energies(
    out: np.ndarray,
    xyz: np.ndarray,
    dihedrals: np.ndarray,
    torsion_terms: np.ndarray,
    pairs: np.ndarray,
    pair_terms: np.ndarray,
    dielectric: float,
) -> None:
    """MMFF torsion and buffered 14-7 / Coulomb terms (charges screened by `dielectric`) of each row
    of positions `xyz` (rows, atoms, 3) into `out` (kcal/mol), summed in C."""
    _growth.probe_energy(out, xyz, dihedrals, torsion_terms, pairs, pair_terms, COULOMB / dielectric, ELECTROSTATIC_BUFFER)
