"""Types of the compiled closest-contact measurement (_contacts.c)."""

import numpy as np

def closest_contacts(
    positions: np.ndarray,
    box: tuple[float, ...],
    periodic_z: bool,
    search: float,
    molecule_of: np.ndarray,
    molecule_base: np.ndarray,
    molecule_kind: np.ndarray,
    kind_size: np.ndarray,
    key_start: np.ndarray,
    keys: np.ndarray,
) -> tuple[float | None, float | None]:
    """The closest distances (Å) between atoms of different molecules and between non-bonded atoms
    of one molecule within `search`, None where none is that close."""

def pairs_between(first: np.ndarray, second: np.ndarray, box: tuple[float, ...], periodic_z: bool, search: float) -> bytes:
    """int64 pairs (i in first, j in second) of points closer than `search`, as bytes."""
