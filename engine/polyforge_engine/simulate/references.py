"""Literature values the measured properties are shown beside, for the polymers a chemist checks
first. A polymer is recognised by its repeating unit (atom maps, stereo and the direction it is
written in do not matter); only homopolymers of one such unit get a reference."""

from __future__ import annotations

from dataclasses import dataclass

from rdkit import Chem

FETTERS_1994 = "Fetters, Lohse, Richter, Witten, Zirkel, Macromolecules 1994, 27, 4639"
POLYMER_HANDBOOK = "Brandrup, Immergut, Grulke (eds.), Polymer Handbook, 4th ed., Wiley 1999"
MARK_2007 = "Mark (ed.), Physical Properties of Polymers Handbook, 2nd ed., Springer 2007"


@dataclass(frozen=True)
class Reference:
    name: str
    c_infinity: tuple[float, float]  # unperturbed characteristic ratio, low and high literature values
    c_infinity_source: str
    density_g_cm3: tuple[float, float]  # amorphous, near room temperature (PE: amorphous extrapolated)
    density_source: str

    def as_dict(self) -> dict[str, object]:
        return {
            "polymer": self.name,
            "c_infinity": {"low": self.c_infinity[0], "high": self.c_infinity[1], "source": self.c_infinity_source},
            "density_g_cm3": {
                "low": self.density_g_cm3[0],
                "high": self.density_g_cm3[1],
                "source": self.density_source,
            },
        }


_KNOWN: dict[str, tuple[tuple[str, ...], Reference]] = {
    "PE": (
        ("*CC*", "*C*", "*CCCC*"),
        Reference(
            "polyethylene",
            (6.7, 8.3),
            f"{FETTERS_1994} (melt, 413 K; RIS ≈ 7.5)",
            (0.85, 0.86),
            f"{MARK_2007} (amorphous, 298 K)",
        ),
    ),
    "PS": (
        ("*CC(*)c1ccccc1",),
        Reference("atactic polystyrene", (9.5, 10.0), f"{FETTERS_1994}; {POLYMER_HANDBOOK}", (1.04, 1.06), POLYMER_HANDBOOK),
    ),
    "PEO": (
        ("*CCO*", "*COC*"),
        Reference(
            "poly(ethylene oxide)",
            (4.1, 5.6),
            f"{FETTERS_1994}; {POLYMER_HANDBOOK}",
            (1.09, 1.13),
            f"{MARK_2007} (amorphous)",
        ),
    ),
    "PMMA": (
        ("*CC(*)(C)C(=O)OC",),
        Reference(
            "atactic poly(methyl methacrylate)",
            (8.0, 9.0),
            f"{FETTERS_1994}; {POLYMER_HANDBOOK}",
            (1.17, 1.19),
            POLYMER_HANDBOOK,
        ),
    ),
}


def canonical_unit(smiles: str) -> str | None:
    """The unit's SMILES without atom maps or stereo, canonical; None if it does not parse."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    for atom in mol.GetAtoms():
        atom.SetAtomMapNum(0)
    Chem.RemoveStereochemistry(mol)
    return Chem.MolToSmiles(mol)


_BY_UNIT = {canonical_unit(unit): reference for units, reference in _KNOWN.values() for unit in units}


def reference_for_units(units: set[str]) -> Reference | None:
    """The reference of a homopolymer whose every repeating unit is the same known unit."""
    canonical = {canonical_unit(unit) for unit in units}
    if len(canonical) != 1:
        return None
    return _BY_UNIT.get(canonical.pop())
