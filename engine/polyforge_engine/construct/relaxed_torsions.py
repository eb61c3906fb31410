"""Relaxation corrections to the chain statistics' torsion energies.

chain_statistics.py weighs each state of a unit by force-field terms evaluated on rigid rotations of
the unit templates. Rigid rotation overstates what a gauche or eclipsed state costs: in a real chain
the bond angles open and the torsion shifts a few degrees away from the 1-4 contact (n-butane's
gauche costs 2.0 kcal/mol rigid in full MMFF94, 0.78 relaxed; the builder's rigid 1-4/1-5 terms gave
polyethylene 1.2 kcal/mol and a trans fraction of 0.73 against ~0.6). So each rotatable backbone bond
gets a correction Δ(φ) of its own, added to the energy of the unit whose placement sets its dihedral:

    Δ(φ) = E_relaxed(φ) − E_rigid(φ)

on a small fragment of the molecule around the bond (its heavy atoms within two bonds, side groups of
the bond's own atoms to three bonds and whole rings, open valences capped with hydrogens). E_relaxed
is the full MMFF94 energy (Coulomb screened as the statistics screen it) minimised with the bond's
backbone dihedral held at φ, every 15°, the rest free from an all-trans start; each of growth's
states stands for a span of angles (a junction's twelve states 30° each, a unit's own bond's three
states their whole 120° wells), so its relaxed energy is the free energy of that span,
-RT ln <exp(-E_relaxed/RT)> over it. E_rigid is the builder's own terms (chain_statistics: torsions
about the bond, pairs three and four bonds apart across it) on the relaxed minimum turned rigidly
to φ. This is first order in the rotational-isomeric-state sense; the pair correlations (g+g-)
stay with the rigid 1-5 terms.

What it changes: relaxed, a gauche well is wider and an eclipsed state far cheaper than rigid, while
the floor of a gauche state moves little; polyethylene melts come out with the trans fraction and C∞
of the literature, where rigid terms alone made them too extended (bench/README.md, "Builder settings").

Fragments are cached by their canonical SMILES in memory and on disk (disk_cache.py), so a
chemistry pays for its scans (2 × SCAN_POINTS constrained minimisations per distinct fragment, a few
to a dozen fragments per polymer) once per machine. On two or more CPUs (scans_ahead) a forked child
relaxes the odd angles of each missing scan while the engine relaxes the even ones.

A fragment with prochiral centres is embedded with one configuration of each (its `hands`, measured
as templates.py measures them); growth's states of the other hand see Δ(−φ) of the mirror image.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdDistGeom, rdForceFieldHelpers, rdMolTransforms

from polyforge_engine.construct.disk_cache import cache_directory, write_atomically
from polyforge_engine.construct.mmff_terms import ELECTROSTATIC_14, rigid_energies
from polyforge_engine.construct.rings import ring_systems
from polyforge_engine.runtime.ahead import MISSING, Ahead, Send
from polyforge_engine.runtime.openmm_cpu import engine_threads

SCAN_POINTS = 12  # growth's states, every 30° (relaxed every 15°)
FINE_ANGLES = np.arange(0.0, 360.0, 360.0 / (2 * SCAN_POINTS))  # degrees: the relaxed scan's points
FRAGMENT_REACH = 2  # heavy atoms within this many bonds of the bond's atoms
SIDE_REACH = 3  # side-group atoms of the bond's own atoms, reached without another backbone atom
RESTRAINT = 100.0  # kcal/mol/rad², holds the constrained dihedrals (within a degree or two)
EMBED_SEED = 0x5EED
# kcal/mol: Δ of a bond whose atoms carry side groups (heavy atoms off the backbone) is clipped to
# ±MAX_CORRECTION where a side group holds a ring or the bond is not between two sp3 atoms. The
# fragment's rigid energies are those of its own relaxed geometry, the table's those of the unit
# templates; where the two turn a phenyl otherwise, large corrections land on the wrong states
# (polystyrene's junctions lose their preference, peptide bonds turn cis). Other bonds keep theirs up
# to ±MAX_BARE_CORRECTION: clipped as hard, PE, PEO and aPMMA melts lose what the correction gives
# them (bench/README.md, "Builder settings").
MAX_CORRECTION = 1.0
MAX_BARE_CORRECTION = 6.0
FRAGMENT_LIMIT = 24.0  # kcal/mol: |Δ| beyond this is a fragment gone wrong (ring strain, a clash): none

# Scans are kept on disk too (one small JSON file per fragment, disk_cache.py), so a chemistry pays
# for its scans once per machine, not once per build. Bump CACHE_VERSION whenever what a scan computes
# changes.
CACHE_VERSION = 2

# fragment key -> (relaxed energies every 15°, rigid model energies every 30°, hand per centre by
# canonical rank), or None where the fragment has no correction
_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray, dict[int, int]] | None] = {}
_AHEAD: list[Ahead] = []  # the child computing scans ahead (scans_ahead), while there is one


@dataclass(frozen=True)
class BondCorrection:
    angles: np.ndarray  # (SCAN_POINTS,) degrees
    delta: np.ndarray  # (SCAN_POINTS,) kcal/mol, Δ(φ) relative to its value at the relaxed minimum
    centres: tuple[tuple[int, int, int, int], ...]  # prochiral centres in the fragment (molecule atoms)
    hands: tuple[int, ...]  # their hands in the fragment the scan was made on

    def at(self, phi_degrees: np.ndarray) -> np.ndarray:
        """Δ at dihedrals φ (degrees), periodic linear interpolation."""
        x = np.append(self.angles, 360.0)
        y = np.append(self.delta, self.delta[0])
        return np.interp(np.mod(phi_degrees, 360.0), x, y)


def _distances(mol: Chem.Mol, starts: tuple[int, ...], blocked: set[int], reach: int) -> dict[int, int]:
    """Bond distances between heavy atoms from `starts`, not passing through `blocked` atoms (they can
    be reached, not crossed). Only the atoms within `reach` are looked at (a molecule has thousands)."""
    seen = dict.fromkeys(starts, 0)
    queue = deque(starts)
    while queue:
        current = queue.popleft()
        if seen[current] == reach or (current in blocked and current not in starts):
            continue
        for n in (atom.GetIdx() for atom in mol.GetAtomWithIdx(current).GetNeighbors() if atom.GetAtomicNum() > 1):
            if n not in seen:
                seen[n] = seen[current] + 1
                queue.append(n)
    return seen


def fragment_atoms(mol: Chem.Mol, bond: tuple[int, int], backbone: set[int]) -> list[int]:
    """Heavy atoms of the fragment around `bond` (see the module's docstring), sorted."""
    near = set(_distances(mol, bond, set(), FRAGMENT_REACH))
    side = _distances(mol, bond, backbone, SIDE_REACH)
    chosen = {a for a in near if a in backbone or a in side}
    chosen |= set(side)
    # Whole ring systems of rings touched on the bond's side (a phenyl on the bond's atom), none
    # through another backbone atom (the next unit's phenyl stays out: its atom becomes a CH2).
    # Fused rings are one system: taken ring by ring, a naphthalene whose one ring was taken and the
    # other dropped took and dropped their shared atoms in turn for ever (PEN never got built).
    for system in ring_systems(mol):
        if system & chosen and not system <= chosen:
            if system & set(side) or system & set(bond):
                chosen |= system
            else:
                chosen -= system
    return sorted(chosen)


def _fragment_mol(mol: Chem.Mol, atoms: list[int]) -> tuple[Chem.Mol, dict[int, int]]:
    """The fragment as a molecule with hydrogens: every cut bond capped by a hydrogen."""
    keep = set(atoms)
    rw = Chem.RWMol()
    index = {}
    for a in atoms:
        source = mol.GetAtomWithIdx(a)
        atom = Chem.Atom(source.GetAtomicNum())
        atom.SetFormalCharge(source.GetFormalCharge())
        atom.SetIsAromatic(source.GetIsAromatic())
        hydrogens = sum(1 for n in source.GetNeighbors() if n.GetAtomicNum() == 1 or n.GetIdx() not in keep)
        atom.SetNumExplicitHs(hydrogens)
        atom.SetNoImplicit(True)
        index[a] = rw.AddAtom(atom)
    # The fragment's bonds in the molecule's order of bonds, found from its atoms.
    for number in sorted({bond.GetIdx() for a in atoms for bond in mol.GetAtomWithIdx(a).GetBonds()}):
        b = mol.GetBondWithIdx(number)
        i, j = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
        if i in keep and j in keep:
            rw.AddBond(index[i], index[j], b.GetBondType())
            if b.GetIsAromatic():
                rw.GetBondBetweenAtoms(index[i], index[j]).SetIsAromatic(True)
    fragment = rw.GetMol()
    Chem.SanitizeMol(fragment)
    return Chem.AddHs(fragment), index


def _hand(positions: np.ndarray, centre: tuple[int, int, int, int]) -> int:
    c, head, tail, side = (positions[i] for i in centre)
    return 1 if float(np.dot(np.cross(head - c, tail - c), side - c)) >= 0 else -1


def _model_pairs_and_torsions(frag: Chem.Mol, j: int, k: int, properties: Any) -> tuple[list, list]:
    """The builder's rigid terms that turn with the bond j-k: dihedrals about it, and pairs three and
    four bonds apart whose shortest path crosses it."""
    distance = Chem.GetDistanceMatrix(frag)
    torsions = []
    for i in (n.GetIdx() for n in frag.GetAtomWithIdx(j).GetNeighbors() if n.GetIdx() != k):
        for m in (n.GetIdx() for n in frag.GetAtomWithIdx(k).GetNeighbors() if n.GetIdx() != j):
            params = properties.GetMMFFTorsionParams(frag, i, j, k, m)
            if params:
                torsions.append(((i, j, k, m), np.array(params[1:], dtype=float)))
    side_j = _side(frag, j, k)
    pairs = []
    for a in side_j:
        for b in range(frag.GetNumAtoms()):
            if b in side_j or distance[a, b] not in (3, 4):
                continue
            _, _, r_star, epsilon = properties.GetMMFFVdWParams(a, b)
            scale = ELECTROSTATIC_14 if distance[a, b] == 3 else 1.0
            pairs.append((a, b, r_star, epsilon, scale * properties.GetMMFFPartialCharge(a) * properties.GetMMFFPartialCharge(b)))
    return torsions, pairs


def _side(frag: Chem.Mol, j: int, k: int) -> set[int]:
    """Atoms on j's side of the bond j-k."""
    seen = {j}
    queue = deque([j])
    while queue:
        current = queue.popleft()
        for n in frag.GetAtomWithIdx(current).GetNeighbors():
            index = n.GetIdx()
            if index not in seen and not (current == j and index == k):
                seen.add(index)
                queue.append(index)
    return seen


def _held_dihedrals(frag: Chem.Mol, backbone: list[int], index: dict[int, int]) -> list[tuple[int, ...]]:
    """The fragment's own dihedrals to hold: every backbone dihedral inside it (fragment indices) about
    a bond that turns (not one in a ring: a backbone through a phenylene, as in PET or poly(phenylene
    oxide), passes along ring bonds whose dihedrals the ring fixes)."""
    chain = [a for a in backbone if a in index]
    held = []
    for p in range(len(chain) - 3):
        q = tuple(index[a] for a in chain[p : p + 4])
        bonds = [frag.GetBondBetweenAtoms(q[s], q[s + 1]) for s in range(3)]
        if all(bond is not None for bond in bonds) and not bonds[1].IsInRing():
            held.append(q)
    return held


def _relax_all_trans(frag: Chem.Mol, properties: Any, conformer: Chem.Conformer, held: list[tuple[int, ...]]) -> None:
    """Sets the `held` dihedrals trans and minimises `conformer` once so held, in place.

    So every scan point starts from a relaxed structure (from ETKDG's, hydrogens eclipsed by a rigid
    turn can stay stuck on a saddle).
    """
    for q in held:
        rdMolTransforms.SetDihedralDeg(conformer, *q, 180.0)
    field = rdForceFieldHelpers.MMFFGetMoleculeForceField(frag, properties)
    for q in held:
        field.MMFFAddTorsionConstraint(*q, False, 180.0, 180.0, RESTRAINT)
    field.Initialize()
    field.Minimize(maxIts=2000)
    conformer.SetPositions(np.array(field.Positions()).reshape(-1, 3))


def _relaxed_scan(frag: Chem.Mol, properties: Any, start: Chem.Conformer, target: tuple[int, ...], fine: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """MMFF energies of `frag` relaxed with the `target` dihedral held at each angle of `fine` (°).

    Relaxed every 15°: each of growth's states (every 30°) stands for the 30° about it, so its
    relaxed energy is the free energy of that bin (trapezoid over -15°, 0, +15°): a gauche well is
    wider relaxed than rigid, and that width counts, not only its floor.

    Returns:
        The energies (kcal/mol), and the relaxed positions (Å) at each angle.
    """
    relaxed, geometries = [], []
    for angle in fine:
        trial = Chem.Conformer(start)
        rdMolTransforms.SetDihedralDeg(trial, *target, float(angle))
        frag.RemoveAllConformers()
        cid = frag.AddConformer(trial, assignId=True)
        field = rdForceFieldHelpers.MMFFGetMoleculeForceField(frag, properties, confId=cid)
        # Only the scanned dihedral is held: the others start trans and relax within their wells
        # (held at 180°, hexane's gauche cost 0.1 kcal/mol more).
        field.MMFFAddTorsionConstraint(*target, False, float(angle), float(angle), RESTRAINT)
        field.Initialize()
        field.Minimize(maxIts=2000)
        positions = np.array(field.Positions()).reshape(-1, 3)
        free = rdForceFieldHelpers.MMFFGetMoleculeForceField(frag, properties, confId=cid)
        relaxed.append(free.CalcEnergy(positions.ravel().tolist()))
        geometries.append(positions)
    return np.array(relaxed), geometries


def _rigid_scan(frag: Chem.Mol, properties: Any, base: np.ndarray, target: tuple[int, ...], angles: np.ndarray, dielectric: float) -> np.ndarray:
    """The growth model's energies (kcal/mol) of `base` with the `target` dihedral turned rigidly to
    each angle (°), summed as growth's probes are (`mmff_terms.rigid_energies`, one row per angle)."""
    torsions, pairs = _model_pairs_and_torsions(frag, target[1], target[2], properties)
    moving = sorted(_side(frag, target[2], target[1]))
    axis = base[target[2]] - base[target[1]]
    axis /= np.linalg.norm(axis)
    current = rdMolTransforms.GetDihedralDeg(_as_conformer(base), *target)
    turned = np.repeat(base[None], len(angles), axis=0)
    for row, angle in enumerate(angles):
        turned[row, moving] = _rotate(base[moving] - base[target[2]], axis, np.radians(angle - current)) + base[target[2]]
    energies = np.empty(len(angles))
    rigid_energies(
        energies,
        turned,
        np.array([quadruple for quadruple, _ in torsions], dtype=np.int64).reshape(-1, 4),
        np.array([terms for _, terms in torsions], dtype=float).reshape(-1, 3),
        np.array([(a, b) for a, b, *_ in pairs], dtype=np.int64).reshape(-1, 2),
        np.array([(r_star, epsilon, charges) for _, _, r_star, epsilon, charges in pairs], dtype=float).reshape(-1, 3),
        dielectric,
    )
    return energies


@dataclass(frozen=True)
class _Fragment:
    """The fragment a backbone dihedral's correction is scanned on, and what the scan is stored under."""

    frag: Chem.Mol  # with hydrogens, no conformer
    key: tuple  # canonical SMILES with the dihedral's atoms mapped 1-4, dielectric, RT
    target: tuple[int, ...]  # the dihedral (fragment atoms)
    held: list[tuple[int, ...]]  # the fragment's backbone dihedrals (_held_dihedrals)
    own: tuple[tuple[int, int, int, int], ...]  # prochiral centres of the molecule inside it (molecule atoms)
    own_atoms: tuple[tuple[int, int, int, int], ...]  # the same, fragment atoms
    own_ranks: tuple[int, ...]  # their centres' canonical ranks in the key
    clip: float  # _clip of the bond


def bond_correction(
    mol: Chem.Mol,
    quadruple: tuple[int, int, int, int],
    backbone: list[int],
    centres: list[tuple[int, int, int, int]],
    dielectric: float,
    rt: float,
    width: float = 30.0,
) -> BondCorrection | None:
    """Δ(φ) of the backbone dihedral `quadruple` of `mol` (an assembled polymer, explicit hydrogens).
    `backbone`: the molecule's backbone atoms in order; `centres`: its prochiral centres (centre,
    head-side and tail-side backbone neighbours, side atom). None where the fragment cannot be made
    or minimised with MMFF94."""
    fragment = _fragment(mol, quadruple, backbone, centres, dielectric, rt)
    if fragment is None:
        return None
    scan = _cached(fragment.key)
    if scan is False:
        scan = _scan(fragment, dielectric, _AHEAD[0] if _AHEAD else None)
        _CACHE[fragment.key] = scan
        _store(fragment.key, scan)
    if scan is None:
        return None
    fine_energy, rigid, hands_by_rank = scan
    hands = tuple(hands_by_rank[r] for r in fragment.own_ranks)
    return _correction(fine_energy, rigid, rt, width, fragment.own, hands, fragment.clip)


@contextlib.contextmanager
def scans_ahead(
    mol: Chem.Mol,
    quadruples: list[tuple[int, int, int, int]],
    backbone: list[int],
    centres: list[tuple[int, int, int, int]],
    dielectric: float,
    rt: float,
) -> Iterator[None]:
    """Inside, the scans of these dihedrals' fragments that are not stored yet are shared with a child
    process (runtime/ahead.py), where the job has a second CPU: it relaxes the odd angles of each, in
    this order, while bond_correction relaxes the even ones (_scan). The scans are the same as
    computed in one process."""
    if engine_threads() < 2 or not quadruples or _AHEAD:
        yield
        return

    def produce(send: Send) -> None:
        seen: set[tuple] = set()
        for quadruple in quadruples:
            fragment = _fragment(mol, quadruple, backbone, centres, dielectric, rt)
            if fragment is None or fragment.key in seen:
                continue
            seen.add(fragment.key)
            prepared = _prepared(fragment, dielectric) if _cached(fragment.key) is False else None
            if prepared is not None:
                send(fragment.key, _relaxed_scan(*prepared, fragment.target, FINE_ANGLES[1::2])[0])

    _AHEAD.append(Ahead(produce))
    try:
        yield
    finally:
        _AHEAD.pop().close()


def _fragment(
    mol: Chem.Mol, quadruple: tuple[int, int, int, int], backbone: list[int], centres: list[tuple[int, int, int, int]], dielectric: float, rt: float
) -> _Fragment | None:
    """The fragment of bond_correction's dihedral, or None where RDKit cannot make it."""
    j, k = quadruple[1], quadruple[2]
    backbone_set = set(backbone)
    atoms = fragment_atoms(mol, (j, k), backbone_set)
    try:
        frag, index = _fragment_mol(mol, atoms)
    except Exception:  # a fragment RDKit cannot sanitise (a cut through conjugation): no correction
        return None
    ranks = list(Chem.CanonicalRankAtoms(frag, breakTies=False))

    def prochiral(atom: int) -> bool:
        around = [ranks[n.GetIdx()] for n in frag.GetAtomWithIdx(atom).GetNeighbors()]
        return len(around) == 4 and len(set(around)) == 4

    own = tuple(c for c in centres if all(a in index for a in c) and prochiral(index[c[0]]))
    target = tuple(index[a] for a in quadruple)
    key_mol = Chem.RWMol(frag)
    for position, atom in enumerate(target, start=1):
        key_mol.GetAtomWithIdx(atom).SetAtomMapNum(position)
    key_ranks = list(Chem.CanonicalRankAtoms(key_mol))
    return _Fragment(
        frag=frag,
        key=(Chem.MolToSmiles(key_mol), round(dielectric, 3), round(rt, 4)),
        target=target,
        held=_held_dihedrals(frag, backbone, index),
        own=own,
        own_atoms=tuple((index[c[0]], index[c[1]], index[c[2]], index[c[3]]) for c in own),
        own_ranks=tuple(key_ranks[index[c[0]]] for c in own),
        clip=_clip(mol, (j, k), backbone_set),
    )


def _cached(key: tuple) -> Any:
    """The scan of `key` kept in this process or stored on disk (None: no correction), else False."""
    if key not in _CACHE:
        stored = _load(key)
        if stored is not False:
            _CACHE[key] = stored
    return _CACHE.get(key, False)


def _scan(fragment: _Fragment, dielectric: float, helper: Ahead | None = None) -> tuple[np.ndarray, np.ndarray, dict[int, int]] | None:
    """The fragment's relaxed energies every 15° (above their lowest), its rigid model energies every
    30° and the hand of each prochiral centre by canonical rank; None where MMFF94 cannot type it or
    it cannot be embedded. The odd angles come from `helper` where it has them (scans_ahead)."""
    prepared = _prepared(fragment, dielectric)
    if prepared is None:
        return None
    frag, properties, start = prepared
    even, geometries = _relaxed_scan(frag, properties, start, fragment.target, FINE_ANGLES[::2])
    taken = helper.take(fragment.key) if helper is not None else MISSING
    odd = _relaxed_scan(frag, properties, start, fragment.target, FINE_ANGLES[1::2])[0] if taken is MISSING else np.asarray(taken)
    energies = np.empty(len(FINE_ANGLES))
    energies[::2], energies[1::2] = even, odd
    base = geometries[int(np.argmin(even))]
    rigid = _rigid_scan(frag, properties, base, fragment.target, FINE_ANGLES[::2], dielectric)
    hands = tuple(_hand(base, centre) for centre in fragment.own_atoms)
    return energies - energies.min(), rigid, dict(zip(fragment.own_ranks, hands, strict=True))


def _prepared(fragment: _Fragment, dielectric: float) -> tuple[Chem.Mol, Any, Chem.Conformer] | None:
    """The fragment embedded (one seed), its MMFF94 properties screened by `dielectric`, and its
    all-trans relaxed conformer every scan point starts from; None as for _scan."""
    frag = Chem.Mol(fragment.frag)
    params = rdDistGeom.ETKDGv3()
    params.randomSeed = EMBED_SEED
    properties = rdForceFieldHelpers.MMFFGetMoleculeProperties(frag)
    if properties is None or rdDistGeom.EmbedMolecule(frag, params) < 0:
        return None
    properties.SetMMFFDielectricConstant(dielectric)
    properties.SetMMFFVerbosity(0)
    conformer = frag.GetConformer()
    _relax_all_trans(frag, properties, conformer, fragment.held)
    return frag, properties, Chem.Conformer(conformer)


def _cache_file(key: tuple) -> Path | None:
    directory = cache_directory(f"relaxed-torsions-v{CACHE_VERSION}")
    if directory is None:
        return None
    payload = json.dumps([CACHE_VERSION, list(key), SCAN_POINTS, FRAGMENT_REACH, SIDE_REACH, RESTRAINT, EMBED_SEED])
    return directory / f"{hashlib.sha256(payload.encode()).hexdigest()}.json"


def _load(key: tuple) -> Any:
    """The stored scan of `key` (None: the fragment has no correction), or False when none is stored."""
    path = _cache_file(key)
    try:
        data = json.loads(path.read_text()) if path is not None else None
    except (OSError, ValueError):
        return False
    if data is None:
        return False
    if data.get("key") != list(key):  # a hash collision, or a file from elsewhere
        return False
    if data["scan"] is None:
        return None
    fine, rigid, hands = data["scan"]
    return np.array(fine), np.array(rigid), {int(rank): int(hand) for rank, hand in hands.items()}


def _store(key: tuple, scan: Any) -> None:
    """Writes a scan for later builds; where the cache directory cannot be written, nothing is kept."""
    path = _cache_file(key)
    if path is None:
        return
    body = None if scan is None else [scan[0].tolist(), scan[1].tolist(), {str(rank): hand for rank, hand in scan[2].items()}]
    write_atomically(path, json.dumps({"key": list(key), "scan": body}).encode())


def _clip(mol: Chem.Mol, bond: tuple[int, int], backbone: set[int]) -> float:
    """How far Δ of `bond` may go: MAX_CORRECTION where its atoms carry side groups and the bond is not
    between two sp3 atoms (an amide: its carbonyl oxygen is a side group) or a side group holds a ring."""
    sides = [n for a in bond for n in mol.GetAtomWithIdx(a).GetNeighbors() if n.GetAtomicNum() > 1 and n.GetIdx() not in backbone]
    if not sides:
        return MAX_BARE_CORRECTION
    sp3 = all(mol.GetAtomWithIdx(a).GetHybridization() == Chem.HybridizationType.SP3 for a in bond)
    return MAX_BARE_CORRECTION if sp3 and not any(_holds_ring(mol, side.GetIdx(), backbone) for side in sides) else MAX_CORRECTION


def _holds_ring(mol: Chem.Mol, start: int, backbone: set[int]) -> bool:
    """Whether the side group that begins at atom `start` (off the backbone) holds a ring atom."""
    seen, queue = {start}, deque([start])
    while queue:
        atom = mol.GetAtomWithIdx(queue.popleft())
        if atom.IsInRing():
            return True
        for n in atom.GetNeighbors():
            if n.GetIdx() not in seen and n.GetIdx() not in backbone:
                seen.add(n.GetIdx())
                queue.append(n.GetIdx())
    return False


def _correction(fine: np.ndarray, rigid: np.ndarray, rt: float, width: float, centres: tuple, hands: tuple, clip: float) -> BondCorrection | None:
    """Δ on growth's 30° grid from a relaxed scan every 15° (`fine`) and the rigid model's energies on
    the grid: each state's relaxed energy is the free energy of the `width`° about it (trapezoid)."""
    boltzmann = np.exp(-(fine - fine.min()) / rt)
    half = round(width / 30.0)  # fine points either side of a grid point
    weights = np.array([0.5 if abs(o) == half else 1.0 for o in range(-half, half + 1)])
    binned = sum(w * np.roll(boltzmann, -o) for w, o in zip(weights, range(-half, half + 1), strict=True))[::2] / weights.sum()
    free = -rt * np.log(binned)
    # Relative to the relaxed scan's lowest grid point (a true minimum, whichever span is used: a
    # 120° span centred on an eclipsed angle holds both wells and would be lowest), so clipping
    # keeps the differences between states.
    reference = int(np.argmin(fine[::2]))
    delta = (free - free[reference]) - (rigid - rigid[reference])
    if np.abs(delta).max() > FRAGMENT_LIMIT:
        return None
    angles = np.arange(0.0, 360.0, 360.0 / SCAN_POINTS)
    return BondCorrection(angles=angles, delta=np.clip(delta, -clip, clip), centres=centres, hands=hands)


def _as_conformer(positions: np.ndarray) -> Chem.Conformer:
    conformer = Chem.Conformer(len(positions))
    for a, xyz in enumerate(positions.tolist()):
        conformer.SetAtomPosition(a, xyz)
    return conformer


def _rotate(points: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' rotation of `points` about the unit `axis` through the origin."""
    cos, sin = np.cos(angle), np.sin(angle)
    return points * cos + np.cross(axis, points) * sin + np.outer(points @ axis, axis) * (1 - cos)
