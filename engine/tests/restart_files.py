"""What a bundle's final.gro and final.rst7 hold, read back with ParmEd: the same positions,
velocities and cell in both, and the temperature of those velocities computed from the prmtop's
masses and constraints (independently of the engine)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import parmed

BOLTZMANN_KJ_MOL_K = 0.0083144626
AMU_A2_PS2_TO_KJ_MOL = 0.01


def final_state_temperature_k(where: Path) -> float:
    """Checks final.gro and final.rst7 against each other and final.pdb's cell; their temperature (K)."""
    gro = parmed.load_file(str(where / "final.gro"))
    rst7 = parmed.amber.Rst7.open(str(where / "final.rst7"))
    pdb = parmed.load_file(str(where / "final.pdb"))
    assert gro.velocities is not None and rst7.hasvels and rst7.hasbox
    assert np.allclose(gro.box[:3], rst7.box[:3], atol=1e-3) and np.allclose(rst7.box[:3], pdb.box[:3], atol=1e-3)
    assert np.allclose(gro.velocities, rst7.velocities, atol=0.01)  # Å/ps; the .gro keeps 0.0001 nm/ps
    assert np.allclose(gro.coordinates, rst7.coordinates.reshape(-1, 3), atol=0.01)
    assert np.abs(rst7.velocities).max() > 0
    prmtop = parmed.amber.AmberParm(str(where / "system.prmtop"))
    masses = np.array(prmtop.parm_data["MASS"])
    kinetic = 0.5 * np.sum(masses[:, None] * rst7.velocities**2) * AMU_A2_PS2_TO_KJ_MOL
    constraints = len(prmtop.parm_data["BONDS_INC_HYDROGEN"]) // 3
    dof = 3 * len(masses) - constraints - 3  # bonds to H constrained, centre-of-mass motion removed
    return float(2 * kinetic / (dof * BOLTZMANN_KJ_MOL_K))
