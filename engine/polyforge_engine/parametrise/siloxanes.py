"""Silicon for GAFF and GAFF2: the typing rules and the parameter file of silicones.

GAFF has no silicon. Silicon and the hydrogens on it get two types of their own, `si` and `hi`,
whose terms come from `forcefields/siloxanes.frcmod` (OPLS-AA's silicon parameters, cited there and in the
guide); every other atom, the methyls and siloxane oxygens included, keeps its GAFF type, and charges
stay AM1-BCC (antechamber's bond charge corrections have silicon). A silicon environment the file
does not cover is refused by name rather than filled in by parmchk2's guesses."""

from __future__ import annotations

import shutil
from pathlib import Path

from rdkit import Chem

from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.errors import PARAMETERS_MISSING

SILOXANE_FRCMOD = Path(__file__).parent / "forcefields" / "siloxanes.frcmod"
# parmchk2 refuses types it has no element and mass for (its PARMCHK.DAT); this file gives them.
SILOXANE_ATOM_TYPES = Path(__file__).parent / "forcefields" / "siloxanes.atcs"
# tleap's side: the types' elements, then the frcmod.
SILOXANE_LEAPRC = Path(__file__).parent / "forcefields" / "siloxanes.leaprc"
SILICON_TYPES = frozenset({"si", "hi"})

_SECTIONS = ("MASS", "BOND", "ANGLE", "DIHE", "IMPROPER", "NONBON")
_TERM_NAMES = {"BOND": "bond", "ANGLE": "angle", "DIHE": "torsion", "IMPROPER": "improper torsion", "NONBON": "Lennard-Jones type"}


def silicon_atom_types(mol: Chem.Mol, atom_types: list[str]) -> list[str]:
    """`atom_types` (antechamber's, in `mol`'s atom order) with silicon typed `si` and hydrogen on
    silicon `hi` (antechamber names silicon by its element and gives its hydrogens an aromatic H's type)."""
    typed = list(atom_types)
    for atom in mol.GetAtoms():
        if atom.GetSymbol() == "Si":
            typed[atom.GetIdx()] = "si"
        elif atom.GetAtomicNum() == 1 and any(neighbour.GetSymbol() == "Si" for neighbour in atom.GetNeighbors()):
            typed[atom.GetIdx()] = "hi"
    return typed


def has_silicon_types(atom_types: list[str]) -> bool:
    return not SILICON_TYPES.isdisjoint(atom_types)


def parmchk2_arguments(workdir: Path) -> list[str]:
    """parmchk2's options that load the siloxane terms and types; the files (tleap's too) are
    copied beside a kind's own so that its inputs read them as they were used."""
    for source in (SILOXANE_FRCMOD, SILOXANE_ATOM_TYPES, SILOXANE_LEAPRC):
        shutil.copyfile(source, workdir / source.name)
    return ["-afrc", SILOXANE_FRCMOD.name, "-atc", SILOXANE_ATOM_TYPES.name]


def check_no_guessed_silicon_terms(frcmod: Path, label: str) -> None:
    """parmchk2 writes the terms it had to estimate; one with a silicon type means the silicon
    environment is outside the published set, so the run stops and names the term."""
    section = ""
    for line in frcmod.read_text().splitlines():
        word = line.strip()
        if word in _SECTIONS:
            section = word
            continue
        if section not in _TERM_NAMES or not word:
            continue
        term = word.split()[0] if section == "NONBON" else _term_types(line, section)
        types = [name.strip() for name in term.split("-")]
        if not SILICON_TYPES.isdisjoint(types):
            raise EngineError(
                PARAMETERS_MISSING,
                f"The silicone parameters have no {_TERM_NAMES[section]} {term} (atom types, needed by {label}); "
                "silicon is covered bonded to carbon, aromatic carbon, siloxane or silanol oxygen, hydrogen and silicon.",
            )


def _term_types(line: str, section: str) -> str:
    """The type names of a frcmod term: 2-character fields joined by '-' (bond, angle, torsion)."""
    width = {"BOND": 5, "ANGLE": 8, "DIHE": 11, "IMPROPER": 11}[section]
    return line[:width].replace(" ", "")
