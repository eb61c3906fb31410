"""One building unit (a SMILES with connection markers) turned into a reusable 3D template.

Each distinct SMILES is parsed and conformer-generated once (ETKDG, then MMFF) and reused for every
copy. Markers `[*:1]`/`[*:2]` are kept as *sites*: the atom that will bond (anchor) and, per
conformer, a proxy position where the partner atom should sit. The proxy is obtained by turning the
dummy into a stand-in for the partner atom before embedding (a copy of the unit's other anchor, or a
methyl carbon), so bond lengths and angles at a junction come from a real force-field geometry
instead of a guess.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

# The specific modules rather than AllChem, which imports far more (start-up counts for small jobs).
from rdkit import Chem, RDLogger
from rdkit.Chem import rdDistGeom, rdForceFieldHelpers, rdMolDescriptors, rdMolTransforms

from polyforge_engine.events import EngineError

RDLogger.DisableLog("rdApp.*")
_PERIODIC_TABLE = Chem.GetPeriodicTable()

# Conformer generation is seeded independently of the job: a unit always gets the same templates.
CONFORMER_SEED = 0x5EED
EMBEDDED_CONFORMERS = 24  # embedded for a unit with rotatable bonds, then minimised and de-duplicated
MAX_CONFORMERS = 9  # distinct conformers kept (e.g. trans, gauche+, gauche- per backbone bond)
DISTINCT_TORSION = 20.0  # degrees
# Backbone bonds inside a unit are set, on the unit's lowest-energy conformer, to each of their
# rotational states: the local minima of a 30° scan of the unit's MMFF energy (staggered states of an
# sp3-sp3 bond), at most STATES_PER_BOND of them within STATE_WINDOW of the lowest. Which state a unit
# takes in a chain is drawn by growth with Boltzmann weights (chain_statistics.py), not here.
STATES_PER_BOND = 3
STATE_WINDOW = 8.0  # kcal/mol
MAX_BACKBONE_CONFORMERS = 27


@dataclass(frozen=True)
class Site:
    label: int  # 1 = head side ([*:1]), 2 = tail side ([*:2])
    anchor: int  # index (in the template's atoms) of the atom that bonds to the partner unit


@dataclass(frozen=True)
class UnitTemplate:
    smiles: str
    mol: Chem.Mol  # explicit hydrogens, markers removed, every atom marked "no implicit H"
    sites: tuple[Site, ...]  # markers in SMILES order
    coordinates: np.ndarray  # (conformers, atoms, 3) Å
    proxies: np.ndarray  # (conformers, sites, 3) Å: where each site's partner atom sits
    proxy_shares: np.ndarray  # (sites,) Å: the covalent radius of each proxy's atom, its share of the bond
    masses: np.ndarray  # (atoms,) amu
    elements: tuple[str, ...]
    # Prochiral backbone centres (atom index; its head-side and tail-side backbone neighbours and its
    # heavier side substituent, a neighbour given as -(site + 1) where it is a marker's partner atom).
    # A conformer's hand at a centre is the sign of (head - c) x (tail - c) . (side - c): two
    # consecutive centres of the same hand form a meso dyad.
    stereo_centres: tuple[tuple[int, int, int, int], ...] = ()
    hands: np.ndarray | None = None  # (conformers, centres) +1 / -1
    stereo_drawn: bool = False  # the SMILES fixes a prochiral centre's configuration

    @property
    def atom_count(self) -> int:
        return self.mol.GetNumAtoms()

    def sites_with_label(self, label: int) -> list[int]:
        return [index for index, site in enumerate(self.sites) if site.label == label]


def _parse(smiles: str, where: str) -> Chem.Mol:
    params = Chem.SmilesParserParams()
    params.removeHs = False
    mol = Chem.MolFromSmiles(smiles, params)
    if mol is None:
        raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' is not a valid SMILES.")
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() != 0:
            continue
        if atom.GetAtomMapNum() not in (1, 2):
            raise EngineError(
                "INVALID_SMILES",
                f"The {where} '{smiles}' has a connection point that is not [*:1] or [*:2].",
            )
        bonds = atom.GetBonds()
        if len(bonds) != 1 or bonds[0].GetBondType() != Chem.BondType.SINGLE:
            raise EngineError(
                "INVALID_SMILES",
                f"The {where} '{smiles}' has a connection point that is not joined by exactly one single bond.",
            )
    return mol


def _embed(mol: Chem.Mol, where: str, smiles: str, rotatable: int, unit_atoms: int) -> list[int]:
    """Conformers of the proxy molecule `mol`, whose first `unit_atoms` are the unit's and its markers';
    `rotatable`: the unit's rotatable bonds (those that only turn a stand-in's atoms do not count)."""
    count = 1 if rotatable == 0 else EMBEDDED_CONFORMERS
    params = rdDistGeom.ETKDGv3()
    params.randomSeed = CONFORMER_SEED
    # Every conformer is embedded and minimised from its own seed, so the result is the same on any
    # number of threads: use every core (half the time on two).
    params.numThreads = 0
    conformer_ids = list(rdDistGeom.EmbedMultipleConfs(mol, numConfs=count, params=params))
    if not conformer_ids:
        params.useRandomCoords = True
        conformer_ids = list(rdDistGeom.EmbedMultipleConfs(mol, numConfs=count, params=params))
    if not conformer_ids:
        raise EngineError("INVALID_SMILES", f"No 3D structure could be generated for the {where} '{smiles}'.")
    energies = [0.0] * len(conformer_ids)
    if rdForceFieldHelpers.MMFFHasAllMoleculeParams(mol):
        energies = [e for _, e in rdForceFieldHelpers.MMFFOptimizeMoleculeConfs(mol, numThreads=0, maxIters=1000)]
    elif rdForceFieldHelpers.UFFHasAllMoleculeParams(mol):
        energies = [e for _, e in rdForceFieldHelpers.UFFOptimizeMoleculeConfs(mol, numThreads=0, maxIters=1000)]
    distinct = _distinct_conformers(mol, conformer_ids, unit_atoms)
    return sorted(distinct, key=lambda cid: energies[conformer_ids.index(cid)])  # lowest energy first


def _distinct_conformers(mol: Chem.Mol, conformer_ids: list[int], unit_atoms: int) -> list[int]:
    """Conformers that differ in some heavy-atom torsion about a chain bond of the unit (its first
    `unit_atoms` atoms, markers included) by more than DISTINCT_TORSION (signed, so mirror-image gauche
    states both stay). How a stand-in's own atoms turn does not matter: only its marker's position is used."""

    def heavy_neighbours(atom: Chem.Atom, besides: Chem.Atom) -> list[int]:
        return [n.GetIdx() for n in atom.GetNeighbors() if n.GetIdx() != besides.GetIdx() and n.GetAtomicNum() > 1 and n.GetIdx() < unit_atoms]

    quadruples = []
    for bond in mol.GetBonds():
        j, k = bond.GetBeginAtom(), bond.GetEndAtom()
        if bond.IsInRing() or bond.GetBondType() != Chem.BondType.SINGLE:
            continue
        before, after = heavy_neighbours(j, k), heavy_neighbours(k, j)
        if before and after:
            quadruples.append((before[0], j.GetIdx(), k.GetIdx(), after[0]))
    if not quadruples:
        return conformer_ids[:1]
    torsions = np.array([[rdMolTransforms.GetDihedralDeg(mol.GetConformer(cid), *q) for q in quadruples] for cid in conformer_ids])
    kept: list[int] = []  # rows of `torsions`
    for row in range(len(conformer_ids)):
        if len(kept) == MAX_CONFORMERS:
            break
        difference = np.abs((torsions[kept] - torsions[row] + 180.0) % 360.0 - 180.0)
        if (difference.max(axis=1) > DISTINCT_TORSION).all():  # vacuously true for the first
            kept.append(row)
    return [conformer_ids[row] for row in kept]


def _mirrored_anchor(unit: Chem.Mol, dummy: int) -> Chem.Atom | None:
    """The atom marker `dummy` will most likely bond to, as far as the unit itself tells: the anchor of
    its first marker of the other label. In a chain a unit's neighbour is most often a unit like it (in
    a homopolymer always; in a peptide every residue's N meets a carbonyl C, its [*:2] anchor). None
    where the unit has no marker of the other label (caps, central units)."""
    label = unit.GetAtomWithIdx(dummy).GetAtomMapNum()
    others = [atom for atom in unit.GetAtoms() if atom.GetAtomicNum() == 0 and atom.GetAtomMapNum() == 3 - label]
    return others[0].GetNeighbors()[0] if others else None


def _proxy_molecule(unit: Chem.Mol, dummies: list[int], stand_ins: bool) -> tuple[Chem.Mol, list[int]]:
    """`unit` (explicit hydrogens) with every marker turned into a stand-in for its partner atom, and the
    stand-ins' elements. With `stand_ins`, a copy of the mirrored anchor (_mirrored_anchor) with its
    double and triple bonds to end atoms (C=O, S=O) and, where it has two or more single-bonded heavy
    substituents besides this unit, those too (saturated; aromatic ones as vinyl groups), so the unit's anchor gets the geometry it has in the
    polymer (a peptide's N planar, as in an amide, not pyramidal as in an amine; PMMA's CH2 opened
    between two quaternary carbons); an aromatic
    anchor becomes a vinyl carbon (planar, conjugated). Otherwise, and where nothing is mirrored, a
    methyl carbon. Atoms and hydrogens added come after the unit's, which keep their indices."""
    proxy = Chem.RWMol(unit)
    completed = list(dummies)
    elements = []
    for dummy in dummies:
        marker = proxy.GetAtomWithIdx(dummy)
        marker.SetAtomMapNum(0)
        marker.SetIsotope(0)
        marker.SetNoImplicit(False)
        marker.SetAtomicNum(6)
        mirrored = _mirrored_anchor(unit, dummy) if stand_ins else None
        if mirrored is not None and mirrored.GetIsAromatic():
            completed.append(proxy.AddAtom(Chem.Atom(6)))
            proxy.AddBond(dummy, completed[-1], Chem.BondType.DOUBLE)
        elif mirrored is not None:
            marker.SetAtomicNum(mirrored.GetAtomicNum())
            substituents = [b for b in mirrored.GetBonds() if b.GetOtherAtom(mirrored).GetAtomicNum() > 1]
            branched = sum(1 for b in substituents if b.GetBondType() == Chem.BondType.SINGLE) >= 2
            for bond in substituents:
                end = bond.GetOtherAtom(mirrored)
                ends_there = sum(1 for n in end.GetNeighbors() if n.GetAtomicNum() > 1) == 1
                if bond.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE) and ends_there:
                    completed.append(proxy.AddAtom(Chem.Atom(end.GetAtomicNum())))
                    proxy.AddBond(dummy, completed[-1], bond.GetBondType())
                elif bond.GetBondType() != Chem.BondType.SINGLE or not branched:
                    # A lone single-bonded substituent's effect on the angle at this unit's anchor hangs
                    # on a torsion the template cannot know (bench/README.md, "Builder settings").
                    continue
                elif not end.GetIsAromatic():
                    # A branched partner's substituents, as saturated atoms: their bulk opens the
                    # angle at this unit's anchor as in the polymer (PMMA's CH2 between two
                    # quaternary carbons) (bench/README.md, "Builder settings").
                    completed.append(proxy.AddAtom(Chem.Atom(end.GetAtomicNum())))
                    proxy.AddBond(dummy, completed[-1], Chem.BondType.SINGLE)
                else:  # an aromatic substituent: a vinyl group, as flat and as wide
                    completed.append(proxy.AddAtom(Chem.Atom(6)))
                    proxy.AddBond(dummy, completed[-1], Chem.BondType.SINGLE)
                    completed.append(proxy.AddAtom(Chem.Atom(6)))
                    proxy.AddBond(completed[-2], completed[-1], Chem.BondType.DOUBLE)
        elements.append(marker.GetAtomicNum())
    Chem.SanitizeMol(proxy)
    return Chem.AddHs(proxy, onlyOnAtoms=tuple(completed)), elements


def _backbone_path(mol: Chem.Mol, dummies: list[int]) -> list[int]:
    """Atoms from the first [*:1] marker to the first [*:2] marker (both included), or [] without both."""
    heads = [d for d in dummies if mol.GetAtomWithIdx(d).GetAtomMapNum() == 1]
    tails = [d for d in dummies if mol.GetAtomWithIdx(d).GetAtomMapNum() == 2]
    if not heads or not tails:
        return []
    return list(Chem.GetShortestPath(mol, heads[0], tails[0]))


def _backbone_dihedrals(mol: Chem.Mol, path: list[int]) -> list[tuple[int, int, int, int]]:
    """Heavy-atom dihedrals about the unit's own rotatable backbone bonds (not its junctions)."""
    dihedrals = []
    for k in range(1, len(path) - 2):
        bond = mol.GetBondBetweenAtoms(path[k], path[k + 1])
        if bond.GetBondType() == Chem.BondType.SINGLE and not bond.IsInRing():
            dihedrals.append((path[k - 1], path[k], path[k + 1], path[k + 2]))
    return dihedrals


def _bond_states(mol: Chem.Mol, conformer_id: int, dihedral: tuple[int, int, int, int]) -> list[float]:
    """Rotational states (degrees) of one bond: staggered between two sp3 atoms, otherwise the local
    minima of the unit's energy over a 30° scan (held rigid, so stand-ins' clashes count as well:
    that is why sp3-sp3 bonds, whose rigid scans miss states next to bulky groups, are not scanned)."""
    sp3 = Chem.HybridizationType.SP3
    if all(mol.GetAtomWithIdx(index).GetHybridization() == sp3 for index in dihedral[1:3]):
        return [180.0, 60.0, 300.0]
    grid = np.arange(0.0, 360.0, 30.0)
    properties = rdForceFieldHelpers.MMFFGetMoleculeProperties(mol)
    field = (
        rdForceFieldHelpers.MMFFGetMoleculeForceField(mol, properties, confId=conformer_id)
        if properties is not None
        else rdForceFieldHelpers.UFFGetMoleculeForceField(mol, confId=conformer_id)
        if rdForceFieldHelpers.UFFHasAllMoleculeParams(mol)
        else None
    )
    if field is None:
        return [60.0, 180.0, 300.0]
    conformer = Chem.Conformer(mol.GetConformer(conformer_id))
    scanned: list[float] = []
    for angle in grid:
        rdMolTransforms.SetDihedralDeg(conformer, *dihedral, float(angle))
        scanned.append(field.CalcEnergy(conformer.GetPositions().ravel().tolist()))
    energies = np.array(scanned)
    minima = (energies <= np.roll(energies, 1)) & (energies <= np.roll(energies, -1)) & (energies <= energies.min() + STATE_WINDOW)
    kept = np.flatnonzero(minima)
    return grid[kept[np.argsort(energies[kept])][:STATES_PER_BOND]].tolist()


def _state_combinations(states: list[list[float]]) -> list[tuple[float, ...]]:
    """Combinations of the bonds' states, at most MAX_BACKBONE_CONFORMERS: all of them when they are
    that few; otherwise those with the fewest bonds away from their first state (the lowest-energy
    one, trans between sp3 atoms) first. Taking the product in order instead turned only the last two
    or three bonds of a long unit (the methylene run of poly(ethylene adipate)), every other one held
    in its first state whatever its energy."""
    if int(np.prod([len(options) for options in states])) <= MAX_BACKBONE_CONFORMERS:
        return list(itertools.product(*states))
    out: list[tuple[float, ...]] = []
    for changed in range(len(states) + 1):
        for bonds in itertools.combinations(range(len(states)), changed):
            for others in itertools.product(*(states[bond][1:] for bond in bonds)):
                combination = [options[0] for options in states]
                for bond, angle in zip(bonds, others, strict=True):
                    combination[bond] = angle
                out.append(tuple(combination))
                if len(out) == MAX_BACKBONE_CONFORMERS:
                    return out
    return out


def _backbone_conformers(mol: Chem.Mol, conformer_id: int, dihedrals: list[tuple[int, int, int, int]]) -> np.ndarray:
    """(n, atoms, 3): the conformer with its backbone bonds set to combinations of their states (_state_combinations)."""
    states = [_bond_states(mol, conformer_id, dihedral) for dihedral in dihedrals]
    out = []
    for combination in _state_combinations(states):
        conformer = Chem.Conformer(mol.GetConformer(conformer_id))
        for dihedral, angle in zip(dihedrals, combination, strict=True):
            rdMolTransforms.SetDihedralDeg(conformer, *dihedral, float(angle))
        out.append(conformer.GetPositions())
    return np.array(out)


def prochiral_centres(mol: Chem.Mol, path: list[int]) -> list[tuple[int, int, int, int, bool]]:
    """Backbone atoms with two different side substituents: (centre, head-side and tail-side backbone
    neighbours, heavier side substituent, whether the SMILES fixes its configuration)."""
    ranks = list(Chem.CanonicalRankAtoms(mol, breakTies=False))
    centres = []
    for k in range(1, len(path) - 1):
        atom = mol.GetAtomWithIdx(path[k])
        side = [n.GetIdx() for n in atom.GetNeighbors() if n.GetIdx() not in (path[k - 1], path[k + 1])]
        if atom.GetDegree() != 4 or len(side) != 2 or ranks[side[0]] == ranks[side[1]]:
            continue
        heavier = max(side, key=lambda index: ranks[index])
        drawn = atom.GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED
        centres.append((path[k], path[k - 1], path[k + 1], heavier, drawn))
    return centres


def _hands(positions: np.ndarray, centres: list[tuple[int, int, int, int, bool]]) -> np.ndarray:
    """(conformers, centres) sign of (head - c) x (tail - c) . (side - c) per centre."""
    out = np.zeros((len(positions), len(centres)), dtype=np.int8)
    for column, (centre, head, tail, side, _) in enumerate(centres):
        c = positions[:, centre]
        volume = np.einsum("ni,ni->n", np.cross(positions[:, head] - c, positions[:, tail] - c), positions[:, side] - c)
        out[:, column] = np.where(volume >= 0, 1, -1)
    return out


def build_template(smiles: str, where: str) -> UnitTemplate:
    """Parse, check and embed one unit; `where` names it in error messages ("repeating unit of block X")."""
    mol = _parse(smiles, where)
    try:
        with_h = Chem.AddHs(mol)
    except Exception as exc:  # RDKit raises several types for chemistry problems
        raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' cannot be completed with hydrogens ({exc}).") from exc
    dummies = [atom.GetIdx() for atom in with_h.GetAtoms() if atom.GetAtomicNum() == 0]

    try:
        proxy_h, proxy_elements = _proxy_molecule(with_h, dummies, stand_ins=True)
    except Exception:  # a stand-in the chemistry rejects (valence): plain methyl carbons
        try:
            proxy_h, proxy_elements = _proxy_molecule(with_h, dummies, stand_ins=False)
        except Exception as exc:
            raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' is not a valid structure ({exc}).") from exc
    # Rotatable bonds of the unit itself: a marker counts as an end atom, as a methyl would.
    conformer_ids = _embed(proxy_h, where, smiles, rdMolDescriptors.CalcNumRotatableBonds(with_h), with_h.GetNumAtoms())
    path = _backbone_path(with_h, dummies)
    dihedrals = _backbone_dihedrals(proxy_h, path)
    if dihedrals:  # every rotational state of the unit's backbone, on its lowest-energy conformer
        all_positions = _backbone_conformers(proxy_h, conformer_ids[0], dihedrals)
    else:
        all_positions = np.array([proxy_h.GetConformer(cid).GetPositions() for cid in conformer_ids])
    centres = prochiral_centres(with_h, path)
    hands = _hands(all_positions, centres)
    stereo_drawn = any(drawn for *_, drawn in centres)
    if centres and not stereo_drawn:
        # Both configurations of every prochiral centre, as mirror images, so tacticity can be chosen
        # per unit: the conformers of the lowest-energy one's hand, then their mirror images.
        same = (hands == hands[0]).all(axis=1)
        all_positions = np.concatenate([all_positions[same], all_positions[same] * np.array([-1.0, 1.0, 1.0])])
        hands = _hands(all_positions, centres)

    kept = [atom.GetIdx() for atom in with_h.GetAtoms() if atom.GetAtomicNum() != 0]
    new_index = {old: new for new, old in enumerate(kept)}
    sites = []
    for index in dummies:
        dummy = with_h.GetAtomWithIdx(index)
        anchor = dummy.GetNeighbors()[0]
        if anchor.GetAtomicNum() == 0:
            raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' joins two connection points directly.")
        sites.append(Site(label=dummy.GetAtomMapNum(), anchor=new_index[anchor.GetIdx()]))

    def _unit_ref(index: int) -> int:
        return -(dummies.index(index) + 1) if index in dummies else new_index[index]

    unit = Chem.RWMol(with_h)
    for atom in unit.GetAtoms():
        atom.SetNoImplicit(True)  # every hydrogen is explicit; a free marker valence must not gain one
    for index in sorted(dummies, reverse=True):
        unit.RemoveAtom(index)
    unit_mol = unit.GetMol()
    unit_mol.UpdatePropertyCache(strict=False)
    return UnitTemplate(
        smiles=smiles,
        mol=unit_mol,
        sites=tuple(sites),
        coordinates=all_positions[:, kept, :],
        proxies=all_positions[:, dummies, :],
        proxy_shares=np.array([_PERIODIC_TABLE.GetRcovalent(element) for element in proxy_elements]),
        masses=np.array([atom.GetMass() for atom in unit_mol.GetAtoms()]),
        elements=tuple(atom.GetSymbol() for atom in unit_mol.GetAtoms()),
        stereo_centres=tuple((_unit_ref(c[0]), _unit_ref(c[1]), _unit_ref(c[2]), _unit_ref(c[3])) for c in centres),
        hands=hands,
        stereo_drawn=stereo_drawn,
    )
