"""Chain growth and packing in the periodic cell.

Molecules are built one after another directly in the cell. A molecule starts with its root unit at
a random position and orientation (the least crowded of a few tries); every further unit is attached
to the unit it hangs from: its anchor sits on the bond direction the parent's template gives (the
proxy), at a bond length averaged from both templates, oriented so its own proxy points back to the
parent, and turned about the new bond by a sampled torsion (each unit also picks one of its distinct
conformers). Candidates are checked against the atoms already placed nearby (cell list, minimum
image): atoms of other molecules must stay `inter` Å away, atoms of the same molecule more than three
bonds apart `intra` Å, and with walls every atom inside 0 < z < C. The proxies of the unit's own
children are checked too, standing for the atoms that will sit there (look-ahead). Among acceptable
candidates one is drawn at random, favouring those with fewer atoms around them, so chains head for
empty space. When none fits, units are taken back (back-off) and grown again; after too many
back-offs the molecule starts elsewhere, and a molecule that still cannot be placed raises
PLACEMENT_FAILED (structure.py then grows the system in a larger cell and compresses it, compress.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from polyforge_engine.build.assembly import AssembledPolymer
from polyforge_engine.build.cell_grid import CellGrid
from polyforge_engine.build.templates import UnitTemplate
from polyforge_engine.protocol import EngineError


@dataclass(frozen=True)
class Tolerances:
    inter: float = 2.0  # Å between atoms of different molecules
    intra: float = 1.5  # Å between atoms of one molecule more than three bonds apart
    margin: float = 0.03  # Å added while building, so rounding in the written files keeps the limits
    wall: float = 1.0  # Å kept from each wall


TORSIONS = 12  # torsion angles tried per unit (random phase, evenly spaced)
FINE_TORSIONS = 48  # tried once more, before backing off, when none of the coarse ones fits
ROOT_TRIES = 400
ROOT_CHOICES = 8  # acceptable root placements compared before taking the least crowded
CROWDING_SCALE = 1.5  # atoms: how strongly growth steers towards empty space
BACKOFFS_PER_START = 40


def _rotation_about(axis: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotation matrices (len(angles), 3, 3) about a unit axis (Rodrigues)."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    sin, cos = np.sin(angles)[:, None, None], np.cos(angles)[:, None, None]
    return np.eye(3)[None] + sin * k[None] + (1.0 - cos) * (k @ k)[None]


def _aligning(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Rotations (n, 3, 3) taking unit vectors v[i] onto the unit vector w."""
    cross = np.cross(v, w)
    dot = v @ w
    out = np.empty((len(v), 3, 3))
    for i in range(len(v)):  # a handful of conformers, not atoms
        s = np.linalg.norm(cross[i])
        if s < 1e-8:
            if dot[i] > 0:
                out[i] = np.eye(3)
            else:  # antiparallel: half turn about any perpendicular axis
                perpendicular = np.cross(v[i], [1.0, 0.0, 0.0] if abs(v[i][0]) < 0.9 else [0.0, 1.0, 0.0])
                out[i] = _rotation_about(perpendicular / np.linalg.norm(perpendicular), np.array([np.pi]))[0]
        else:
            out[i] = _rotation_about(cross[i] / s, np.array([np.arctan2(s, dot[i])]))[0]
    return out


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    a, b, c, d = q / np.linalg.norm(q)
    return np.array(
        [
            [a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)],
            [2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b)],
            [2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d],
        ]
    )


@dataclass(frozen=True)
class _UnitGeometry:
    """What growth needs about one unit of a polymer kind, precomputed once per kind."""

    template: UnitTemplate
    offset: int  # first atom of the unit in the molecule
    parent: int
    parent_site: int
    own_site: int
    local_atoms: np.ndarray  # offset + arange(size)
    centred: np.ndarray  # (conformers, size, 3) coordinates relative to the joining anchor
    centred_proxies: np.ndarray  # (conformers, sites, 3) the template's proxies in the same frame
    back_directions: np.ndarray  # (conformers, 3) unit vectors from the anchor towards the parent
    half_bond: np.ndarray  # (conformers,) half the template's bond length to the parent
    extent: float  # largest distance of an atom (or look-ahead point) from the anchor
    # Look-ahead: the proxy of each site that gets a child stands for that child's anchor atom
    # (its index in the molecule), so a unit is not placed where its children could never go.
    ahead_sites: np.ndarray  # site indices
    ahead_atoms: np.ndarray  # the children's anchor atoms
    # Candidate tables per torsion count T, computed once: every conformer turned so that its bond to
    # the parent points along -z, then spun about z by 2πj/T. Rows are conformer * T + j.
    spun_points: dict[int, np.ndarray]  # T -> (conformers * T, points, 3)
    spun_rotations: dict[int, np.ndarray]  # T -> (conformers * T, 3, 3) template frame -> spun frame
    spun_conformers: dict[int, np.ndarray]  # T -> (conformers * T,)

    def points(self, conformer: np.ndarray) -> np.ndarray:
        """(m, atoms + look-ahead points, 3) in the unit's frame for the given conformers."""
        return np.concatenate([self.centred[conformer], self.centred_proxies[conformer][:, self.ahead_sites]], axis=1)

    @property
    def checked_atoms(self) -> np.ndarray:
        return np.concatenate([self.local_atoms, self.ahead_atoms])


def _unit_geometries(kind: AssembledPolymer, templates: dict[str, UnitTemplate]) -> list[_UnitGeometry]:
    children: dict[int, list[tuple[int, int]]] = {}  # unit -> [(site, child's anchor atom)]
    for index, unit in enumerate(kind.plan.units):
        if unit.parent >= 0:
            child_anchor = int(kind.unit_offsets[index]) + templates[unit.smiles].sites[unit.own_site].anchor
            children.setdefault(unit.parent, []).append((unit.parent_site, child_anchor))
    geometries = []
    for index, unit in enumerate(kind.plan.units):
        template = templates[unit.smiles]
        offset = int(kind.unit_offsets[index])
        if unit.own_site >= 0:
            anchor = template.sites[unit.own_site].anchor
            anchor_xyz = template.coordinates[:, anchor, :]
            back = template.proxies[:, unit.own_site, :] - anchor_xyz
            length = np.linalg.norm(back, axis=1)
            back_directions, half_bond = back / length[:, None], length / 2
        else:
            anchor_xyz = template.coordinates.mean(axis=1)
            back_directions, half_bond = np.zeros((len(anchor_xyz), 3)), np.zeros(len(anchor_xyz))
        centred = template.coordinates - anchor_xyz[:, None, :]
        centred_proxies = template.proxies - anchor_xyz[:, None, :]
        ahead = children.get(index, [])
        ahead_sites = np.array([site for site, _ in ahead], dtype=np.int64)
        reach = np.concatenate([centred, centred_proxies[:, ahead_sites]], axis=1)
        spun_points, spun_rotations, spun_conformers = {}, {}, {}
        if unit.own_site >= 0:
            to_canonical = _aligning(back_directions, np.array([0.0, 0.0, -1.0]))
            for torsions in {1 if template.atom_count == 1 else t for t in (TORSIONS, FINE_TORSIONS)}:
                spins = _rotation_about(np.array([0.0, 0.0, 1.0]), np.arange(torsions) * (2 * np.pi / torsions))
                rotations = np.einsum("tij,cjk->ctik", spins, to_canonical).reshape(-1, 3, 3)
                conformer = np.repeat(np.arange(len(centred)), torsions)
                spun_points[torsions] = np.einsum("mij,maj->mai", rotations, reach[conformer])
                spun_rotations[torsions] = rotations
                spun_conformers[torsions] = conformer
        geometries.append(
            _UnitGeometry(
                template=template,
                offset=offset,
                parent=unit.parent,
                parent_site=unit.parent_site,
                own_site=unit.own_site,
                local_atoms=offset + np.arange(template.atom_count),
                centred=centred,
                centred_proxies=centred_proxies,
                back_directions=back_directions,
                half_bond=half_bond,
                extent=float(np.linalg.norm(reach, axis=2).max()),
                ahead_sites=ahead_sites,
                ahead_atoms=np.array([atom for _, atom in ahead], dtype=np.int64),
                spun_points=spun_points,
                spun_rotations=spun_rotations,
                spun_conformers=spun_conformers,
            )
        )
    return geometries


class SystemGrower:
    """Places every molecule of a system in the cell; see the module docstring for the method."""

    def __init__(
        self,
        kinds: list[AssembledPolymer],
        templates: dict[str, UnitTemplate],
        box: np.ndarray,
        walls: bool,
        rng: np.random.Generator,
        tolerances: Tolerances,
        total_atoms: int,
        starts: int,
    ):
        """`starts`: how many times a stuck molecule starts again elsewhere before the build fails."""
        self.kinds = kinds
        self.geometries = [_unit_geometries(kind, templates) for kind in kinds]
        self.box = np.asarray(box, dtype=float)
        self.walls = walls
        self.rng = rng
        self.tol = tolerances
        self.starts = starts
        self.inter = tolerances.inter + tolerances.margin
        self.intra = tolerances.intra + tolerances.margin
        if walls and self.box[2] <= 2 * tolerances.wall:
            raise EngineError("INVALID_INPUT", "The cell is too thin in z to keep atoms inside the walls.")
        self.grid = self._new_grid(total_atoms)
        self.positions = np.zeros((total_atoms, 3))  # unwrapped: each molecule whole
        self.molecule_offsets: list[int] = []
        self.molecule_kinds: list[int] = []

    # -- scoring --------------------------------------------------------------------------------
    def _assess(self, candidates: np.ndarray, local_atoms: np.ndarray, molecule: int, kind: AssembledPolymer, centre: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """For candidate placements (m, atoms, 3) within `radius` of `centre`: whether each keeps every
        limit, and how crowded its surroundings are (atoms in the 27 cells around its centroid)."""
        acceptable = np.ones(len(candidates), dtype=bool)
        if self.walls:
            z = candidates[..., 2]
            acceptable &= ((z > self.tol.wall) & (z < self.box[2] - self.tol.wall)).all(axis=1)
        crowding = self.grid.crowding(candidates.mean(axis=1)).astype(float)
        near = self.grid.atoms_near(centre, radius + self.inter)
        # Nearest periodic image of each nearby atom as seen from the centre, relative to the centre:
        # the candidates then need no further minimum-image work.
        seen = self.grid.minimum_image(self.grid.positions[near] - centre)
        flat = candidates.reshape(-1, 3) - centre
        within = (seen * seen).sum(axis=1) <= (radius + self.inter) ** 2
        near, seen = near[within], seen[within]
        if len(near) == 0:
            return acceptable, crowding
        same = self.grid.molecule[near] == molecule
        limits = np.full((len(local_atoms), len(near)), self.inter)
        if same.any():
            near_local = near[same] - self.molecule_offsets[molecule]
            low = np.minimum(local_atoms[:, None], near_local[None, :])
            high = np.maximum(local_atoms[:, None], near_local[None, :])
            keys = low * kind.atom_count + high
            slot = np.minimum(np.searchsorted(kind.close_pairs, keys), len(kind.close_pairs) - 1)
            bonded = kind.close_pairs[slot] == keys if len(kind.close_pairs) else np.zeros_like(keys, dtype=bool)
            limits[:, same] = np.where(bonded, 0.0, self.intra)  # 0: pairs within three bonds never clash
        # Squared distances through one matrix product: |c|² + |p|² − 2 c·p.
        squared = (flat * flat).sum(axis=1)[:, None] + (seen * seen).sum(axis=1)[None, :] - 2.0 * flat @ seen.T
        squared = squared.reshape(len(candidates), len(local_atoms), len(near))
        acceptable &= (squared >= (limits * limits)[None]).all(axis=(1, 2))
        return acceptable, crowding

    def _choose(self, acceptable: np.ndarray, crowding: np.ndarray) -> int:
        """A random acceptable candidate, favouring emptier surroundings (Boltzmann-like weights)."""
        options = np.flatnonzero(acceptable)
        if len(options) == 0:
            return -1
        weights = np.exp(-(crowding[options] - crowding[options].min()) / CROWDING_SCALE)
        return int(self.rng.choice(options, p=weights / weights.sum()))

    # -- placing units --------------------------------------------------------------------------
    def _place_root(self, molecule: int, kind: AssembledPolymer, unit: _UnitGeometry) -> tuple[np.ndarray, np.ndarray, int] | None:
        """The first unit: the least crowded of a few random acceptable positions and orientations."""
        conformers = len(unit.centred)
        wall = self.tol.wall if self.walls else 0.0
        lower, upper = np.array([0.0, 0.0, wall]), self.box - np.array([0.0, 0.0, wall])
        found: list[tuple[float, tuple[np.ndarray, np.ndarray, int]]] = []
        for _ in range(ROOT_TRIES):
            centre = self.rng.uniform(lower, upper)
            rotation = _random_rotation(self.rng)
            conformer = int(self.rng.integers(conformers))
            xyz = unit.points(np.array([conformer]))[0] @ rotation.T + centre
            acceptable, crowding = self._assess(xyz[None], unit.checked_atoms, molecule, kind, centre, unit.extent)
            if acceptable[0]:
                found.append((float(crowding[0]), (rotation, centre, conformer)))
                if len(found) == ROOT_CHOICES:
                    break
        if not found:
            return None
        return min(found, key=lambda item: item[0])[1]

    def _place_child(self, molecule: int, kind: AssembledPolymer, units: list[_UnitGeometry], index: int, rotations: np.ndarray, translations: np.ndarray, conformer_of: np.ndarray, torsions: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        unit = units[index]
        parent = units[unit.parent]
        anchor = self.positions[self.molecule_offsets[molecule] + parent.offset + parent.template.sites[unit.parent_site].anchor]
        parent_proxy = parent.centred_proxies[conformer_of[unit.parent], unit.parent_site]
        proxy = rotations[unit.parent] @ parent_proxy + translations[unit.parent]
        bond = proxy - anchor
        parent_half = np.linalg.norm(bond) / 2
        direction = bond / (2 * parent_half)
        torsions = 1 if unit.template.atom_count == 1 else torsions
        # Spun frame -> world: z onto the bond direction, plus a random phase for the torsions.
        frame = _aligning(np.array([[0.0, 0.0, 1.0]]), direction)[0] @ _rotation_about(
            np.array([0.0, 0.0, 1.0]), np.array([self.rng.uniform(0, 2 * np.pi)])
        )[0]
        conformer = unit.spun_conformers[torsions]
        joint = anchor + direction[None, :] * (parent_half + unit.half_bond[conformer])[:, None]  # (m, 3)
        candidates = unit.spun_points[torsions] @ frame.T + joint[:, None, :]
        acceptable, crowding = self._assess(candidates, unit.checked_atoms, molecule, kind, joint[0], unit.extent + 0.5)
        chosen = self._choose(acceptable, crowding)
        if chosen < 0:
            return None
        return frame @ unit.spun_rotations[torsions][chosen], joint[chosen], int(conformer[chosen])

    def _grow_molecule(self, molecule: int, kind_index: int) -> bool:
        """Grow one molecule; False (with all of it taken back) when every start got stuck."""
        kind = self.kinds[kind_index]
        units = self.geometries[kind_index]
        base = self.molecule_offsets[molecule]
        rotations = np.zeros((len(units), 3, 3))
        translations = np.zeros((len(units), 3))
        conformer_of = np.zeros(len(units), dtype=np.int64)

        def commit(index: int, placement: tuple[np.ndarray, np.ndarray, int]) -> None:
            rotation, translation, conformer = placement
            rotations[index], translations[index], conformer_of[index] = rotation, translation, conformer
            unit = units[index]
            xyz = unit.centred[conformer] @ rotation.T + translation
            atoms = base + unit.local_atoms
            self.positions[atoms] = xyz
            self.grid.insert(atoms, xyz, molecule)

        def take_back(index: int) -> None:
            self.grid.remove(base + units[index].local_atoms[::-1])

        for _start in range(self.starts):
            root = self._place_root(molecule, kind, units[0])
            if root is None:
                continue
            commit(0, root)
            placed, backoffs = 1, 0
            while placed < len(units) and backoffs <= BACKOFFS_PER_START:
                placement = self._place_child(molecule, kind, units, placed, rotations, translations, conformer_of, TORSIONS)
                if placement is None:
                    placement = self._place_child(molecule, kind, units, placed, rotations, translations, conformer_of, FINE_TORSIONS)
                if placement is not None:
                    commit(placed, placement)
                    placed += 1
                    continue
                backoffs += 1
                # Take back a few units, and at least back to (and including) the failing unit's parent:
                # in a dendrimer the units just before it are its siblings, whose removal changes nothing.
                steps = max(int(self.rng.integers(1, 2 + min(backoffs, 8))), placed - units[placed].parent)
                steps = min(placed - 1, steps)
                for index in range(placed - 1, placed - 1 - steps, -1):
                    take_back(index)
                placed -= steps
            if placed == len(units):
                return True
            for index in range(placed - 1, -1, -1):
                take_back(index)
        return False

    def _new_grid(self, total_atoms: int) -> CellGrid:
        # Cells at least `inter` wide; wider in dilute systems so the table stays about one atom per cell.
        side = max(self.inter, float(np.prod(self.box) / max(total_atoms, 1)) ** (1 / 3))
        return CellGrid(self.box, periodic_z=not self.walls, cell_side=side, capacity=total_atoms)

    def regrid(self, positions: np.ndarray, box: np.ndarray) -> None:
        """Refill the cell list from new positions in a new cell (after compression), for measuring."""
        self.box = np.asarray(box, dtype=float)
        self.grid = self._new_grid(len(positions))
        for molecule, kind_index in enumerate(self.molecule_kinds):
            start = self.molecule_offsets[molecule]
            atoms = np.arange(start, start + self.kinds[kind_index].atom_count)
            self.grid.insert(atoms, positions[atoms], molecule)
        self.positions = np.array(positions)
        self.centre_molecules()

    def grow(self, order: list[int], on_progress: Callable[[float], None]) -> np.ndarray:
        """Place the molecules (kind indices, in construction order); returns unwrapped positions with
        each molecule whole and its centre inside the cell."""
        offset = 0
        for kind_index in order:
            self.molecule_offsets.append(offset)
            self.molecule_kinds.append(kind_index)
            offset += self.kinds[kind_index].atom_count
        report_every = max(1, len(order) // 50)
        for molecule, kind_index in enumerate(order):
            if not self._grow_molecule(molecule, kind_index):
                raise EngineError(
                    "PLACEMENT_FAILED",
                    f"A copy of polymer '{self.kinds[kind_index].plan.name}' could not be placed without "
                    f"overlapping other atoms ({molecule} of {len(order)} molecules were in place). "
                    "Lower the density or enlarge the cell.",
                )
            if (molecule + 1) % report_every == 0 or molecule + 1 == len(order):
                on_progress((molecule + 1) / len(order))
        self.centre_molecules()
        return self.positions

    def centre_molecules(self) -> None:
        """Shift each (whole) molecule by cell vectors so its centre lies inside the cell."""
        for molecule, kind_index in enumerate(self.molecule_kinds):
            start = self.molecule_offsets[molecule]
            atoms = slice(start, start + self.kinds[kind_index].atom_count)
            centre = self.positions[atoms].mean(axis=0)
            shift = np.where(self.grid.periodic, np.floor(centre / self.box) * self.box, 0.0)
            self.positions[atoms] -= shift
