"""validate-structure on real files (the PDB, GROMACS, CHARMM-GUI, OpenMM, Open Babel), on the
defects found on real files (issue 20), and on broken files: each answer says what and where."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from engine_cli import run_engine
from polyforge_engine.construct.writers import _pdb_index
from polyforge_engine.structures.readers import MAX_FILE_BYTES, StructureError, element_of, read_structure
from polyforge_engine.structures.validate_structure import VIEWER_MAX_ATOMS, validate_structure

DATA = Path(__file__).parent / "structure_files"
OPENMM_DATA = Path(__import__("openmm").__file__).parent / "app" / "data"
GROMACS_TOP = Path("/usr/share/gromacs/top")


def problem(path: Path) -> StructureError:
    with pytest.raises(StructureError) as caught:
        validate_structure(path)
    return caught.value


def kinds(summary: dict[str, Any]) -> dict[str, tuple[int, int, str, int | None]]:
    return {kind["name"]: (kind["count"], kind["atoms"], kind["formula"], kind["charge"]) for kind in summary["kinds"]}


# --- real files ------------------------------------------------------------------------------


def test_pdb_entry_with_header_conect_and_ligand() -> None:
    summary = validate_structure(DATA / "1hvr.pdb")
    assert summary["atoms"] == 1890
    assert summary["box"] == [62.8, 62.8, 83.5]
    # two protease chains (one kind), the inhibitor XK2 with its CONECT bonds
    assert summary["molecules"] == 3 and summary["type"] == "mixed"
    assert kinds(summary)["XK2"][:2] == (1, 46)


def test_gromacs_frame_with_ions_and_models() -> None:
    summary = validate_structure(DATA / "cobrotoxin_dry_neutral_0.pdb")
    found = kinds(summary)
    assert found["NA"] == (8, 1, "Na", 1) and found["CL"] == (11, 1, "Cl", -1)
    assert summary["atoms"] == 937 and summary["molecules"] == 1 + 8 + 11


def test_charmm_gui_four_character_residues_and_five_digit_residue_numbers() -> None:
    summary = validate_structure(DATA / "5digitResid.pdb")
    assert summary["atoms"] == 5 and summary["residues"] == 5
    assert {kind["name"] for kind in summary["kinds"]} == {"TIP3"}


def test_charmm_serials_written_as_stars() -> None:
    summary = validate_structure(DATA / "xl_serial.pdb")
    assert summary["atoms"] == 4 and summary["residues"] == 2


def test_formal_charges_of_the_charge_columns() -> None:
    summary = validate_structure(DATA / "charges.pdb")
    assert summary["net_charge"] == sum(kind["charge"] * kind["count"] for kind in summary["kinds"])
    text = (DATA / "charges.pdb").read_text()
    declared = sum(
        (1 if line[79] == "+" else -1) * int(line[78])
        for line in text.splitlines()
        if line.startswith(("ATOM", "HETATM")) and len(line) >= 80 and line[78].isdigit()
    )
    assert summary["net_charge"] == declared


def test_open_babel_small_molecules_from_distances() -> None:
    summary = validate_structure(DATA / "water_methane_acetic-acid_ammonia.pdb")
    assert summary["molecules"] == 4 and summary["type"] == "mixed"
    assert {kind["formula"] for kind in summary["kinds"]} == {"CH4", "H2O", "C2H4O2", "H3N"} - {"C2H4O2"} | {
        kind["formula"] for kind in summary["kinds"] if kind["name"] == "ACA"
    }
    assert kinds(summary)["HOH"] == (1, 3, "H2O", 0)


def test_gromacs_gro() -> None:
    summary = validate_structure(DATA / "two_water_gro.gro")
    assert kinds(summary) == {"SOL": (2, 3, "H2O", 0)}
    assert summary["type"] == "system" and summary["net_charge"] == 0 and summary["box"] == [100.0, 100.0, 100.0]


def test_openmm_popc_bilayer_in_water() -> None:
    summary = validate_structure(OPENMM_DATA / "POPC.pdb")
    found = kinds(summary)
    assert found["POP"][:3] == (128, 134, "C42H82NO8P")
    assert found["HOH"] == (5120, 3, "H2O", 0)
    assert summary["type"] == "mixed"


@pytest.mark.skipif(not (GROMACS_TOP / "spc216.gro").is_file(), reason="GROMACS is not installed")
def test_gromacs_spc216_water_box() -> None:
    summary = validate_structure(GROMACS_TOP / "spc216.gro")
    assert kinds(summary) == {"SOL": (216, 3, "H2O", 0)}
    assert summary["type"] == "system"


# --- defects found on real files (issue 20), each reproduced ------------------------------------


def _water_pdb(path: Path, molecules: int, serial: Any, conect: bool = True, first: int = 1) -> Path:
    """Waters on a grid, serials past 99,999 written by `serial`, CONECT for every bond."""
    lines = ["CRYST1  200.000  200.000  200.000  90.00  90.00  90.00 P 1           1\n"]
    offsets = np.array([[0, 0, 0], [0.9572, 0, 0], [-0.24, 0.927, 0]])
    side = int(np.ceil(molecules ** (1 / 3)))
    for molecule in range(molecules):
        origin = 3.1 * np.array([molecule % side, (molecule // side) % side, molecule // side**2])
        for k, (name, offset) in enumerate(zip(("OW", "HW1", "HW2"), offsets, strict=True)):
            x, y, z = origin + offset
            number = 3 * molecule + k + first
            lines.append(f"ATOM  {serial(number)} {name:<4} HOH A{molecule % 10000:4d}    {x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00\n")
    if conect:
        for molecule in range(molecules):
            o = 3 * molecule + first
            lines.append(f"CONECT{serial(o)}{serial(o + 1)}{serial(o + 2)}\n")
    lines.append("END\n")
    path.write_text("".join(lines))
    return path


def _hybrid36(number: int) -> str:
    if number < 100000:
        return f"{number:5d}"
    value = number - 100000 + 10 * 36**4
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    text = ""
    for _ in range(5):
        value, digit = divmod(value, 36)
        text = digits[digit] + text
    return text


@pytest.mark.parametrize(
    "serial",
    [
        pytest.param(lambda n: _pdb_index(n, 5), id="engine-hexadecimal-from-A0000"),
        pytest.param(_hybrid36, id="hybrid-36"),
        pytest.param(lambda n: f"{n:5d}" if n < 100000 else f"{n:05x}", id="vmd-plain-hexadecimal"),
    ],
)
def test_serials_past_99999_are_read_back_in_atoms_and_conect(tmp_path: Path, serial: Any) -> None:
    # The engine's own 102,340-atom PDB was refused: "the CONECT atom serial 'A0000' is not a number".
    path = _water_pdb(tmp_path / "big.pdb", 34_120, serial)
    assert "CONECT" in path.read_text()[-200:] and any(c.isalpha() for c in serial(102_000))
    summary = validate_structure(path)
    assert summary["atoms"] == 102_360
    assert kinds(summary) == {"HOH": (34_120, 3, "H2O", 0)}
    assert summary["type"] == "system"


def _chains_wrapped_into_cell(tmp_path: Path, count: int = 10) -> tuple[Path, Path]:
    """`count` eicosane chains at random places in a 26 Å cube, every atom put back into the cell
    as `gmx trjconv -pbc atom` does; the same chains unwrapped as a reference."""
    code, events = run_engine("convert-smiles", {"smiles": "C" * 20}, tmp_path / "chain")
    assert code == 0, events[-1]
    lines = (tmp_path / "chain" / "structure.gro").read_text().splitlines()
    atoms = lines[2:-1]
    xyz = np.array([[float(line[20 + 8 * k : 28 + 8 * k]) for k in range(3)] for line in atoms])
    xyz -= xyz.mean(axis=0)
    xyz = xyz @ np.linalg.svd(xyz, full_matrices=False)[2].T  # the chain's long axis along x
    side = 3.0  # nm: chains cross the faces along x, and those on lanes at y = 0 or z = 0 in y and z
    generator = np.random.default_rng(7)
    out_wrapped, out_whole = [], []
    for molecule in range(count):  # lanes along x, 1.0 nm apart in y and 0.75 nm in z (a chain is 0.8 x 0.45)
        lane = np.array([generator.uniform(0, side), 1.0 * (molecule % 3), 0.75 * (molecule // 3)])
        placed = xyz + lane
        for atom, (line, point) in enumerate(zip(atoms, placed, strict=True)):
            number = molecule * len(atoms) + atom + 1
            head = f"{molecule + 1:5d}{'EIC':<5}{line[10:15]}{number % 100000:5d}"
            out_whole.append(head + "".join(f"{v:8.3f}" for v in point))
            out_wrapped.append(head + "".join(f"{v:8.3f}" for v in np.mod(point, side)))
    box = f"{side:10.5f}{side:10.5f}{side:10.5f}"
    wrapped, whole = tmp_path / "wrapped.gro", tmp_path / "whole.gro"
    for path, body in ((wrapped, out_wrapped), (whole, out_whole)):
        path.write_text("\n".join(["wrapped chains", f"{len(body):5d}", *body, box]) + "\n")
    return wrapped, whole


def test_molecules_wrapped_into_the_cell_stay_whole(tmp_path: Path) -> None:
    # 10 chains wrapped by `gmx trjconv -pbc atom` were reported as 429 molecules of type mixed.
    wrapped, whole = _chains_wrapped_into_cell(tmp_path)
    assert max(float(v) for line in wrapped.read_text().splitlines()[2:-1] for v in line[20:].split()) <= 3.0
    for path in (wrapped, whole):
        summary = validate_structure(path)
        assert summary["molecules"] == 10, path.name
        assert kinds(summary) == {"EIC": (10, 62, "C20H42", None)}
        assert summary["type"] == "system"


def test_triclinic_cell_minimum_image(tmp_path: Path) -> None:
    # A water split across the slanted face of a triclinic cell (.gro box with nine numbers).
    cell = "   2.00000   2.00000   2.00000   0.00000   0.00000   0.50000   0.00000   0.50000   0.00000"
    lines = [  # O-H1 crosses the face b: H1 at y = -0.0757 is stored at + b = (0.5, 2, 0)
        "    1SOL     OW    1   1.000   0.020   1.000",
        "    1SOL    HW1    2   1.500   1.924   1.000",
        "    1SOL    HW2    3   1.093   0.044   1.000",
    ]
    path = tmp_path / "tric.gro"
    path.write_text("\n".join(["triclinic", "    3", *lines, cell]) + "\n")
    summary = validate_structure(path)
    assert summary["molecules"] == 1 and summary["kinds"][0]["formula"] == "H2O"


def test_whitespace_separated_atom_lines_are_read(tmp_path: Path) -> None:
    # Such lines were reported as "contains no atoms".
    path = tmp_path / "loose.pdb"
    path.write_text(
        "REMARK written by hand\n"
        "ATOM 1 O HOH A 1 0.000 0.000 0.000 1.00 0.00 O\n"
        "ATOM 2 H1 HOH A 1 0.957 0.000 0.000 1.00 0.00 H\n"
        "ATOM 3 H2 HOH A 1 -0.240 0.927 0.000 1.00 0.00 H\n"
        "HETATM 4 NA NA B 2 5.000 5.000 5.000\n"
        "END\n"
    )
    summary = validate_structure(path)
    assert summary["atoms"] == 4
    assert kinds(summary) == {"HOH": (1, 3, "H2O", 0), "NA": (1, 1, "Na", 1)}
    assert summary["net_charge"] == 1


def test_atom_lines_neither_in_columns_nor_separated_say_where(tmp_path: Path) -> None:
    path = tmp_path / "bad.pdb"
    path.write_text("ATOM      1  O   HOH A   1       0.000   0.000   0.000\nATOM 2 H1 HOH A 1 0,957 0 0\nEND\n")
    found = problem(path)
    assert found.line == 2
    assert "cut short" in found.message and "space-separated" in found.message


def test_pdb_truncated_at_a_line_boundary_is_invalid(tmp_path: Path) -> None:
    # 500 of 16,020 atoms of a PDB cut at a line boundary passed as valid.
    source = _water_pdb(tmp_path / "full.pdb", 5340, lambda n: f"{n:5d}")
    lines = source.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.pdb"
    cut.write_text("".join(lines[:501]))  # CRYST1 + 500 atoms
    found = problem(cut)
    assert found.line == 502
    assert "without an END record" in found.message and "truncated" in found.message
    assert validate_structure(source)["atoms"] == 16_020


def test_pdb_cut_inside_its_conect_records_is_invalid(tmp_path: Path) -> None:
    source = _water_pdb(tmp_path / "full.pdb", 20, lambda n: f"{n:5d}")
    text = source.read_text()
    cut = tmp_path / "cut.pdb"
    cut.write_text(text[: text.index("CONECT   31")])
    assert "without an END record" in problem(cut).message


def test_bare_atom_lines_with_a_cut_last_residue_are_invalid(tmp_path: Path) -> None:
    source = _water_pdb(tmp_path / "full.pdb", 4, lambda n: f"{n:5d}", conect=False)
    atom_lines = [line for line in source.read_text().splitlines(keepends=True) if line.startswith("ATOM")]
    cut = tmp_path / "cut.pdb"
    cut.write_text("".join(atom_lines[:-1]))
    found = problem(cut)
    assert "last residue (HOH) has 2 atoms" in found.message and found.line == 12


def test_conect_naming_a_missing_atom_is_invalid(tmp_path: Path) -> None:
    source = _water_pdb(tmp_path / "full.pdb", 3, lambda n: f"{n:5d}")
    broken = tmp_path / "broken.pdb"
    broken.write_text(source.read_text().replace("CONECT    7    8    9", "CONECT    7    8   19"))
    found = problem(broken)
    assert "CONECT names atom 19" in found.message and found.line == 13


@pytest.mark.parametrize(
    ("name_field", "residue", "expected"),
    [
        ("NA  ", "NA", "Na"),  # sodium: two-letter element from column 13
        ("NA  ", "SOD", "Na"),
        (" NA ", "HEM", "N"),  # heme's pyrrole nitrogen: one-letter element from column 14
        ("CL  ", "CLA", "Cl"),
        ("CA  ", "CA", "Ca"),
        (" CA ", "ALA", "C"),
        ("CA  ", "ALA", "C"),  # misaligned, but a standard residue: alpha carbon
        ("CL1 ", "LIG", "Cl"),
        ("C1  ", "LIG", "C"),
        ("HG12", "ILE", "H"),
        ("HG12", "LIG", "H"),
        ("1HB ", "LIG", "H"),
        (" MW ", "SOL", "X"),
    ],
)
def test_elements_without_an_element_column(tmp_path: Path, name_field: str, residue: str, expected: str) -> None:
    # 'NA' in the atom name with no element column was read as nitrogen.
    path = tmp_path / "one.pdb"
    path.write_text(f"ATOM      1 {name_field} {residue:<4}A   1       1.000   2.000   3.000  1.00  0.00\nEND\n")
    atoms = read_structure(path)
    assert atoms.element_symbols() == [expected]


def test_gro_ions_by_residue_name() -> None:
    assert element_of("NA", "NA") == "Na" and element_of("CL", "CL") == "Cl" and element_of("K", "K") == "K"
    assert element_of("CLA", "CLA") == "Cl" and element_of("SOD", "SOD") == "Na"
    assert element_of("NA", "LIG") == "N" and element_of("CA", "LYS") == "C"


# --- broken files ------------------------------------------------------------------------------


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.pdb").write_bytes(b"")
    assert problem(tmp_path / "empty.pdb").message == "The file is empty."


def test_binary_file_says_where(tmp_path: Path) -> None:
    (tmp_path / "noise.gro").write_bytes(b"title\n   3\n" + bytes(range(256)) * 4)
    found = problem(tmp_path / "noise.gro")
    assert found.line == 3 and "binary" in found.message


def test_oversize_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.pdb"
    with path.open("wb") as handle:  # sparse: no disk used
        handle.truncate(MAX_FILE_BYTES + 1)
    assert problem(path).message == "The file exceeds the maximum size of 2000 MB"


def test_a_gro_named_pdb_and_a_pdb_named_gro(tmp_path: Path) -> None:
    shutil.copy(DATA / "two_water_gro.gro", tmp_path / "water.pdb")
    assert "named .pdb but holds a GROMACS .gro" in problem(tmp_path / "water.pdb").message
    shutil.copy(DATA / "charges.pdb", tmp_path / "charges.gro")
    assert "named .gro but holds a PDB" in problem(tmp_path / "charges.gro").message


def test_pdb_without_atoms(tmp_path: Path) -> None:
    (tmp_path / "header.pdb").write_text("HEADER    NOTHING\nREMARK no coordinates here\nEND\n")
    assert "contains no atoms" in problem(tmp_path / "header.pdb").message


def test_pdb_with_a_non_numeric_coordinate(tmp_path: Path) -> None:
    path = tmp_path / "garbled.pdb"
    path.write_text(
        "ATOM      1  O   HOH A   1       0.000   0.000   0.000  1.00  0.00           O\n"
        "ATOM      2  H1  HOH A   1       0.957   abcde   0.000  1.00  0.00           H\n"
        "END\n"
    )
    found = problem(path)
    assert found.line == 2 and "the y coordinate 'abcde' (columns 39-46) is not a number" in found.message


GRO_WATER = (DATA / "two_water_gro.gro").read_text().splitlines()


@pytest.mark.parametrize(
    ("lines", "line", "expected"),
    [
        pytest.param(GRO_WATER[:2] + GRO_WATER[-1:], 3, "a box line where atom 1 of 6 was expected", id="no-atoms-section"),
        pytest.param([GRO_WATER[0], "    7", *GRO_WATER[2:]], 9, "line 2 announces 7 atoms but the file has 6", id="count-too-high"),
        pytest.param([GRO_WATER[0], "    5", *GRO_WATER[2:]], 8, "an atom line where the box line was expected", id="count-too-low"),
        pytest.param(GRO_WATER[:5], 6, "the file ends after 3 atoms, but line 2 announces 6", id="truncated"),
        pytest.param(GRO_WATER[:8], 9, "the box line (the last line of a .gro file) is missing", id="no-box"),
        pytest.param([GRO_WATER[0], "six", *GRO_WATER[2:]], 2, "holds the atom count, found 'six'", id="count-not-a-number"),
        pytest.param(
            [*GRO_WATER[:3], GRO_WATER[3][:28] + "  x.yz  " + GRO_WATER[3][36:], *GRO_WATER[4:]],
            4,
            "the y coordinate 'x.yz' (columns 29-36) is not a number",
            id="garbled",
        ),
        pytest.param([*GRO_WATER[:3], " ".join(GRO_WATER[3].split()), *GRO_WATER[4:]], 4, "cut short", id="wrong-columns"),
    ],
)
def test_broken_gro_files_say_what_and_where(tmp_path: Path, lines: list[str], line: int, expected: str) -> None:
    path = tmp_path / "broken.gro"
    path.write_text("\n".join(lines) + "\n")
    found = problem(path)
    assert found.line == line, found.message
    assert expected in found.message


# --- through the CLI -------------------------------------------------------------------------


def test_cli_valid_answer_and_viewer_file(tmp_path: Path) -> None:
    viewer = tmp_path / "viewer" / "structure.pdb"
    code, events = run_engine("validate-structure", {"file": str(DATA / "1hvr.pdb"), "viewer_file": str(viewer)}, tmp_path)
    assert code == 0
    result = events[-1]
    assert result["event"] == "result" and result["valid"] is True
    assert set(result) >= {"atoms", "residues", "molecules", "kinds", "formula", "net_charge", "box", "type", "viewer_file"}
    assert result["viewer_file"] == str(viewer)
    # the viewer file is itself a valid structure with the same molecules
    again = validate_structure(viewer)
    assert (again["atoms"], again["molecules"], again["formula"]) == (result["atoms"], result["molecules"], result["formula"])


def test_cli_invalid_answer_has_line_and_no_server_path(tmp_path: Path) -> None:
    source = _water_pdb(tmp_path / "full.pdb", 10, lambda n: f"{n:5d}")
    cut = tmp_path / "upload-1234.pdb"
    cut.write_text("".join(source.read_text().splitlines(keepends=True)[:8]))
    code, events = run_engine("validate-structure", {"file": str(cut), "viewer_file": str(tmp_path / "v.pdb")}, tmp_path)
    assert code == 0  # an invalid file is an answer, not an engine failure
    result = events[-1]
    assert result["valid"] is False and result["error_code"] == "INVALID_STRUCTURE" and result["line"] == 9
    assert str(tmp_path) not in result["message"] and "upload-1234" not in result["message"]
    assert not (tmp_path / "v.pdb").exists()


def test_viewer_file_has_every_molecule_whole(tmp_path: Path) -> None:
    # Chains wrapped atom by atom into the cell: the viewer file joins each again through the cell
    # (it used to keep them cut at the faces, the bonds through the boundary left out of CONECT).
    wrapped, whole = _chains_wrapped_into_cell(tmp_path)
    viewer = tmp_path / "viewer.pdb"
    summary = validate_structure(wrapped, viewer)
    assert summary["molecules"] == 10
    lines = viewer.read_text().splitlines()
    xyz = np.array([[float(line[30 + 8 * k : 38 + 8 * k]) for k in range(3)] for line in lines if line.startswith("HETATM")])
    reference = np.array([[float(line[20 + 8 * k : 28 + 8 * k]) * 10 for k in range(3)] for line in whole.read_text().splitlines()[2:-1]])
    per_chain = len(xyz) // 10
    for chain in range(10):
        mine, theirs = xyz[chain * per_chain : (chain + 1) * per_chain], reference[chain * per_chain : (chain + 1) * per_chain]
        # the same chain up to a whole shift by cell vectors: every bond as long as in the whole chain
        offset = mine[0] - theirs[0]
        assert np.allclose(np.mod(offset + 1e-3, 30.0), 1e-3, atol=0.02)
        assert np.allclose(mine - offset, theirs, atol=0.02)
    # every bond is in CONECT, none cut at a face: each carbon of the chain lists its bonded partners
    partners = {}
    for line in lines:
        if line.startswith("CONECT"):
            serial = int(line[6:11])
            partners.setdefault(serial, set()).update(int(line[k : k + 5]) for k in range(11, len(line), 5))
    bonds = sum(len(p) for p in partners.values()) // 2
    assert bonds == 10 * (per_chain - 1)


def test_viewer_file_only_up_to_its_limit(tmp_path: Path) -> None:
    path = _water_pdb(tmp_path / "big.pdb", VIEWER_MAX_ATOMS // 3 + 1, lambda n: _pdb_index(n, 5), conect=False)
    summary = validate_structure(path, tmp_path / "viewer.pdb")
    assert summary["atoms"] > VIEWER_MAX_ATOMS and summary["viewer_file"] is None
    assert not (tmp_path / "viewer.pdb").exists()


# --- the block reader (NumPy) and the line reader agree ------------------------------------------


def _decoded(atoms: Any) -> tuple:
    return (
        [atoms.names.values[code] for code in atoms.name_of_atom],
        atoms.element_symbols(),
        list(atoms.residue_of_atom),
        [atoms.residue_names.values[code] for code in atoms.name_of_residue],
        atoms.xyz().tobytes(),
        list(atoms.charges),
        None if atoms.bonds is None else atoms.bonds.tolist(),
        None if atoms.cell is None else atoms.cell.tolist(),
        [atoms.line_of(index) for index in range(atoms.count)],
    )


@pytest.mark.parametrize("name", sorted(path.name for path in DATA.iterdir() if path.suffix in {".pdb", ".gro"}))
def test_block_reader_matches_line_reader_across_block_boundaries(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from polyforge_engine.structures import columns, readers

    monkeypatch.setattr(columns, "BLOCK_BYTES", 1000)  # lines cut across blocks everywhere
    by_blocks = _decoded(read_structure(DATA / name))
    monkeypatch.setattr(readers._PdbReader, "read_block", lambda self, lines, first: False)
    monkeypatch.setattr(readers._GroReader, "read_atoms", lambda self, lines, rows, numbers: False)
    by_lines = _decoded(read_structure(DATA / name))
    assert by_blocks == by_lines


def test_serials_that_wrap_join_the_nearest_copies(tmp_path: Path) -> None:
    # GROMACS writes serials modulo 100,000, and hexadecimal from A0000 runs out after FFFFF: the
    # same serial then names several atoms; CONECT records follow the atoms' order.
    path = _water_pdb(tmp_path / "wrapped-serials.pdb", 200, lambda n: f"{n % 97:5d}")
    summary = validate_structure(path)
    assert summary["atoms"] == 600
    assert kinds(summary) == {"HOH": (200, 3, "H2O", 0)}


def test_the_engines_hexadecimal_serials_past_fffff(tmp_path: Path) -> None:
    # After FFFFF (493,215 atoms) the engine's serials wrap to 00000, 00001, ..., 0000A: read as
    # hexadecimal and matched to the nearest atoms, not taken for VMD's plain hexadecimal.
    path = _water_pdb(tmp_path / "past-fffff.pdb", 40, lambda n: _pdb_index(n, 5), first=493_150)
    text = path.read_text()
    assert "FFFFF\n" in text and "CONECT    9    A    B" in text and "   10" in text
    summary = validate_structure(path)
    assert kinds(summary) == {"HOH": (40, 3, "H2O", 0)}


def test_decimal_serials_and_the_same_digits_past_fffff_in_one_file(tmp_path: Path) -> None:
    # `   14` is atom 14 among the first atoms and atom 0x14 = 20 past FFFFF: a record among the first
    # atoms reads it as decimal. Water A is 14-17-20 (O 17): reading `14` both ways ties at 17, and a
    # 511,700-atom melt had three wrong bonds that way.
    waters = [(17, 14, 20), (1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 11, 12), (13, 15, 16), (18, 19, 21), (22, 23, 24)]
    offsets = np.array([[0, 0, 0], [0.9572, 0, 0], [-0.24, 0.927, 0]])
    place = {}
    for number, serials in enumerate(waters):
        for serial, offset in zip(serials, offsets, strict=True):
            place[serial] = (number, "OW" if serial == serials[0] else "HW", np.array([4.0 * number, 0, 0]) + offset)
    lines = ["CRYST1  200.000  200.000  200.000  90.00  90.00  90.00 P 1           1\n"]
    for serial in sorted(place):
        number, name, (x, y, z) = place[serial]
        lines.append(f"ATOM  {serial:5d} {name:<4} HOH A{number:4d}    {x:8.3f}{y:8.3f}{z + 50:8.3f}  1.00  0.00\n")
    late = _water_pdb(tmp_path / "late.pdb", 40, lambda n: _pdb_index(n, 5), first=493_150).read_text().splitlines(keepends=True)
    lines += [line for line in late if line.startswith("ATOM")]
    lines += [f"CONECT{o:5d}{h1:5d}{h2:5d}\n" for o, h1, h2 in waters]
    lines += [line for line in late if line.startswith("CONECT")] + ["END\n"]
    merged = tmp_path / "merged.pdb"
    merged.write_text("".join(lines))
    summary = validate_structure(merged)
    assert kinds(summary) == {"HOH": (48, 3, "H2O", 0)}
