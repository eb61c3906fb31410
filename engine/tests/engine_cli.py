"""Runs an engine command as the server does: a fresh process reading a job file, JSON lines out."""

from __future__ import annotations

import json
import subprocess
import sys
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
