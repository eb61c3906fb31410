"""Types of the compiled geometric relaxation of dense builds (_relax.c)."""

import numpy as np

HISTORY: int  # L-BFGS correction pairs the minimiser keeps

class Relaxer:
    builds: int  # whole builds of the neighbour list so far
    refreshes: int  # refreshes of the list about the atoms that moved most, so far
    def __init__(
        self,
        pairs: np.ndarray,
        lengths: np.ndarray,
        pair_k: np.ndarray,
        torsions: np.ndarray,
        torsion_k: np.ndarray,
        molecule: np.ndarray,
        excluded_start: np.ndarray,
        excluded: np.ndarray,
        inter: float,
        intra: float,
        push: float,
        wall_k: float,
        wall_low: float,
        wall_high: float,
        skin: float,
        threads: int = 1,
        apart: np.ndarray | None = None,
    ) -> None: ...
    def minimize(
        self,
        positions: np.ndarray,
        box: tuple[float, ...],
        stagger: float,
        tolerance: float,
        iterations: int,
        keep: tuple[float, float, float, float] | None = None,
    ) -> tuple[int, float]:
        """Minimises in place, stopping early once a step keeps the limits `keep` (inter, intra, wall
        low, wall high); (iterations done, final energy)."""
    def energy(self, positions: np.ndarray, gradient: np.ndarray, box: tuple[float, ...], stagger: float) -> float: ...
    def close_pairs(self, positions: np.ndarray, box: tuple[float, ...], inter: float, intra: float) -> list[tuple[int, int]]: ...
