"""Squeezing a system grown in a larger cell down to its target cell, for cells too dense to fill by
growth alone.

Chain growth with hard distance limits jams well below melt densities, so a dense system is grown in
a proportionally larger cell and then compressed in small steps: coordinates and cell are scaled
together, and after each step a minimiser restores the geometry on a purely geometric energy.
Bond lengths (stiffly) and angles (pairs one and two bonds apart) are held at their built values,
and so are pairs across rigid bonds (ring, multiple, conjugated), which keeps rings flat and
stereocentres as built while single bonds stay free to turn. A threefold torsion term on the
heavy-atom dihedrals about single bonds between sp3 atoms keeps those turning between staggered
states, as they were grown, while the system is squeezed (without it squeezed torsions end near
eclipsed: bench/README.md, "Builder settings"), and is switched off for a last minimisation that
gives back the strain it put on bonds and angles. A short-range quadratic repulsion pushes apart
every other pair closer than its limit (between molecules or within one molecule). With walls only x
and y are compressed and a quadratic wall keeps atoms inside 0 < z < C (z is then not periodic). A
system grown in its own cell with softer limits is relaxed the same way, without the squeezing.

The energy and its L-BFGS minimiser are compiled (`_relax.c`): with OpenMM, most of a dense build's
relaxation went on rebuilding its neighbour list and setting up its System from Python pair by pair
(bench/README.md, "Builder settings").
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
from rdkit import Chem

from polyforge_engine.construct.assembly import AssembledPolymer, system_bonds
from polyforge_engine.construct.growth import Tolerances
from polyforge_engine.construct.rings import ring_groups
from polyforge_engine.runtime.openmm_cpu import engine_threads, sleeping_openmp_threads

with sleeping_openmp_threads():
    from polyforge_engine.construct._relax import Relaxer

HOLD_CONSTANT = 5.0e3  # kJ/mol/Å² on held pairs that are not bonds (angles, across rigid bonds)
# Stiffer on bonds, which crowded neighbours would otherwise stretch or squeeze; stiffer still keeps
# them closer but costs the minimiser iterations (bench/README.md, "Builder settings").
BOND_CONSTANT = 2.0e4
PUSH_CONSTANT = 5.0e3  # kJ/mol/Å² on pairs closer than their limit
# Stiffer in the polish after a push-off once STIFF_POLISH_ROUNDS did not keep the limits: pushed-off
# chains can jam a few pairs a hair inside them against held bonds and angles. Not from the start:
# throughout, it strains bonds where PUSH_CONSTANT keeps the limits (bench/README.md, "Builder settings").
PUSH_OFF_CONSTANT = 2.0e4
STAGGER_CONSTANT = 300.0
WALL_CONSTANT = 5.0e3  # kJ/mol/Å²
PUSH_BEYOND = 0.15  # Å: aim past the limits, so a loosely converged minimum still keeps them
STEP = 0.94  # linear compression per step
# Linear chains are compressed by moving their centres with the cell and keeping their shapes (the
# minimiser then lets them give way to one another where they meet), not by scaling every coordinate,
# which shrinks each chain with the cell. Moved whole, two chains jump towards each other by
# (1 - step) times the distance between their centres in one step, so the steps are finer than STEP
# (bench/README.md, "Builder settings").
RIGID_STEP = 0.97
STEP_ITERATIONS = 300  # minimiser iterations per compression step, at most
# The minimiser stops at this root-mean-square gradient component (kJ/mol/Å). Loose on purpose: a pair
# pushed with 50 kJ/mol/Å is 0.005 Å inside its aim, which lies PUSH_BEYOND + margin past the limit,
# and whether every pair keeps its limit is measured (`limits_kept`), not inferred from the forces.
# Not looser: a compression stopped earlier leaves more to the polish, which runs without the
# staggering term and turns junction torsions towards eclipsed (bench/README.md, "Builder settings").
STEP_TOLERANCE = 50.0
POLISH_TOLERANCE = 10.0
POLISH_ITERATIONS = 50  # minimiser iterations between measurements once the target cell is reached
POLISH_ROUNDS = 40  # at most; stops as soon as every pair keeps its limit
# Å: the minimiser's neighbour list holds pairs within the largest limit plus this. It is rebuilt once
# two atoms together moved this far: a thinner skin rebuilds it more often than it saves (bench/README.md, "Builder settings").
# Most of the time only the few atoms that moved are listed again (_relax.c, refresh_moved).
SKIN = 1.0
PUSH_OFF_STAGES = (0.2, 0.4, 0.6, 0.8)  # fractions of the limits overlaps are pushed off to before the full ones
# Chains placed phantom carry their Boltzmann torsion statistics (chain_statistics.py); while their
# overlaps are pushed off, the distance across each sp3-sp3 heavy-atom dihedral (i···m, 1-4) is held
# at its built value too, softly, so torsions librate but do not hop between trans and gauche, as with
# the threefold term alone they do (bench/README.md, "Builder settings").
CONFORMATION_CONSTANT = 3000.0  # kJ/mol/Å²
# The last overlaps of a push-off (pairs too close across a gauche pair of torsions, or caged side
# groups) need torsions to turn: from the first polish, the holds are let go about every bond within
# RELEASE_REACH bonds of an atom of a pair still inside its limit, and nowhere else: letting every hold
# go costs many polish rounds, and the melts keep their statistics this way (bench/README.md, "Builder settings").
RELEASE_REACH = 2
PUSHED_OFF_ITERATIONS = 100  # at the full limits after a push-off, before the polish (more do no better)
# Not fewer: the stiff rounds after them (no holds) turn torsions (bench/README.md, "Builder settings").
STIFF_POLISH_ROUNDS = 8
# A push-off can leave two atoms caged in each other's substituents (aPMMA's backbone quaternary
# carbons), which no push separates (bench/README.md, "Builder settings"). A polish stuck there lets, once, the atoms within
# CAGE_REACH bonds of one and of the other through each other while the pair is pushed apart (within
# one bond was not enough), minimised to CAGE_TOLERANCE: at the polish's, the global gradient of one
# stuck pair is already below it.
CAGE_REACH = 2
CAGE_ITERATIONS = 100
CAGE_TOLERANCE = 1.0
PUSH_OFF_ITERATIONS = 300  # per stage, at most (fewer left dense PEO short of the limits: bench/README.md, "Builder settings")
# Chains placed phantom run bonds through one another's rings, which no push-off undoes (bench/README.md,
# "Builder settings"). So while their overlaps are pushed off, each ring system (with the hydrogens on
# it) is shrunk about its centre to RING_SHRINK of its size, small enough that a bond through it is
# pushed off like any overlap; then it is grown back in RING_GROWTH steps at the full limits, which
# keep bonds out of a ring (a C-C bond through a benzene's centre has its atoms 1.58 Å from the
# ring's, under the 2.0 Å limit).
RING_SHRINK = 0.15
RING_GROWTH = (0.3, 0.45, 0.6, 0.75, 0.9, 1.0)
# The stages at the full limits (rings shrunk, then growing back) converge as far as the polish does:
# stopped at STEP_TOLERANCE, they leave polystyrene's overlaps to a polish without the staggering
# term, which turns its junctions towards eclipsed. Not the earlier stages, where converging further
# did dense PEO harm (bench/README.md, "Builder settings").
RING_GROWTH_TOLERANCE = POLISH_TOLERANCE
# Each stage growing the rings stops after this many iterations (the last, at full size, after
# PUSH_OFF_ITERATIONS): large systems reach none of the tolerances there, and more iterations barely
# change the chains (bench/README.md, "Builder settings").
RING_GROWTH_ITERATIONS = 150


def _read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    for array in arrays:
        array.flags.writeable = False
    return arrays


# Cached per molecule (by identity: a Mol hashes by id, and the cache holds it alive): a build makes a
# relaxer for every stage and polish energy, and walking a chain's atoms in Python each time cost
# 6 × PS-100 a fifth of its build.
@functools.lru_cache(maxsize=32)
def held_pairs(mol: Chem.Mol) -> tuple[np.ndarray, np.ndarray]:
    """Atom pairs whose distance is held: (bonds, 2), and (others, 2) sharing a neighbour or across a
    rigid bond (read-only arrays)."""
    bonds = {tuple(sorted((bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()))) for bond in mol.GetBonds()}
    pairs: set[tuple[int, int]] = set()
    neighbours = [[n.GetIdx() for n in atom.GetNeighbors()] for atom in mol.GetAtoms()]
    for bond in mol.GetBonds():
        j, k = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        rigid = bond.IsInRing() or bond.GetBondType() != Chem.BondType.SINGLE or bond.GetIsConjugated()
        if rigid:
            for i in neighbours[j]:
                for m in neighbours[k]:
                    if i != k and m != j and i != m:
                        pairs.add((min(i, m), max(i, m)))
    for centre in neighbours:
        for a in range(len(centre)):
            for b in range(a + 1, len(centre)):
                pairs.add((min(centre[a], centre[b]), max(centre[a], centre[b])))
    # In a three-membered ring a pair sharing a neighbour is also bonded: it is held as a bond.
    bonded, others = _read_only(np.array(sorted(bonds), dtype=np.int64).reshape(-1, 2), np.array(sorted(pairs - bonds), dtype=np.int64).reshape(-1, 2))
    return bonded, others


@functools.lru_cache(maxsize=32)
def staggered_dihedrals(mol: Chem.Mol) -> tuple[np.ndarray, np.ndarray]:
    """Heavy-atom dihedrals (i, j, k, m) about every single, non-ring bond j-k between two sp3 atoms,
    (n, 4), and each one's share of its bond (1 / the bond's dihedrals, n): about a tetrahedral centre
    the threefold terms add up in phase, so a bond to a quaternary carbon would otherwise be held three
    times as hard (UFF and DREIDING share torsion barriers out the same way)."""
    dihedrals, shares = [], []
    for bond in mol.GetBonds():
        j, k = bond.GetBeginAtom(), bond.GetEndAtom()
        if bond.GetBondType() != Chem.BondType.SINGLE or bond.IsInRing():
            continue
        if {j.GetHybridization(), k.GetHybridization()} != {Chem.HybridizationType.SP3}:
            continue
        about = [
            (i.GetIdx(), j.GetIdx(), k.GetIdx(), m.GetIdx())
            for i in j.GetNeighbors()
            for m in k.GetNeighbors()
            if i.GetAtomicNum() > 1 and m.GetAtomicNum() > 1 and i.GetIdx() != k.GetIdx() and m.GetIdx() != j.GetIdx()
        ]
        if not about:
            continue
        dihedrals += about
        shares += [1.0 / len(about)] * len(about)
    about_bonds, bond_shares = _read_only(np.array(dihedrals, dtype=np.int64).reshape(-1, 4), np.array(shares))
    return about_bonds, bond_shares


@functools.lru_cache(maxsize=32)
def conformation_ends(mol: Chem.Mol) -> tuple[np.ndarray, np.ndarray]:
    """The 1-4 pairs (i, m) of the staggered dihedrals, sorted and unique, (n, 2), and the pair of
    each dihedral (read-only arrays)."""
    dihedrals, _ = staggered_dihedrals(mol)
    ends, end_of = np.unique(np.sort(dihedrals[:, [0, 3]], axis=1), axis=0, return_inverse=True)
    pairs, pair_of_dihedral = _read_only(ends.reshape(-1, 2), end_of.reshape(-1))
    return pairs, pair_of_dihedral


@dataclasses.dataclass(frozen=True)
class _RingGroups:
    """The ring systems of a whole system (atom indices of the system), for shrinking them."""

    centre_atoms: np.ndarray  # ring atoms
    centre_of: np.ndarray  # the group of each centre atom
    members: np.ndarray  # ring atoms and their hydrogens
    member_of: np.ndarray  # the group of each member
    groups: int

    def scaled(self, positions: np.ndarray, scale: float) -> np.ndarray:
        """`positions` (Å) with every group's members moved to `scale` of their distance from its centre."""
        centres = np.zeros((self.groups, 3))
        np.add.at(centres, self.centre_of, positions[self.centre_atoms])
        centres /= np.bincount(self.centre_of, minlength=self.groups)[:, None]
        scaled = np.array(positions, dtype=float)
        scaled[self.members] = centres[self.member_of] + scale * (positions[self.members] - centres[self.member_of])
        return scaled


KindRingGroups = list[list[tuple[np.ndarray, np.ndarray]]]  # ring_groups(kind.mol) of every kind


def _system_ring_groups(by_kind: KindRingGroups, molecule_kinds: list[int], molecule_offsets: np.ndarray) -> _RingGroups | None:
    """The ring systems of every molecule, or None when there are none."""
    centres, members = [], []
    for start, kind_index in zip(molecule_offsets.tolist(), molecule_kinds, strict=True):
        for ring_atoms, group in by_kind[kind_index]:
            centres.append(ring_atoms + start)
            members.append(group + start)
    if not centres:
        return None
    return _RingGroups(
        np.concatenate(centres),
        np.repeat(np.arange(len(centres)), [len(c) for c in centres]),
        np.concatenate(members),
        np.repeat(np.arange(len(members)), [len(m) for m in members]),
        len(centres),
    )


def _shrunk_ring_kinds(kinds: list[AssembledPolymer], by_kind: KindRingGroups) -> list[AssembledPolymer]:
    """The kinds with every pair within one ring group excluded from repulsion too, as a shrunk group
    would otherwise push itself apart."""
    shrunk = []
    for kind, groups in zip(kinds, by_kind, strict=True):
        keys = [kind.close_pairs]
        for _, group in groups:
            first, second = np.triu_indices(len(group), 1)
            keys.append(group[first] * kind.atom_count + group[second])
        shrunk.append(dataclasses.replace(kind, close_pairs=np.unique(np.concatenate(keys)).astype(np.int64)))
    return shrunk


def _exclusions(kinds: list[AssembledPolymer], molecule_kinds: list[int], molecule_offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs that never repel (within three bonds: their distances come from the chemistry) as a
    sorted adjacency: the partners j > i of atom i are excluded[start[i]:start[i + 1]]."""
    per_kind = []
    for kind in kinds:
        first, second = np.divmod(kind.close_pairs, kind.atom_count)
        per_kind.append((second, np.bincount(first, minlength=kind.atom_count)))
    partners = [per_kind[k][0] + int(molecule_offsets[m]) for m, k in enumerate(molecule_kinds)]
    counts = [per_kind[k][1] for k in molecule_kinds]
    start = np.concatenate([[0], np.cumsum(np.concatenate(counts))]).astype(np.int64)
    return start, np.concatenate(partners).astype(np.int64)


def relaxer(
    positions: np.ndarray,
    kinds: list[AssembledPolymer],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
    tolerances: Tolerances,
    walls_at: tuple[float, float] | None,
    hold_conformations: bool = False,
    push: float = PUSH_CONSTANT,
    released: np.ndarray | None = None,
    apart: np.ndarray | None = None,
) -> Relaxer:
    """The relaxation energy of a system (see the module's docstring and _relax.c), with held pairs at
    their lengths in `positions` (Å) and walls at z = walls_at, if any; with `hold_conformations`,
    the 1-4 pairs of sp3-sp3 dihedrals too (CONFORMATION_CONSTANT), but not about bonds with an atom
    `released` (a mask over the atoms); `push` on pairs inside their limits."""
    held_by_kind = [held_pairs(kind.mol) for kind in kinds]
    dihedrals_by_kind = [staggered_dihedrals(kind.mol) for kind in kinds]
    pairs, constants, torsions, torsion_k = [], [], [], []
    for molecule, kind_index in enumerate(molecule_kinds):
        start = int(molecule_offsets[molecule])
        for held, constant in zip(held_by_kind[kind_index], (BOND_CONSTANT, HOLD_CONSTANT), strict=True):
            pairs.append(held + start)
            constants.append(np.full(len(held), constant))
        dihedrals, shares = dihedrals_by_kind[kind_index]
        if hold_conformations and len(dihedrals):
            ends, end_of = conformation_ends(kinds[kind_index].mol)
            if released is not None:  # a pair stays held while one of its dihedrals is
                kept = np.zeros(len(ends), dtype=bool)
                kept[end_of[~(released[dihedrals[:, 1] + start] | released[dihedrals[:, 2] + start])]] = True
                ends = ends[kept]
            pairs.append(ends + start)
            constants.append(np.full(len(ends), CONFORMATION_CONSTANT))
        torsions.append(dihedrals + start)
        torsion_k.append(STAGGER_CONSTANT * shares)
    pairs_array = np.ascontiguousarray(np.concatenate(pairs), dtype=np.int64)
    lengths = np.linalg.norm(positions[pairs_array[:, 0]] - positions[pairs_array[:, 1]], axis=1)
    molecule_of_atom = np.repeat(np.arange(len(molecule_kinds), dtype=np.int32), [kinds[k].atom_count for k in molecule_kinds])
    excluded_start, excluded = _exclusions(kinds, molecule_kinds, molecule_offsets)
    low, high = walls_at or (0.0, 0.0)
    return Relaxer(
        pairs_array,
        lengths,
        np.concatenate(constants),
        np.ascontiguousarray(np.concatenate(torsions), dtype=np.int64),
        np.concatenate(torsion_k).astype(float),
        molecule_of_atom,
        excluded_start,
        excluded,
        tolerances.inter + tolerances.margin + PUSH_BEYOND,
        tolerances.intra + tolerances.margin + PUSH_BEYOND,
        push,
        WALL_CONSTANT if walls_at else 0.0,
        low,
        high,
        SKIN,
        engine_threads(),
        apart,
    )


def _too_close(energy: Relaxer, positions: np.ndarray, box: np.ndarray, tolerances: Tolerances) -> list[tuple[int, int]]:
    """The pairs inside their limits as the build measures them (margin included)."""
    return energy.close_pairs(positions, tuple(float(side) for side in box), tolerances.inter + tolerances.margin, tolerances.intra + tolerances.margin)


def _within_bonds(mask: np.ndarray, bonds: np.ndarray, reach: int) -> np.ndarray:
    """A mask of the atoms at most `reach` bonds from an atom of `mask`."""
    for _ in range(reach):
        grown = mask.copy()
        grown[bonds[:, 0][mask[bonds[:, 1]]]] = True
        grown[bonds[:, 1][mask[bonds[:, 0]]]] = True
        mask = grown
    return mask


def _crowded(pairs: list[tuple[int, int]], atoms: int, bonds: np.ndarray) -> np.ndarray:
    """A mask of the `atoms` within RELEASE_REACH bonds (`bonds`: the system's) of an atom of `pairs`
    (those that break their limits, _too_close)."""
    mask = np.zeros(atoms, dtype=bool)
    if pairs:
        mask[np.array(pairs).ravel()] = True
    return _within_bonds(mask, bonds, RELEASE_REACH)


def _cages(pairs: list[tuple[int, int]], atoms: int, bonds: np.ndarray) -> np.ndarray:
    """Sorted keys i * atoms + j of the pairs between the cages (the atoms within CAGE_REACH bonds;
    `bonds`: the system's) of the two atoms of every one of `pairs` (those that break their limits,
    _too_close), the pair itself left out."""

    def cage(atom: int) -> np.ndarray:
        alone = np.zeros(atoms, dtype=bool)
        alone[atom] = True
        return np.flatnonzero(_within_bonds(alone, bonds, CAGE_REACH))

    keys: set[int] = set()
    for a, b in pairs:
        around_a, around_b = cage(a), cage(b)
        low, high = np.minimum.outer(around_a, around_b), np.maximum.outer(around_a, around_b)
        kept = (low != high) & ~((low == min(a, b)) & (high == max(a, b)))
        keys.update((low * atoms + high)[kept].tolist())
    return np.array(sorted(keys), dtype=np.int64)


Limits = tuple[float, float, float, float]  # kept by a polish: inter, intra (Å), and z between low and high


def _kept_walls(walls: bool, box: np.ndarray, tolerances: Tolerances) -> tuple[float, float]:
    """The z range (Å) atoms must keep strictly inside: off each wall by its tolerance, or unbounded."""
    return (tolerances.wall, float(box[2]) - tolerances.wall) if walls else (-np.inf, np.inf)


def _push_off(
    current: np.ndarray,
    grown: np.ndarray,
    kinds: list[AssembledPolymer],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
    box: np.ndarray,
    walls_at: tuple[float, float] | None,
    tolerances: Tolerances,
    on_progress: Callable[[float], None],
) -> np.ndarray:
    """Chains placed without seeing one another overlap everywhere: their overlaps are pushed off
    slowly, the limits raised in PUSH_OFF_STAGES (Auhl et al. 2003), each stage's minimisation moving
    atoms only as far as that stage needs, so chains keep their shape on every scale. Ring systems are
    shrunk meanwhile and grown back at the full limits (RING_SHRINK). Returns the positions (Å) with
    the rings at full size, their lengths held as `grown`."""
    by_kind = [ring_groups(kind.mol) for kind in kinds]
    rings = _system_ring_groups(by_kind, molecule_kinds, molecule_offsets)
    limits = [(tolerances.inter * scale, tolerances.intra * scale) for scale in PUSH_OFF_STAGES]
    ring_scales = [RING_SHRINK] * len(limits)
    stopping = [STEP_TOLERANCE] * len(limits)
    caps = [PUSH_OFF_ITERATIONS] * len(limits)
    if rings is not None:
        limits += [(tolerances.inter, tolerances.intra)] * (len(RING_GROWTH) + 1)
        ring_scales += [RING_SHRINK, *RING_GROWTH]
        stopping += [RING_GROWTH_TOLERANCE] * (len(RING_GROWTH) + 1)
        caps += [RING_GROWTH_ITERATIONS] * len(RING_GROWTH) + [PUSH_OFF_ITERATIONS]
        current = rings.scaled(current, RING_SHRINK)
    staged_kinds = kinds if rings is None else _shrunk_ring_kinds(kinds, by_kind)
    for stage, ((inter, intra), ring_scale, tolerance, cap) in enumerate(zip(limits, ring_scales, stopping, caps, strict=True)):
        staged = Tolerances(inter=inter, intra=intra, margin=0.0, wall=tolerances.wall)
        # Held lengths as grown, rings shrunk as this stage has them, not as the previous stage left them.
        held = grown if rings is None else rings.scaled(grown, ring_scale)
        relaxer(held, staged_kinds, molecule_kinds, molecule_offsets, staged, walls_at, hold_conformations=True).minimize(
            current, tuple(float(side) for side in box), 1.0, tolerance, cap
        )
        on_progress((stage + 1) / (len(limits) + 1))
    return current


def compress(
    positions: np.ndarray,
    kinds: list[AssembledPolymer],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
    grown_box: np.ndarray,
    target_box: np.ndarray,
    walls: bool,
    tolerances: Tolerances,
    on_progress: Callable[[float], None],
    limits_kept: Callable[[np.ndarray], bool],
    push_off: bool = False,
    rigid_molecules: bool = False,
) -> np.ndarray:
    """Positions (Å) squeezed from `grown_box` into `target_box`, polished until `limits_kept` says
    every pair keeps its limit (or POLISH_ROUNDS run out). `limits_kept` saw the returned positions last.
    With `grown_box` equal to `target_box` (grown there with softer limits) this only relaxes.
    `rigid_molecules`: each step moves molecules' centres with the cell and keeps their shapes
    (RIGID_STEP), for linear chains."""
    walls_at = (tolerances.wall + PUSH_BEYOND, target_box[2] - tolerances.wall - PUSH_BEYOND) if walls else None
    current = np.array(positions, dtype=float)  # minimised in place
    if push_off:
        current = _push_off(current, positions, kinds, molecule_kinds, molecule_offsets, target_box, walls_at, tolerances, on_progress)
    # Lengths as grown. After a push-off the conformations stay held into the polish, and are let go
    # only about the pairs still inside their limits (RELEASE_REACH); after STIFF_POLISH_ROUNDS every
    # hold is let go and the repulsion stiffens.
    energy = relaxer(positions, kinds, molecule_kinds, molecule_offsets, tolerances, walls_at, hold_conformations=push_off)

    def minimize(box: np.ndarray, stagger: float, tolerance: float, iterations: int, keep: Limits | None = None) -> int:
        return energy.minimize(current, tuple(float(side) for side in box), stagger, tolerance, iterations, keep)[0]

    steps = max(1, int(np.ceil(np.log(float((target_box / grown_box).min())) / np.log(RIGID_STEP if rigid_molecules else STEP))))
    molecules = [slice(int(start), int(start) + kinds[k].atom_count) for start, k in zip(molecule_offsets, molecule_kinds, strict=True)]
    for step in range(1, steps + 1):
        box = grown_box * (target_box / grown_box) ** (step / steps)
        previous = grown_box * (target_box / grown_box) ** ((step - 1) / steps)
        if rigid_molecules:
            for atoms in molecules:
                current[atoms] += current[atoms].mean(axis=0) * (box / previous - 1.0)
        else:
            current *= box / previous
        minimize(box, 1.0, STEP_TOLERANCE, PUSHED_OFF_ITERATIONS if push_off else STEP_ITERATIONS)
        on_progress(step / steps)
    # The staggering term strains the held bonds and angles a little (a C-H bond of dense PS came out
    # 10.8 % off its length); one more minimisation without it gives that back, and torsions stay near where it
    # kept them (PE at 0.85 g/cm³: 8 % near eclipsed instead of 2 %, against 39 % without the term).
    minimize(target_box, 0.0, STEP_TOLERANCE, STEP_ITERATIONS)
    # A round that cannot move (its energy already converged) is followed by none with the same energy:
    # nothing would change. After a push-off the next energy is then the stiff one, else the polish ends.
    # A held polish round stops at the first step that keeps every limit as limits_kept measures them:
    # the one or two pairs left were spending whole rounds of the full system's iterations after that.
    # Not a stiff round: its push strains bonds while it clears a pair, and stopped there a C-C bond of
    # 4 × PS-50 at 0.8 g/cm³ came out 11 % long; run whole, the bonds take it back. Where limits_kept
    # disagrees with the relaxer (rounding), the rounds after run whole too.
    kept: Limits | None = (tolerances.inter + tolerances.margin, tolerances.intra + tolerances.margin, *_kept_walls(walls, target_box, tolerances))
    released = np.zeros(len(current), dtype=bool)
    bonds = system_bonds(kinds, molecule_kinds, molecule_offsets)
    stiff, stalled, tunnelled = not push_off, False, False
    for polish in range(POLISH_ROUNDS + 1):
        if limits_kept(current) or polish == POLISH_ROUNDS:
            break
        too_close = _too_close(energy, current, target_box, tolerances)
        if kept is not None and not too_close:
            kept = None
        if not stiff:
            more = released | _crowded(too_close, len(current), bonds)
            if polish >= STIFF_POLISH_ROUNDS or (stalled and np.array_equal(more, released)):
                stiff, stalled = True, False
                energy = relaxer(positions, kinds, molecule_kinds, molecule_offsets, tolerances, walls_at, push=PUSH_OFF_CONSTANT)
            else:
                released = more
                energy = relaxer(positions, kinds, molecule_kinds, molecule_offsets, tolerances, walls_at, hold_conformations=True, released=released)
        if stiff and stalled:
            if tunnelled or not push_off:
                break
            # Still stuck: pairs caged in each other's neighbours, which no push separates. Once, let the
            # cages through each other while the pair itself is pushed apart.
            tunnelled = True
            cages = _cages(too_close, len(current), bonds)
            if not len(cages):
                break
            caged = relaxer(positions, kinds, molecule_kinds, molecule_offsets, tolerances, walls_at, push=PUSH_OFF_CONSTANT, apart=cages)
            caged.minimize(current, tuple(float(side) for side in target_box), 0.0, CAGE_TOLERANCE, CAGE_ITERATIONS)
        stalled = minimize(target_box, 0.0, POLISH_TOLERANCE, POLISH_ITERATIONS, None if stiff else kept) == 0
    return current
