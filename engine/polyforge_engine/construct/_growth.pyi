"""Types of the compiled inner loops of chain growth (_growth.c); each writes its answer into `out`."""

from typing import Any

import numpy as np

def acceptable(
    out: np.ndarray,
    candidates: np.ndarray,
    centres: np.ndarray,
    reach: float,
    molecules: np.ndarray,
    checked: np.ndarray,
    ahead_from: int,
    ahead_room: float,
    molecule_base: np.ndarray,
    close_pairs: Any,
    atom_count: int,
    inter: float,
    intra: float,
    table: np.ndarray,
    positions: np.ndarray,
    molecule_of: np.ndarray,
    shape: tuple[int, ...],
    box: tuple[float, ...],
    periodic_z: bool,
    unit: np.ndarray | None = None,
    window: int = -1,
) -> None: ...
def add_around(around: np.ndarray, cells: np.ndarray, shape: tuple[int, ...], periodic_z: bool, amount: int, /) -> None: ...
def junction_energy(
    out: np.ndarray,
    candidates: np.ndarray,
    ends: np.ndarray,
    partners: np.ndarray,
    anchor: np.ndarray,
    joint: np.ndarray,
    direction: np.ndarray,
    terms: np.ndarray,
    /,
) -> None: ...
def clashing_newcomers(
    out: np.ndarray,
    atoms: np.ndarray,
    table: np.ndarray,
    positions: np.ndarray,
    molecule: np.ndarray,
    cell_of: np.ndarray,
    shape: tuple[int, ...],
    box: tuple[float, ...],
    periodic_z: bool,
    inter: float,
    /,
) -> None: ...
def probe_energy(
    out: np.ndarray,
    xyz: np.ndarray,
    dihedrals: np.ndarray,
    torsion_terms: np.ndarray,
    pairs: np.ndarray,
    pair_terms: np.ndarray,
    coulomb: float,
    buffer: float,
    /,
) -> None: ...
