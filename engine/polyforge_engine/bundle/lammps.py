"""The bundle's LAMMPS files: a data file (units real, atom_style full) written from the ParmEd
structure of the topology, and an input script with the same non-bonded treatment and protocol.

No maintained library writes LAMMPS from a ParmEd structure (ParmEd has no LAMMPS writer; InterMol
is unmaintained, mosdef-gmso would convert through its own topology model), so the terms are
written here one to one: ParmEd's Amber units (kcal/mol, Å, degrees, E = k(r - r0)²) are LAMMPS's
real units and its harmonic styles; Amber torsions E = Σ k[1 + cos(nφ - δ)] are `dihedral fourier`
(all terms of one quadruplet in one type); Amber impropers, one term with δ of 0° or 180°, are
`improper cvff` (E = K[1 + d cos(nφ)], d = cos δ), others go with the torsions; the 1-4 pairs of the
torsions are LAMMPS's third neighbours, scaled by `special_bonds` with the topology's 1/scnb and
1/scee; Lennard-Jones by Lorentz-Berthelot (`pair_modify mix arithmetic`), as GAFF's are."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import parmed

from polyforge_engine.simulate.mdp import TAU_P_PS
from polyforge_engine.simulate.protocol import CUTOFF_NM, FRICTION_PER_PS, TIMESTEP_FS, Protocol, Stage

DATA_FILE = "system.data"
INPUT_FILE = "md.lammps"
DYNAMICS_MARKER = "# Dynamics"  # the script's force field ends here (a single-point energy runs what precedes it)
PPPM_ACCURACY = 1e-5  # relative error of the forces, LAMMPS's own measure
ATM_PER_BAR = 1 / 1.01325  # LAMMPS real units take pressures in atm
HYDROGEN_MASS_LIMIT = 1.1  # atoms lighter than this are hydrogens: their bonds are held, as OpenMM's HBonds
SEED_RANGE = 900_000_000  # LAMMPS seeds are positive 32-bit integers
ISOLATED_MARGIN_A = 50.0  # an isolated system's Coulomb/LJ cutoff exceeds its extent by this much: no cutoff in effect
# prmtops keep phases in radians to 8 digits (180° is read back as 180.00008°)
PHASE_TOLERANCE_DEG = 1e-3
RIGID_WATER = "rigid water"  # marks the angle types added for SHAKE
RMIN_TO_SIGMA = 2 / 2 ** (1 / 6)  # ParmEd's rmin is Rmin/2


class LammpsUnsupported(ValueError):
    """The topology has terms these LAMMPS files cannot express (the message says which)."""


@dataclass(frozen=True)
class _Torsion:
    atoms: tuple[int, int, int, int]  # 0-based
    terms: tuple[tuple[float, int, float], ...]  # (k kcal/mol, n, δ degrees)


@dataclass(frozen=True)
class _Scaling:
    lj: float
    coul: float


def write_lammps_files(
    prmtop: Path,
    positions: np.ndarray,
    box: np.ndarray | None,
    protocol: Protocol,
    stages: list[Stage],
    title: str,
    workdir: Path,
) -> list[Path]:
    """Write system.data (the topology of `prmtop` at `positions`, Å, in the cell `box`, Å) and
    md.lammps into `workdir`; returns their paths. Raises LammpsUnsupported, writing nothing, for
    terms LAMMPS's styles here cannot hold. The topology is read back from the prmtop, as
    the engine's own structure of a replicated system has atoms only."""
    structure = parmed.load_file(str(prmtop))
    _check_supported(structure)
    scaling = _one_four_scaling(structure)
    data, input_script = workdir / DATA_FILE, workdir / INPUT_FILE
    terms = _typed_terms(structure)
    data.write_text(lammps_data(structure, terms, positions, box, title))
    shake = _shake_selection(structure, terms)
    input_script.write_text(lammps_input(protocol, stages, scaling, box is not None, _pair_cutoff_a(positions, box), title, shake))
    return [data, input_script]


def _check_supported(structure: parmed.Structure) -> None:
    """The writer knows Amber-style terms only; anything else would be lost silently."""
    others = {
        "Urey-Bradley terms": structure.urey_bradleys,
        "CHARMM impropers": structure.impropers,
        "CMAP terms": structure.cmaps,
        "Ryckaert-Bellemans torsions": structure.rb_torsions,
    }
    present = [name for name, terms in others.items() if len(terms)]
    if present or structure.has_NBFIX():
        raise LammpsUnsupported(f"LAMMPS files cannot be written for {', '.join(present) or 'pair-specific Lennard-Jones terms'}")


def _one_four_scaling(structure: parmed.Structure) -> _Scaling:
    """special_bonds' 1-4 weights from the torsions' scnb and scee, which must agree (GAFF: 2.0 and
    1.2), and the 1-4 pairs the torsions name must be the bond graph's third neighbours, which are
    what LAMMPS scales."""
    factors = {(d.type.scnb, d.type.scee) for d in structure.dihedrals if not d.ignore_end and not d.improper}
    if len(factors) > 1:
        raise LammpsUnsupported(f"LAMMPS has one 1-4 scaling; the topology has several: {sorted(factors)}")
    scnb, scee = factors.pop() if factors else (2.0, 1.2)
    named = {tuple(sorted((d.atom1.idx, d.atom4.idx))) for d in structure.dihedrals if not d.ignore_end and not d.improper}
    if named != _third_neighbours(structure):
        raise LammpsUnsupported("the topology's 1-4 pairs are not the bond graph's third neighbours; special_bonds cannot reproduce them")
    return _Scaling(lj=1 / scnb, coul=1 / scee)


def _third_neighbours(structure: parmed.Structure) -> set[tuple[int, ...]]:
    """Pairs three bonds apart and no closer, as LAMMPS's special list counts them."""
    bonded: dict[int, set[int]] = defaultdict(set)
    for bond in structure.bonds:
        bonded[bond.atom1.idx].add(bond.atom2.idx)
        bonded[bond.atom2.idx].add(bond.atom1.idx)
    pairs: set[tuple[int, ...]] = set()
    for start in list(bonded):
        first = bonded[start]
        second = {b for a in first for b in bonded[a]} - first - {start}
        third = {c for b in second for c in bonded[b]} - second - first - {start}
        pairs |= {tuple(sorted((start, atom))) for atom in third}
    return pairs


def _torsions(structure: parmed.Structure) -> tuple[list[_Torsion], list[_Torsion]]:
    """(proper torsions, impropers written as `improper cvff`): every ParmEd term of one atom
    quadruplet gathered into one torsion; an improper that cvff cannot hold joins the torsions."""
    grouped: dict[tuple[tuple[int, int, int, int], bool], list[tuple[float, int, float]]] = defaultdict(list)
    for dihedral in structure.dihedrals:
        atoms = (dihedral.atom1.idx, dihedral.atom2.idx, dihedral.atom3.idx, dihedral.atom4.idx)
        kind = dihedral.type
        multiplicity = round(kind.per)
        if not math.isclose(kind.per, multiplicity):
            raise LammpsUnsupported(f"a torsion's periodicity {kind.per} is not an integer")
        grouped[(atoms, bool(dihedral.improper))].append((float(kind.phi_k), multiplicity, float(kind.phase)))
    propers, impropers = [], []
    for (atoms, improper), terms in grouped.items():
        torsion = _Torsion(atoms, tuple(terms))
        if improper and len(terms) == 1 and _cvff_sign(terms[0][2]) is not None:
            impropers.append(torsion)
        else:
            propers.append(torsion)
    return propers, impropers


def _cvff_sign(phase: float) -> int | None:
    """cvff's d for a phase: cos δ when δ is 0° or 180° (mod 360), else None."""
    wrapped = phase % 360
    if math.isclose(wrapped, 0, abs_tol=PHASE_TOLERANCE_DEG) or math.isclose(wrapped, 360, abs_tol=PHASE_TOLERANCE_DEG):
        return 1
    if math.isclose(wrapped, 180, abs_tol=PHASE_TOLERANCE_DEG):
        return -1
    return None


class _TypeTable:
    """Numbers distinct parameter sets 1, 2, ... in order of first use (keys are the prmtop's values,
    equal for equal parameters), each with a comment naming the atom types of its first use."""

    def __init__(self) -> None:
        self.numbers: dict[tuple, int] = {}
        self.comments: list[str] = []

    def number(self, key: tuple, atom_types: Callable[[], str]) -> int:
        number = self.numbers.get(key)
        if number is None:
            number = self.numbers[key] = len(self.numbers) + 1
            self.comments.append(atom_types())
        return number

    def coefficient_lines(self, render: Callable[[tuple], str]) -> list[str]:
        return [f"{number} {render(key)}  # {comment}" for (key, number), comment in zip(self.numbers.items(), self.comments, strict=True)]


def _molecule_ids(structure: parmed.Structure) -> list[int]:
    """Each atom's molecule (connected component of the bond graph), numbered from 1 in atom order."""
    parent = list(range(len(structure.atoms)))

    def root(atom: int) -> int:
        while parent[atom] != atom:
            parent[atom] = parent[parent[atom]]
            atom = parent[atom]
        return atom

    for bond in structure.bonds:
        parent[root(bond.atom1.idx)] = root(bond.atom2.idx)
    numbers: dict[int, int] = {}
    return [numbers.setdefault(root(atom), len(numbers) + 1) for atom in range(len(parent))]


def _cell_and_images(positions: np.ndarray, box: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower corner, upper corner, image flags) and the positions wrapped into the cell; an
    isolated system gets a shrink-wrapped box around its atoms."""
    if box is None:
        low, high = positions.min(axis=0) - 1.0, positions.max(axis=0) + 1.0
        return np.vstack([low, high]), np.zeros_like(positions, dtype=int), positions
    sides = np.asarray(box, dtype=float)
    images = np.floor(positions / sides).astype(int)
    return np.vstack([np.zeros(3), sides]), images, positions - images * sides


def _pair_cutoff_a(positions: np.ndarray, box: np.ndarray | None) -> float:
    if box is not None:
        return CUTOFF_NM * 10
    return float(np.linalg.norm(positions.max(axis=0) - positions.min(axis=0))) + ISOLATED_MARGIN_A


@dataclass
class _Terms:
    """The data file's typed terms: each row (type, 0-based atoms...), and its type tables."""

    atom_types: _TypeTable
    atom_type_of: list[int]
    tables: dict[str, _TypeTable]  # bond, angle, dihedral, improper
    rows: dict[str, list[tuple[int, ...]]]


def _joined_types(names: list[str], atoms: Sequence[int]) -> str:
    return "-".join(names[i] for i in atoms)


def _typed_terms(structure: parmed.Structure) -> _Terms:
    names = [atom.type for atom in structure.atoms]
    atom_types = _TypeTable()
    atom_type_of = [atom_types.number((atom.mass, atom.epsilon, atom.rmin), partial(str, atom.type)) for atom in structure.atoms]
    propers, impropers = _torsions(structure)
    terms: dict[str, list[tuple[tuple, tuple[int, ...]]]] = {
        "bond": [((b.type.k, b.type.req), (b.atom1.idx, b.atom2.idx)) for b in structure.bonds],
        "angle": [((a.type.k, a.type.theteq), (a.atom1.idx, a.atom2.idx, a.atom3.idx)) for a in structure.angles] + _rigid_water_angles(structure),
        "dihedral": [(t.terms, t.atoms) for t in propers],
        "improper": [((t.terms[0][0], _cvff_sign(t.terms[0][2]), t.terms[0][1]), t.atoms) for t in impropers],
    }
    tables = {kind: _TypeTable() for kind in terms}
    rows = {kind: [(tables[kind].number(key, partial(_joined_types, names, atoms)), *atoms) for key, atoms in entries] for kind, entries in terms.items()}
    return _Terms(atom_types, atom_type_of, tables, rows)


def _is_light(atom: parmed.Atom) -> bool:
    return bool(atom.mass < HYDROGEN_MASS_LIMIT)


def _rigid_water_angles(structure: parmed.Structure) -> list[tuple[tuple, tuple[int, ...]]]:
    """An H-O-H angle of no energy (K = 0) for each rigid water: Amber's water models hold their
    shape by an H-H bond, which makes LAMMPS's SHAKE clusters connected; SHAKE holds the angle
    instead, at the one the O-H and H-H bond lengths give."""
    angles: list[tuple[tuple, tuple[int, ...]]] = []
    for bond in structure.bonds:
        if not (_is_light(bond.atom1) and _is_light(bond.atom2)):
            continue
        centre = next((partner for partner in bond.atom1.bond_partners if partner in bond.atom2.bond_partners), None)
        if centre is None:
            continue
        arm = next(b for b in centre.bonds if bond.atom1 in (b.atom1, b.atom2))
        theta = math.degrees(2 * math.asin(bond.type.req / 2 / arm.type.req))
        angles.append(((0.0, theta, RIGID_WATER), (bond.atom1.idx, centre.idx, bond.atom2.idx)))
    return angles


def _shake_selection(structure: parmed.Structure, terms: _Terms) -> str | None:
    """fix shake's types: bonds between a hydrogen and a heavier atom (OpenMM's HBonds) and the
    rigid waters' angles; None when there is nothing to hold."""
    light = [_is_light(atom) for atom in structure.atoms]
    bonds = sorted({kind for kind, i, j in terms.rows["bond"] if light[i] != light[j]})
    waters = sorted(number for key, number in terms.tables["angle"].numbers.items() if key[-1] == RIGID_WATER)
    if not bonds and not waters:
        return None
    return " ".join(part for part in (f"b {' '.join(map(str, bonds))}" if bonds else "", f"a {' '.join(map(str, waters))}" if waters else "") if part)


def _header(structure: parmed.Structure, terms: _Terms, corners: np.ndarray) -> str:
    counts = [f"{len(structure.atoms)} atoms"] + [f"{len(terms.rows[kind])} {kind}s" for kind in terms.rows]
    counts += [f"{len(terms.atom_types.numbers)} atom types"] + [f"{len(terms.tables[kind].numbers)} {kind} types" for kind in terms.tables]
    cell = [f"{low:.6f} {high:.6f} {axis}lo {axis}hi" for low, high, axis in zip(corners[0], corners[1], "xyz", strict=True)]
    return "\n".join(counts) + "\n\n" + "\n".join(cell) + "\n"


def _coefficient_sections(terms: _Terms) -> list[str]:
    """Masses and the coefficients of every style, in ParmEd's (= LAMMPS real) units."""
    tables = terms.tables
    return [
        _section("Masses", terms.atom_types.coefficient_lines(lambda key: f"{key[0]:.4f}")),
        _section("Pair Coeffs # lj/cut/coul/long", terms.atom_types.coefficient_lines(lambda key: f"{key[1]:.8f} {key[2] * RMIN_TO_SIGMA:.8f}")),
        _section("Bond Coeffs # harmonic", tables["bond"].coefficient_lines(lambda key: f"{key[0]:.6f} {key[1]:.6f}")),
        _section("Angle Coeffs # harmonic", tables["angle"].coefficient_lines(lambda key: f"{key[0]:.6f} {key[1]:.6f}")),
        _section("Dihedral Coeffs # fourier", tables["dihedral"].coefficient_lines(_fourier_coefficients)),
        _section("Improper Coeffs # cvff", tables["improper"].coefficient_lines(lambda key: f"{key[0]:.6f} {key[1]} {key[2]}")),
    ]


def _fourier_coefficients(terms: tuple) -> str:
    """`m K1 n1 d1 ... Km nm dm` of dihedral fourier."""
    return f"{len(terms)} " + " ".join(f"{k:.6f} {n} {d:.6f}" for k, n, d in terms)


def lammps_data(structure: parmed.Structure, terms: _Terms, positions: np.ndarray, box: np.ndarray | None, title: str) -> str:
    """The data file: counts, cell, masses, coefficients of every style, atoms (full: molecule,
    type, charge, position, image flags) and the bonded terms."""
    corners, images, wrapped = _cell_and_images(np.asarray(positions, dtype=float), box)
    molecules = _molecule_ids(structure)
    atoms = [
        f"{i + 1} {molecules[i]} {terms.atom_type_of[i]} {atom.charge:.8f} {x:.6f} {y:.6f} {z:.6f} {ix} {iy} {iz}"
        for i, (atom, (x, y, z), (ix, iy, iz)) in enumerate(zip(structure.atoms, wrapped, images, strict=True))
    ]
    sections = [
        f"{title} — LAMMPS data file written by PolyForge (units real, atom_style full)\n",
        _header(structure, terms, corners),
        *_coefficient_sections(terms),
        _section("Atoms # full", atoms),
        *(_section(f"{kind.capitalize()}s", _term_lines(rows)) for kind, rows in terms.rows.items()),
    ]
    return "\n".join(section for section in sections if section)


def _section(heading: str, lines: list[str]) -> str:
    return f"{heading}\n\n" + "\n".join(lines) + "\n" if lines else ""


def _term_lines(terms: Sequence[tuple[int, ...]]) -> list[str]:
    """`id type atom...` with 1-based atom ids."""
    return [f"{number} {kind} " + " ".join(str(atom + 1) for atom in atoms) for number, (kind, *atoms) in enumerate(terms, start=1)]


def _seed(protocol: Protocol, offset: int) -> int:
    return (protocol.seed + offset) % SEED_RANGE + 1


def lammps_input(protocol: Protocol, stages: list[Stage], scaling: _Scaling, periodic: bool, cutoff_a: float, title: str, shake: str | None) -> str:
    """The input script: the force field of system.data as OpenMM runs it (Lennard-Jones cut at the
    cutoff with the long-range correction, PPPM for PME), then the protocol's dynamics stages, or
    a single-point energy when there are none. `shake`: fix shake's selection of types."""
    if periodic:
        nonbonded = (
            "boundary p p p\n"
            f"pair_style lj/cut/coul/long {cutoff_a:g}\n"
            "pair_modify mix arithmetic tail yes  # Lorentz-Berthelot; long-range dispersion correction, as OpenMM's\n"
        )
        kspace = f"kspace_style pppm {PPPM_ACCURACY:g}\n"
    else:
        nonbonded = (
            "boundary s s s\n"
            f"pair_style lj/cut/coul/cut {cutoff_a:.1f}  # longer than the system: no cutoff, as OpenMM's NoCutoff\n"
            "pair_modify mix arithmetic\n"
        )
        kspace = ""
    head = (
        f"# {title} — LAMMPS input written by PolyForge. Run: lmp -in {INPUT_FILE}\n"
        "units real\n"
        "atom_style full\n" + nonbonded + "bond_style harmonic\n"
        "angle_style harmonic\n"
        "dihedral_style fourier\n"
        "improper_style cvff\n"
        f"special_bonds lj 0.0 0.0 {scaling.lj:.10g} coul 0.0 0.0 {scaling.coul:.10g}  # the topology's 1-4 scaling\n"
        f"read_data {DATA_FILE}\n" + kspace + "neighbor 2.0 bin\n"
        "neigh_modify delay 0 every 1 check yes\n"
        "thermo_style custom step temp press pe ebond eangle edihed eimp evdwl ecoul elong density\n"
        "thermo 100\n"
    )
    return head + f"\n{DYNAMICS_MARKER}\n" + _dynamics(protocol, stages, shake)


def _dynamics(protocol: Protocol, stages: list[Stage], shake: str | None) -> str:
    """Each stage's fixes, then its run; the velocities are drawn once SHAKE has taken its degrees
    of freedom."""
    if not stages:
        return "run 0  # no dynamics in the protocol: the energy of the structure\n"
    lines = [f"timestep {TIMESTEP_FS:g}", f"dump frames all dcd 1000 {Path(INPUT_FILE).stem}.dcd"]
    for number, stage in enumerate(stages, start=1):
        lines += [f"# stage {number} of {len(stages)}: {stage.describe()}", *_stage_fixes(protocol, stage, number, shake)]
        if number == 1:
            lines.append(f"velocity all create {protocol.temperature_k:g} {_seed(protocol, 0)} mom yes rot yes dist gaussian")
        lines += [f"run {stage.steps}", "unfix integrate"]
        lines += ["unfix thermostat"] if stage.ensemble != "NVE" else []
        lines += ["unfix hbonds"] if shake else []
    lines.append(f"write_data {Path(INPUT_FILE).stem}_final.data")
    return "\n".join(lines) + "\n"


def _stage_fixes(protocol: Protocol, stage: Stage, number: int, shake: str | None) -> list[str]:
    """Langevin dynamics with OpenMM's friction; NPT's barostat is LAMMPS's Nosé-Hoover (MTK)
    barostat with GROMACS's tau-p, as LAMMPS has no Monte Carlo barostat. In the order LAMMPS
    needs: SHAKE after the thermostat, whose forces it must see, and before a box-changing fix."""
    damp_fs = 1000 / FRICTION_PER_PS
    thermostat = f"fix thermostat all langevin {stage.temperature_k:g} {stage.temperature_k:g} {damp_fs:g} {_seed(protocol, number)} zero yes"
    fixes = [thermostat] if stage.ensemble != "NVE" else []
    if shake:
        fixes.append(f"fix hbonds all shake 1.0e-6 100 0 {shake}  # bonds to hydrogen and rigid waters held")
    if stage.ensemble == "NPT":
        pressure_atm = (stage.pressure_bar if stage.pressure_bar is not None else protocol.pressure_bar) * ATM_PER_BAR
        return [*fixes, f"fix integrate all nph iso {pressure_atm:.6g} {pressure_atm:.6g} {TAU_P_PS * 1000:g}"]
    return [*fixes, "fix integrate all nve"]
