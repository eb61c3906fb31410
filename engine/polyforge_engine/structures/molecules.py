"""Molecules of a structure file: bonds, connected components, kinds by graph identity, formulas,
charges and the system type of ARCHITECTURE §5.

Bonds: an atom that CONECT records mention keeps exactly the bonds they list (the PDB writes them
for hetero groups, and writers such as this engine's for every atom); the others get bonds from
distances (covalent radii + 0.4 Å). When the file has a cell that fits its atoms, distances are
taken to the nearest periodic image, so molecules wrapped into the cell (`gmx trjconv -pbc atom`)
stay whole. Metal and alkali atoms get no distance bonds (ions sit 2-3 Å from water oxygens).

Kinds: molecules with the same graph (elements and bonds) are one kind. The graph is hashed by
Weisfeiler-Lehman refinement over all atoms at once in NumPy (isomorphic molecules always hash
alike; the 64-bit hash of different ones colliding is not a practical concern), so a million
water molecules cost array operations, not a Python loop per molecule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.spatial import cKDTree

from polyforge_engine.residues import WATERS
from polyforge_engine.structures.readers import MAX_BONDS_PER_ATOM, StructureAtoms, StructureError, bond_counts, overbonded_atom

COVALENT_RADII = {
    "H": 0.31, "B": 0.84, "C": 0.76, "N": 0.71, "O": 0.66, "F": 0.57, "Si": 1.11, "P": 1.07, "S": 1.05,
    "Cl": 1.02, "Se": 1.20, "Br": 1.20, "I": 1.39, "As": 1.19, "Ge": 1.20, "Te": 1.38, "Sn": 1.39,
}  # fmt: skip
BOND_TOLERANCE = 0.4  # Å beyond the sum of covalent radii
# Atoms closer than this are one atom written twice, not a bond (Open Babel's bond perception skips
# pairs closer than 0.4 Å too); the shortest bond, H-H, is 0.74 Å.
OVERLAP_DISTANCE = 0.4
# Atoms within an atom's bonding reach (its radius, the largest and the tolerance: 3.2 Å at most):
# at most ~35 in dense organic matter, at most ~4,000 without overlaps; more is no molecule.
MAX_NEIGHBOURS = 128
_FIRST_NEIGHBOURS = 16  # asked of every atom; the few with more are asked again for MAX_NEIGHBOURS
_CHUNK_ATOMS = 1 << 14  # atoms asked at once: their neighbour arrays take at most ~100 MB
# Monatomic ions with their usual charge, for molecules of one atom.
ION_CHARGES = {
    "Li": 1, "Na": 1, "K": 1, "Rb": 1, "Cs": 1, "F": -1, "Cl": -1, "Br": -1, "I": -1,
    "Mg": 2, "Ca": 2, "Zn": 2, "Mn": 2, "Fe": 2, "Cu": 2, "Co": 2, "Ni": 2, "Cd": 2, "Ba": 2, "Sr": 2,
}  # fmt: skip
_MIX_A = np.uint64(0x9E3779B97F4A7C15)
_MIX_B = np.uint64(0xBF58476D1CE4E5B9)
_WL_ROUNDS = 6


def distance_bonds(atoms: StructureAtoms, elements: np.ndarray, radii_by_code: np.ndarray, cell: np.ndarray | None) -> np.ndarray:
    """(bonds, 2) index pairs closer than their covalent radii plus the tolerance, through the
    periodic cell when `cell` is given. Atoms with radius 0 (metals, unknown) take no part.

    Bounded by the atoms, whatever the file (every pair within reach grows with the square of the
    atoms packed there): atoms closer than OVERLAP_DISTANCE are refused, each atom's neighbours are
    found among its nearest MAX_NEIGHBOURS only (an atom with more within its reach is refused), and
    an atom with more than MAX_BONDS_PER_ATOM bonds is refused; neighbours are asked a chunk at a time."""
    radii = radii_by_code[elements]
    candidates = np.flatnonzero(radii > 0)
    if len(candidates) < 2:
        return np.zeros((0, 2), dtype=np.int64)
    largest = float(radii[candidates].max())
    reach = 2 * largest + BOND_TOLERANCE
    points = atoms.xyz()[candidates].astype(np.float64)
    count = len(points)
    origin = np.arange(count)
    if cell is not None:
        points, origin = _with_periodic_images(points, cell, reach)
    _refuse_coincident(atoms, candidates, points[:count])
    # an unbalanced tree without compacted nodes builds three times faster and queries as fast
    tree = cKDTree(points, balanced_tree=False, compact_nodes=False)
    radius = radii[candidates]
    found = []
    for value in np.unique(radius).tolist():  # each atom's reach: its radius and the largest
        members = np.flatnonzero(radius == value)
        for start in range(0, len(members), _CHUNK_ATOMS):
            rows = members[start : start + _CHUNK_ATOMS]
            neighbours, distances = _neighbours(atoms, candidates, tree, points, rows, value + largest + BOND_TOLERANCE)
            other = origin[np.minimum(neighbours, len(points) - 1)]
            source = np.broadcast_to(rows[:, None], neighbours.shape)
            real = neighbours < len(points)  # tree.query pads with n where fewer were within reach
            _refuse_overlap(atoms, candidates, source, other, distances, real)
            bonded = real & (source < other) & (distances < radius[source] + radius[other] + BOND_TOLERANCE)
            found.append(np.column_stack([source[bonded], other[bonded]]))
    bonds = candidates[np.vstack(found)]
    crowded = overbonded_atom(bonds, atoms.count)
    if crowded is not None:
        raise StructureError(
            f"the atom {atoms.names.values[atoms.name_of_atom[crowded]]} is within bonding distance of "
            f"{int(bond_counts(bonds, np.array([crowded]))[0])} atoms; an atom has at most {MAX_BONDS_PER_ATOM} bonds. "
            "The atoms overlap, or the coordinates are not in Å.",
            atoms.line_of(crowded),
        )
    return bonds


def _neighbours(
    atoms: StructureAtoms, candidates: np.ndarray, tree: cKDTree, points: np.ndarray, rows: np.ndarray, reach: float
) -> tuple[np.ndarray, np.ndarray]:
    """The tree indices and distances of the atoms within `reach` of each of `rows` (padded with
    len(points) and inf): its nearest few first, its nearest MAX_NEIGHBOURS where those filled up."""
    distances, neighbours = tree.query(points[rows], k=_FIRST_NEIGHBOURS, distance_upper_bound=reach)
    full = np.flatnonzero(np.isfinite(distances[:, -1]))
    if len(full) == 0:
        return neighbours, distances
    neighbours = np.concatenate([neighbours, np.full((len(rows), MAX_NEIGHBOURS + 1 - _FIRST_NEIGHBOURS), len(points))], axis=1)
    distances = np.concatenate([distances, np.full((len(rows), MAX_NEIGHBOURS + 1 - _FIRST_NEIGHBOURS), np.inf)], axis=1)
    more, nearest = tree.query(points[rows[full]], k=MAX_NEIGHBOURS + 1, distance_upper_bound=reach)
    crowded = np.flatnonzero(np.isfinite(more[:, -1]))
    if len(crowded):
        atom = int(candidates[rows[full[crowded[0]]]])
        raise StructureError(
            f"the atom {atoms.names.values[atoms.name_of_atom[atom]]} has more than {MAX_NEIGHBOURS} atoms within "
            f"{reach:.2f} Å; no molecule packs atoms this closely. The atoms overlap, or the coordinates are not in Å.",
            atoms.line_of(atom),
        )
    distances[full], neighbours[full] = more, nearest
    return neighbours, distances


def _refuse_overlap(atoms: StructureAtoms, candidates: np.ndarray, source: np.ndarray, other: np.ndarray, distances: np.ndarray, real: np.ndarray) -> None:
    """Refuses two atoms closer than OVERLAP_DISTANCE (an atom and a periodic image of another too)."""
    close = real & (other != source) & (distances < OVERLAP_DISTANCE)
    if close.any():
        row, column = np.unravel_index(np.flatnonzero(close)[0], close.shape)
        first, second = sorted((int(candidates[source[row, column]]), int(candidates[other[row, column]])))
        raise _overlap_error(atoms, first, second, float(distances[row, column]))


def _refuse_coincident(atoms: StructureAtoms, candidates: np.ndarray, points: np.ndarray) -> None:
    """Refuses two atoms in one cube of a grid whose diagonal is OVERLAP_DISTANCE (atoms at one point
    among them), by sorting: the k-d tree cannot split a heap of atoms at one point, and asking it
    for neighbours there costs the square of their number."""
    cells = np.floor(points / (OVERLAP_DISTANCE / np.sqrt(3))).astype(np.int64)
    cells -= cells.min(axis=0)
    spans = cells.max(axis=0) + 1
    if float(spans[0]) * float(spans[1]) * float(spans[2]) < 2**62:
        order = np.argsort((cells[:, 0] * spans[1] + cells[:, 1]) * spans[2] + cells[:, 2], kind="stable")
    else:
        order = np.lexsort((cells[:, 2], cells[:, 1], cells[:, 0]))
    ordered = cells[order]
    same = np.flatnonzero((ordered[1:] == ordered[:-1]).all(axis=1))
    if len(same):
        later = order[same + 1]
        pick = int(np.argmin(later))  # the first atom of the file that sits on an earlier one
        first, second = int(candidates[order[same[pick]]]), int(candidates[later[pick]])
        raise _overlap_error(atoms, first, second, float(np.linalg.norm(points[order[same[pick]]] - points[later[pick]])))


def _overlap_error(atoms: StructureAtoms, first: int, second: int, distance: float) -> StructureError:
    names = atoms.names.values
    return StructureError(
        f"the atom {names[atoms.name_of_atom[second]]} is {distance:.3f} Å from the atom {names[atoms.name_of_atom[first]]} "
        f"on line {atoms.line_of(first)}; atoms closer than {OVERLAP_DISTANCE} Å overlap. Remove the duplicate (a PDB's "
        "alternate locations of an atom: keep one), or check that the coordinates are in Å.",
        atoms.line_of(second),
    )


def usable_cell(cell: np.ndarray | None, xyz: np.ndarray, reach: float = 3.0) -> np.ndarray | None:
    """The cell when it can stand for periodicity: not degenerate, every height at least three
    bond reaches (one nearest image per pair). The atoms may spread over several cells (molecules
    made whole, or diffusing in an unwrapped frame): a bond is shorter than half a cell whichever
    image is stored. Placeholder cells (CRYST1 of 1 Å) are dropped by the reader."""
    if cell is None or len(xyz) == 0:
        return None
    volume = abs(float(np.linalg.det(cell)))
    if volume < 1e-6:
        return None
    heights = volume / np.linalg.norm(np.cross(cell[[1, 2, 0]], cell[[2, 0, 1]]), axis=1)
    if heights.min() < 3 * reach:
        return None
    return cell


def whole_molecules(xyz: np.ndarray, bonds: np.ndarray, cell: np.ndarray | None) -> np.ndarray:
    """Coordinates with every molecule whole: walking each molecule's bonds breadth first, an atom
    is put at its image nearest the atom it was reached from (files wrapped atom by atom, as
    `gmx trjconv -pbc atom` writes them, cut molecules at the cell faces)."""
    if cell is None or len(bonds) == 0:
        return xyz
    count = len(xyz)
    _, labels = connected_components(coo_matrix((np.ones(len(bonds)), (bonds[:, 0], bonds[:, 1])), shape=(count, count)), directed=False)
    _, roots = np.unique(labels, return_index=True)
    # one walk over all molecules: a virtual atom bonded to the first atom of each
    rows = np.concatenate([bonds[:, 0], bonds[:, 1], np.full(len(roots), count)])
    columns_ = np.concatenate([bonds[:, 1], bonds[:, 0], roots])
    graph = coo_matrix((np.ones(len(rows)), (rows, columns_)), shape=(count + 1, count + 1)).tocsr()
    order, predecessors = breadth_first_order(graph, count, directed=False, return_predecessors=True)
    depth = np.zeros(count + 1, dtype=np.int64)
    for node in order[1:].tolist():
        depth[node] = depth[predecessors[node]] + 1
    inverse = np.linalg.inv(cell)
    whole = xyz.astype(np.float64).copy()
    for level in range(2, int(depth.max()) + 1):
        nodes = np.flatnonzero(depth[:count] == level)
        origin = whole[predecessors[nodes]]
        delta = whole[nodes] - origin
        fractions = delta @ inverse
        whole[nodes] = origin + (fractions - np.round(fractions)) @ cell
    return whole


def _with_periodic_images(points: np.ndarray, cell: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Atoms wrapped into the cell, followed by copies of those within `reach` of a face, shifted
    to the other side (26 neighbour cells): a k-d tree over them finds minimum-image pairs in any
    cell, triclinic included. Returns the points and, for each, the atom it copies."""
    inverse = np.linalg.inv(cell)
    fractions = _times(points, inverse)
    fractions -= np.floor(fractions)
    wrapped = _times(fractions, cell)
    volume = abs(float(np.linalg.det(cell)))
    margins = reach / (volume / np.linalg.norm(np.cross(cell[[1, 2, 0]], cell[[2, 0, 1]]), axis=1))
    low = fractions < margins
    high = fractions > 1 - margins
    images, sources = [wrapped], [np.arange(len(points))]
    for sx in (-1, 0, 1):
        for sy in (-1, 0, 1):
            for sz in (-1, 0, 1):
                shift = (sx, sy, sz)
                if shift == (0, 0, 0):
                    continue
                near = np.ones(len(points), dtype=bool)
                for axis, step in enumerate(shift):
                    if step == 1:
                        near &= low[:, axis]
                    elif step == -1:
                        near &= high[:, axis]
                chosen = np.flatnonzero(near)
                if len(chosen):
                    images.append(wrapped[chosen] + (np.asarray(shift, dtype=np.float64)[:, None] * cell).sum(axis=0))
                    sources.append(chosen)
    return np.vstack(images), np.concatenate(sources)


def _times(points: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """points @ matrix for (n, 3) x (3, 3) without BLAS, whose threads crawl on a busy machine."""
    return points[:, 0:1] * matrix[0] + points[:, 1:2] * matrix[1] + points[:, 2:3] * matrix[2]


def perceive_bonds(atoms: StructureAtoms) -> np.ndarray:
    """CONECT bonds for the atoms CONECT records mention, distance bonds for the others."""
    element_codes = np.frombuffer(atoms.element_of_atom, dtype=np.int32)
    radii_by_code = np.array([COVALENT_RADII.get(symbol, 0.0) for symbol in atoms.elements.values], dtype=np.float64)
    xyz = atoms.xyz()
    listed = atoms.bonds if atoms.bonds is not None else np.zeros((0, 2), dtype=np.int64)
    cell = usable_cell(atoms.cell, xyz)
    if atoms.bonded_atoms is not None and len(atoms.bonded_atoms) == atoms.count:
        return listed
    found = distance_bonds(atoms, element_codes, radii_by_code, cell)
    if atoms.bonded_atoms is not None and len(found):
        covered = np.zeros(atoms.count, dtype=bool)
        covered[atoms.bonded_atoms] = True
        found = found[~(covered[found[:, 0]] & covered[found[:, 1]])]
    bonds = np.vstack([listed, found]) if len(listed) else found
    return np.vstack([bonds, _virtual_site_bonds(atoms, element_codes)])


def _virtual_site_bonds(atoms: StructureAtoms, element_codes: np.ndarray) -> np.ndarray:
    """Virtual sites and unknown names (element X, e.g. TIP4P's MW) belong to the molecule of the
    atom before them in the same residue (after them for a residue's first atom)."""
    if "X" not in atoms.elements.values:
        return np.zeros((0, 2), dtype=np.int64)
    sites = np.flatnonzero(element_codes == atoms.elements.values.index("X"))
    residue_of = np.frombuffer(atoms.residue_of_atom, dtype=np.int32)
    pairs = []
    for site in sites.tolist():
        for other in (site - 1, site + 1):
            if 0 <= other < atoms.count and residue_of[other] == residue_of[site] and element_codes[other] != element_codes[site]:
                pairs.append((other, site))
                break
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def molecule_labels(count: int, bonds: np.ndarray) -> np.ndarray:
    graph = coo_matrix((np.ones(len(bonds), dtype=np.int8), (bonds[:, 0], bonds[:, 1])), shape=(count, count)).tocsr()
    _, labels = connected_components(graph, directed=False)
    return labels


def _mix(values: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        values = (values ^ (values >> np.uint64(31))) * _MIX_A
        values = (values ^ (values >> np.uint64(29))) * _MIX_B
        return values ^ (values >> np.uint64(32))


def graph_hashes(element_codes: np.ndarray, bonds: np.ndarray, labels: np.ndarray, element_symbols: list[str]) -> np.ndarray:
    """One 64-bit hash per molecule (label), equal for molecules with the same graph."""
    count = len(element_codes)
    symbol_hash = np.array([hash_symbol(symbol) for symbol in element_symbols], dtype=np.uint64)
    colour = _mix(symbol_hash[element_codes])
    both = np.concatenate([bonds, bonds[:, ::-1]]) if len(bonds) else np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(both[:, 0], kind="stable")
    source, target = both[order, 0], both[order, 1]
    starts = np.flatnonzero(np.r_[True, source[1:] != source[:-1]]) if len(source) else np.zeros(0, dtype=np.int64)
    owners = source[starts]
    with np.errstate(over="ignore"):
        for _ in range(_WL_ROUNDS):
            neighbours = np.zeros(count, dtype=np.uint64)
            if len(source):
                neighbours[owners] = np.add.reduceat(_mix(colour[target] + np.uint64(1)), starts)
            colour = _mix(colour * np.uint64(3) + _mix(neighbours))
        by_molecule = np.argsort(labels, kind="stable")
        firsts = np.flatnonzero(np.r_[True, np.diff(labels[by_molecule]) != 0])
        sums = np.add.reduceat(_mix(colour[by_molecule]), firsts)
        sizes = np.diff(np.r_[firsts, count]).astype(np.uint64)
        return _mix(sums + sizes * _MIX_B)


def hash_symbol(symbol: str) -> int:
    value = 1469598103934665603
    for character in symbol.encode():
        value = ((value ^ character) * 1099511628211) % 2**64
    return value


def hill_formula(counts: Counter) -> str:
    """Hill order: C, then H, then the rest alphabetically; without carbon all alphabetically."""
    counts = Counter({symbol: n for symbol, n in counts.items() if n and symbol != "X"})
    first = [symbol for symbol in ("C", "H") if symbol in counts] if "C" in counts else []
    order = first + sorted(symbol for symbol in counts if symbol not in first)
    return "".join(f"{symbol}{counts[symbol] if counts[symbol] > 1 else ''}" for symbol in order)


@dataclass
class Kind:
    name: str
    count: int
    atoms: int
    formula: str
    charge: int | None

    def summary(self) -> dict:
        return {"name": self.name, "count": self.count, "atoms": self.atoms, "formula": self.formula, "charge": self.charge}


def molecule_kinds(atoms: StructureAtoms, bonds: np.ndarray, labels: np.ndarray) -> list[Kind]:
    """Kinds of molecules in order of first appearance, with count, size, formula, name and charge."""
    element_codes = np.frombuffer(atoms.element_of_atom, dtype=np.int32)
    hashes = graph_hashes(element_codes, bonds, labels, atoms.elements.values)
    _, first_atom = np.unique(labels, return_index=True)  # per molecule (label), its first atom
    _, first_molecule, counts = np.unique(hashes, return_index=True, return_counts=True)
    by_molecule = np.argsort(labels, kind="stable")
    sorted_labels = labels[by_molecule]
    kinds = []
    for position in np.argsort(first_atom[first_molecule]):
        label = first_molecule[position]
        start, end = np.searchsorted(sorted_labels, [label, label + 1])
        kinds.append(_describe(atoms, by_molecule[start:end], int(counts[position])))
    return kinds


_WATER = Counter({"O": 1, "H": 2})


def _describe(atoms: StructureAtoms, members: np.ndarray, count: int) -> Kind:
    element_codes = np.frombuffer(atoms.element_of_atom, dtype=np.int32)[members]
    tally = np.bincount(element_codes, minlength=len(atoms.elements.values))
    symbols = Counter({atoms.elements.values[code]: int(n) for code, n in enumerate(tally.tolist()) if n})
    residue_codes = np.frombuffer(atoms.name_of_residue, dtype=np.int32)[np.frombuffer(atoms.residue_of_atom, dtype=np.int32)[members]]
    residues = [atoms.residue_names.values[code] for code in dict.fromkeys(np.unique(residue_codes).tolist())]
    formula = hill_formula(symbols)
    name = residues[0] if len(residues) == 1 and residues[0] else formula
    declared = np.frombuffer(atoms.charges, dtype=np.int8)[members] if len(atoms.charges) else np.full(len(members), -128)
    given = declared != -128
    only = next(iter(symbols)) if len(members) == 1 else None
    if only in ION_CHARGES:
        charge: int | None = ION_CHARGES[only] if not given[0] else int(declared[0])
    elif Counter({k: v for k, v in symbols.items() if k != "X"}) == _WATER or (len(residues) == 1 and residues[0].upper() in WATERS):
        charge = 0
    elif given.any():
        charge = int(declared[given].astype(np.int64).sum())
    else:
        charge = None
    return Kind(name=name, count=count, atoms=len(members), formula=formula, charge=charge)


def system_type(molecules: int, kinds: int) -> str:
    """ARCHITECTURE §5: one molecule -> molecule; copies of one kind -> system; more -> mixed."""
    if molecules == 1:
        return "molecule"
    return "system" if kinds == 1 else "mixed"


def summarise(atoms: StructureAtoms) -> tuple[dict, np.ndarray]:
    """The structure summary of the contracts (structureSummary without viewer_file) and the bonds."""
    bonds = perceive_bonds(atoms)
    labels = molecule_labels(atoms.count, bonds)
    kinds = molecule_kinds(atoms, bonds, labels)
    molecules = sum(kind.count for kind in kinds)
    element_counts = np.bincount(np.frombuffer(atoms.element_of_atom, dtype=np.int32), minlength=len(atoms.elements.values))
    formula = hill_formula(Counter(dict(zip(atoms.elements.values, element_counts.tolist(), strict=True))))
    box = atoms.box_lengths()
    return {
        "atoms": atoms.count,
        "residues": len(atoms.name_of_residue),
        "molecules": molecules,
        "kinds": [kind.summary() for kind in kinds],
        "formula": formula,
        "net_charge": _net_charge(kinds),
        "box": None if box is None else [round(side, 3) for side in box],
        "type": system_type(molecules, len(kinds)),
    }, bonds


def _net_charge(kinds: list[Kind]) -> int | None:
    """The structure's net charge, if every kind's charge is known."""
    total = 0
    for kind in kinds:
        if kind.charge is None:
            return None
        total += kind.charge * kind.count
    return total
