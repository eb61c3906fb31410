"""DCD trajectories written from NumPy arrays.

The file is the one OpenMM's DCDFile writes (CHARMM/NAMD DCD, little-endian, a unit-cell record per
frame when periodic, coordinates in Å as float32), but a frame is three array writes: OpenMM's
converts every coordinate in Python (bench/README.md, "Recording")."""

from __future__ import annotations

import os
import struct
import time
from typing import BinaryIO

import numpy as np

_AKMA_PS = 0.04888821  # the DCD time unit, in ps


class DcdWriter:
    def __init__(self, file: BinaryIO, atoms: int, timestep_ps: float, interval: int, periodic: bool):
        self._file = file
        self._atoms = atoms
        self._interval = interval
        self._periodic = periodic
        self._frames = 0
        header = struct.pack("<i4c9if", 84, b"C", b"O", b"R", b"D", 0, 0, interval, 0, 0, 0, 0, 0, 0, timestep_ps / _AKMA_PS)
        header += struct.pack("<13i", 1 if periodic else 0, 0, 0, 0, 0, 0, 0, 0, 0, 24, 84, 164, 2)
        header += struct.pack("<80s", b"Created by PolyForge")
        header += struct.pack("<80s", b"Created " + time.asctime().encode("ascii"))
        header += struct.pack("<4i", 164, 4, atoms, 4)
        file.write(header)
        self._record_marker = struct.pack("<i", 4 * atoms)

    def write(self, positions_nm: np.ndarray, box_nm: tuple[float, float, float] | None) -> None:
        """One frame: positions (nm, shape (atoms, 3)) and the sides of a rectangular box (nm)."""
        positions = np.asarray(positions_nm)
        if positions.shape != (self._atoms, 3):
            raise ValueError(f"a frame needs {self._atoms} positions, got {positions.shape}")
        if not np.isfinite(positions).all():
            raise ValueError("Particle position is not a finite number.")
        self._frames += 1
        file = self._file
        file.seek(8, os.SEEK_SET)
        file.write(struct.pack("<i", self._frames))
        file.seek(20, os.SEEK_SET)
        file.write(struct.pack("<i", (self._frames - 1) * self._interval))
        file.seek(0, os.SEEK_END)
        if self._periodic:
            a, b, c = (10 * side for side in box_nm or (0.0, 0.0, 0.0))
            file.write(struct.pack("<i6di", 48, a, 0.0, b, 0.0, 0.0, c, 48))  # cosines of 90° angles
        coordinates = np.ascontiguousarray((10 * positions).T, dtype="<f4")
        for axis in coordinates:
            file.write(self._record_marker)
            file.write(axis.tobytes())
            file.write(self._record_marker)
        file.flush()
