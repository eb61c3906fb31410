"""The whole system's Amber prmtop from one copy of each kind.

ParmEd's `AmberParm.from_structure` on the whole system walks every atom, bond, angle and dihedral
of every copy as Python objects (and re-derives 1-4 pairs and exclusions for all of them): for a
large system that is most of the parametrisation (bench/README.md, "Parametrisation of large
systems"). A system is copies of a few kinds, so ParmEd
builds the prmtop of a template (the first copy of each kind, in the order kinds first appear, which
is the order the whole system's parameter and type tables take), and its sections are replicated
copy by copy here: per-atom sections are repeated, residue pointers, term lists (atom indices are
stored as 3 × index; a dihedral's negative third or fourth index keeps its sign) and exclusion lists
are shifted by each copy's offset, the counts in POINTERS recomputed. Sections this does not know
make it decline (None), and the caller uses ParmEd on the whole system. Numbers are written line by
line with the formats ParmEd uses, so the file is the one ParmEd writes for the same system."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import parmed
from parmed.residue import SOLVENT_NAMES

_PER_ATOM = {
    "ATOM_NAME", "CHARGE", "ATOMIC_NUMBER", "MASS", "ATOM_TYPE_INDEX", "NUMBER_EXCLUDED_ATOMS",
    "AMBER_ATOM_TYPE", "TREE_CHAIN_CLASSIFICATION", "JOIN_ARRAY", "IROTAT", "RADII", "SCREEN",
}  # fmt: skip
_UNCHANGED = {
    "TITLE", "NONBONDED_PARM_INDEX", "BOND_FORCE_CONSTANT", "BOND_EQUIL_VALUE", "ANGLE_FORCE_CONSTANT",
    "ANGLE_EQUIL_VALUE", "DIHEDRAL_FORCE_CONSTANT", "DIHEDRAL_PERIODICITY", "DIHEDRAL_PHASE",
    "SCEE_SCALE_FACTOR", "SCNB_SCALE_FACTOR", "SOLTY", "LENNARD_JONES_ACOEF", "LENNARD_JONES_BCOEF",
    "HBOND_ACOEF", "HBOND_BCOEF", "HBCUT", "RADIUS_SET", "IPOL",
}  # fmt: skip
# Term lists: entries per term, how many of them are atoms (3 × index).
_TERMS = {
    "BONDS_INC_HYDROGEN": (3, 2), "BONDS_WITHOUT_HYDROGEN": (3, 2),
    "ANGLES_INC_HYDROGEN": (4, 3), "ANGLES_WITHOUT_HYDROGEN": (4, 3),
    "DIHEDRALS_INC_HYDROGEN": (5, 4), "DIHEDRALS_WITHOUT_HYDROGEN": (5, 4),
}  # fmt: skip
_HANDLED = _PER_ATOM | _UNCHANGED | set(_TERMS) | {
    "POINTERS", "RESIDUE_LABEL", "RESIDUE_POINTER", "EXCLUDED_ATOMS_LIST", "SOLVENT_POINTERS",
    "ATOMS_PER_MOLECULE", "BOX_DIMENSIONS",
}  # fmt: skip
# POINTERS positions (Amber's prmtop format).
NATOM, NBONH, MBONA, NTHETH, MTHETA, NPHIH, MPHIA, NNB, NRES, NBONA, NTHETA, NPHIA, IFBOX, NMXRS = (
    0, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 27, 28,
)  # fmt: skip


def write_replicated_prmtop(
    template: parmed.Structure,
    kind_atoms: Sequence[int],
    copy_kinds: Sequence[int],
    box: Sequence[float] | None,
    title: str,
    path: Path,
) -> bool:
    """Write the prmtop of the system whose copies (in file order) are of the kinds `copy_kinds`;
    `template` holds one copy of each kind, kind k's atoms at offsets in the order of `kind_atoms`.
    Returns False (nothing written) where the template has sections this does not replicate."""
    parm = parmed.amber.AmberParm.from_structure(template)
    data = parm.parm_data
    if set(parm.flag_list) - _HANDLED:
        return False
    starts = np.concatenate([[0], np.cumsum(kind_atoms)])
    atom_kind = np.repeat(np.arange(len(kind_atoms)), kind_atoms)
    copy_starts = np.concatenate([[0], np.cumsum([kind_atoms[kind] for kind in copy_kinds])])
    out: dict[str, list] = {}

    for flag in _PER_ATOM & set(parm.flag_list):
        values = data[flag]
        out[flag] = [value for kind in copy_kinds for value in values[starts[kind] : starts[kind + 1]]]

    residue_first = np.asarray(data["RESIDUE_POINTER"]) - 1
    residue_kind = atom_kind[residue_first]
    out["RESIDUE_LABEL"], out["RESIDUE_POINTER"] = _replicated_residues(data, residue_first, residue_kind, starts, copy_kinds, copy_starts)
    for flag, (width, atoms) in _TERMS.items():
        out[flag] = _replicated_terms(np.asarray(data[flag], dtype=np.int64).reshape(-1, width), atoms, atom_kind, starts, copy_kinds, copy_starts)
    out["EXCLUDED_ATOMS_LIST"] = _replicated_exclusions(data, atom_kind, starts, copy_kinds, copy_starts)
    out["ATOMS_PER_MOLECULE"] = [kind_atoms[kind] for kind in copy_kinds]
    if "SOLVENT_POINTERS" in data:
        out["SOLVENT_POINTERS"] = _solvent_pointers(out["RESIDUE_LABEL"], residue_kind, copy_kinds)
    if box is not None:
        out["BOX_DIMENSIONS"] = [90.0, *(float(side) for side in box)]
    out["POINTERS"] = _pointers(data["POINTERS"], out)
    out["TITLE"] = [title[:80]]
    for flag in set(parm.flag_list) - set(out):
        out[flag] = data[flag]
    out["CHARGE"] = [charge * parmed.constants.AMBER_ELECTROSTATIC for charge in out["CHARGE"]]
    _write(parm, out, path)
    return True


def _replicated_residues(
    data: dict[str, list],
    residue_first: np.ndarray,
    residue_kind: np.ndarray,
    starts: np.ndarray,
    copy_kinds: Sequence[int],
    copy_starts: np.ndarray,
) -> tuple[list, list]:
    """RESIDUE_LABEL and RESIDUE_POINTER of every copy: its kind's residues, pointers shifted to the copy."""
    labels: list = []
    pointers: list = []
    for kind, copy_start in zip(copy_kinds, copy_starts[:-1], strict=True):
        mine = np.flatnonzero(residue_kind == kind)
        labels += [data["RESIDUE_LABEL"][index] for index in mine]
        pointers += (residue_first[mine] - starts[kind] + copy_start + 1).tolist()
    return labels, pointers


def _replicated_terms(terms: np.ndarray, atoms: int, atom_kind: np.ndarray, starts: np.ndarray, copy_kinds: Sequence[int], copy_starts: np.ndarray) -> list:
    """One term section (rows of atom indices ×3, sign-flagged, then a type) for every copy.

    Parameters:
        terms: the template's rows; atoms: how many leading columns are atom indices.
    """
    term_kind = atom_kind[np.abs(terms[:, 0]) // 3]
    blocks = []
    for kind, copy_start in zip(copy_kinds, copy_starts[:-1], strict=True):
        block = terms[term_kind == kind].copy()
        shift = 3 * (copy_start - starts[kind])
        indices = block[:, :atoms]
        block[:, :atoms] = np.where(indices < 0, indices - shift, indices + shift)
        blocks.append(block)
    return np.concatenate(blocks).reshape(-1).tolist() if blocks else []


def _replicated_exclusions(data: dict[str, list], atom_kind: np.ndarray, starts: np.ndarray, copy_kinds: Sequence[int], copy_starts: np.ndarray) -> list:
    """EXCLUDED_ATOMS_LIST for every copy (1-based atom numbers shifted; 0, "none", kept)."""
    counts = np.asarray(data["NUMBER_EXCLUDED_ATOMS"])
    excluded = np.asarray(data["EXCLUDED_ATOMS_LIST"], dtype=np.int64)
    owner_kind = atom_kind[np.repeat(np.arange(len(counts)), counts)]
    out: list = []
    for kind, copy_start in zip(copy_kinds, copy_starts[:-1], strict=True):
        block = excluded[owner_kind == kind]
        shift = copy_start - starts[kind]
        out += np.where(block > 0, block + shift, 0).tolist()
    return out


def _solvent_pointers(labels: list, residue_kind: np.ndarray, copy_kinds: Sequence[int]) -> list:
    """SOLVENT_POINTERS as ParmEd's rediscover_molecules: the first solvent residue (0-based) and the
    number of its molecule (1-based), else the residue count and one past the last molecule."""
    molecules = len(copy_kinds)
    residue_copy = np.repeat(np.arange(molecules), [int((residue_kind == kind).sum()) for kind in copy_kinds])
    solvent = [index for index, label in enumerate(labels) if label.strip() in SOLVENT_NAMES]
    if solvent:
        return [solvent[0], molecules, int(residue_copy[solvent[0]]) + 1]
    return [len(labels), molecules, molecules + 1]


def _pointers(template: list, out: dict[str, list]) -> list:
    """The template's POINTERS with the counts of the replicated sections in `out`."""
    pointers = list(template)
    pointers[NATOM] = len(out["ATOM_NAME"])
    pointers[NBONH] = len(out["BONDS_INC_HYDROGEN"]) // 3
    pointers[MBONA] = pointers[NBONA] = len(out["BONDS_WITHOUT_HYDROGEN"]) // 3
    pointers[NTHETH] = len(out["ANGLES_INC_HYDROGEN"]) // 4
    pointers[MTHETA] = pointers[NTHETA] = len(out["ANGLES_WITHOUT_HYDROGEN"]) // 4
    pointers[NPHIH] = len(out["DIHEDRALS_INC_HYDROGEN"]) // 5
    pointers[MPHIA] = pointers[NPHIA] = len(out["DIHEDRALS_WITHOUT_HYDROGEN"]) // 5
    pointers[NNB] = len(out["EXCLUDED_ATOMS_LIST"])
    pointers[NRES] = len(out["RESIDUE_LABEL"])
    pointers[NMXRS] = int(np.diff([*out["RESIDUE_POINTER"], pointers[NATOM] + 1]).max())
    return pointers


def _write(parm: parmed.amber.AmberFormat, sections: dict[str, list], path: Path) -> None:
    """The file AmberFormat.write_parm writes, a line at a time instead of an item at a time."""
    now = datetime.datetime.now()
    lines = [f"%VERSION  VERSION_STAMP = V0001.000  DATE = {now:%m/%d/%y  %H:%M:%S}"]
    for flag in parm.flag_list:
        lines.append(f"%FLAG {flag}")
        lines += [f"%COMMENT {comment}" for comment in parm.parm_comments[flag]]
        form = parm.formats[flag]
        lines.append(f"%FORMAT({form})")
        items = sections[flag]
        if len(items) == 0:
            lines.append("")
            continue
        per_line = form.nitems
        if form.type is str:
            cells = [(form.fmt % item).ljust(form.itemlen) for item in items]
            lines += ["".join(cells[start : start + per_line]) for start in range(0, len(cells), per_line)]
        else:
            full = form.fmt * per_line
            whole = len(items) - len(items) % per_line
            lines += [full % tuple(items[start : start + per_line]) for start in range(0, whole, per_line)]
            if whole < len(items):
                lines.append((form.fmt * (len(items) - whole)) % tuple(items[whole:]))
    path.write_text("\n".join(lines) + "\n")
