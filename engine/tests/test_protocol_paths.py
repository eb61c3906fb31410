"""Errors the user sees never show the server's paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from polyforge_engine.events import without_paths


def test_without_paths_keeps_file_names_and_urls() -> None:
    message = "GRO file /srv/polyforge/data/jobs/0b1c-2/kind.inpcrd could not be read"
    assert without_paths(message) == "GRO file kind.inpcrd could not be read"
    assert without_paths("see https://example.org/a/b, 1/2 and ./rel/x") == "see https://example.org/a/b, 1/2 and ./rel/x"


def test_an_engine_error_names_no_server_path(tmp_path: Path) -> None:
    missing = tmp_path / "jobs" / "secret-dir" / "job.json"
    run = subprocess.run(
        [sys.executable, "-m", "polyforge_engine", "build-system", "--input", str(missing), "--workdir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    events = [json.loads(line) for line in run.stdout.splitlines()]
    error = next(event for event in events if event["event"] == "error")
    assert "job.json" in error["message"]
    assert str(tmp_path) not in error["message"]
    assert "secret-dir" not in error["message"]
