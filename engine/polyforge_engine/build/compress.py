"""Squeezing a system grown in a larger cell down to its target cell, for cells too dense to fill by
growth alone.

Chain growth with hard distance limits jams well below melt densities, so a dense system is grown in
a proportionally larger cell and then compressed in small steps: coordinates and cell are scaled
together, and after each step OpenMM's minimiser restores the geometry on a purely geometric energy.
Bond lengths (stiffly) and angles (pairs one and two bonds apart) are held at their built values,
and so are pairs across rigid bonds (ring, multiple, conjugated), which keeps rings flat and stereocentres as
built while single bonds stay free to turn. A threefold torsion term on the heavy-atom dihedrals about
single bonds between sp3 atoms keeps those turning between staggered states, as they were grown
while the system is squeezed, and is switched off for a last minimisation that gives back the strain
it put on bonds and angles (without it, polyethylene compressed to 0.85 g/cm³ came out with 39 % of
its backbone torsions near eclipsed, with it 8 %). A short-range quadratic repulsion pushes apart every other pair closer than its
limit (between molecules or within one molecule). With walls only x and y
are compressed and a quadratic wall keeps atoms inside 0 < z < C, the cell being padded in z so
periodic images never meet. A system grown in its own cell with softer limits is relaxed the same
way, without the squeezing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import openmm
from openmm import unit
from rdkit import Chem

from polyforge_engine.build.assembly import AssembledPolymer
from polyforge_engine.build.growth import Tolerances
from polyforge_engine.runtime.openmm_cpu import cpu_properties

HOLD_CONSTANT = 5.0e5  # kJ/mol/nm² on held pairs that are not bonds (angles, across rigid bonds)
# Stiffer on bonds: with HOLD_CONSTANT they gave way to crowded neighbours by up to 0.3 Å (C-C at
# 1.87 Å, C-H at 0.89 Å in polystyrene at 0.8 g/cm³); at 2e6 they stay within ~7 % of their
# length. Stiffer still keeps them closer (5e6: within 0.05 Å) but the minimiser then needs more
# iterations (dense PEO build ~30 % slower at 5e6, ~15 % at 2e6).
BOND_CONSTANT = 2.0e6
PUSH_CONSTANT = 5.0e5  # kJ/mol/nm² on pairs closer than their limit
# k in k (1 + cos 3φ) per bond, kJ/mol (shared among the bond's heavy-atom dihedrals): eclipsed
# costs 2k, about what a pair pushed 0.35 Å inside its limit costs, so the minimiser settles clashes
# by turning chains between staggered states, not through eclipsed ones. Torsions within 30° of
# eclipsed in the result (after the last minimisation, without the term), without → with it: PE at
# 0.85 g/cm³ 39 → 8 %, PEO at 0.8 10 → 1 %, PS at 1.0 30 → 8 %, PMMA at 1.1 22 → 6 %; time within
# the noise of this machine except dense PMMA (50 × PMMA-50 at 0.9: compression 10 → 12 s; 24 s
# with the full k on each of a quaternary carbon's three dihedrals). While it acts: PE 2 % at 300,
# 3-8 % at 150-200; at 1000 the limits took ten times as long to reach. What it keeps is the
# torsions growth drew, not a lower force-field energy: GAFF2 energies of cells built with it (PE at
# 0.85 g/cm³, without the last minimisation) had torsion terms 50-70 % lower and angle terms 50-70 %
# higher, the non-bonded terms, set by contacts at the limits, varying more between seeds than with k.
STAGGER_CONSTANT = 300.0
WALL_CONSTANT = 5.0e5  # kJ/mol/nm²
PUSH_BEYOND = 0.15  # Å: aim past the limits, so a loosely converged minimum still keeps them
STEP = 0.94  # linear compression per step
STEP_ITERATIONS = 300  # minimiser iterations per compression step, at most
# OpenMM stops at this root-mean-square force (kJ/mol/nm). Loose on purpose: a pair pushed with
# 1000 kJ/mol/nm is 0.01 Å inside its aim, which lies PUSH_BEYOND + margin past the limit, and
# whether every pair keeps its limit is measured (`limits_kept`), not inferred from the forces.
STEP_TOLERANCE = 1000.0
POLISH_TOLERANCE = 100.0
POLISH_ITERATIONS = 50  # minimiser iterations between measurements once the target cell is reached
POLISH_ROUNDS = 40  # at most; stops as soon as every pair keeps its limit


def held_pairs(mol: Chem.Mol) -> tuple[np.ndarray, np.ndarray]:
    """Atom pairs whose distance is held: (bonds, 2), and (others, 2) sharing a neighbour or across a
    rigid bond."""
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
    return np.array(sorted(bonds), dtype=np.int64).reshape(-1, 2), np.array(sorted(pairs - bonds), dtype=np.int64).reshape(-1, 2)


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
    return np.array(dihedrals, dtype=np.int64).reshape(-1, 4), np.array(shares)


def _vectors(box_nm: np.ndarray) -> list[openmm.Vec3]:
    return [openmm.Vec3(box_nm[0], 0, 0), openmm.Vec3(0, box_nm[1], 0), openmm.Vec3(0, 0, box_nm[2])]


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
) -> np.ndarray:
    """Positions (Å) squeezed from `grown_box` into `target_box`, polished until `limits_kept` says
    every pair keeps its limit (or POLISH_ROUNDS run out). `limits_kept` saw the returned positions last.
    With `grown_box` equal to `target_box` (grown there with softer limits) this only relaxes."""
    inter = (tolerances.inter + tolerances.margin + PUSH_BEYOND) / 10.0
    intra = (tolerances.intra + tolerances.margin + PUSH_BEYOND) / 10.0
    padding = np.array([0.0, 0.0, 2 * inter if walls else 0.0])  # nm added to the cell in z: periodic images never meet across walls
    system = openmm.System()
    for kind_index in molecule_kinds:
        for mass in kinds[kind_index].masses:
            system.addParticle(float(mass))

    hold = openmm.HarmonicBondForce()
    held_by_kind = [held_pairs(kind.mol) for kind in kinds]
    for molecule, kind_index in enumerate(molecule_kinds):
        start = int(molecule_offsets[molecule])
        for held, constant in zip(held_by_kind[kind_index], (BOND_CONSTANT, HOLD_CONSTANT), strict=True):
            pairs = held + start
            lengths = np.linalg.norm(positions[pairs[:, 0]] - positions[pairs[:, 1]], axis=1) / 10.0
            for (a, b), length in zip(pairs.tolist(), lengths.tolist(), strict=True):
                hold.addBond(a, b, length, constant)
    system.addForce(hold)

    stagger = openmm.CustomTorsionForce("stagger * k * (1 + cos(3 * theta))")
    stagger.addGlobalParameter("stagger", 1.0)
    stagger.addPerTorsionParameter("k")
    dihedrals_by_kind = [staggered_dihedrals(kind.mol) for kind in kinds]
    for molecule, kind_index in enumerate(molecule_kinds):
        dihedrals, shares = dihedrals_by_kind[kind_index]
        for (i, j, k, m), share in zip((dihedrals + int(molecule_offsets[molecule])).tolist(), shares.tolist(), strict=True):
            stagger.addTorsion(i, j, k, m, [STAGGER_CONSTANT * share])
    system.addForce(stagger)

    repel = openmm.CustomNonbondedForce(
        "push * step(limit - r) * (limit - r)^2; limit = select(molecule1 - molecule2, inter, intra)"
    )
    repel.addGlobalParameter("push", PUSH_CONSTANT)
    repel.addGlobalParameter("inter", inter)
    repel.addGlobalParameter("intra", intra)
    repel.addPerParticleParameter("molecule")
    repel.setNonbondedMethod(openmm.CustomNonbondedForce.CutoffPeriodic)
    repel.setCutoffDistance(max(inter, intra))
    for molecule, kind_index in enumerate(molecule_kinds):
        for _ in range(kinds[kind_index].atom_count):
            repel.addParticle([float(molecule)])
    # Pairs within three bonds never repel: their distances come from the chemistry (OpenMM derives
    # them from the bonds in one call).
    bonds = np.concatenate([kinds[k].bonds + molecule_offsets[m] for m, k in enumerate(molecule_kinds)])
    repel.createExclusionsFromBonds(bonds.tolist(), 3)
    system.addForce(repel)
    if walls:
        wall = openmm.CustomExternalForce("wall * (step(low - z) * (low - z)^2 + step(z - high) * (z - high)^2)")
        wall.addGlobalParameter("wall", WALL_CONSTANT)
        wall.addGlobalParameter("low", (tolerances.wall + PUSH_BEYOND) / 10.0)
        wall.addGlobalParameter("high", (target_box[2] - tolerances.wall - PUSH_BEYOND) / 10.0)
        for atom in range(len(positions)):
            wall.addParticle(atom, [])
        system.addForce(wall)

    grown_nm, target_nm = grown_box / 10.0, target_box / 10.0
    steps = max(1, int(np.ceil(np.log(float((target_nm / grown_nm).min())) / np.log(STEP))))
    system.setDefaultPeriodicBoxVectors(*_vectors(grown_nm + padding))
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"), cpu_properties())
    current_nm = np.asarray(positions) / 10.0
    for step in range(1, steps + 1):
        box_nm = grown_nm * (target_nm / grown_nm) ** (step / steps)
        previous_nm = grown_nm * (target_nm / grown_nm) ** ((step - 1) / steps)
        current_nm = current_nm * (box_nm / previous_nm)
        context.setPeriodicBoxVectors(*_vectors(box_nm + padding))
        context.setPositions(current_nm)
        openmm.LocalEnergyMinimizer.minimize(context, STEP_TOLERANCE, STEP_ITERATIONS)
        current_nm = context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        on_progress(step / steps)
    # The staggering term strains the held bonds and angles a little (a C-H bond of dense PS came out
    # 10.8 % off its length); one more minimisation without it gives that back, and torsions stay near where it
    # kept them (PE at 0.85 g/cm³: 8 % near eclipsed instead of 2 %, against 39 % without the term).
    context.setParameter("stagger", 0.0)
    openmm.LocalEnergyMinimizer.minimize(context, STEP_TOLERANCE, STEP_ITERATIONS)
    current_nm = context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    for polish in range(POLISH_ROUNDS + 1):
        if limits_kept(current_nm * 10.0) or polish == POLISH_ROUNDS:
            break
        openmm.LocalEnergyMinimizer.minimize(context, POLISH_TOLERANCE, POLISH_ITERATIONS)
        current_nm = context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    return np.asarray(current_nm * 10.0)
