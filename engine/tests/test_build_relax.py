"""The compiled relaxation (construct/_relax.c) against a reference written out in NumPy over every pair:
energy, gradient, the neighbour list in small and large cells, and what the minimiser achieves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import ETHYLENE, ETHYLENE_OXIDE, homopolymer_job
from polyforge_engine.construct._relax import HISTORY
from polyforge_engine.construct.assembly import system_bonds
from polyforge_engine.construct.compress import (
    BOND_CONSTANT,
    CAGE_REACH,
    HOLD_CONSTANT,
    POLISH_ROUNDS,
    PUSH_BEYOND,
    PUSH_CONSTANT,
    RELEASE_REACH,
    SKIN,
    STAGGER_CONSTANT,
    WALL_CONSTANT,
    _cages,
    _crowded,
    _too_close,
    compress,
    held_pairs,
    relaxer,
    staggered_dihedrals,
)
from polyforge_engine.construct.growth import Tolerances
from polyforge_engine.construct.structure import BuildResult, build_structure
from polyforge_engine.job import parse_build_job
from rdkit import Chem

TOLERANCES = Tolerances()
INTER = TOLERANCES.inter + TOLERANCES.margin + PUSH_BEYOND
INTRA = TOLERANCES.intra + TOLERANCES.margin + PUSH_BEYOND


@pytest.fixture(scope="module")
def chains(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """Three PEO-8 chains, built dilute (so no relaxation ran yet)."""
    raw = homopolymer_job(ETHYLENE_OXIDE, 8, 3, density=0.05)
    return build_structure(parse_build_job(raw), tmp_path_factory.mktemp("chains"))


def reference_energy(result: BuildResult, x: np.ndarray, box: np.ndarray, stagger: float, walls: tuple[float, float] | None) -> float:
    """The relaxation energy summed over every pair of atoms (no neighbour list), in NumPy."""
    energy = 0.0
    molecule = np.concatenate([np.full(result.kinds[k].atom_count, m) for m, k in enumerate(result.molecule_kinds)])
    close: set[tuple[int, int]] = set()
    for m, k in enumerate(result.molecule_kinds):
        kind, start = result.kinds[k], int(result.molecule_offsets[m])
        bonds, others = held_pairs(kind.mol)
        for pairs, constant in ((bonds, BOND_CONSTANT), (others, HOLD_CONSTANT)):
            built = np.linalg.norm(result.positions[start + pairs[:, 0]] - result.positions[start + pairs[:, 1]], axis=1)
            now = np.linalg.norm(x[start + pairs[:, 0]] - x[start + pairs[:, 1]], axis=1)
            energy += float((0.5 * constant * (now - built) ** 2).sum())
        dihedrals, shares = staggered_dihedrals(kind.mol)
        for (i, j, kk, mm), share in zip(dihedrals + start, shares, strict=True):
            b1, b2, b3 = x[j] - x[i], x[kk] - x[j], x[mm] - x[kk]
            n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
            phi = np.arctan2(np.dot(np.cross(n1, n2), b2 / np.linalg.norm(b2)), np.dot(n1, n2))
            energy += stagger * STAGGER_CONSTANT * share * (1 + np.cos(3 * phi))
        first, second = np.divmod(kind.close_pairs, kind.atom_count)
        close |= {(start + a, start + b) for a, b in zip(first.tolist(), second.tolist(), strict=True)}
    periodic = np.array([True, True, walls is None])
    for i in range(len(x)):
        delta = x[i + 1 :] - x[i]
        delta = np.where(periodic, delta - np.round(delta / box) * box, delta)
        r = np.linalg.norm(delta, axis=1)
        partners = np.arange(i + 1, len(x))
        limit = np.where(molecule[partners] == molecule[i], INTRA, INTER)
        keep = (r < limit) & np.array([(i, int(j)) not in close for j in partners], dtype=bool)
        energy += float((PUSH_CONSTANT * (limit - r)[keep] ** 2).sum())
    if walls:
        z = x[:, 2]
        energy += float((WALL_CONSTANT * np.clip(walls[0] - z, 0, None) ** 2 + WALL_CONSTANT * np.clip(z - walls[1], 0, None) ** 2).sum())
    return energy


def squeezed(result: BuildResult, side: float, seed: int) -> np.ndarray:
    """The chains' molecules moved into a small cell (overlapping) and jiggled: every term active."""
    rng = np.random.default_rng(seed)
    x = result.positions.copy()
    for m, k in enumerate(result.molecule_kinds):
        start, size = int(result.molecule_offsets[m]), result.kinds[k].atom_count
        x[start : start + size] += rng.uniform(0, side, 3) - x[start : start + size].mean(axis=0)
    return np.ascontiguousarray(x + rng.normal(scale=0.15, size=x.shape))


# Cells: large enough for three cells of the list's width along each axis, and too short for three
# (every atom in one cell along x and y, the minimum image taken pair by pair).
@pytest.mark.parametrize("side", [3.2 * (INTER + SKIN), 2.2 * (INTER + SKIN)])
@pytest.mark.parametrize("walls", [False, True])
def test_energy_and_gradient_match_a_sum_over_every_pair(chains: BuildResult, side: float, walls: bool) -> None:
    box = np.array([side, side, side])
    walls_at = (1.15, side - 1.15) if walls else None
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, walls_at)
    x = squeezed(chains, side, seed=3)
    for stagger in (1.0, 0.0):
        gradient = np.zeros_like(x)
        value = energy.energy(x, gradient, tuple(box), stagger)
        assert value == pytest.approx(reference_energy(chains, x, box, stagger, walls_at), rel=1e-9)
        assert value > 1e3  # repulsion and held pairs at work, not an empty sum
        rng = np.random.default_rng(5)
        for atom, axis in zip(rng.integers(len(x), size=40), rng.integers(3, size=40), strict=True):
            step = np.zeros_like(x)
            step[atom, axis] = 1e-6
            scratch = np.zeros_like(x)
            numeric = (energy.energy(x + step, scratch, tuple(box), stagger) - energy.energy(x - step, scratch, tuple(box), stagger)) / 2e-6
            assert gradient[atom, axis] == pytest.approx(numeric, rel=1e-4, abs=1e-2)


@pytest.mark.parametrize("walls", [False, True])
def test_a_list_refreshed_about_the_atoms_that_moved_holds_every_pair(chains: BuildResult, walls: bool) -> None:
    """Three atoms at a time moved 0.6 Å (past a quarter of the skin, two of them together past the
    skin): the list is refreshed about them, not built again, and the energy is still the sum over
    every pair, an atom moved across a side of the cell included."""
    side = 3.2 * (INTER + SKIN)
    box = np.array([side, side, side])
    walls_at = (1.15, side - 1.15) if walls else None
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, walls_at)
    x = squeezed(chains, side, seed=4)
    scratch = np.zeros_like(x)
    energy.energy(x, scratch, tuple(box), 1.0)
    builds = energy.builds
    rng = np.random.default_rng(8)
    edge = int(np.argmax(np.mod(x[:, 0], side)))  # the atom nearest the +x side
    for round_ in range(6):
        moving = rng.choice(len(x), size=3, replace=False)
        if round_ == 0:
            moving[0] = edge
        directions = rng.normal(size=(3, 3))
        directions[0] = (1.0, 0.0, 0.0) if round_ == 0 else directions[0]
        x[moving] += 0.6 * directions / np.linalg.norm(directions, axis=1)[:, None]
        value = energy.energy(x, scratch, tuple(box), 1.0)
        assert value == pytest.approx(reference_energy(chains, x, box, 1.0, walls_at), rel=1e-9)
    assert energy.builds == builds and energy.refreshes == 6


def test_minimiser_pushes_molecules_apart_and_keeps_their_geometry(chains: BuildResult) -> None:
    side = 16.0  # Å: 24 Å³ per atom
    box = (side, side, side)
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    x = squeezed(chains, side, seed=11)
    before = reference_energy(chains, x, np.array(box), 0.0, None)
    iterations, after = energy.minimize(x, box, 0.0, 1.0, 2000)
    assert 0 < iterations < 2000
    assert after == pytest.approx(reference_energy(chains, x, np.array(box), 0.0, None), rel=1e-9)
    assert after < 1e-3 * before
    gradient = np.zeros_like(x)
    energy.energy(x, gradient, box, 0.0)
    assert np.sqrt((gradient**2).mean()) <= 1.0
    molecule = np.repeat(np.arange(3), chains.kinds[0].atom_count)
    delta = x[:, None] - x[None, :]
    delta -= np.round(delta / side) * side
    distance = np.linalg.norm(delta, axis=2)
    assert distance[molecule[:, None] != molecule[None, :]].min() > TOLERANCES.inter
    bonds = chains.kinds[0].bonds
    for start in chains.molecule_offsets:
        built = np.linalg.norm(chains.positions[start + bonds[:, 0]] - chains.positions[start + bonds[:, 1]], axis=1)
        now = np.linalg.norm(x[start + bonds[:, 0]] - x[start + bonds[:, 1]], axis=1)
        assert np.abs(now / built - 1).max() < 0.02


def broken_limits(result: BuildResult, x: np.ndarray, side: float, keep: tuple[float, float, float, float]) -> int:
    """Pairs closer than keep's inter (between molecules) or intra (within one, more than three bonds
    apart) at the minimum image, over every pair, and atoms with z outside (keep's low, high)."""
    molecule = np.repeat(np.arange(len(result.molecule_kinds)), result.kinds[0].atom_count)
    hops = np.tile(Chem.GetDistanceMatrix(result.kinds[0].mol), (3, 3))
    delta = x[:, None] - x[None, :]
    delta -= np.round(delta / side) * side
    distance = np.linalg.norm(delta, axis=2)
    same = molecule[:, None] == molecule[None, :]
    inside = np.where(same, (distance < keep[1]) & (hops > 3), distance < keep[0])
    return int(np.triu(inside, 1).sum()) + int(((x[:, 2] <= keep[2]) | (x[:, 2] >= keep[3])).sum())


@pytest.mark.parametrize("walls", [False, True])
def test_a_minimisation_told_what_to_keep_stops_at_the_first_step_that_keeps_it(chains: BuildResult, walls: bool) -> None:
    """With `keep`, the minimiser stops after the first step that leaves no pair inside the kept limits
    and no atom outside the kept walls (counted here over every pair); without, the same steps go on."""
    side = 16.0
    box = (side, side, side)
    walls_at = (1.15, side - 1.15) if walls else None
    keep = (TOLERANCES.inter + TOLERANCES.margin, TOLERANCES.intra + TOLERANCES.margin, *((1.0, side - 1.0) if walls else (-np.inf, np.inf)))
    start = squeezed(chains, side, seed=11)
    if walls:
        start[:, 2] = np.clip(start[:, 2], -0.5, side + 0.5)  # some atoms beyond the walls

    def minimised(iterations: int, told: bool) -> tuple[int, np.ndarray]:
        x = start.copy()  # a new relaxer each time: the same steps, bit for bit
        energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, walls_at)
        done, _ = energy.minimize(x, box, 0.0, 1e-9, iterations, keep if told else None)
        return done, x

    assert broken_limits(chains, start, side, keep) > 10
    done, kept = minimised(2000, told=True)
    assert 1 < done < 2000
    assert broken_limits(chains, kept, side, keep) == 0
    assert broken_limits(chains, minimised(done - 1, told=True)[1], side, keep) > 0
    assert minimised(done + 5, told=False)[0] == done + 5
    assert np.array_equal(minimised(done, told=False)[1], kept)
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, walls_at)
    with pytest.raises(ValueError, match="must not exceed"):
        energy.minimize(start.copy(), box, 0.0, 1.0, 10, (INTER + 0.1, 1.0, -np.inf, np.inf))
    for malformed in ("keep", [2.0, 1.5, 0.0, 1.0], (2.0, 1.5)):
        with pytest.raises(TypeError, match=r"keep: \(inter, intra, low, high\)"):
            energy.minimize(start.copy(), box, 0.0, 1.0, 10, malformed)


def test_relaxer_refuses_a_cell_its_neighbour_list_cannot_serve(chains: BuildResult) -> None:
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    x = np.ascontiguousarray(chains.positions.copy())
    with pytest.raises(ValueError, match="twice the cutoff"):
        energy.minimize(x, (5.0, 50.0, 50.0), 1.0, 10.0, 10)
    with pytest.raises(TypeError, match="positions: expected a C-contiguous array of 8-byte values"):
        energy.minimize(x.astype(np.float32), (50.0, 50.0, 50.0), 1.0, 10.0, 10)


def test_relaxer_refuses_an_image_beyond_what_a_listed_pair_holds(chains: BuildResult) -> None:
    """A listed pair keeps its image in whole box lengths as int16: an atom 40,000 boxes out is
    refused, whether a refresh or a whole build meets it, and the relaxer serves sane positions after."""
    side = 16.0
    box = (side, side, side)
    x = squeezed(chains, side, seed=3)
    scratch = np.zeros_like(x)
    refreshed = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    sane = refreshed.energy(x, scratch, box, 0.0)
    far = x.copy()
    far[0, 0] += 40_000 * side
    with pytest.raises(ValueError, match="32767 box lengths"):
        refreshed.energy(far, scratch, box, 0.0)
    assert refreshed.refreshes == 0
    built = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    with pytest.raises(ValueError, match="32767 box lengths"):
        built.energy(far, scratch, box, 0.0)
    assert built.energy(x, scratch, box, 0.0) == sane == refreshed.energy(x, scratch, box, 0.0)


def test_dense_polyethylene_relaxes_to_the_limits(tmp_path: Path) -> None:
    """Grown with softer limits in its own cell and relaxed by the compiled minimiser."""
    result = build_structure(parse_build_job(homopolymer_job(ETHYLENE, 30, 6, density=0.8)), tmp_path)
    assert result.report["grown_with_limits"] == [1.2, 0.9]
    assert result.report["min_intermolecular_distance"] >= 2.0
    assert result.report["min_intramolecular_nonbonded_distance"] >= 1.5


def test_minimiser_gives_the_same_result_on_any_number_of_threads(chains: BuildResult, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its work is cut into fixed parts summed in a fixed order, so the threads change nothing, to the bit."""
    side = 16.0
    results = []
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("POLYFORGE_ENGINE_THREADS", threads)
        energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
        x = squeezed(chains, side, seed=11)
        iterations, after = energy.minimize(x, (side, side, side), 1.0, 1.0, 300)
        gradient = np.zeros_like(x)
        results.append((iterations, after, x, energy.energy(x, gradient, (side, side, side), 1.0), gradient))
    for iterations, after, x, value, gradient in results[1:]:
        assert iterations == results[0][0] and iterations > 10
        assert after == results[0][1] and value == results[0][3]
        assert np.array_equal(x, results[0][2]) and np.array_equal(gradient, results[0][4])


def textbook_lbfgs(energy, x: np.ndarray, box: tuple[float, float, float], steps: int) -> np.ndarray:
    """`steps` steps of the minimiser as _relax.c states it, with the two-loop recursion written as
    Nocedal & Wright (Algorithm 7.4) give it: HISTORY pairs kept in single precision, a unit step
    (steepest descent: 0.05 Å for the atom moving most), no atom moving more than 0.3 Å, Armijo
    backtracking (1e-4, halving)."""
    x = x.copy()

    def at(point: np.ndarray) -> tuple[float, np.ndarray]:
        gradient = np.zeros_like(point)
        return energy.energy(np.ascontiguousarray(point), gradient, box, 1.0), gradient.ravel()

    value, g = at(x)
    history: list[tuple[np.ndarray, np.ndarray]] = []  # oldest first
    for _ in range(steps):
        q = g.copy()
        alphas = []
        for s, y in reversed(history):
            alphas.append(s @ q / (s @ y))
            q -= alphas[-1] * y
        if history:
            s, y = history[-1]
            q *= (s @ y) / (y @ y)
        for (s, y), alpha in zip(history, reversed(alphas), strict=True):
            q += (alpha - (y @ q) / (s @ y)) * s
        d = -q
        largest = np.linalg.norm(d.reshape(-1, 3), axis=1).max()
        step = 1.0 if history else 0.05 / largest
        if g @ d >= 0:
            history, d = [], -g
            largest = np.linalg.norm(d.reshape(-1, 3), axis=1).max()
            step = 0.05 / largest
        step = min(step, 0.3 / largest)
        for _ in range(30):
            trial = x + step * d.reshape(-1, 3)
            trial_value, trial_g = at(trial)
            if trial_value <= value + 1e-4 * step * (g @ d):
                break
            step *= 0.5
        s, y = ((trial - x).ravel().astype(np.float32).astype(float), (trial_g - g).astype(np.float32).astype(float))
        if s @ y > 1e-12:
            history = [*history, (s, y)][-HISTORY:]
        x, value, g = trial, trial_value, trial_g
    return x


def test_minimiser_steps_are_the_textbook_lbfgs_steps(chains: BuildResult) -> None:
    """The compiled minimiser keeps every product of its pairs and the gradient and takes the two-loop
    recursion over those (one pass over the vectors a step): its steps are the recursion's."""
    side = 16.0
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    start = squeezed(chains, side, seed=5)
    expected = textbook_lbfgs(energy, start, (side, side, side), steps=25)
    x = start.copy()
    iterations, _ = energy.minimize(x, (side, side, side), 1.0, 1e-9, 25)
    assert iterations == 25
    assert np.abs(x - start).max() > 0.5  # it went somewhere
    np.testing.assert_allclose(x, expected, atol=1e-6)


def test_holds_are_let_go_only_about_pairs_inside_their_limits(chains: BuildResult) -> None:
    """After a push-off the polish frees the torsions about a pair still too close (RELEASE_REACH
    bonds around it), and keeps every other conformation held."""
    side = 40.0
    box = np.array([side, side, side])
    x = np.ascontiguousarray(chains.positions.copy())
    first, second = int(chains.molecule_offsets[0]) + 10, int(chains.molecule_offsets[1]) + 10
    x[chains.molecule_offsets[1] : chains.molecule_offsets[1] + chains.kinds[0].atom_count] += x[first] + [1.2, 0, 0] - x[second]
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None, hold_conformations=True)
    crowded = _crowded(_too_close(energy, x, box, TOLERANCES), len(x), system_bonds(chains.kinds, chains.molecule_kinds, chains.molecule_offsets))
    # Every pair inside its limit, over all pairs (no neighbour list), and what lies RELEASE_REACH bonds around it.
    hops = Chem.GetDistanceMatrix(chains.kinds[0].mol)
    size = chains.kinds[0].atom_count
    molecule = np.repeat(np.arange(3), size)
    distance = np.linalg.norm(x[:, None] - x[None, :], axis=2)
    same = molecule[:, None] == molecule[None, :]
    apart = np.where(same, np.tile(hops, (3, 3)), np.inf)
    limit = np.where(same, TOLERANCES.intra + TOLERANCES.margin, TOLERANCES.inter + TOLERANCES.margin)
    too_close = {(int(i), int(j)) for i, j in zip(*np.nonzero((distance < limit) & (apart > 3)), strict=True) if i < j}
    assert (first, second) in too_close
    limits = (TOLERANCES.inter + TOLERANCES.margin, TOLERANCES.intra + TOLERANCES.margin)
    assert too_close == {tuple(sorted(pair)) for pair in energy.close_pairs(x, tuple(box), *limits)}
    expected = np.zeros(len(x), dtype=bool)
    for atom in {atom for pair in too_close for atom in pair}:
        expected |= same[atom] & (np.tile(hops, (3, 3))[atom] <= RELEASE_REACH)
    assert np.array_equal(crowded, expected)
    assert 0 < expected.sum() < len(x) // 2
    # Released everywhere, the holds are gone; released nowhere, all are kept.
    jiggled = np.ascontiguousarray(x + np.random.default_rng(2).normal(scale=0.2, size=x.shape))
    scratch = np.zeros_like(x)
    system = (chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    free = relaxer(*system)
    nowhere = relaxer(*system, hold_conformations=True, released=np.zeros(len(x), dtype=bool))
    everywhere = relaxer(*system, hold_conformations=True, released=np.ones(len(x), dtype=bool))
    partly = relaxer(*system, hold_conformations=True, released=crowded)
    values = [e.energy(jiggled, scratch, tuple(box), 0.0) for e in (free, nowhere, everywhere, partly, energy)]
    assert values[2] == pytest.approx(values[0], rel=1e-12)
    assert values[1] == pytest.approx(values[4], rel=1e-12)
    assert values[0] < values[3] < values[1]


@pytest.mark.parametrize("push_off", [False, True])
def test_a_polish_that_cannot_move_stops(chains: BuildResult, push_off: bool) -> None:
    """Limits never kept (the check always says no): once a polish round cannot move, neither could any
    after it with the same energy, so the polish ends instead of running all its rounds."""
    checks: list[int] = []

    def never_kept(positions: np.ndarray) -> bool:
        checks.append(1)
        return False

    box = np.array([16.0, 16.0, 16.0])
    start = squeezed(chains, 16.0, seed=11)
    compress(start, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, box, box, False, TOLERANCES, lambda _: None, never_kept, push_off=push_off)
    assert 1 < len(checks) < POLISH_ROUNDS // 2


def test_pairs_kept_apart_are_not_repelled(chains: BuildResult) -> None:
    """`apart` takes chosen pairs out of the repulsion and nothing else: the energy falls by exactly
    their repulsion, summed here over those pairs at the minimum image."""
    side = 16.0
    box = np.array([side, side, side])
    x = squeezed(chains, side, seed=3)
    delta = x[None, :, :] - x[:, None, :]
    distance = np.linalg.norm(delta - np.round(delta / box) * box, axis=2)
    molecule = np.repeat(np.arange(3), chains.kinds[0].atom_count)
    between = (molecule[:, None] != molecule[None, :]) & (distance < INTER)
    first, second = np.nonzero(np.triu(between))
    chosen = np.random.default_rng(1).choice(len(first), size=len(first) // 2, replace=False)
    keys = np.sort(first[chosen] * len(x) + second[chosen]).astype(np.int64)
    repulsion = float((PUSH_CONSTANT * (INTER - distance[first[chosen], second[chosen]]) ** 2).sum())
    system = (chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    scratch = np.zeros_like(x)
    whole = relaxer(*system).energy(x, scratch, tuple(box), 0.0)
    kept_apart = relaxer(*system, apart=keys).energy(x, scratch, tuple(box), 0.0)
    assert repulsion > 1e3
    assert kept_apart == pytest.approx(whole - repulsion, rel=1e-9)
    with pytest.raises(ValueError, match="sorted unique keys"):
        relaxer(*system, apart=keys[::-1].copy())


def test_cages_are_the_atoms_two_bonds_about_each_atom_of_a_pair_too_close(chains: BuildResult) -> None:
    """What a stuck polish lets through each other: every pair between the atoms within CAGE_REACH
    bonds of one atom and of the other of a pair inside its limit, the pair itself excepted."""
    side = 40.0
    box = np.array([side, side, side])
    x = np.ascontiguousarray(chains.positions.copy())
    start = int(chains.molecule_offsets[1])
    size = chains.kinds[0].atom_count
    first, second = int(chains.molecule_offsets[0]) + 10, start + 10
    x[start : start + size] += x[first] + [1.2, 0, 0] - x[second]
    energy = relaxer(chains.positions, chains.kinds, chains.molecule_kinds, chains.molecule_offsets, TOLERANCES, None)
    limits = (TOLERANCES.inter + TOLERANCES.margin, TOLERANCES.intra + TOLERANCES.margin)
    too_close = [tuple(sorted(pair)) for pair in energy.close_pairs(x, tuple(box), *limits)]
    assert (first, second) in too_close
    hops = Chem.GetDistanceMatrix(chains.kinds[0].mol)

    def cage(atom: int) -> set[int]:
        base = int(chains.molecule_offsets[atom // size])
        return {base + int(n) for n in np.flatnonzero(hops[atom - base] <= CAGE_REACH)}

    expected = {min(p, q) * len(x) + max(p, q) for a, b in too_close for p in cage(a) for q in cage(b) if p != q and {p, q} != {a, b}}
    keys = _cages(_too_close(energy, x, box, TOLERANCES), len(x), system_bonds(chains.kinds, chains.molecule_kinds, chains.molecule_offsets))
    assert keys.tolist() == sorted(expected)
    assert len(keys) > len(too_close)
