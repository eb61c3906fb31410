"""Chain growth and packing in the periodic cell.

Molecules are built directly in the cell. Each starts with its root unit at a random position and
orientation (the least crowded of a few tries), in construction order; then all of them grow
together, one unit per chain per round, and chains whose next units have the same shape are
extended in one vectorised step. Every further unit is attached to the unit it hangs from: its
anchor sits on the bond direction the parent's template gives (the proxy), at MMFF's length for that
bond (`_junction_lengths`), oriented so its own proxy points back to the parent, and turned about the
new bond by one of TORSIONS torsions every 30° (counted from an atom already in place, with a little
jitter, so staggered and planar arrangements are among them); each unit also picks one of its
distinct conformers. Candidates are checked against the atoms already placed nearby (cell list,
minimum image; compiled, `_growth.c`): atoms of other molecules must stay `inter` Å away, atoms of the same molecule more
than three bonds apart `intra` Å, and with walls every atom inside 0 < z < C. The proxies of the
unit's own children are checked too, standing for the atoms that will sit there (look-ahead), with
AHEAD_ROOM Å more than the limits, for the hydrogens and side groups those atoms will carry. Among
acceptable candidates one is drawn at random, favouring those with fewer atoms around them, so chains
head for empty space, and weighted by the Boltzmann factor of MMFF's torsion energy about the new
bond (`_junction_energy`), so junctions come out mostly staggered and peptide bonds trans. Units
placed in the same step are then checked against one another; of two that clash the later
molecule's is taken back and tried again. When no candidate fits, units are taken back (back-off)
and grown again; after too many back-offs the molecule starts elsewhere, and a molecule that still
cannot be placed raises PLACEMENT_FAILED (structure.py then grows the system in a larger cell and
compresses it, compress.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rdkit.Chem import rdForceFieldHelpers
from rdkit.ForceField.rdForceField import MMFFMolProperties

from polyforge_engine.construct import _growth
from polyforge_engine.construct.arrays import sorted_unique
from polyforge_engine.construct.assembly import AssembledPolymer
from polyforge_engine.construct.cell_grid import CellGrid
from polyforge_engine.construct.chain_statistics import KindStatistics, assign_hands, frames_along, kind_statistics
from polyforge_engine.construct.templates import UnitTemplate
from polyforge_engine.events import EngineError


@dataclass(frozen=True)
class Tolerances:
    inter: float = 2.0  # Å between atoms of different molecules
    intra: float = 1.5  # Å between atoms of one molecule more than three bonds apart
    margin: float = 0.03  # Å added while building, so rounding in the written files keeps the limits
    wall: float = 1.0  # Å kept from each wall


TORSIONS = 12  # torsion angles tried per unit, evenly spaced (every 30°: staggered and planar included)
TORSION_JITTER = np.radians(10.0)  # spread of the tried torsions about that grid (thermal libration)
# A unit's state (conformer and torsion about its junction) is drawn from its Boltzmann weights
# (chain_statistics.py) by the Gumbel-top-k trick: the STATES_TRIED first states of one draw are
# checked for clashes and the first that fits is taken, which samples the weights restricted to the
# states that fit (exactly, as long as one of the first few fits; a stuck chain then looks at all).
STATES_TRIED = 8
ROOT_TRIES = 400
ROOT_CHOICES = 8  # acceptable root placements compared before taking the least crowded
CROWDING_SCALE = 1.5  # atoms: how strongly a stuck chain's second look steers towards empty space
FAILURES_PER_START = 24  # back-offs without getting further than before, then the molecule starts elsewhere
# Units taken back per back-off: one or two (and at least back to the parent). When no candidate
# fits, the dead end mostly lies in the last unit or two (a chain folding back onto itself); trying
# finer torsions first, or taking back more from the start, rarely helped and left that chain rounds
# behind the others, and small systems pay for every round (bench/README.md, "Builder settings"). A chain that
# keeps failing without getting further is in a deeper dead end (its own coil): every ESCALATE_EVERY
# such failures it takes back BACKOFF_UNITS more.
BACKOFF_UNITS = 2
ESCALATE_EVERY = 4
# A look-ahead point keeps the limits plus this much: the atom it stands for brings its hydrogens
# (~1.1 Å out) and side group. At the bare limits the unit after next often has no room left (the CH2
# hydrogens of polystyrene against the phenyl two units back), and dense growth jams; less room helps
# less, more no more (bench/README.md, "Builder settings").
AHEAD_ROOM = 0.8
ROOT_BATCH = 16  # root placements tried at once
BATCH = 256  # chains extended in one vectorised step at most (bounds the memory a step takes)


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


def _random_rotations(rng: np.random.Generator, count: int) -> np.ndarray:
    """(count, 3, 3) uniformly random rotations (from normalised Gaussian quaternions)."""
    q = rng.normal(size=(count, 4))
    a, b, c, d = (q / np.linalg.norm(q, axis=1, keepdims=True)).T
    return np.stack(
        [
            np.stack([a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)], axis=1),
            np.stack([2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b)], axis=1),
            np.stack([2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d], axis=1),
        ],
        axis=1,
    )


_frames_along = frames_along


@dataclass(frozen=True)
class _UnitGeometry:
    """What growth needs about one unit of a polymer kind, precomputed once per kind."""

    template: UnitTemplate
    offset: int  # first atom of the unit in the molecule
    parent: int
    parent_site: int
    own_site: int
    # Units with the same shape (template, joining site, look-ahead sites) differ only in where their
    # atoms sit in the molecule, so chains at such units are extended together in one step.
    shape: tuple[str, int, tuple[int, ...]]
    local_atoms: np.ndarray  # offset + arange(size)
    centred: np.ndarray  # (conformers, size, 3) coordinates relative to the joining anchor
    centred_proxies: np.ndarray  # (conformers, sites, 3) the template's proxies in the same frame
    bond_length: float  # Å, of its bond to the parent (_junction_lengths); 0 for the root
    # The torsions tried are counted from this placed atom bonded to the parent's anchor (-1: none,
    # the torsions then start at a random phase): the reference neighbour of the unit's own anchor
    # (spun tables) then lies at dihedral 0, 30, 60, ... degrees from it, which includes every
    # staggered and every planar arrangement.
    phase_partner: int
    extent: float  # largest distance of an atom (or look-ahead point) from the anchor
    # Look-ahead: the proxy of each site that gets a child stands for that child's anchor atom
    # (its index in the molecule), so a unit is not placed where its children could never go.
    ahead_sites: np.ndarray  # site indices
    ahead_atoms: np.ndarray  # the children's anchor atoms
    ahead_from: int  # points from here on keep AHEAD_ROOM (children of more than one atom)
    # Candidate tables, computed once: every conformer turned so that its bond to the parent points
    # along -z and a neighbour of its anchor (the reference) lies in the xz plane on the +x side, then
    # spun about z by 2πj/T for T torsions (TORSIONS; 1 for a single atom). Rows are conformer * T + j.
    # Empty for the root.
    torsions: int
    spun_points: np.ndarray  # (conformers * T, points, 3)
    spun_rotations: np.ndarray  # (conformers * T, 3, 3) template frame -> spun frame
    spun_conformers: np.ndarray  # (conformers * T,)

    def points(self, conformer: np.ndarray) -> np.ndarray:
        """(m, atoms + look-ahead points, 3) in the unit's frame for the given conformers."""
        return np.concatenate([self.centred[conformer], self.centred_proxies[conformer][:, self.ahead_sites]], axis=1)

    @property
    def checked_atoms(self) -> np.ndarray:
        return np.concatenate([self.local_atoms, self.ahead_atoms])


def _template_share(template: UnitTemplate, site: int) -> float:
    """The site's anchor's share of a bond (Å): its mean length to the proxy less the proxy atom's
    covalent radius (a methyl proxy: C-C 1.52 Å less 0.76 Å; C-H 1.09 Å, O-H 0.99 Å come out right)."""
    back = template.proxies[:, site, :] - template.coordinates[:, template.sites[site].anchor, :]
    return float(np.linalg.norm(back, axis=1).mean()) - float(template.proxy_shares[site])


def _anchor_atom(kind: AssembledPolymer, templates: dict[str, UnitTemplate], unit_index: int, site: int) -> int:
    """Index in the molecule of the atom that bonds at `site` of unit `unit_index`."""
    return int(kind.unit_offsets[unit_index]) + templates[kind.plan.units[unit_index].smiles].sites[site].anchor


def _junction_lengths(kind: AssembledPolymer, templates: dict[str, UnitTemplate], properties: MMFFMolProperties | None) -> np.ndarray:
    """Length (Å) of every unit's bond to its parent, 0 for the root: MMFF's reference length for that
    bond in the assembled molecule, which sees both sides (an amide C-N is 1.37 Å, a C-C 1.51 Å, a
    C-H cap 1.09 Å), or, where MMFF has no type for the molecule, the two anchors' template shares."""
    lengths = np.zeros(len(kind.plan.units))
    for index, unit in enumerate(kind.plan.units):
        if unit.parent < 0:
            continue
        own, parent = templates[unit.smiles], templates[kind.plan.units[unit.parent].smiles]
        ends = (_anchor_atom(kind, templates, unit.parent, unit.parent_site), _anchor_atom(kind, templates, index, unit.own_site))
        stretch = properties.GetMMFFBondStretchParams(kind.mol, *ends) if properties is not None else None
        lengths[index] = stretch[2] if stretch else _template_share(parent, unit.parent_site) + _template_share(own, unit.own_site)
    return lengths


def _placed_partners(kind: AssembledPolymer, templates: dict[str, UnitTemplate], index: int) -> list[int]:
    """Atoms bonded to the parent's anchor of unit `index` (not the unit's own anchor) that are in
    place when the unit is placed: units are placed in plan order, and their atoms follow that order."""
    unit = kind.plan.units[index]
    if unit.parent < 0:
        return []
    j, k = _anchor_atom(kind, templates, unit.parent, unit.parent_site), _anchor_atom(kind, templates, index, unit.own_site)
    offset = int(kind.unit_offsets[index])
    return [i for i in (atom.GetIdx() for atom in kind.mol.GetAtomWithIdx(j).GetNeighbors()) if i != k and i < offset]


def _unit_geometries(kind: AssembledPolymer, templates: dict[str, UnitTemplate]) -> list[_UnitGeometry]:
    children: dict[int, list[tuple[int, int]]] = {}  # unit -> [(site, child's anchor atom)]
    for index, unit in enumerate(kind.plan.units):
        if unit.parent >= 0:
            children.setdefault(unit.parent, []).append((unit.parent_site, _anchor_atom(kind, templates, index, unit.own_site)))
    properties = rdForceFieldHelpers.MMFFGetMoleculeProperties(kind.mol)  # None without MMFF types
    junction_lengths = _junction_lengths(kind, templates, properties)
    geometries = []
    spun_by_shape: dict[tuple[str, int, tuple[int, ...]], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    single_atoms = {
        _anchor_atom(kind, templates, index, unit.own_site)
        for index, unit in enumerate(kind.plan.units)
        if unit.parent >= 0 and templates[unit.smiles].atom_count == 1
    }
    for index, unit in enumerate(kind.plan.units):
        template = templates[unit.smiles]
        offset = int(kind.unit_offsets[index])
        if unit.own_site >= 0:
            anchor = template.sites[unit.own_site].anchor
            anchor_xyz = template.coordinates[:, anchor, :]
            back = template.proxies[:, unit.own_site, :] - anchor_xyz
            length = np.linalg.norm(back, axis=1)
            back_directions = back / length[:, None]
        else:
            anchor_xyz = template.coordinates.mean(axis=1)
            back_directions = np.zeros((len(anchor_xyz), 3))
        centred = template.coordinates - anchor_xyz[:, None, :]
        centred_proxies = template.proxies - anchor_xyz[:, None, :]
        # Children that are one atom (hydrogen caps) first: they bring no hydrogens or side group of
        # their own, so they are checked at the bare limits (`ahead_from`), not with AHEAD_ROOM, which
        # made the torsion next to a chain's cap 77 % trans against the 70 % of its Boltzmann weights.
        ahead = sorted(children.get(index, []), key=lambda child: child[1] not in single_atoms)
        ahead_sites = np.array([site for site, _ in ahead], dtype=np.int64)
        reach = np.concatenate([centred, centred_proxies[:, ahead_sites]], axis=1)
        shape = (unit.smiles, unit.own_site, tuple(ahead_sites.tolist()))
        torsions = 1 if template.atom_count == 1 else TORSIONS
        if shape not in spun_by_shape:
            if unit.own_site >= 0:
                to_canonical = _aligning(back_directions, np.array([0.0, 0.0, -1.0]))
                reference = [atom.GetIdx() for atom in template.mol.GetAtomWithIdx(anchor).GetNeighbors()]
                if reference:
                    turned = np.einsum("cij,cj->ci", to_canonical, centred[:, reference[0]])
                    azimuths = np.arctan2(turned[:, 1], turned[:, 0])
                    to_canonical = _rotation_about(np.array([0.0, 0.0, 1.0]), -azimuths) @ to_canonical
                spins = _rotation_about(np.array([0.0, 0.0, 1.0]), np.arange(torsions) * (2 * np.pi / torsions))
                rotations = np.einsum("tij,cjk->ctik", spins, to_canonical).reshape(-1, 3, 3)
                conformer = np.repeat(np.arange(len(centred)), torsions)
                spun_by_shape[shape] = (np.einsum("mij,maj->mai", rotations, reach[conformer]), rotations, conformer)
            else:
                spun_by_shape[shape] = (np.zeros((0, reach.shape[1], 3)), np.zeros((0, 3, 3)), np.zeros(0, dtype=np.int64))
        spun_points, spun_rotations, spun_conformers = spun_by_shape[shape]
        ahead_atoms = np.array([atom for _, atom in ahead], dtype=np.int64)
        geometries.append(
            _UnitGeometry(
                template=template,
                offset=offset,
                parent=unit.parent,
                parent_site=unit.parent_site,
                own_site=unit.own_site,
                shape=shape,
                local_atoms=offset + np.arange(template.atom_count),
                centred=centred,
                centred_proxies=centred_proxies,
                bond_length=float(junction_lengths[index]),
                phase_partner=next(iter(_placed_partners(kind, templates, index)), -1),
                extent=float(np.linalg.norm(reach, axis=2).max()),
                ahead_sites=ahead_sites,
                ahead_atoms=ahead_atoms,
                ahead_from=template.atom_count + sum(atom in single_atoms for atom in ahead_atoms.tolist()),
                torsions=torsions,
                spun_points=spun_points,
                spun_rotations=spun_rotations,
                spun_conformers=spun_conformers,
            )
        )
    return geometries


def _clear_states(kind: AssembledPolymer, units: list[_UnitGeometry], intra: float) -> list[np.ndarray | None]:
    """Per unit, (states,) whether the state's conformer keeps the unit's own atoms that are more than
    three bonds apart in the molecule at least `intra` apart, or None when every state does.

    Growth checks a candidate against the atoms already in place, never a unit's atoms against one
    another, and a unit whose own backbone has several bonds takes every combination of their states
    (templates.py), set rigidly: in a long unit some (g+ next to g-, as in poly(ethylene adipate))
    bring hydrogens of one unit within 1.4 Å of each other, which growth would accept and the
    build's measurement then refuses. Such states are taken out of the chain's statistics.
    Raises PLACEMENT_FAILED when a unit has no such state at all."""
    out: list[np.ndarray | None] = []
    for unit in units:
        size = unit.template.atom_count
        first, second = np.triu_indices(size, k=1)
        keys = (unit.offset + first) * kind.atom_count + (unit.offset + second)
        far = ~np.isin(keys, kind.close_pairs)
        if not far.any():
            out.append(None)
            continue
        distances = np.linalg.norm(unit.centred[:, first[far]] - unit.centred[:, second[far]], axis=2)
        conformer_clear = distances.min(axis=1) >= intra
        if conformer_clear.all():
            out.append(None)
            continue
        if not conformer_clear.any():
            raise EngineError(
                "PLACEMENT_FAILED",
                f"No conformation of the unit '{unit.template.smiles}' of polymer '{kind.plan.name}' keeps its own atoms {intra:.2f} Å apart.",
            )
        out.append(conformer_clear[unit.spun_conformers] if unit.parent >= 0 else conformer_clear)
    return out


@dataclass(frozen=True)
class _KindTables:
    """Per unit of one polymer kind, what a growth step gathers for many chains at once."""

    offsets: np.ndarray  # first atom of the unit in the molecule
    parents: np.ndarray  # the unit it hangs from (-1 for the root)
    parent_anchors: np.ndarray  # the parent's atom it bonds to (molecule-local)
    ahead_atoms: np.ndarray  # (units, most look-ahead points) children's anchor atoms, padded
    phase_partners: np.ndarray  # as in _UnitGeometry
    # Units extended in one step: same kind, same shape, and parents of one shape joined at one
    # site (so one parent's frame serves the whole step). -1 for the root.
    batch: np.ndarray


def _kind_tables(units: list[_UnitGeometry]) -> _KindTables:
    ahead = np.zeros((len(units), max(len(unit.ahead_atoms) for unit in units)), dtype=np.int64)
    batch_ids: dict[tuple, int] = {}
    batch = np.full(len(units), -1, dtype=np.int64)
    for index, unit in enumerate(units):
        ahead[index, : len(unit.ahead_atoms)] = unit.ahead_atoms
        if unit.parent >= 0:
            key = (unit.shape, units[unit.parent].shape, unit.parent_site)
            batch[index] = batch_ids.setdefault(key, len(batch_ids))
    return _KindTables(
        offsets=np.array([unit.offset for unit in units], dtype=np.int64),
        parents=np.array([unit.parent for unit in units], dtype=np.int64),
        parent_anchors=np.array(
            [-1 if unit.parent < 0 else units[unit.parent].offset + units[unit.parent].template.sites[unit.parent_site].anchor for unit in units],
            dtype=np.int64,
        ),
        ahead_atoms=ahead,
        phase_partners=np.array([unit.phase_partner for unit in units], dtype=np.int64),
        batch=batch,
    )


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
        limit_scale: float = 1.0,
        backoffs_per_unit: float | None = None,
        phantom: bool = False,
        statistics: list[KindStatistics] | None = None,
        window: int | None = None,
    ):
        """`starts`: how many times a stuck molecule starts again elsewhere before the build fails.
        `limit_scale` < 1 grows with the inter- and intramolecular limits scaled down (for a cell that
        is relaxed to the full limits afterwards); `backoffs_per_unit` fails the build once the
        back-offs exceed that many per unit of the system (a cell that is not worth finishing).
        `phantom`: molecules do not see one another (only each its own atoms), as ideal chains placed
        in a melt before their overlaps are pushed off (structure.py). `window`: atoms of one molecule
        keep the intramolecular limit only from atoms at most that many units (residues) away along it,
        farther ones pass through them (an ideal chain beyond the window); None: from all."""
        self.kinds = kinds
        self.geometries = [_unit_geometries(kind, templates) for kind in kinds]
        self.tables = [_kind_tables(units) for units in self.geometries]
        self.statistics = statistics or [kind_statistics(kind, templates, units) for kind, units in zip(kinds, self.geometries, strict=True)]
        self.box = np.asarray(box, dtype=float)
        self.walls = walls
        self.rng = rng
        self.tol = tolerances
        self.starts = starts
        self.inter = 0.0 if phantom else tolerances.inter * limit_scale + tolerances.margin
        self.intra = tolerances.intra * limit_scale + tolerances.margin
        # Second looks (see _grow_step) only at the full limits: with softer ones, dense polystyrene's
        # try in the cell itself, which jams anyway, took three to four times as long with them.
        self.second_looks = limit_scale == 1.0
        self.window = window
        self._unit_of_atom = {id(kind): np.ascontiguousarray(kind.residue_of_atom, dtype=np.int32) for kind in kinds}
        self._clear = [_clear_states(kind, units, self.intra) for kind, units in zip(kinds, self.geometries, strict=True)]
        self.backoffs_per_unit = backoffs_per_unit
        if walls and self.box[2] <= 2 * tolerances.wall:
            raise EngineError("INVALID_INPUT", "The cell is too thin in z to keep atoms inside the walls.")
        self.grid = self._new_grid(total_atoms)
        self.positions = np.zeros((total_atoms, 3))  # unwrapped: each molecule whole
        self.molecule_offsets: list[int] = []  # set by grow()
        self.molecule_kinds: list[int] = []

    # -- scoring --------------------------------------------------------------------------------
    def _assess(
        self,
        candidates: np.ndarray,
        molecules: np.ndarray,
        checked: np.ndarray,
        kind: AssembledPolymer,
        centres: np.ndarray,
        radius: float,
        ahead_from: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Candidate placements (g, m, points, 3) of one unit for g molecules, the m candidates of
        each within `radius` of its centre (g, 3); `checked` (g, points) is the molecule-local atom each
        point stands for, points from `ahead_from` on being look-ahead points. Returns whether each
        candidate keeps every limit (g, m) and how crowded its surroundings are (atoms in the 27 cells
        around its centroid)."""
        groups, options = candidates.shape[:2]
        acceptable = np.ones((groups, options), dtype=bool)
        if self.walls:
            z = candidates[..., 2]
            acceptable &= ((z > self.tol.wall) & (z < self.box[2] - self.tol.wall)).all(axis=2)
        crowding = self.grid.crowding(candidates.mean(axis=2).reshape(-1, 3)).reshape(groups, options).astype(float)
        # Atoms farther than this from the centre can clash with no point (look-ahead points reach further).
        reach = radius + self.inter + (AHEAD_ROOM if ahead_from < checked.shape[1] else 0.0)
        grid = self.grid
        _growth.acceptable(
            acceptable,
            np.ascontiguousarray(candidates, dtype=float),
            np.ascontiguousarray(centres, dtype=float),
            reach,
            np.ascontiguousarray(molecules, dtype=np.int64),
            np.ascontiguousarray(checked, dtype=np.int64),
            ahead_from,
            AHEAD_ROOM,
            self._base,
            kind.close_pairs,
            kind.atom_count,
            self.inter,
            self.intra,
            grid.table,
            grid.positions,
            grid.molecule,
            *grid.frame,
            unit=self._unit_of_atom[id(kind)] if self.window is not None else None,
            window=-1 if self.window is None else self.window,
        )
        return acceptable, crowding

    def _state_scores(self, kind_index: int, chains: np.ndarray, units: np.ndarray) -> np.ndarray:
        """(g, states) log Boltzmann weight of each state of each chain's next unit (`units`, one shape):
        its transfer table at the parent's state, the weight of what follows it, -inf for the wrong
        hand. Chains extended together can be at different units of the same shape, whose tables,
        forward weights and hands differ (with the first chain's for all, syndiotactic polystyrene
        came out with 1-4 % meso dyads)."""
        units = np.asarray(units)
        if (units == units[0]).all():
            return self._unit_state_scores(kind_index, chains, int(units[0]))
        out = np.empty((len(chains), self.statistics[kind_index].tables[int(units[0])].shape[1]))
        for unit in np.unique(units).tolist():
            rows = units == unit
            out[rows] = self._unit_state_scores(kind_index, chains[rows], unit)
        return out

    def _unit_state_scores(self, kind_index: int, chains: np.ndarray, unit: int) -> np.ndarray:
        statistics = self.statistics[kind_index]
        table = statistics.tables[unit]
        parent = int(statistics.parents[unit])
        score = table[self._rows[self._unit_base[chains] + parent]] if parent >= 0 else np.broadcast_to(table[0], (len(chains), table.shape[1]))
        members = self._member[chains]
        score = score + self._forward[kind_index][unit][members if self._forward[kind_index][unit].shape[0] > 1 else 0]
        clear = self._clear[kind_index][unit]
        if clear is not None:
            score = np.where(clear[None, :], score, -np.inf)
        hands = statistics.state_hands[unit]
        column = self._hand_column[kind_index].get(unit)
        if hands is not None and column is not None:
            wanted = self._hands[kind_index][members, column]
            score = np.where(hands[None, :] == wanted[:, None], score, -np.inf)
        return score

    # -- placing units --------------------------------------------------------------------------
    def _place_root(self, molecule: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        """The first unit: the least crowded of a few random acceptable positions and orientations."""
        kind_index = int(self._kind[molecule])
        kind, unit = self.kinds[kind_index], self.geometries[kind_index][0]
        wall = self.tol.wall if self.walls else 0.0
        lower, upper = np.array([0.0, 0.0, wall]), self.box - np.array([0.0, 0.0, wall])
        checked = np.broadcast_to(unit.checked_atoms, (ROOT_BATCH, len(unit.checked_atoms)))
        found: list[tuple[float, tuple[np.ndarray, np.ndarray, int]]] = []
        score = self._state_scores(kind_index, np.array([molecule]), np.array([0]))[0]
        weights = np.exp(score - score.max())
        weights /= weights.sum()
        for _ in range(ROOT_TRIES // ROOT_BATCH):
            centres = self.rng.uniform(lower, upper, size=(ROOT_BATCH, 3))
            rotations = _random_rotations(self.rng, ROOT_BATCH)
            conformers = self.rng.choice(len(unit.centred), size=ROOT_BATCH, p=weights)
            xyz = np.einsum("gpj,gij->gpi", unit.points(conformers), rotations) + centres[:, None, :]
            molecules = np.full(ROOT_BATCH, molecule)
            acceptable, crowding = self._assess(xyz[:, None], molecules, checked, kind, centres, unit.extent, unit.ahead_from)
            for trial in np.flatnonzero(acceptable[:, 0])[: ROOT_CHOICES - len(found)]:
                found.append((float(crowding[trial, 0]), (rotations[trial], centres[trial], int(conformers[trial]))))
            if len(found) == ROOT_CHOICES:
                break
        if not found:
            return None
        return min(found, key=lambda item: item[0])[1]

    def _place_children(
        self, kind_index: int, chains: np.ndarray, every_conformer: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The next unit of each chain (molecule indices; one kind, next units of one batch):
        whether it found a place, and the rotations, anchor positions, conformers and states of those
        that did. Checks the STATES_TRIED first states of a Gumbel-top-k draw, or with
        `every_conformer` every state the weights allow."""
        kind, units, tables = self.kinds[kind_index], self.geometries[kind_index], self.tables[kind_index]
        index = self._placed[chains]
        unit = units[int(index[0])]  # what the batch shares: template, spun tables, extent, junction length, parent template
        parent = units[unit.parent]
        parent_units = self._unit_base[chains] + tables.parents[index]  # rows of the frame arrays
        anchor = self.positions[self._base[chains] + tables.parent_anchors[index]]
        parent_proxy = parent.centred_proxies[self._conformers[parent_units], unit.parent_site]
        bond = np.einsum("gij,gj->gi", self._rotations[parent_units], parent_proxy) + self._translations[parent_units] - anchor
        direction = bond / np.linalg.norm(bond, axis=1)[:, None]
        # Spun frame -> world: z onto the bond direction, turned so that the torsions tried count from
        # the phase partner (with a little jitter), or from a random phase where there is none.
        phases = self.rng.uniform(0, 2 * np.pi, size=len(chains))
        partners = tables.phase_partners[index]
        has_partner = partners >= 0
        if has_partner.any():
            axes = _frames_along(direction[has_partner], np.zeros(int(has_partner.sum())))
            seen = self.positions[self._base[chains][has_partner] + partners[has_partner]] - anchor[has_partner]
            azimuths = np.arctan2(np.einsum("gi,gi->g", seen, axes[:, :, 1]), np.einsum("gi,gi->g", seen, axes[:, :, 0]))
            phases[has_partner] = azimuths + self.rng.normal(0.0, TORSION_JITTER, size=len(azimuths))
        frames = _frames_along(direction, phases)
        score = self._state_scores(kind_index, chains, index) + self.rng.gumbel(size=(len(chains), len(unit.spun_conformers)))
        tried = score.shape[1] if every_conformer else min(STATES_TRIED, score.shape[1])
        rows = np.argsort(-score, axis=1)[:, :tried]  # (g, k) states in the order drawn
        possible = np.isfinite(np.take_along_axis(score, rows, axis=1))
        joint = anchor + direction * unit.bond_length
        candidates = np.einsum("gij,gkpj->gkpi", frames, unit.spun_points[rows]) + joint[:, None, None, :]
        checked = np.concatenate(
            [tables.offsets[index][:, None] + np.arange(unit.template.atom_count), tables.ahead_atoms[index, : len(unit.ahead_atoms)]], axis=1
        )
        acceptable, crowding = self._assess(candidates, chains, checked, kind, joint, unit.extent + 0.5, unit.ahead_from)
        acceptable &= possible
        placed = acceptable.any(axis=1)
        if every_conformer:
            # A stuck chain's second look also steers towards empty space, as growth did before
            # (a second-generation dendrimer at 0.3 g/cm³ could not be placed otherwise): a small bias
            # on the few placements that need it.
            least = np.where(acceptable, crowding, np.inf).min(axis=1, keepdims=True)
            least = np.where(np.isfinite(least), least, 0.0)  # rows with nothing acceptable stay unplaced
            steered = np.take_along_axis(score, rows, axis=1) - (crowding - least) / CROWDING_SCALE
            acceptable = acceptable & (steered == np.where(acceptable, steered, -np.inf).max(axis=1, keepdims=True))
        first = acceptable.argmax(axis=1)[placed]
        state = rows[placed, first]
        rotations = frames[placed] @ unit.spun_rotations[state]
        return np.asarray(placed), rotations, joint[placed], unit.spun_conformers[state], state

    def _commit(
        self, kind_index: int, chains: np.ndarray, rotations: np.ndarray, translations: np.ndarray, conformers: np.ndarray, states: np.ndarray
    ) -> np.ndarray:
        """Put the next unit of each chain (one kind, next units of one shape) in place; returns their atoms (g, a)."""
        index = self._placed[chains]
        unit = self.geometries[kind_index][int(index[0])]
        rows = self._unit_base[chains] + index
        self._rotations[rows], self._translations[rows], self._conformers[rows] = rotations, translations, conformers
        self._rows[rows] = states
        self._placed[chains] += 1
        atoms = (self._base[chains] + self.tables[kind_index].offsets[index])[:, None] + np.arange(unit.template.atom_count)
        xyz = np.einsum("gaj,gij->gai", unit.centred[conformers], rotations) + translations[:, None, :]
        self.positions[atoms] = xyz
        self.grid.insert(atoms.ravel(), xyz.reshape(-1, 3), np.repeat(chains, atoms.shape[1]))
        return atoms

    def _take_back(self, molecule: int, count: int) -> None:
        """Remove the molecule's last `count` units."""
        units, placed = self.geometries[self._kind[molecule]], int(self._placed[molecule])
        for index in range(placed - 1, placed - 1 - count, -1):
            self.grid.remove(self._base[molecule] + units[index].local_atoms)
        self._placed[molecule] -= count

    def _clashing_newcomers(self, atoms: np.ndarray) -> np.ndarray:
        """Units placed together were each checked against what was there before, not against one
        another: rows of `atoms` (g, a) whose unit comes too close to another row's unit that belongs
        to an earlier molecule (the earlier one keeps its place)."""
        clashing = np.zeros(len(atoms), dtype=bool)
        grid = self.grid
        _growth.clashing_newcomers(
            clashing,
            np.ascontiguousarray(atoms, dtype=np.int64),
            grid.table,
            grid.positions,
            grid.molecule,
            grid.cell_of,
            *grid.frame,
            self.inter,
        )
        return clashing

    def _grow_step(self, kind_index: int, chains: np.ndarray) -> None:
        """One more unit for chains (one kind, next units of one batch); chains that cannot take it
        back off (or start again, or make the build fail)."""
        # Branched molecules (dendrimers) crowd themselves: every state is looked at, steered towards
        # empty space, from the first look (they have no chain statistics to keep).
        stuck = self._place_next(kind_index, chains, every_conformer=not self.kinds[kind_index].plan.is_linear)
        # A stuck chain takes a second look with every conformer of the unit before it backs off:
        # crowded units (methyl methacrylate) otherwise meet dead ends faster than backing off gets
        # them out (5 × PMMA-50 could not be built even at 0.05 g/cm³). Only chains that fail pay for it.
        if self.second_looks and len(stuck) and len(self.geometries[kind_index][int(self._placed[stuck[0]])].spun_conformers) > STATES_TRIED:
            stuck = self._place_next(kind_index, stuck, every_conformer=True)
        for molecule in stuck.tolist():
            self._back_off(molecule)

    def _place_next(self, kind_index: int, chains: np.ndarray, every_conformer: bool) -> np.ndarray:
        """Place and commit the next unit of the chains that find room; returns the chains that found none."""
        placed, rotations, translations, conformers, states = self._place_children(kind_index, chains, every_conformer)
        if placed.any():
            atoms = self._commit(kind_index, chains[placed], rotations, translations, conformers, states)
            for molecule in chains[placed][self._clashing_newcomers(atoms)].tolist():
                self._take_back(molecule, 1)  # tries again next round; not a back-off
        return chains[~placed]

    def _back_off(self, molecule: int) -> None:
        """Take back one or two units (BACKOFF_UNITS), more when the chain keeps failing without
        getting further than before, and at least back to (and including) the failing unit's parent:
        in a dendrimer the units just before it are its siblings, whose removal changes nothing. A
        chain that fails too often without getting further is taken back whole and starts elsewhere."""
        self._backoffs += 1
        if self._backoffs > self._backoff_budget:
            raise EngineError(
                "PLACEMENT_FAILED",
                f"The molecules could not be grown in the {self.box[0]:.1f} × {self.box[1]:.1f} × {self.box[2]:.1f} Å cell "
                f"({self._backoffs} back-offs for {len(self._unit_base)} molecules). Lower the density or enlarge the cell.",
            )
        placed = int(self._placed[molecule])
        if placed > self._furthest[molecule]:
            self._furthest[molecule], self._failures_there[molecule] = placed, 0
        else:
            self._failures_there[molecule] += 1
        failures = int(self._failures_there[molecule])
        if failures > FAILURES_PER_START:
            self._restart(molecule)
            return
        depth = BACKOFF_UNITS * (1 + failures // ESCALATE_EVERY)
        parent = int(self.tables[self._kind[molecule]].parents[placed])
        steps = max(int(self.rng.integers(1, depth + 1)), placed - parent)
        self._take_back(molecule, min(placed - 1, steps))

    def _restart(self, molecule: int) -> None:
        """Take the whole molecule back to start it elsewhere, or fail when its starts are used up."""
        self._take_back(molecule, int(self._placed[molecule]))
        self._furthest[molecule] = self._failures_there[molecule] = 0
        self._starts[molecule] += 1
        if self._starts[molecule] >= self.starts:
            raise EngineError(
                "PLACEMENT_FAILED",
                f"A copy of polymer '{self.kinds[self._kind[molecule]].plan.name}' could not be placed without "
                f"overlapping other atoms ({int((self._placed == self._units).sum())} of {len(self._placed)} "
                "molecules were in place). Lower the density or enlarge the cell.",
            )

    def _new_grid(self, total_atoms: int) -> CellGrid:
        # Cells at least as wide as the full intermolecular limit (the grid also measures the final
        # contacts); wider in dilute systems so the table stays about one atom per cell.
        reach = self.tol.inter + self.tol.margin
        side = max(reach, float(np.prod(self.box) / max(total_atoms, 1)) ** (1 / 3))
        return CellGrid(self.box, periodic_z=not self.walls, cell_side=side, capacity=total_atoms)

    def move_to(self, positions: np.ndarray, box: np.ndarray) -> None:
        """Hold new positions (each molecule whole) in a new cell, after compression."""
        self.box = np.asarray(box, dtype=float)
        self.positions = np.array(positions)
        self.centre_molecules()

    def grow(self, order: list[int], on_progress: Callable[[float], None]) -> np.ndarray:
        """Place the molecules (kind indices, in construction order); returns unwrapped positions with
        each molecule whole and its centre inside the cell.

        Every molecule is started in construction order, then all grow together, one unit per chain
        per round: chains of one kind whose next units share a batch are extended in one vectorised
        step, which keeps Python's per-unit overhead out of large systems."""
        self.molecule_kinds = list(order)
        sizes = np.array([self.kinds[kind].atom_count for kind in order], dtype=np.int64)
        self._base = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.molecule_offsets = self._base.tolist()
        # Per molecule: its kind, units, units in place, back-offs and starts used; per unit of every
        # molecule (rows from _unit_base): the frame it was placed with and its conformer.
        self._kind = np.array(order, dtype=np.int64)
        self._units = np.array([len(self.geometries[kind]) for kind in order], dtype=np.int64)
        self._unit_base = np.concatenate([[0], np.cumsum(self._units)[:-1]]).astype(np.int64)
        self._placed = np.zeros(len(order), dtype=np.int64)
        self._furthest = np.zeros(len(order), dtype=np.int64)  # most units in place since the start
        self._failures_there = np.zeros(len(order), dtype=np.int64)  # back-offs since it was reached
        self._starts = np.zeros(len(order), dtype=np.int64)
        total_units = int(self._units.sum())
        self._backoffs = 0
        self._backoff_budget = np.inf if self.backoffs_per_unit is None else self.backoffs_per_unit * total_units
        self._rotations = np.zeros((total_units, 3, 3))
        self._translations = np.zeros((total_units, 3))
        self._conformers = np.zeros(total_units, dtype=np.int64)
        self._rows = np.zeros(total_units, dtype=np.int64)  # each placed unit's state (chain_statistics)
        self._assign_states(order)
        reported = 0.0
        while (growing := np.flatnonzero(self._placed < self._units)).size:
            for molecule in growing[self._placed[growing] == 0].tolist():
                while (root := self._place_root(molecule)) is None:
                    self._restart(molecule)  # counts a start; raises when they are used up
                rotation, translation, conformer = root
                self._commit(int(self._kind[molecule]), np.array([molecule]), rotation[None], translation[None], np.array([conformer]), np.array([conformer]))
            for kind_index in sorted_unique(self._kind[growing]).tolist():
                chains = growing[self._kind[growing] == kind_index]
                batch = self.tables[kind_index].batch[self._placed[chains]]  # every chain has its root
                for batch_id in sorted_unique(batch).tolist():
                    members = chains[batch == batch_id]
                    for start in range(0, len(members), BATCH):
                        self._grow_step(kind_index, members[start : start + BATCH])
            fraction = float(self._placed.sum()) / total_units
            if fraction - reported >= 0.02:
                reported = fraction
                on_progress(fraction)
        on_progress(1.0)
        self.centre_molecules()
        return self.positions

    def _assign_states(self, order: list[int]) -> None:
        """Hands of the controlled units of every molecule (its polymer's tacticity), and the forward
        weights the states of each molecule's units are drawn with."""
        kinds = np.array(order, dtype=np.int64)
        self._member = np.zeros(len(order), dtype=np.int64)  # a molecule's index among its kind's
        self._hands, self._hand_column, self._forward = [], [], []
        for kind_index, (kind, statistics) in enumerate(zip(self.kinds, self.statistics, strict=True)):
            molecules = np.flatnonzero(kinds == kind_index)
            self._member[molecules] = np.arange(len(molecules))
            tacticity, meso = kind.plan.tacticity, kind.plan.meso_fraction
            controlled = [] if tacticity == "as_drawn" else statistics.controlled.tolist()
            hands = assign_hands(len(controlled), tacticity, meso, len(molecules), self.rng)
            self._hands.append(hands)
            self._hand_column.append({unit: column for column, unit in enumerate(controlled)})
            masks: list[np.ndarray | None] = [None] * len(statistics.tables)
            for column, unit in enumerate(controlled):
                masks[unit] = statistics.state_hands[unit][None, :] == hands[:, column][:, None]
            for unit, clear in enumerate(self._clear[kind_index]):
                if clear is not None:
                    masks[unit] = clear[None, :] if masks[unit] is None else masks[unit] & clear[None, :]
            self._forward.append(statistics.log_forward(masks, max(len(molecules), 1)))

    def centre_molecules(self) -> None:
        """Shift each (whole) molecule by cell vectors so its centre lies inside the cell."""
        for molecule, kind_index in enumerate(self.molecule_kinds):
            start = self.molecule_offsets[molecule]
            atoms = slice(start, start + self.kinds[kind_index].atom_count)
            centre = self.positions[atoms].mean(axis=0)
            shift = np.where([True, True, not self.walls], np.floor(centre / self.box) * self.box, 0.0)
            self.positions[atoms] -= shift
