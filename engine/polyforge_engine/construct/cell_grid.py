"""A periodic cell list for building: atoms are binned into cells at least as wide as the longest
distance we test, so finding an atom's neighbours costs the same whatever the system size.

Storage is a padded table (cell -> slots of atom indices) so inserting is a numpy operation and the
compiled loops of growth (_growth.c) can read it directly. Removing an atom moves the last atom of its
cell into its slot, which keeps every cell's occupied slots contiguous. Each cell also counts the
atoms in the 27 cells around it (crowding). With walls, z is not periodic.
"""

from __future__ import annotations

import numpy as np

from polyforge_engine.construct import _growth


def _add_to(counts: np.ndarray, cells: np.ndarray, amount: int) -> None:
    """counts[cells] += amount, repeated cells counted every time. np.add.at takes its fast path only
    when given an array of the counts' own dtype, not a scalar; np.unique is slower still (bench/README.md, "Builder settings")."""
    np.add.at(counts, cells, np.full(len(cells), amount, dtype=counts.dtype))


class CellGrid:
    def __init__(self, box: np.ndarray, periodic_z: bool, cell_side: float, capacity: int):
        self.box = np.asarray(box, dtype=float)
        self.periodic = np.array([True, True, periodic_z])
        self.shape = np.maximum(1, np.floor(self.box / cell_side).astype(np.int64))
        self.side = self.box / self.shape
        # shape, box and whether z is periodic, as the compiled loops (_growth.c) take them
        self.frame: tuple[tuple[int, ...], tuple[float, ...], bool] = (tuple(self.shape.tolist()), tuple(self.box.tolist()), bool(self.periodic[2]))
        cell_count = int(np.prod(self.shape))
        self.empty_cell = cell_count  # an always-empty row that stands for "beyond a wall"
        self.slots = 8
        self.table = np.full((cell_count + 1, self.slots), -1, dtype=np.int32)
        self.count = np.zeros(cell_count + 1, dtype=np.int32)
        self.around = np.zeros(cell_count + 1, dtype=np.int32)  # atoms in each cell's 27 neighbours
        self.positions = np.zeros((capacity, 3))  # wrapped into the box
        self.molecule = np.full(capacity, -1, dtype=np.int32)
        self.cell_of = np.zeros(capacity, dtype=np.int64)
        self.slot_of = np.zeros(capacity, dtype=np.int64)

    def wrap(self, positions: np.ndarray) -> np.ndarray:
        wrapped = positions - np.floor(positions / self.box) * self.box
        return np.where(self.periodic, wrapped, positions)

    def _cells(self, wrapped: np.ndarray) -> np.ndarray:
        coords = np.clip(np.floor(wrapped / self.side).astype(np.int64), 0, self.shape - 1)
        return (coords[:, 0] * self.shape[1] + coords[:, 1]) * self.shape[2] + coords[:, 2]

    @staticmethod
    def _rank_within_cell(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Order that sorts atoms by cell, and each sorted atom's rank among atoms of its cell."""
        order = np.argsort(cells, kind="stable")
        sorted_cells = cells[order]
        first = np.searchsorted(sorted_cells, sorted_cells, side="left")
        return order, np.arange(len(cells)) - first

    def insert(self, atoms: np.ndarray, positions: np.ndarray, molecule: int | np.ndarray) -> None:
        """Store atoms (any number, any cells) with their positions and molecule (one, or one per atom)."""
        wrapped = self.wrap(positions)
        cells = self._cells(wrapped)
        order, rank = self._rank_within_cell(cells)
        slot = self.count[cells[order]] + rank
        if len(slot) and slot.max() >= self.slots:
            grown = max(self.slots * 2, int(slot.max()) + 1)
            table = np.full((len(self.table), grown), -1, dtype=np.int32)
            table[:, : self.slots] = self.table
            self.table, self.slots = table, grown
        self.table[cells[order], slot] = atoms[order]
        _add_to(self.count, cells, 1)
        self._add_around(cells, 1)
        self.positions[atoms] = wrapped
        self.molecule[atoms] = molecule
        self.cell_of[atoms] = cells
        self.slot_of[atoms[order]] = slot

    def _add_around(self, cells: np.ndarray, sign: int) -> None:
        _growth.add_around(self.around, np.ascontiguousarray(cells, dtype=np.int64), tuple(self.shape.tolist()), bool(self.periodic[2]), sign)

    def remove(self, atoms: np.ndarray) -> None:
        """Take atoms out: each cell's last atom moves into the freed slot."""
        table, count, slot_of = self.table, self.count, self.slot_of
        for atom in atoms.tolist():  # a few units at a time: the builder takes back little
            cell, slot = self.cell_of[atom], slot_of[atom]
            last = count[cell] - 1
            moved = table[cell, last]
            table[cell, slot] = moved
            slot_of[moved] = slot
            table[cell, last] = -1
            count[cell] = last
        self._add_around(self.cell_of[atoms], -1)
        self.molecule[atoms] = -1

    def crowding(self, points: np.ndarray) -> np.ndarray:
        """Atoms stored in the 27 cells around each point."""
        return self.around[self._cells(self.wrap(points))]
