"""Properties measured on every result (the final structure and the run's energies.csv).

Per chain kind: radius of gyration and end-to-end distance, the internal-distance plot
C(m) = <R²(m)> / (m <l²>) over backbone sub-chains of m bonds with its C∞ (C(m) = C∞ − B/m fitted
from m = n/4 to n/2), backbone torsion populations (trans |φ| ≥ 120°, gauche+ 0–120°, gauche−),
consecutive g+g− pairs, and the meso fraction of dyads of backbone stereocentres read from the
3D structure. For the cell: the density's mean and drift over the last part of the run. Beside
them, literature values where the polymer is a known one (references.py)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rdkit import Chem

from polyforge_engine.simulate.references import Reference

# Of a plain run, the last third of the records is 'the last part'; of the melt equilibration, its
# final NPT stage.
LAST_PART = 1 / 3
MAX_PLOT_POINTS = 60
# Below this many backbone bonds C(m) has not levelled off anywhere a fit could read C∞ from.
MIN_BONDS_FOR_C_INFINITY = 40


@dataclass(frozen=True)
class ChainKind:
    label: str
    mol: Chem.Mol  # atoms in the order they have in the system
    ends: tuple[int, int] | None  # the end atoms of a linear chain's backbone; None: not linear
    reference: Reference | None


@dataclass(frozen=True)
class KindBackbone:
    """What the measurement needs of a kind, computed once for all its copies."""

    path: np.ndarray  # backbone atoms, head to tail
    torsion_keys: list[str]  # element key of each backbone torsion (e.g. "C-C-O-C")
    stereocentres: np.ndarray  # (centres, 4): previous, centre, next, side atom along the path


def bond_tree_layers(atom_count: int, bonds: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Breadth-first layers of the bond graph from each fragment's first atom: (atoms, the atom each
    was reached from), layer by layer after the roots."""
    neighbours: list[list[int]] = [[] for _ in range(atom_count)]
    for a, b in bonds.tolist():
        neighbours[a].append(b)
        neighbours[b].append(a)
    seen = np.zeros(atom_count, dtype=bool)
    layers: list[tuple[list[int], list[int]]] = []
    for root in range(atom_count):
        if seen[root]:
            continue
        seen[root] = True
        frontier, depth = [root], 0
        while frontier:
            following: list[int] = []
            for atom in frontier:
                for other in neighbours[atom]:
                    if not seen[other]:
                        seen[other] = True
                        following.append(other)
                        if depth >= len(layers):
                            layers.append(([], []))
                        layers[depth][0].append(other)
                        layers[depth][1].append(atom)
            frontier, depth = following, depth + 1
    return [(np.array(atoms), np.array(parents)) for atoms, parents in layers]


def unwrap_copies(positions: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]], box: np.ndarray | None) -> np.ndarray:
    """Copies of one molecule (copies, atoms, 3) made whole: every atom at the minimum image of the
    atom it was reached from, a whole layer of all copies at a time."""
    if box is None:
        return positions.copy()
    whole = positions.copy()
    for atoms, parents in layers:
        delta = positions[:, atoms] - whole[:, parents]
        whole[:, atoms] = whole[:, parents] + delta - box * np.round(delta / box)
    return whole


def unwrap_molecule(positions: np.ndarray, bonds: np.ndarray, box: np.ndarray | None) -> np.ndarray:
    """One molecule made whole (see unwrap_copies)."""
    return unwrap_copies(positions[None], bond_tree_layers(len(positions), bonds), box)[0]


def radius_of_gyration(positions: np.ndarray, masses: np.ndarray) -> float:
    centre = (masses[:, None] * positions).sum(axis=0) / masses.sum()
    return float(math.sqrt((masses * ((positions - centre) ** 2).sum(axis=1)).sum() / masses.sum()))


def dihedrals_deg(points: np.ndarray) -> np.ndarray:
    """Dihedral angles (IUPAC sign, trans = ±180°) of consecutive quadruples along a path."""
    b1 = points[1:-2] - points[:-3]
    b2 = points[2:-1] - points[1:-2]
    b3 = points[3:] - points[2:-1]
    n1 = np.cross(b1, b2)
    n2 = np.cross(b2, b3)
    y = np.linalg.norm(b2, axis=1) * np.einsum("ij,ij->i", b1, n2)
    x = np.einsum("ij,ij->i", n1, n2)
    return np.degrees(np.arctan2(y, x))


def torsion_states(angles: np.ndarray) -> np.ndarray:
    """'t', 'g+' or 'g-' of each angle (degrees)."""
    return np.where(np.abs(angles) >= 120, "t", np.where(angles >= 0, "g+", "g-"))


@dataclass(frozen=True)
class SubChainSums:
    """Per-chain sums over the backbones of chains of equal length, from which C(m) of any subset of
    the chains follows (see sub_chain_sums)."""

    square_distances: np.ndarray  # (chains, bonds): Σ R²(m) over each chain's sub-chains of m bonds (Å²)
    square_bonds: np.ndarray  # (chains,): Σ l² over each chain's bonds (Å²)

    @property
    def m(self) -> np.ndarray:
        return np.arange(1, self.square_distances.shape[1] + 1)


def sub_chain_sums(bond_vectors: list[np.ndarray]) -> SubChainSums:
    """The sums of chains given by their backbone bond vectors, (bonds, 3) each (Å)."""
    stacked = np.stack(bond_vectors)  # (chains, bonds, 3)
    bonds = stacked.shape[1]
    prefix = np.concatenate([np.zeros((len(stacked), 1, 3)), np.cumsum(stacked, axis=1)], axis=1)
    sums = np.stack([((prefix[:, k:] - prefix[:, :-k]) ** 2).sum(axis=(1, 2)) for k in range(1, bonds + 1)], axis=1)
    return SubChainSums(sums, (stacked**2).sum(axis=(1, 2)))


def internal_distances(sums: SubChainSums) -> tuple[np.ndarray, np.ndarray, float]:
    """m, C(m) = <R²(m)>/(m <l²>) and <l²> over all sub-chains of m bonds of the chains."""
    chains, bonds = sums.square_distances.shape
    ratios = _ratios(sums.square_distances.sum(axis=0), float(sums.square_bonds.sum()), chains)
    return sums.m, ratios, float(sums.square_bonds.sum() / (chains * bonds))


def _ratios(square_distances: np.ndarray, square_bonds: float, chains: int) -> np.ndarray:
    """C(m) from the sums over `chains` chains: Σ R²(m), (bonds,), and Σ l²."""
    bonds = len(square_distances)
    m = np.arange(1, bonds + 1)
    return (square_distances / (chains * (bonds - m + 1))) / (m * square_bonds / (chains * bonds))


def c_infinity_error(sums: SubChainSums) -> float | None:
    """Jackknife standard error of c_infinity over the chains (each left out in turn); None for fewer
    than 3 chains or chains too short for C∞. Few or short chains give a C(m) too noisy to extrapolate."""
    chains = len(sums.square_bonds)
    if chains < 3:
        return None
    distances, bonds = sums.square_distances.sum(axis=0), float(sums.square_bonds.sum())
    estimates = [
        c_infinity(sums.m, _ratios(distances - sums.square_distances[left_out], bonds - float(sums.square_bonds[left_out]), chains - 1))
        for left_out in range(chains)
    ]
    if any(estimate is None for estimate in estimates):
        return None
    values = np.array(estimates, dtype=float)
    return float(math.sqrt((chains - 1) / chains * ((values - values.mean()) ** 2).sum()))


def c_infinity(m: np.ndarray, ratios: np.ndarray) -> float | None:
    """C∞ from C(m) ≈ C∞ − B/m, least squares over m from n/4 to n/2 of n bonds (longer sub-chains
    are too few to average); None for chains shorter than MIN_BONDS_FOR_C_INFINITY."""
    if len(m) < MIN_BONDS_FOR_C_INFINITY:
        return None
    upper = (m >= len(m) // 4) & (m <= len(m) // 2)
    _slope, intercept = np.polyfit(1.0 / m[upper], ratios[upper], 1)
    return float(intercept)


def meso_fraction(signs: np.ndarray) -> tuple[float | None, int]:
    """The share of consecutive stereocentre pairs with the same handedness along the chain."""
    if len(signs) < 2:
        return None, 0
    same = signs[1:] == signs[:-1]
    return float(same.mean()), len(same)


def backbone_of(kind: ChainKind) -> KindBackbone | None:
    if kind.ends is None or kind.ends[0] == kind.ends[1]:
        return None
    path = np.array(Chem.GetShortestPath(kind.mol, int(kind.ends[0]), int(kind.ends[1])), dtype=np.int64)
    if len(path) < 2:
        return None
    symbols = [kind.mol.GetAtomWithIdx(int(atom)).GetSymbol() for atom in path]
    keys = []
    for k in range(len(path) - 3):
        forward = "-".join(symbols[k : k + 4])
        backward = "-".join(reversed(symbols[k : k + 4]))
        keys.append(min(forward, backward))
    return KindBackbone(path, keys, _stereocentres(kind.mol, path))


def _stereocentres(mol: Chem.Mol, path: np.ndarray) -> np.ndarray:
    """Backbone atoms with two side substituents of different size: (previous, centre, next, the
    larger side group's first atom). CH2 or C(CH3)2 are no centres."""
    on_path = set(path.tolist())
    rows = []
    for k in range(1, len(path) - 1):
        centre = mol.GetAtomWithIdx(int(path[k]))
        sides = [n.GetIdx() for n in centre.GetNeighbors() if n.GetIdx() not in on_path]
        if len(sides) != 2:
            continue
        sizes = [_branch_size(mol, int(path[k]), side) for side in sides]
        if sizes[0] == sizes[1]:
            continue
        rows.append((int(path[k - 1]), int(path[k]), int(path[k + 1]), sides[int(np.argmax(sizes))]))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def _branch_size(mol: Chem.Mol, centre: int, start: int) -> int:
    seen = {centre, start}
    queue = deque([start])
    while queue:
        atom = queue.popleft()
        for neighbour in mol.GetAtomWithIdx(atom).GetNeighbors():
            if neighbour.GetIdx() not in seen:
                seen.add(neighbour.GetIdx())
                queue.append(neighbour.GetIdx())
    return len(seen) - 1


def handedness(points: np.ndarray) -> np.ndarray:
    """Sign of det[previous − centre, next − centre, side − centre] of each (4, 3) row of points."""
    previous, centre, following, side = points[:, 0], points[:, 1], points[:, 2], points[:, 3]
    return np.sign(np.einsum("ij,ij->i", np.cross(previous - centre, following - centre), side - centre))


def measure_kind(kind: ChainKind, molecules: list[np.ndarray], box: np.ndarray | None) -> dict[str, object]:
    """Properties of one chain kind from the positions (Å) of each of its copies."""
    masses = np.array([atom.GetMass() for atom in kind.mol.GetAtoms()])
    bonds = np.array([(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in kind.mol.GetBonds()], dtype=np.int64)
    layers = bond_tree_layers(len(masses), bonds.reshape(-1, 2))
    wholes = list(unwrap_copies(np.stack(molecules), layers, box))
    gyration = np.array([radius_of_gyration(whole, masses) for whole in wholes])
    result: dict[str, object] = {
        "name": kind.label,
        "copies": len(wholes),
        "radius_of_gyration_a": _stats(gyration),
    }
    backbone = backbone_of(kind)
    if backbone is not None:
        ends = np.array([np.linalg.norm(whole[backbone.path[-1]] - whole[backbone.path[0]]) for whole in wholes])
        result["end_to_end_distance_a"] = _stats(ends) | {"root_mean_square": float(math.sqrt((ends**2).mean()))}
        result["backbone_bonds"] = int(len(backbone.path) - 1)
        sums = sub_chain_sums([np.diff(whole[backbone.path], axis=0) for whole in wholes])
        m, ratios, mean_square_bond = internal_distances(sums)
        picked = _plot_points(len(m))
        distances: dict[str, object] = {
            "m": m[picked].tolist(),
            "c_m": [round(float(value), 4) for value in ratios[picked]],
            "mean_square_bond_length_a2": mean_square_bond,
            "c_infinity": c_infinity(m, ratios),
            "c_infinity_error": c_infinity_error(sums),
            "c_n": float(ratios[-1]),
        }
        if len(m) < MIN_BONDS_FOR_C_INFINITY:
            distances["c_infinity_note"] = f"Chains of fewer than {MIN_BONDS_FOR_C_INFINITY} backbone bonds are too short to estimate C∞."
        result["internal_distances"] = distances
        result["torsions"] = _torsions(backbone, wholes)
        if len(backbone.stereocentres):
            signs = [handedness(whole[backbone.stereocentres]) for whole in wholes]
            pairs = [meso_fraction(sign) for sign in signs]
            dyads = sum(count for _, count in pairs)
            meso = sum((fraction or 0) * count for fraction, count in pairs)
            result["meso_fraction"] = {"value": meso / dyads if dyads else None, "dyads": dyads}
    else:
        result["note"] = "Not a linear chain: no backbone measures."
    if kind.reference is not None:
        result["reference"] = kind.reference.as_dict()
    return result


def _stats(values: np.ndarray) -> dict[str, float]:
    return {
        "mean": float(values.mean()),
        "std": float(values.std()),
        "min": float(values.min()),
        "max": float(values.max()),
    }


def _plot_points(count: int) -> np.ndarray:
    if count <= MAX_PLOT_POINTS:
        return np.arange(count)
    return np.unique(np.round(np.geomspace(1, count, MAX_PLOT_POINTS)).astype(int) - 1)


def _torsions(backbone: KindBackbone, wholes: list[np.ndarray]) -> dict[str, object]:
    if len(backbone.path) < 4:
        return {"by_atoms": {}, "all": None, "consecutive_gauche_plus_minus": None}
    states = np.stack([torsion_states(dihedrals_deg(whole[backbone.path])) for whole in wholes])  # (copies, torsions)
    keys = np.array(backbone.torsion_keys)
    by_atoms = {key: _populations(states[:, keys == key]) for key in sorted(set(backbone.torsion_keys))}
    gauche = np.isin(states, ["g+", "g-"])
    opposite = gauche[:, 1:] & gauche[:, :-1] & (states[:, 1:] != states[:, :-1])
    return {
        "by_atoms": by_atoms,
        "all": _populations(states),
        "consecutive_gauche_plus_minus": float(opposite.mean()) if opposite.size else None,
    }


def _populations(states: np.ndarray) -> dict[str, float | int]:
    count = int(states.size)
    return {
        "count": count,
        "trans": float((states == "t").sum() / count),
        "gauche_plus": float((states == "g+").sum() / count),
        "gauche_minus": float((states == "g-").sum() / count),
    }


# Relative spread of the density below which the cell is taken as fixed (energies.csv's rounding).
FIXED_CELL_SPREAD = 1e-6


def density_summary(energies_csv: Path | None, static_density: float | None) -> dict[str, object] | None:
    """Mean and drift (g/cm³ per ns, and as the change over the part) of the density over the last
    part of the run; without dynamics, the cell's density; in a fixed cell, its density alone."""
    if energies_csv is None or not energies_csv.is_file():
        return None if static_density is None else {"mean": static_density, "from": "cell"}
    table = np.loadtxt(energies_csv, delimiter=",", skiprows=1, ndmin=2)
    if table.shape[1] < 10 or not np.isfinite(table[:, 5]).all():
        return None
    time_ps, density, stage = table[:, 0], table[:, 5], table[:, 9]
    if stage.max() > 1:
        part = stage == stage.max()
        which = f"stage {int(stage.max())} (the last)"
    else:
        part = time_ps >= time_ps[-1] * (1 - LAST_PART)
        which = "the last third of the run"
    times, values = time_ps[part], density[part]
    if np.ptp(values) <= FIXED_CELL_SPREAD * abs(float(values.mean())):
        # A fixed cell (NVE, NVT): no spread and no drift to report, only the cell's density.
        return {"mean": float(values.mean()), "from": "fixed cell", "part": which, "samples": len(values)}
    slope = float(np.polyfit(times, values, 1)[0]) if len(times) >= 3 and np.ptp(times) > 0 else 0.0
    return {
        "mean": float(values.mean()),
        "std": float(values.std()),
        "drift_per_ns": slope * 1000,
        "drift_over_part": slope * float(np.ptp(times)),
        "part": which,
        "from": "energies.csv",
        "samples": len(values),
    }


def measure_properties(
    kinds: list[ChainKind],
    copies: list[tuple[int, int]],
    positions: np.ndarray,
    box: np.ndarray | None,
    energies_csv: Path | None,
    static_density: float | None,
) -> dict[str, object]:
    """All properties of a result: `copies` are (kind index, first atom) in file order."""
    per_kind: list[list[np.ndarray]] = [[] for _ in kinds]
    for kind_index, start in copies:
        count = kinds[kind_index].mol.GetNumAtoms()
        per_kind[kind_index].append(positions[start : start + count])
    return {
        "measured_on": "final structure",
        "density_g_cm3": density_summary(energies_csv, static_density),
        "chains": [measure_kind(kind, molecules, box) for kind, molecules in zip(kinds, per_kind, strict=True) if molecules],
    }
