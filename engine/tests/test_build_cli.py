"""`python -m polyforge_engine build-structure` as the server runs it: JSON lines, files, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ETHYLENE_OXIDE, homopolymer_job
from rdkit import Chem
from rdkit.Chem import rdMolDescriptors


def run(raw: dict[str, Any], tmp_path: Path) -> tuple[int, list[dict[str, Any]], Path]:
    job_file = tmp_path / "job.json"
    job_file.write_text(json.dumps(raw))
    workdir = tmp_path / "work"
    proc = subprocess.run(
        [sys.executable, "-m", "polyforge_engine", "build-structure", "--input", str(job_file), "--workdir", str(workdir)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).parents[1],
    )
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return proc.returncode, events, workdir


def test_build_structure_writes_pdb_gro_and_report(tmp_path: Path) -> None:
    code, events, workdir = run(homopolymer_job(ETHYLENE_OXIDE, 12, 3, density=0.2), tmp_path)
    assert code == 0
    assert events[-1]["event"] == "result"
    assert all(e["event"] == "progress" for e in events[:-1]) and len(events) > 3
    percents = [e["percent"] for e in events[:-1]]
    assert percents == sorted(percents)
    result = events[-1]
    assert result["files"] == {"system.pdb": "system.pdb", "system.gro": "system.gro", "report.json": "report.json"}
    summary = result["summary"]
    assert summary["atoms"] == 3 * 86 and summary["molecules"] == 3 and summary["residues"] == 36
    assert summary["min_intermolecular_distance"] >= 2.0
    assert summary["seed"] == 7

    pdb_text = (workdir / "system.pdb").read_text()
    assert pdb_text.startswith("CRYST1")
    mol = Chem.MolFromPDBFile(str(workdir / "system.pdb"), removeHs=False, proximityBonding=False)
    assert mol.GetNumAtoms() == 258
    # CONECT records carry every bond: three separate H-(CH2CH2O)12-H chains.
    fragments = Chem.GetMolFrags(mol, asMols=True, sanitizeFrags=False)
    assert len(fragments) == 3
    assert {rdMolDescriptors.CalcMolFormula(f) for f in fragments} == {"C24H50O12"}
    residue_names = {a.GetPDBResidueInfo().GetResidueName() for a in mol.GetAtoms()}
    assert residue_names == {"UNI"}

    gro = (workdir / "system.gro").read_text().splitlines()
    assert int(gro[1]) == 258 and len(gro) == 258 + 3
    box_nm = [float(v) for v in gro[-1].split()]
    report = json.loads((workdir / "report.json").read_text())
    assert box_nm == pytest.approx([side / 10 for side in report["box"]], abs=1e-4)
    assert report["density"] == pytest.approx(0.2, rel=1e-3)
    assert report["polymers"][0]["sequence"] == ["UNI"] * 12


def bad_smiles_job() -> dict[str, Any]:
    return homopolymer_job("[*:1]CC(C[*:2]", 5, 1)


def empty_segment_job() -> dict[str, Any]:
    raw = homopolymer_job(ETHYLENE_OXIDE, 5, 1)
    raw["segments"][0]["blocks"] = []
    raw["segments"][0]["data"]["total_building_blocks"] = 0
    return raw


def schema_violation_job() -> dict[str, Any]:
    raw = homopolymer_job(ETHYLENE_OXIDE, 5, 1)
    raw["system_setup"]["polymers"][0]["occurrence"] = 0
    return raw


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (bad_smiles_job, "INVALID_SMILES"),
        (empty_segment_job, "EMPTY_SEGMENT"),
        (lambda: homopolymer_job(ETHYLENE_OXIDE, 5, 4, density=8.0), "DENSITY_TOO_HIGH"),
        (schema_violation_job, "INVALID_INPUT"),
        (lambda: homopolymer_job(ETHYLENE_OXIDE, 5, 1, density=None, cell_sides=[40.0, 40.0, 2.5], walls=True), "PLACEMENT_FAILED"),
    ],
)
def test_bad_input_ends_with_one_error_line_and_no_files(make, code: str, tmp_path: Path) -> None:
    exit_code, events, workdir = run(make(), tmp_path)
    assert exit_code != 0
    assert events[-1]["event"] == "error" and events[-1]["code"] == code
    assert len(events[-1]["message"]) > 20
    assert [e for e in events if e["event"] in ("result", "error")] == [events[-1]]
    assert not workdir.exists() or not any(workdir.iterdir())
