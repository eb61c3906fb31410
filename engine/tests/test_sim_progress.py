"""Issue 23 finding 9: dynamics report progress at least every few seconds of wall time, not only
at the recorded frames (a long run showed one percentage for minutes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from polyforge_engine.simulate import md
from polyforge_engine.simulate.md import Protocol, run_protocol
from tests.test_sim_protocol import argon_lattice


def test_dynamics_report_progress_between_frames_when_time_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argon_lattice(tmp_path, 1.0)
    # 4,000 steps record 100 frames (every 40 steps); with no wall time between reports allowed,
    # progress goes out after every chunk of steps too.
    monkeypatch.setattr(md, "PROGRESS_EVERY_S", 0.0)
    seen: list[tuple[str, float]] = []
    protocol = Protocol(0, 4000, 120.0, "NVT", 4)
    run_protocol(tmp_path / "argon.prmtop", tmp_path / "argon.inpcrd", protocol, tmp_path, lambda s, p: seen.append((s, p)))
    dynamics = [percent for stage, percent in seen if stage == "dynamics"]
    assert len(dynamics) >= 4000 // md.STEPS_BETWEEN_CANCEL_CHECKS
    assert dynamics == sorted(dynamics)
    assert dynamics[-1] == pytest.approx(100)
