"""One building unit (a SMILES with connection markers) turned into a reusable 3D template.

Each distinct SMILES is parsed and conformer-generated once (ETKDG, then MMFF) and reused for every
copy. Markers `[*:1]`/`[*:2]` are kept as *sites*: the atom that will bond (anchor) and, per
conformer, a proxy position where the partner atom should sit. The proxy is obtained by turning the
dummy into a methyl carbon before embedding, so bond lengths and angles at a junction come from a
real force-field geometry instead of a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The specific modules rather than AllChem, which imports far more (start-up counts for small jobs).
from rdkit import Chem, RDLogger
from rdkit.Chem import rdDistGeom, rdForceFieldHelpers, rdMolDescriptors, rdMolTransforms

from polyforge_engine.protocol import EngineError

RDLogger.DisableLog("rdApp.*")

# Conformer generation is seeded independently of the job: a unit always gets the same templates.
CONFORMER_SEED = 0x5EED
EMBEDDED_CONFORMERS = 24  # embedded for a unit with rotatable bonds, then minimised and de-duplicated
MAX_CONFORMERS = 9  # distinct conformers kept (e.g. trans, gauche+, gauche- per backbone bond)
DISTINCT_TORSION = 20.0  # degrees


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
    masses: np.ndarray  # (atoms,) amu
    elements: tuple[str, ...]

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


def _embed(mol: Chem.Mol, where: str, smiles: str) -> list[int]:
    rotatable = rdMolDescriptors.CalcNumRotatableBonds(mol)
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
    if rdForceFieldHelpers.MMFFHasAllMoleculeParams(mol):
        rdForceFieldHelpers.MMFFOptimizeMoleculeConfs(mol, numThreads=0, maxIters=1000)
    elif rdForceFieldHelpers.UFFHasAllMoleculeParams(mol):
        rdForceFieldHelpers.UFFOptimizeMoleculeConfs(mol, numThreads=0, maxIters=1000)
    return _distinct_conformers(mol, conformer_ids)


def _distinct_conformers(mol: Chem.Mol, conformer_ids: list[int]) -> list[int]:
    """Conformers that differ in some heavy-atom torsion about a chain bond by more than DISTINCT_TORSION
    (signed, so mirror-image gauche states both stay)."""
    quadruples = []
    for bond in mol.GetBonds():
        j, k = bond.GetBeginAtom(), bond.GetEndAtom()
        if bond.IsInRing() or bond.GetBondType() != Chem.BondType.SINGLE:
            continue
        before = [n.GetIdx() for n in j.GetNeighbors() if n.GetIdx() != k.GetIdx() and n.GetAtomicNum() > 1]
        after = [n.GetIdx() for n in k.GetNeighbors() if n.GetIdx() != j.GetIdx() and n.GetAtomicNum() > 1]
        if before and after:
            quadruples.append((before[0], j.GetIdx(), k.GetIdx(), after[0]))
    if not quadruples:
        return conformer_ids[:1]
    torsions = np.array(
        [[rdMolTransforms.GetDihedralDeg(mol.GetConformer(cid), *q) for q in quadruples] for cid in conformer_ids]
    )
    kept: list[int] = []  # rows of `torsions`
    for row in range(len(conformer_ids)):
        if len(kept) == MAX_CONFORMERS:
            break
        difference = np.abs((torsions[kept] - torsions[row] + 180.0) % 360.0 - 180.0)
        if (difference.max(axis=1) > DISTINCT_TORSION).all():  # vacuously true for the first
            kept.append(row)
    return [conformer_ids[row] for row in kept]


def build_template(smiles: str, where: str) -> UnitTemplate:
    """Parse, check and embed one unit; `where` names it in error messages ("repeating unit of block X")."""
    mol = _parse(smiles, where)
    try:
        with_h = Chem.AddHs(mol)
    except Exception as exc:  # RDKit raises several types for chemistry problems
        raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' cannot be completed with hydrogens ({exc}).") from exc
    dummies = [atom.GetIdx() for atom in with_h.GetAtoms() if atom.GetAtomicNum() == 0]

    # Proxy molecule: each marker becomes a methyl carbon; its new hydrogens are appended at the end,
    # so the unit's own atoms keep their indices.
    proxy = Chem.RWMol(with_h)
    for index in dummies:
        atom = proxy.GetAtomWithIdx(index)
        atom.SetAtomicNum(6)
        atom.SetAtomMapNum(0)
        atom.SetIsotope(0)
        atom.SetNoImplicit(False)
    try:
        Chem.SanitizeMol(proxy)
        proxy_h = Chem.AddHs(proxy, onlyOnAtoms=tuple(dummies)) if dummies else Chem.Mol(proxy)
    except Exception as exc:
        raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' is not a valid structure ({exc}).") from exc
    conformer_ids = _embed(proxy_h, where, smiles)
    all_positions = np.array([proxy_h.GetConformer(cid).GetPositions() for cid in conformer_ids])

    kept = [atom.GetIdx() for atom in with_h.GetAtoms() if atom.GetAtomicNum() != 0]
    new_index = {old: new for new, old in enumerate(kept)}
    sites = []
    for index in dummies:
        dummy = with_h.GetAtomWithIdx(index)
        anchor = dummy.GetNeighbors()[0]
        if anchor.GetAtomicNum() == 0:
            raise EngineError("INVALID_SMILES", f"The {where} '{smiles}' joins two connection points directly.")
        sites.append(Site(label=dummy.GetAtomMapNum(), anchor=new_index[anchor.GetIdx()]))

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
        masses=np.array([atom.GetMass() for atom in unit_mol.GetAtoms()]),
        elements=tuple(atom.GetSymbol() for atom in unit_mol.GetAtoms()),
    )
