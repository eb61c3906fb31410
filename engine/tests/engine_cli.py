"""Runs an engine command as the server does: a fresh process reading a job file, JSON lines out."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

ENGINE_DIR = Path(__file__).resolve().parents[1]


def run_engine(command: str, job: dict[str, Any], workdir: Path) -> tuple[int, list[dict[str, Any]]]:
    """Writes `job` into `workdir`, runs `python -m polyforge_engine <command>` there.

    Returns:
        The exit code and the JSON events the engine printed, in order.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    job_path = workdir / f"{command}.json"
    job_path.write_text(json.dumps(job))
    process = subprocess.run(
        [sys.executable, "-m", "polyforge_engine", command, "--input", str(job_path), "--workdir", str(workdir)],
        cwd=ENGINE_DIR,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return process.returncode, [json.loads(line) for line in process.stdout.splitlines()]


def build_unpacked_bundle(job: dict[str, Any], work: Path) -> tuple[Path, Path, dict[str, Any]]:
    """Runs `build-system` on `job` in `work`/out and unpacks its results bundle into `work`/unpacked.

    Returns:
        The unpacked bundle, the job's work directory and the engine's result event.
    """
    workdir = work / "out"
    code, events = run_engine("build-system", job, workdir)
    result = events[-1]
    assert code == 0 and result["event"] == "result", result
    unpacked = work / "unpacked"
    with zipfile.ZipFile(workdir / result["files"]["bundle"]) as archive:
        archive.extractall(unpacked)
    return unpacked, workdir, result
