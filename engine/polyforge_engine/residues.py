"""The residue names other programs read as standard: amino acids (with the protonation and
terminal variants of AMBER and CHARMM), nucleotides, water models and monatomic ions. Readers of
uploaded structures recognise them; the builder never gives a polymer's unit one of them, so that
methyl methacrylate is not read as methionine (MET) by a viewer, pdb2gmx or tleap."""

from __future__ import annotations

import string

AMINO_ACIDS = frozenset({
    "ALA", "ARG", "ASN", "ASP", "ASH", "CYS", "CYX", "CYM", "GLN", "GLU", "GLH", "GLY", "HIS", "HID", "HIE",
    "HIP", "HSD", "HSE", "HSP", "ILE", "LEU", "LYS", "LYN", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR",
    "VAL",
})  # fmt: skip
# Terminal groups read with the amino acids.
TERMINAL_CAPS = frozenset({"ACE", "NME", "NMA", "NH2"})
NUCLEOTIDES = frozenset({
    "DA", "DC", "DG", "DT", "DU", "A", "C", "G", "U", "T", "ADE", "CYT", "GUA", "THY", "URA",
    "RA", "RC", "RG", "RU", "DA5", "DA3", "DC5", "DC3", "DG5", "DG3", "DT5", "DT3", "RA5", "RA3", "RC5", "RC3",
    "RG5", "RG3", "RU5", "RU3",
})  # fmt: skip
WATERS = frozenset({"HOH", "WAT", "SOL", "TIP3", "TIP4", "TIP5", "SPC", "T3P", "T4P", "H2O"})
# Residue names of monatomic ions (AMBER, CHARMM, GROMACS and PDB spellings) -> element.
ION_RESIDUES = {
    "NA": "Na", "NA+": "Na", "SOD": "Na", "NIO": "Na",
    "K": "K", "K+": "K", "POT": "K", "KIO": "K",
    "LI": "Li", "LI+": "Li", "LIT": "Li",
    "RB": "Rb", "RB+": "Rb", "CS": "Cs", "CS+": "Cs", "CES": "Cs",
    "CL": "Cl", "CL-": "Cl", "CLA": "Cl", "CIO": "Cl",
    "BR": "Br", "BR-": "Br", "IOD": "I", "I-": "I", "F": "F", "F-": "F",
    "MG": "Mg", "MG2": "Mg", "MG+": "Mg", "CA": "Ca", "CAL": "Ca", "CA2": "Ca",
    "ZN": "Zn", "ZN2": "Zn", "FE": "Fe", "FE2": "Fe", "CU": "Cu", "MN": "Mn", "CO": "Co", "NI": "Ni", "CD": "Cd",
}  # fmt: skip

STANDARD_RESIDUES = AMINO_ACIDS | TERMINAL_CAPS | NUCLEOTIDES | WATERS | frozenset(ION_RESIDUES)

# A PDB chain identifier per molecule, in turn (one character; molecule 27 is A again, after Z).
CHAIN_IDS = string.ascii_uppercase
