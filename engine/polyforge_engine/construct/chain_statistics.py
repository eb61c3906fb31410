"""Boltzmann statistics of chain conformations, in the rotational-isomeric-state (RIS) manner.

Every unit a chain grows by takes one of a discrete set of states: a row of its candidate table in
growth (one of its conformers, whose backbone bonds sit in their rotational states, turned about its
bond to the parent to one of TORSIONS angles). The energy of placing a unit in a state, given the
state of the unit it hangs from, is computed once per environment from the force field (MMFF94, as
the unit templates): the torsion terms and the non-bonded terms (buffered 14-7 van der Waals and
Coulomb, 1-4 pairs scaled as MMFF does, charges screened by DIELECTRIC as in a melt) of every dihedral
and every pair of atoms three or four bonds apart that the unit's placement completes, on rigid
rotations of the templates, plus for every backbone bond the unit sets a relaxation correction
(relaxed_torsions.py: what a constrained minimisation of a fragment around the bond gives back,
as the free energy of the span each state stands for). Pairs four bonds apart are what correlates
neighbouring torsions (polyethylene's g+g- "pentane effect"); farther pairs are left out, as in an
unperturbed chain, whose long-range interactions a melt screens.

DIELECTRIC: MMFF94's vacuum Coulomb overstates the 1-4 repulsion of PEO's oxygens, putting
1,2-dimethoxyethane's tgt conformer far above ttt, where MP2 calculations put it 0.1-0.2 kcal/mol
above (Jaffe, Smith and Yoon 1993; Sasanuma and Sugita 2006); screened by 10, MMFF94 gives MP2's
gaps (bench/README.md, "Builder settings") and test_build_relaxed_torsions.py holds DME to them.

So the chain is a Markov chain on unit states with transfer matrices exp(-E(parent state, state)/RT)
at BUILD_TEMPERATURE. The states are drawn exactly from its Boltzmann distribution: a backward pass
over the molecule (a tree: messages from the last unit to the root) gives each state its weight for
what comes after it (`log_forward`), and growth then draws each unit's state with probability
proportional to exp(-E(parent, state)/RT) x forward(state), only among placements that clash with
nothing (excluded volume is the one thing added to the local statistics).

Tacticity: a unit with one prochiral backbone centre has conformers of both hands (templates.py);
`assign_hands` gives every such unit of a molecule a hand (isotactic, syndiotactic, or atactic with a
meso fraction, Bernoullian) and growth only draws states of that hand.

The tables are kept on disk (disk_cache.py, as relaxed_torsions.py keeps its scans), each under a
digest of everything it is computed from (_Probe: the probe's geometry, force-field terms and
corrections, numbered from the unit's first atom), so a later build of any molecule with the same
environment reads the table back, bit for bit, instead of computing it. A probe's energy, row by row
(one row per pair of parent and own states), is compiled (mmff_terms.rigid_energies).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdForceFieldHelpers

from polyforge_engine.construct.assembly import AssembledPolymer
from polyforge_engine.construct.disk_cache import cache_directory, write_atomically
from polyforge_engine.construct.mmff_terms import COULOMB, ELECTROSTATIC_14, ELECTROSTATIC_BUFFER, rigid_energies
from polyforge_engine.construct.relaxed_torsions import BondCorrection, bond_correction, scans_ahead
from polyforge_engine.construct.templates import UnitTemplate, prochiral_centres

GAS_CONSTANT = 1.987204e-3  # kcal/mol/K
# The temperature whose Boltzmann weights chains are built with: a melt temperature, at which the
# unperturbed dimensions chains are compared against are measured (polyethylene at 413 K, polystyrene
# and PMMA near 400 K). Chains are then simulated at the job's temperature.
BUILD_TEMPERATURE = 400.0  # K
BUILD_RT = GAS_CONSTANT * BUILD_TEMPERATURE
NONBONDED_REACH = 4  # bonds: pairs 3 and 4 bonds apart (1-4, 1-5)
MIN_PAIR_DISTANCE = 3
DIELECTRIC = 10.0  # screening of the Coulomb terms, calibrated on DME (above)
ANCESTORS = 4  # units back from a unit that its placement energy can reach
# MMFF's torsion terms alone leave too many secondary amides (peptide bonds) cis; an extra V1 on the
# O=C-N-H dihedral keeps peptide bonds trans, as peptide builders do (bench/README.md, "Builder settings").
AMIDE_TRANS_V1 = 4.0  # kcal/mol
# Transfer tables are kept on disk (disk_cache.py), one .npy file per probe, named by a digest of
# everything the table is computed from (_Probe.digest). Bump this whenever what is computed from a
# probe changes (_log_weights, the energy functions, BondCorrection.at); what a probe holds is hashed
# field by field.
TABLE_CACHE_VERSION = 2

TACTICITIES = ("atactic", "isotactic", "syndiotactic", "as_drawn")


def frames_along(directions: np.ndarray, phases: np.ndarray) -> np.ndarray:
    """(g, 3, 3) rotations that turn about z by `phases` and then take z onto the unit `directions`
    (the shortest rotation, in closed form; a half turn about x for -z)."""
    dx, dy, dz = directions.T
    k = 1.0 / np.maximum(1.0 + dz, 1e-12)
    align = np.empty((len(directions), 3, 3))
    align[:, 0, 0], align[:, 0, 1], align[:, 0, 2] = 1 - k * dx * dx, -k * dx * dy, dx
    align[:, 1, 0], align[:, 1, 1], align[:, 1, 2] = -k * dx * dy, 1 - k * dy * dy, dy
    align[:, 2, 0], align[:, 2, 1], align[:, 2, 2] = -dx, -dy, 1 - k * (dx * dx + dy * dy)
    align[dz < -1 + 1e-9] = np.diag([1.0, -1.0, -1.0])
    # align @ (spin about z): the third column stays, the first two turn by the phase.
    cos, sin = np.cos(phases)[:, None], np.sin(phases)[:, None]
    frames = align.copy()
    frames[:, :, 0] = align[:, :, 0] * cos + align[:, :, 1] * sin
    frames[:, :, 1] = align[:, :, 1] * cos - align[:, :, 0] * sin
    return frames


def _is_amide_o_h(mol: Chem.Mol, quadruple: tuple[int, int, int, int]) -> bool:
    """Whether i-j-k-m is O=C-N-H (either way round) of a secondary amide."""
    atoms = [mol.GetAtomWithIdx(index) for index in quadruple]
    if atoms[0].GetSymbol() == "H":
        atoms.reverse()
    o, c, n, h = atoms
    if (o.GetSymbol(), c.GetSymbol(), n.GetSymbol(), h.GetSymbol()) != ("O", "C", "N", "H"):
        return False
    bond = mol.GetBondBetweenAtoms(o.GetIdx(), c.GetIdx())
    return bond is not None and bond.GetBondType() == Chem.BondType.DOUBLE and n.GetTotalNumHs(includeNeighbors=True) == 1


def dihedral_degrees(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Signed dihedral (degrees, IUPAC) of points (..., 3)."""
    b1, b2, b3 = b - a, c - b, d - c
    n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
    m = np.cross(n1, b2 / np.maximum(np.linalg.norm(b2, axis=-1, keepdims=True), 1e-12))
    return np.degrees(np.arctan2(np.einsum("...i,...i->...", m, n2), np.einsum("...i,...i->...", n1, n2)))


@dataclass
class KindStatistics:
    """Transfer tables of one polymer kind: per unit, log weights (-E/RT) of its states given its
    parent's state, (parent states, states); the root's are (1, states)."""

    tables: list[np.ndarray]
    parents: np.ndarray
    state_hands: list[np.ndarray | None]  # per unit, (states,) hand of its controlled centre, or None
    controlled: np.ndarray  # units whose hand tacticity sets, in chain order

    def log_forward(self, masks: list[np.ndarray | None], molecules: int) -> list[np.ndarray]:
        """Per unit, (molecules, states) log of the Boltzmann weight of everything after each state
        (0 for units without children), for states allowed by `masks` (per unit (molecules, states)
        booleans, or None for all); exact for the tree, by messages from the leaves to the root."""
        forward = [np.zeros((1, table.shape[1])) for table in self.tables]
        for unit in range(len(self.tables) - 1, 0, -1):
            own = forward[unit]
            mask = masks[unit]
            if mask is not None:
                own = np.where(mask, own, -np.inf)
            total = self.tables[unit][None, :, :] + own[:, None, :]  # (m, parent states, states)
            peak = total.max(axis=2, keepdims=True)
            peak = np.where(np.isfinite(peak), peak, 0.0)
            message = np.log(np.exp(total - peak).sum(axis=2)) + peak[:, :, 0]
            parent = int(self.parents[unit])
            forward[parent] = forward[parent] + message
            forward[parent] -= forward[parent].max(axis=1, keepdims=True).clip(min=-1e300)  # only ratios matter
        return [np.broadcast_to(f, (molecules, f.shape[1])) if f.shape[0] == 1 else f for f in forward]


def assign_hands(controlled: int, tacticity: str, meso_fraction: float, molecules: int, rng: np.random.Generator) -> np.ndarray:
    """(molecules, controlled) hands +1/-1 of the controlled units of every molecule, in chain order."""
    if controlled == 0:
        return np.zeros((molecules, 0), dtype=np.int8)
    first = rng.choice(np.array([-1, 1], dtype=np.int8), size=(molecules, 1))
    if tacticity == "isotactic":
        flips = np.zeros((molecules, controlled - 1), dtype=bool)
    elif tacticity == "syndiotactic":
        flips = np.ones((molecules, controlled - 1), dtype=bool)
    else:  # atactic: every dyad meso with probability meso_fraction, independently (Bernoullian)
        flips = rng.random((molecules, controlled - 1)) >= meso_fraction
    signs = np.concatenate([np.ones((molecules, 1), dtype=np.int8), np.where(flips, -1, 1).astype(np.int8)], axis=1)
    return (first * np.cumprod(signs, axis=1)).astype(np.int8)


class _Terms:
    """The force-field terms of one kind, and which unit's placement completes each."""

    def __init__(self, kind: AssembledPolymer, geometries: list):
        self.kind = kind
        self.mol = kind.mol
        self.properties = rdForceFieldHelpers.MMFFGetMoleculeProperties(kind.mol)
        self.neighbours = [[n.GetIdx() for n in atom.GetNeighbors()] for atom in kind.mol.GetAtoms()]
        units = kind.plan.units
        sizes = np.diff(np.append(kind.unit_offsets, kind.atom_count))
        self.unit_of_atom = np.repeat(np.arange(len(units)), sizes)
        # When an atom's position is fixed: a unit's anchor already when its parent is placed (as the
        # parent's look-ahead point), every other atom with its own unit.
        self.time = self.unit_of_atom.copy()
        for geometry in geometries:
            if geometry.parent >= 0:
                self.time[geometry.offset + geometry.template.sites[geometry.own_site].anchor] = geometry.parent
        if self.properties is not None:
            self.charges = np.array([self.properties.GetMMFFPartialCharge(i) for i in range(kind.atom_count)])
        # Backbone dihedrals of rotatable bonds, for their relaxation corrections (relaxed_torsions.py).
        self.backbone: list[int] = []
        self.backbone_dihedrals: list[tuple[int, int, int, int]] = []
        self.centres: list[tuple[int, int, int, int]] = []
        self._corrections: dict[tuple[int, int, int, int], BondCorrection | None] = {}
        if self.properties is not None and kind.end_atoms is not None and kind.end_atoms[0] != kind.end_atoms[1]:
            self.backbone = list(Chem.GetShortestPath(kind.mol, *kind.end_atoms))
            self.centres = [centre[:4] for centre in prochiral_centres(kind.mol, self.backbone)]
            for p in range(len(self.backbone) - 3):
                a, b, c, d = self.backbone[p : p + 4]
                quadruple = (a, b, c, d)
                bond = kind.mol.GetBondBetweenAtoms(quadruple[1], quadruple[2])
                if bond.GetBondType() == Chem.BondType.SINGLE and not bond.IsInRing():
                    self.backbone_dihedrals.append(quadruple)

    def backbone_dihedrals_of(self, unit: int, known: set[int]) -> list[tuple[int, int, int, int]]:
        """The backbone dihedrals `unit`'s placement completes (all their atoms in `known`)."""
        return [q for q in self.backbone_dihedrals if max(self.time[a] for a in q) == unit and all(a in known for a in q)]

    def corrections_for(self, unit: int, known: set[int]) -> list[tuple[tuple[int, int, int, int], BondCorrection]]:
        """Relaxation corrections of the backbone dihedrals `unit`'s placement completes."""
        out = []
        for quadruple in self.backbone_dihedrals_of(unit, known):
            if quadruple not in self._corrections:
                # A junction turns to any of growth's TORSIONS states, each standing for 30°; a unit's
                # own bond has its three (or fewer) states, each standing for its whole well.
                junction = self.unit_of_atom[quadruple[1]] != self.unit_of_atom[quadruple[2]]
                self._corrections[quadruple] = bond_correction(
                    self.mol, quadruple, self.backbone, self.centres, DIELECTRIC, BUILD_RT, width=30.0 if junction else 120.0
                )
            correction = self._corrections[quadruple]
            if correction is not None and all(a in known for centre in correction.centres for a in centre):
                out.append((quadruple, correction))
        return out

    def within(self, atom: int, reach: int) -> dict[int, int]:
        """Atoms within `reach` bonds of `atom`, with their distance in bonds."""
        seen = {atom: 0}
        queue = deque([atom])
        while queue:
            current = queue.popleft()
            if seen[current] == reach:
                continue
            for n in self.neighbours[current]:
                if n not in seen:
                    seen[n] = seen[current] + 1
                    queue.append(n)
        return seen

    def completed_by(self, unit: int, known: set[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Dihedrals (n, 4) with their (n, 3) MMFF terms, and non-bonded pairs (p, 2) with their van der
        Waals R*, epsilon and charge products (p, 3), whose last atom to be placed is placed with
        `unit` (and all of whose atoms are in `known`)."""
        new = [a for a in known if self.time[a] == unit]
        quadruples: set[tuple[int, int, int, int]] = set()
        pairs: dict[tuple[int, int], int] = {}
        if self.properties is None:
            return np.zeros((0, 4), int), np.zeros((0, 3)), np.zeros((0, 2), int), np.zeros((0, 3)), np.zeros(0)

        def usable(atom: int) -> bool:
            return atom in known and self.time[atom] <= unit

        for a in new:
            for other, distance in self.within(a, NONBONDED_REACH).items():
                if distance >= MIN_PAIR_DISTANCE and usable(other) and (self.time[other] < unit or other > a):
                    pairs[(min(a, other), max(a, other))] = distance
            # Dihedrals through a: a at either end, or in the middle.
            for j in self.neighbours[a]:
                for k in self.neighbours[j]:
                    if k == a:
                        continue
                    for m in self.neighbours[k]:
                        if m not in (a, j):
                            quadruples.add((a, j, k, m) if a < m else (m, k, j, a))
                for i in self.neighbours[a]:  # a second: i-a-j-k
                    if i == j:
                        continue
                    for k in self.neighbours[j]:
                        if k not in (a, i):
                            quadruples.add((i, a, j, k) if i < k else (k, j, a, i))
        dihedrals, terms = [], []
        for quadruple in sorted(quadruples):
            if not all(usable(x) for x in quadruple):
                continue
            params = self.properties.GetMMFFTorsionParams(self.mol, *quadruple)
            values = np.array(params[1:] if params else (0.0, 0.0, 0.0), dtype=float)
            if _is_amide_o_h(self.mol, quadruple):
                values[0] += AMIDE_TRANS_V1
            if values.any():
                dihedrals.append(quadruple)
                terms.append(values)
        pair_list = sorted(pairs)
        vdw = np.zeros((len(pair_list), 3))
        for row, (a, b) in enumerate(pair_list):
            params = self.properties.GetMMFFVdWParams(a, b)
            scale = ELECTROSTATIC_14 if pairs[(a, b)] == 3 else 1.0
            vdw[row] = (params[2], params[3], scale * self.charges[a] * self.charges[b])
        return (
            np.array(dihedrals, dtype=np.int64).reshape(-1, 4),
            np.array(terms).reshape(-1, 3),
            np.array(pair_list, dtype=np.int64).reshape(-1, 2),
            vdw,
            np.zeros(0),
        )


def _members(units: Sequence[Any], unit: int) -> list[int]:
    """Units placed before `unit` whose atoms its placement can see: its ancestors up to ANCESTORS
    back and the ancestors' children placed before it."""
    ancestors: list[int] = []
    current = units[unit].parent
    while current >= 0 and len(ancestors) < ANCESTORS:
        ancestors.append(current)
        current = units[current].parent
    chosen = set(ancestors)
    for index in range(unit):
        if units[index].parent in ancestors:
            chosen.add(index)
    return sorted(chosen)


def kind_statistics(kind: AssembledPolymer, templates: dict[str, UnitTemplate], geometries: list) -> KindStatistics:
    """Transfer tables of every unit of `kind` (geometries: growth's _UnitGeometry per unit)."""
    units = kind.plan.units
    terms = _Terms(kind, geometries)
    cache: dict[tuple, np.ndarray] = {}
    tables: list[np.ndarray] = []
    reference: list[int] = []  # most likely state of each unit, for units held fixed in a probe
    with _scans_ahead(terms, geometries):
        for unit in range(len(units)):
            members = _members(units, unit)
            key = (_environment(units, geometries, members, unit), tuple(reference[member] for member in members))
            if key not in cache:
                cache[key] = _table(terms, geometries, members, unit, reference) if kind.plan.is_linear else _flat(geometries, unit)
            table = cache[key]
            tables.append(table)
            marginal = table.max(axis=0)
            reference.append(int(np.argmax(marginal)))
    state_hands: list[np.ndarray | None] = []
    controlled = []
    for unit, geometry in enumerate(geometries):
        template = geometry.template
        hands = template.hands
        if units[unit].is_cap or hands is None or hands.shape[1] == 0 or template.stereo_drawn:
            state_hands.append(None)
            continue
        conformers = geometry.spun_conformers if geometry.parent >= 0 else np.arange(len(geometry.centred))
        state_hands.append(hands[conformers, 0])
        controlled.append(unit)
    return KindStatistics(
        tables=tables,
        parents=np.array([u.parent for u in units], dtype=np.int64),
        state_hands=state_hands,
        controlled=np.array(controlled, dtype=np.int64),
    )


def _environment(units: Sequence[Any], geometries: list, members: list[int], unit: int) -> tuple:
    """What a probe of `unit` places, but for the states its members are held in: units with the same
    environment and references have the same table."""
    return (
        *((member - unit, geometries[member].shape, units[member].parent_site, units[member].parent - unit) for member in members),
        (0, geometries[unit].shape, units[unit].parent_site),
    )


def _scans_ahead(terms: _Terms, geometries: list) -> contextlib.AbstractContextManager[None]:
    """relaxed_torsions.scans_ahead for the backbone dihedrals of the first unit of each environment,
    in chain order: the units kind_statistics computes tables for (the others differ from one of
    those in their members' reference states alone, and meet the same fragments)."""
    ahead: list[tuple[int, int, int, int]] = []
    if terms.kind.plan.is_linear and terms.backbone_dihedrals:
        units = terms.kind.plan.units
        seen: set[tuple] = set()
        for unit in range(len(units)):
            members = _members(units, unit)
            environment = _environment(units, geometries, members, unit)
            if environment not in seen:
                seen.add(environment)
                ahead += [q for q in terms.backbone_dihedrals_of(unit, _known_atoms(geometries, members, unit)) if q not in ahead]
    return scans_ahead(terms.mol, ahead, terms.backbone, terms.centres, DIELECTRIC, BUILD_RT)


def _known_atoms(geometries: list, members: list[int], unit: int) -> set[int]:
    """The atoms a probe of `unit` places: its members' and its own, and the atoms its look-ahead
    points stand for."""
    atoms = {a for member in (*members, unit) for a in range(geometries[member].offset, geometries[member].offset + geometries[member].template.atom_count)}
    atoms.update(int(atom) for atom in geometries[unit].ahead_atoms.tolist())
    return atoms


def _flat(geometries: list, unit: int) -> np.ndarray:
    """Equal weights: branched molecules (dendrimers) crowd themselves, and their growth steers every
    unit towards empty space instead (growth.py); with Boltzmann weights the first copies of a
    second-generation dendrimer grew so open that the third found no room at 0.3 g/cm³."""
    parent = geometries[unit].parent
    return np.zeros((_states(geometries[parent]) if parent >= 0 else 1, _states(geometries[unit])))


def _states(geometry: Any) -> int:
    return len(geometry.spun_conformers) if geometry.parent >= 0 else len(geometry.centred)


@dataclass(frozen=True)
class _Placed:
    """One unit of a probe as _log_weights places it; atoms are numbered from the probed unit's first
    atom, so the same environment anywhere in any molecule makes the same probe."""

    offset: int  # first atom
    atom_count: int
    held: int | None  # the state it is held in, None for the probed unit and its parent (every state)
    root: bool  # the molecule's first unit: its states are its conformers, not spun rows
    parent: int  # index in the probe of the unit it hangs from, -1: held in its own frame
    parent_site: int
    parent_anchor: int  # atom of the parent it bonds to
    phase_partner: int | None  # placed atom its torsions are counted from (_UnitGeometry), if placed
    bond_length: float
    centred: np.ndarray
    centred_proxies: np.ndarray
    ahead_sites: np.ndarray
    spun_points: np.ndarray
    spun_rotations: np.ndarray
    spun_conformers: np.ndarray


@dataclass(frozen=True)
class _Probe:
    """Everything _log_weights reads: the units placed (members, then the probed unit) and the terms
    and relaxation corrections the probed unit's placement completes, all numbered as in _Placed."""

    placed: tuple[_Placed, ...]
    parent_states: int
    own_states: int
    ahead_atoms: np.ndarray  # the probed unit's look-ahead points stand for these atoms
    dihedrals: np.ndarray
    torsion_terms: np.ndarray
    pairs: np.ndarray
    pair_terms: np.ndarray
    corrections: tuple[tuple[tuple[int, ...], BondCorrection], ...]

    def digest(self) -> str:
        """sha256 of every field, the constants _log_weights uses and TABLE_CACHE_VERSION: equal
        digests, equal tables (bit for bit)."""
        h = hashlib.sha256()
        _feed(h, (TABLE_CACHE_VERSION, np.__version__, BUILD_RT, COULOMB, DIELECTRIC, ELECTROSTATIC_BUFFER))
        _feed(h, self)
        return h.hexdigest()


def _feed(h: Any, value: Any) -> None:
    """Adds `value` to the hash `h`, typed and delimited (arrays with their dtype and shape)."""
    if isinstance(value, np.ndarray | np.generic):
        array = np.ascontiguousarray(value)
        h.update(f"a{array.dtype.str}{array.shape}".encode())
        h.update(array.tobytes())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(f"d{type(value).__name__}".encode())
        for field in dataclasses.fields(value):
            h.update(field.name.encode())
            _feed(h, getattr(value, field.name))
    elif isinstance(value, tuple | list):
        h.update(f"t{len(value)}".encode())
        for item in value:
            _feed(h, item)
    elif value is None or isinstance(value, bool | int | float | str):
        h.update(f"s{type(value).__name__}{value!r};".encode())
    else:
        raise TypeError(f"cannot digest {type(value).__name__}")


def _probe(terms: _Terms, geometries: list, members: list[int], unit: int, reference: list[int]) -> _Probe:
    """The probe of `unit` (see _table)."""
    geometry = geometries[unit]
    base = geometry.offset
    parent = geometry.parent
    order = [*members, unit]
    placed: list[_Placed] = []
    known: list[int] = []  # atoms in the order they are placed
    for member in order:
        g = geometries[member]
        held_in_probe = g.parent >= 0 and g.parent in order[: len(placed)]
        p = geometries[g.parent] if held_in_probe else None
        placed.append(
            _Placed(
                offset=g.offset - base,
                atom_count=g.template.atom_count,
                held=None if member in (unit, parent) else reference[member],
                root=g.parent < 0,
                parent=order.index(g.parent) if held_in_probe else -1,
                parent_site=g.parent_site,
                parent_anchor=p.offset + p.template.sites[g.parent_site].anchor - base if p is not None else 0,
                phase_partner=g.phase_partner - base if g.phase_partner >= 0 and g.phase_partner in known else None,
                bond_length=g.bond_length,
                centred=g.centred,
                centred_proxies=g.centred_proxies,
                ahead_sites=g.ahead_sites,
                spun_points=g.spun_points,
                spun_rotations=g.spun_rotations,
                spun_conformers=g.spun_conformers,
            )
        )
        known.extend(range(g.offset, g.offset + g.template.atom_count))
    every = _known_atoms(geometries, members, unit)
    dihedrals, torsion_terms, pairs, pair_terms, _ = terms.completed_by(unit, every)
    corrections = tuple(
        (
            tuple(a - base for a in quadruple),
            dataclasses.replace(correction, centres=tuple(tuple(a - base for a in centre) for centre in correction.centres)),
        )
        for quadruple, correction in terms.corrections_for(unit, every)
    )
    return _Probe(
        placed=tuple(placed),
        parent_states=_states(geometries[parent]) if parent >= 0 else 1,
        own_states=_states(geometry),
        ahead_atoms=geometry.ahead_atoms - base,
        dihedrals=dihedrals - base,
        torsion_terms=torsion_terms,
        pairs=pairs - base,
        pair_terms=pair_terms,
        corrections=corrections,
    )


def _table(terms: _Terms, geometries: list, members: list[int], unit: int, reference: list[int]) -> np.ndarray:
    """Log weights (parent states, states) of `unit`, from its energy in a probe: its members placed
    in their reference states, its parent in each of its states, the unit in each of its own.

    Read from the store on disk (disk_cache.py) where a build before computed the same probe."""
    probe = _probe(terms, geometries, members, unit, reference)
    directory = cache_directory(f"chain-tables-v{TABLE_CACHE_VERSION}")
    path = directory / f"{probe.digest()}.npy" if directory is not None else None
    if path is not None:
        try:
            stored = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError):  # none stored, or a file cut short: computed again
            stored = None
        if stored is not None and stored.shape == (probe.parent_states, probe.own_states) and stored.dtype == np.float64:
            return stored
    table = _log_weights(probe)
    if path is not None:
        buffer = io.BytesIO()
        np.save(buffer, table, allow_pickle=False)
        write_atomically(path, buffer.getvalue())
    return table


def _log_weights(probe: _Probe) -> np.ndarray:
    """The probe's log weights (parent states, states): -E/RT relative to its lowest energy.

    Row p * own_states + s of the batch holds the parent in state p and the unit in state s. A unit
    placed only from held units is placed once and one placed from the parent once per parent state
    (`_Level`), then spread over the rows: the same numbers as placing every unit in every row."""
    own_states, parent_states = probe.own_states, probe.parent_states
    batch = parent_states * own_states
    column_of = _columns(probe)
    xyz = np.empty((batch, len(column_of), 3))  # every atom of the probe, in every row
    by_parent = xyz.reshape(parent_states, own_states, len(column_of), 3)  # the same memory
    level_of = np.zeros(len(column_of), dtype=np.int64)  # the _Level each column was placed at
    frames: dict[int, tuple[int, np.ndarray, np.ndarray, np.ndarray]] = {}  # placed -> level, rotations, translations, conformers
    last = len(probe.placed) - 1

    def at(column: int, level: int) -> np.ndarray:
        """Positions (rows of `level`, 3) of a placed column, whose level is at most `level`."""
        if level == _Level.ONE:
            return xyz[:1, column]
        return by_parent[:, 0, column] if level == _Level.PARENT else xyz[:, column]

    for index, g in enumerate(probe.placed):
        # Its atoms, and the probed unit's look-ahead points, land in these columns of xyz.
        wanted = g.atom_count + (len(probe.ahead_atoms) if index == last else 0)
        atoms = [*range(g.offset, g.offset + g.atom_count), *(probe.ahead_atoms.tolist() if index == last else [])]
        columns = _as_slice([column_of[int(atom)] for atom in atoms])
        level = _Level.ROW if index == last else _Level.PARENT if g.held is None else _Level.ONE
        if g.parent >= 0:
            level = max(level, frames[g.parent][0])  # its anchor is the parent's atom, placed at the parent's level
            if g.phase_partner is not None:
                level = max(level, int(level_of[column_of[g.phase_partner]]))
        count = (1, parent_states, batch)[level]
        if index == last:
            states = np.tile(np.arange(own_states), parent_states)
        elif g.held is None:
            states = np.arange(parent_states) if level == _Level.PARENT else np.repeat(np.arange(parent_states), own_states)
        else:
            states = np.full(count, g.held)
        if g.parent < 0:  # the first member: held in its own frame
            conformers = states if g.root else g.spun_conformers[states]
            rotations = np.broadcast_to(np.eye(3), (count, 3, 3))
            translations = np.zeros((count, 3))
            points = g.centred[conformers]
            if wanted > g.atom_count:
                points = np.concatenate([points, g.centred_proxies[conformers][:, g.ahead_sites]], axis=1)
        else:
            p = probe.placed[g.parent]
            parent_level, parent_rotations, parent_translations, parent_conformers = frames[g.parent]
            parent_rotations, parent_translations, parent_conformers = (
                _spread(array, parent_level, level, own_states, count) for array in (parent_rotations, parent_translations, parent_conformers)
            )
            anchor = at(column_of[g.parent_anchor], level)
            proxy = p.centred_proxies[parent_conformers, g.parent_site]
            bond = np.einsum("gij,gj->gi", parent_rotations, proxy) + parent_translations - anchor
            direction = bond / np.linalg.norm(bond, axis=1)[:, None]
            phases = np.zeros(count)
            if g.phase_partner is not None:
                axes = frames_along(direction, np.zeros(count))
                seen = at(column_of[g.phase_partner], level) - anchor
                phases = np.arctan2(np.einsum("gi,gi->g", seen, axes[:, :, 1]), np.einsum("gi,gi->g", seen, axes[:, :, 0]))
            spun_frames = frames_along(direction, phases)
            translations = anchor + direction * g.bond_length
            rotations = spun_frames @ g.spun_rotations[states]
            conformers = g.spun_conformers[states]
            points = g.spun_points[states, :wanted] @ spun_frames.transpose(0, 2, 1) + translations[:, None, :]
        frames[index] = (level, rotations, translations, conformers)
        if level == _Level.ROW:
            xyz[:, columns] = points[:, :wanted]
        elif level == _Level.PARENT:
            by_parent[:, :, columns] = points[:, None, :wanted]
        else:
            xyz[:, columns] = points[0, :wanted]
        level_of[columns] = level
    energy = np.empty(batch)
    rigid_energies(
        energy,
        xyz,
        np.array([[column_of[int(a)] for a in row] for row in probe.dihedrals], dtype=np.int64).reshape(-1, 4),
        np.ascontiguousarray(probe.torsion_terms, dtype=float).reshape(-1, 3),
        np.array([[column_of[int(a)] for a in row] for row in probe.pairs], dtype=np.int64).reshape(-1, 2),
        np.ascontiguousarray(probe.pair_terms, dtype=float).reshape(-1, 3),
        DIELECTRIC,
    )
    for quadruple, correction in probe.corrections:
        phi = dihedral_degrees(*(xyz[:, column_of[a]] for a in quadruple))
        # A fragment scanned with prochiral centres: states of the other hand at every centre see
        # its mirror image (Δ(-φ)); mixed hands, another configuration, get no correction.
        relation = None
        for centre, hand in zip(correction.centres, correction.hands, strict=True):
            c, head, tail, side = (xyz[:, column_of[a]] for a in centre)
            same = np.where(np.einsum("gi,gi->g", np.cross(head - c, tail - c), side - c) >= 0, 1.0, -1.0) * hand
            relation = same if relation is None else np.where(relation == same, relation, 0.0)
        relation = np.ones(batch) if relation is None else relation
        energy += np.where(relation > 0, correction.at(phi), np.where(relation < 0, correction.at(-phi), 0.0))
    log_weights = -(energy - energy.min()) / BUILD_RT
    return log_weights.reshape(parent_states, own_states)


class _Level:
    """How many rows of a probe a unit's placement differs over (_log_weights)."""

    ONE = 0  # none: it and every unit it is placed from are held
    PARENT = 1  # one per parent state
    ROW = 2  # every row


def _spread(array: np.ndarray, level: int, to: int, own_states: int, count: int) -> np.ndarray:
    """Rows of `array` placed at `level`, as the `count` rows of level `to` (at least as fine)."""
    if level == to:
        return array
    if level == _Level.ONE:
        return np.broadcast_to(array, (count, *array.shape[1:]))
    return np.repeat(array, own_states, axis=0)


def _as_slice(columns: list[int]) -> slice | list[int]:
    """`columns` as a slice where they run consecutively (a view to write into, not a gather)."""
    if columns and columns == list(range(columns[0], columns[0] + len(columns))):
        return slice(columns[0], columns[0] + len(columns))
    return columns


def _columns(probe: _Probe) -> dict[int, int]:
    """Column in _log_weights' xyz of every atom the probe places: its units' atoms in order, then the
    probed unit's look-ahead atoms."""
    column_of: dict[int, int] = {}
    for g in probe.placed:
        for atom in range(g.offset, g.offset + g.atom_count):
            column_of.setdefault(atom, len(column_of))
    for atom in probe.ahead_atoms.tolist():
        column_of.setdefault(int(atom), len(column_of))
    return column_of
