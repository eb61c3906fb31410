"""convert-smiles, validate-structure, validate-topology and generate-potential through the CLI,
on real files the engine writes and on truncated and garbled copies of them."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from engine_cli import run_engine
from test_structures_topology_includes import self_contained


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two ethanols and an acetic acid converted from SMILES."""
    workdir = tmp_path_factory.mktemp("converted")
    code, events = run_engine("convert-smiles", {"smiles": "CCO.CCO.CC(=O)O"}, workdir)
    assert code == 0, events[-1]
    return workdir


def test_convert_smiles_writes_structures_with_count_and_type(converted: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "c1ccccc1O"}, converted / "phenol")
    assert code == 0
    result = events[-1]
    assert result["event"] == "result"
    assert result["molecules"] == 1 and result["type"] == "molecule"
    assert result["atoms"] == 13
    for name in result["files"].values():
        assert (converted / "phenol" / name).stat().st_size > 0


@pytest.mark.parametrize(
    ("smiles", "molecules", "kind"),
    [("CCO", 1, "molecule"), ("CCO.CCO", 2, "system"), ("CCO.CCO.CC(=O)O", 3, "mixed")],
)
def test_convert_smiles_system_type(smiles: str, molecules: int, kind: str, tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": smiles}, tmp_path)
    assert code == 0
    assert (events[-1]["molecules"], events[-1]["type"]) == (molecules, kind)


@pytest.mark.parametrize(("smiles", "message"), [("C1CC", "Invalid SMILES format"), ("[*:1]CC[*:2]", "connection markers")])
def test_convert_smiles_refuses_bad_input(smiles: str, message: str, tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": smiles}, tmp_path)
    assert code == 1
    assert events[-1]["event"] == "error" and events[-1]["code"] == "INVALID_SMILES"
    assert message in events[-1]["message"]
    assert not (tmp_path / "structure.pdb").exists()


@pytest.mark.parametrize("suffix", ["pdb", "gro"])
def test_validate_structure_answers_atoms_residues_molecules_box_type(converted: Path, suffix: str) -> None:
    code, events = run_engine("validate-structure", {"file": f"structure.{suffix}"}, converted)
    assert code == 0
    result = events[-1]
    assert result["valid"] is True
    assert (result["atoms"], result["residues"], result["molecules"], result["type"]) == (26, 3, 3, "mixed")
    assert len(result["box"]) == 3 and min(result["box"]) > 10


def _truncated(source: Path, target: Path, keep_fraction: float) -> Path:
    text = source.read_text()
    target.write_text(text[: int(len(text) * keep_fraction)])
    return target


def test_validate_structure_reports_a_truncated_gro_with_its_line(converted: Path, tmp_path: Path) -> None:
    path = _truncated(converted / "structure.gro", tmp_path / "cut.gro", 0.5)
    code, events = run_engine("validate-structure", {"file": str(path)}, tmp_path)
    assert code == 0
    assert events[-1]["valid"] is False
    assert events[-1]["message"].startswith("Line ")
    assert "truncated" in events[-1]["message"] or "cut short" in events[-1]["message"]


def test_validate_structure_reports_a_truncated_pdb_with_its_line(converted: Path, tmp_path: Path) -> None:
    lines = (converted / "structure.pdb").read_text().splitlines()
    atom_line = next(index for index, line in enumerate(lines) if line.startswith("HETATM"))
    (tmp_path / "cut.pdb").write_text("\n".join([*lines[: atom_line + 3], lines[atom_line + 3][:40]]) + "\n")
    code, events = run_engine("validate-structure", {"file": "cut.pdb"}, tmp_path)
    assert code == 0  # an invalid file is an answer, not an engine failure
    assert events[-1]["valid"] is False
    assert events[-1]["message"].startswith(f"Line {atom_line + 4}:")


def test_validate_structure_reports_garbled_coordinates(converted: Path, tmp_path: Path) -> None:
    lines = (converted / "structure.gro").read_text().splitlines()
    lines[5] = lines[5][:20] + "  xx.yyy" + lines[5][28:]
    (tmp_path / "garbled.gro").write_text("\n".join(lines) + "\n")
    code, events = run_engine("validate-structure", {"file": "garbled.gro"}, tmp_path)
    assert code == 0  # an invalid file is an answer, not an engine failure
    assert events[-1] == {
        "event": "result",
        "valid": False,
        "error_code": "INVALID_STRUCTURE",
        "message": "Line 6: the x coordinate 'xx.yyy' (columns 21-28) is not a number.",
        "line": 6,
    }


def test_validate_structure_reports_binary_garbage(tmp_path: Path) -> None:
    (tmp_path / "noise.pdb").write_bytes(b"HEADER    junk\n" + bytes(range(128, 256)) * 20)
    code, events = run_engine("validate-structure", {"file": "noise.pdb"}, tmp_path)
    assert code == 0  # an invalid file is an answer, not an engine failure
    assert events[-1]["valid"] is False
    assert "Line 2" in events[-1]["message"]


def test_validate_structure_refuses_other_file_types(tmp_path: Path) -> None:
    (tmp_path / "model.xyz").write_text("1\n\nC 0 0 0\n")
    code, events = run_engine("validate-structure", {"file": "model.xyz"}, tmp_path)
    assert code == 0  # an invalid file is an answer, not an engine failure
    assert events[-1]["valid"] is False
    assert events[-1]["error_code"] == "UNSUPPORTED_FILE_TYPE"


@pytest.fixture(scope="module")
def potential(converted: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """generate-potential (defaults of SPEC §9 apart from GAFF) on the converted PDB."""
    workdir = tmp_path_factory.mktemp("potential")
    job = {
        "structure_file": str(converted / "structure.pdb"),
        "force_field": "GAFF",
        "charge": 0,
        "minimization_steps": 5,
        "system": {"name": "Solvent mix", "sanitized_name": "solvent_mix"},
    }
    code, events = run_engine("generate-potential", job, workdir)
    assert code == 0, events[-1]
    return workdir, events[-1]


def test_generate_potential_writes_topology_minimised_structure_and_bundle(
    potential: tuple[Path, dict[str, Any]],
) -> None:
    workdir, result = potential
    for relative in result["files"].values():
        assert (workdir / relative).is_file(), relative
    summary = result["summary"]
    assert summary["force_field"] == "GAFF"
    assert abs(summary["charges"]["total_charge"]) < 1e-4
    assert summary["energies"]["potential_after_minimization_kj_mol"] < summary["energies"]["potential_before_minimization_kj_mol"]
    with zipfile.ZipFile(workdir / "solvent_mix_files.zip") as archive:
        names = set(archive.namelist())
        readme = archive.read("README.md").decode()
    assert {
        "README.md",
        "job.json",
        "report.json",
        "system.top",
        "molecules.itp",
        "system.prmtop",
        "minimized.pdb",
        "minimization.mdp",
    } <= names
    for name in names - {"README.md"}:
        assert f"`{name}`" in readme


def validate_topology(topology_file: str, structure_file: str, workdir: Path) -> dict[str, Any]:
    """Runs validate-topology in `workdir`; answers its last event (the verdict)."""
    code, events = run_engine("validate-topology", {"topology_file": topology_file, "structure_file": structure_file}, workdir)
    assert code == 0  # an invalid file is an answer, not an engine failure
    return events[-1]


def test_validate_topology_accepts_the_generated_topology(potential: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    workdir, _ = potential
    (tmp_path / "system.top").write_text(self_contained(workdir / "topology" / "system.top"))
    verdict = validate_topology("system.top", str(workdir / "topology" / "system.gro"), tmp_path)
    assert verdict["valid"] is True
    assert verdict["atoms"] == 26 and verdict["molecules"] == 3


def test_validate_topology_rejects_a_structure_with_other_atoms(potential: tuple[Path, dict[str, Any]], converted: Path, tmp_path: Path) -> None:
    workdir, _ = potential
    (tmp_path / "system.top").write_text(self_contained(workdir / "topology" / "system.top"))
    verdict = validate_topology("system.top", str(converted / "phenol" / "structure.gro"), tmp_path)
    assert verdict["valid"] is False
    assert "13" in verdict["message"] and "26" in verdict["message"]


def test_validate_topology_rejects_truncated_and_garbled_topologies(potential: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    workdir, _ = potential
    top = self_contained(workdir / "topology" / "system.top")
    (tmp_path / "system.gro").write_text((workdir / "topology" / "system.gro").read_text())
    (tmp_path / "molecules.itp").write_text((workdir / "topology" / "molecules.itp").read_text())
    cases = {
        # the engine's own two files: the .top may include only the files of its job
        "two_files.top": ((workdir / "topology" / "system.top").read_text(), "includes a file that is not part of this upload"),
        "cut.top": (top[: top.index("[ molecules ]")], "no [ molecules ]"),
        "garbled.top": (top.replace("[ molecules ]", "[ molecules"), "not closed"),
    }
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text)
        verdict = validate_topology(name, "system.gro", tmp_path)
        assert verdict["valid"] is False, name
        assert expected in verdict["message"], verdict["message"]


def test_validate_topology_rejects_undefined_atom_types(potential: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    workdir, _ = potential
    top = self_contained(workdir / "topology" / "system.top")
    (tmp_path / "system.top").write_text(top.replace("\noh ", "\nzz "))
    verdict = validate_topology("system.top", str(workdir / "topology" / "system.gro"), tmp_path)
    assert verdict["valid"] is False
    assert "oh" in verdict["message"] and "not defined" in verdict["message"]


def test_generate_potential_with_wrong_net_charge_is_refused(converted: Path, tmp_path: Path) -> None:
    code, events = run_engine(
        "generate-potential",
        {
            "structure_file": str(converted / "phenol" / "structure.pdb"),
            "force_field": "GAFF2",
            "charge": 1,
            "minimization_steps": 5,
        },
        tmp_path,
    )
    assert code == 1
    assert events[-1]["code"] == "WRONG_NET_CHARGE"
    assert "Traceback" not in events[-1]["message"]
    assert not list(tmp_path.glob("*_files.zip"))


def test_generate_potential_from_sdf_keeps_a_charged_molecule(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "CC(=O)[O-]"}, tmp_path)
    assert code == 0
    code, events = run_engine(
        "generate-potential",
        {
            "structure_file": "structure.sdf",
            "force_field": "gaff2",
            "charge": "-1",
            "minimization_steps": 0,
            "system": {"name": "Acetate", "sanitized_name": "acetate"},
        },
        tmp_path,
    )
    assert code == 0, events[-1]
    assert events[-1]["summary"]["charges"]["total_charge"] == pytest.approx(-1, abs=1e-4)
    assert events[-1]["summary"]["energies"]["potential_after_minimization_kj_mol"] is None


@pytest.mark.parametrize("force_field", ["glycam_06j", "extended glycam06j"])
def test_generate_potential_refuses_glycam(converted: Path, tmp_path: Path, force_field: str) -> None:
    code, events = run_engine(
        "generate-potential",
        {"structure_file": str(converted / "structure.pdb"), "force_field": force_field, "charge": 0},
        tmp_path,
    )
    assert code == 1
    assert events == [
        {
            "event": "error",
            "code": "FORCE_FIELD_NOT_SUPPORTED",
            "message": f"The force field {force_field} (GLYCAM) is not supported yet; choose GAFF or GAFF2.",
        }
    ]
