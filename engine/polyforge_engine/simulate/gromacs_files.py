"""The GROMACS files the dynamics path reads and writes, with NumPy only: a .g96 start structure (full
precision, where .gro keeps 0.01 Å), single-precision .trr frames (XDR, big-endian), `gmx energy`'s
.xvg table, and positions made continuous between frames (mdrun wraps atoms into the box)."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_TRR_MAGIC = 1993
_TRR_SIZES = ("ir", "e", "box", "vir", "pres", "top", "sym", "x", "v", "f")


def write_g96(
    template_gro: Path, positions_nm: np.ndarray, box_nm: tuple[float, float, float], path: Path, title: str = "PolyForge: minimised structure"
) -> None:
    """A .g96 with the residue and atom names of `template_gro` (same atoms, same order)."""
    lines = template_gro.read_text().splitlines()
    atoms = int(lines[1])
    if atoms != len(positions_nm):
        raise ValueError(f"{template_gro.name} has {atoms} atoms, the positions {len(positions_nm)}")
    out = ["TITLE", title, "END", "POSITION"]
    for number, (line, (x, y, z)) in enumerate(zip(lines[2 : 2 + atoms], positions_nm, strict=True), start=1):
        residue, residue_name, atom_name = int(line[0:5]), line[5:10].strip(), line[10:15].strip()
        out.append(f"{residue % 100000:5d} {residue_name:<5s} {atom_name:<5s}{number:7d}{x:15.9f}{y:15.9f}{z:15.9f}")
    out += ["END", "BOX", f"{box_nm[0]:15.9f}{box_nm[1]:15.9f}{box_nm[2]:15.9f}", "END"]
    path.write_text("\n".join(out) + "\n")


def read_g96_positions(path: Path) -> np.ndarray:
    """The POSITION block of a .g96 (nm)."""
    return _g96_block(path, "POSITION")


def read_g96_velocities(path: Path) -> np.ndarray:
    """The VELOCITY block of a .g96 (nm/ps), as mdrun writes its last state."""
    return _g96_block(path, "VELOCITY")


def _g96_block(path: Path, name: str) -> np.ndarray:
    text = path.read_text()
    block = text.split(f"\n{name}\n", 1)[1].split("\nEND", 1)[0]
    return np.array([[float(line[24:39]), float(line[39:54]), float(line[54:69])] for line in block.splitlines()])


@dataclass(frozen=True)
class TrrFrame:
    step: int
    positions_nm: np.ndarray  # (atoms, 3)
    box_nm: tuple[float, float, float]  # the diagonal of the box


def read_trr(path: Path) -> Iterator[TrrFrame]:
    """The frames of a .trr that hold positions (single or double precision)."""
    data = path.read_bytes()
    offset = 0
    while offset < len(data):
        magic, slen, _ = struct.unpack_from(">3i", data, offset)
        if magic != _TRR_MAGIC:
            raise ValueError(f"{path.name} is not a GROMACS trr file (magic {magic})")
        offset += 12 + (slen - 1 + 3) // 4 * 4
        values = struct.unpack_from(">13i", data, offset)
        sizes = dict(zip(_TRR_SIZES, values[:10], strict=True))
        atoms, step = values[10], values[11]
        offset += 13 * 4
        real = sizes["box"] // 9 if sizes["box"] else sizes["x"] // (3 * atoms)
        dtype = ">f4" if real == 4 else ">f8"
        offset += 2 * real  # time and lambda
        box = np.frombuffer(data, dtype, 9, offset).reshape(3, 3) if sizes["box"] else np.zeros((3, 3))
        offset += sizes["box"] + sizes["vir"] + sizes["pres"]
        positions = np.frombuffer(data, dtype, 3 * atoms, offset).reshape(atoms, 3) if sizes["x"] else None
        offset += sizes["x"] + sizes["v"] + sizes["f"]
        if positions is not None:
            yield TrrFrame(step, positions.astype(np.float64), (float(box[0, 0]), float(box[1, 1]), float(box[2, 2])))


def read_xvg(path: Path) -> dict[str, np.ndarray]:
    """`gmx energy`'s table: {"time": ..., legend: column} in the file's order."""
    legends: list[str] = []
    rows: list[list[float]] = []
    for line in path.read_text().splitlines():
        if line.startswith("@"):
            match = re.match(r'@ s\d+ legend "(.*)"', line)
            if match:
                legends.append(match.group(1))
        elif line and not line.startswith("#"):
            rows.append([float(value) for value in line.split()])
    table = np.array(rows, dtype=float).reshape(len(rows), len(legends) + 1)
    return {"time": table[:, 0]} | {legend: table[:, index + 1] for index, legend in enumerate(legends)}


def continuous(previous_nm: np.ndarray, wrapped_nm: np.ndarray, box_nm: tuple[float, float, float]) -> np.ndarray:
    """`wrapped_nm` moved by whole box vectors to lie next to `previous_nm` (an atom moves far less than
    half a box between frames): molecules as integrated, as OpenMM's positions are."""
    box = np.asarray(box_nm)
    return wrapped_nm + box * np.round((previous_nm - wrapped_nm) / box)
