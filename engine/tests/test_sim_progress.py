"""Dynamics report progress at least every few seconds of wall time, not only
at the recorded frames (a long run showed one percentage for minutes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from polyforge_engine.simulate import md
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.simulate.run import run_protocol
from polyforge_engine.workflow import stage_progress
from tests.test_sim_protocol import argon_lattice


def test_dynamics_report_progress_between_frames_when_time_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argon_lattice(tmp_path, 1.0)
    # 4,000 steps record 100 frames (every 40 steps); with no wall time between reports allowed,
    # progress goes out after every chunk of steps too.
    monkeypatch.setattr(md, "PROGRESS_EVERY_S", 0.0)
    seen: list[tuple[str, float]] = []
    protocol = Protocol(0, 4000, 120.0, "NVT", 4)
    run_protocol(tmp_path / "argon.prmtop", tmp_path / "argon.inpcrd", protocol, tmp_path, lambda s, p, *_: seen.append((s, p)))
    dynamics = [percent for stage, percent in seen if stage == "dynamics"]
    assert len(dynamics) >= 4000 // md.STEPS_BETWEEN_CANCEL_CHECKS
    assert dynamics == sorted(dynamics)
    assert dynamics[-1] == pytest.approx(100)


def test_dynamics_progress_says_simulated_time_and_time_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The detail page shows ns done of ns in all and the wall time left, from these fields."""
    argon_lattice(tmp_path, 1.0)
    monkeypatch.setattr(md, "PROGRESS_EVERY_S", 0.0)
    seen: list[dict] = []
    protocol = Protocol(0, 2000, 120.0, "NVT", 4)
    run_protocol(
        tmp_path / "argon.prmtop",
        tmp_path / "argon.inpcrd",
        protocol,
        tmp_path,
        lambda stage, percent, fields=None: seen.append({"stage": stage, "percent": percent, **(fields or {})}),
    )
    dynamics = [event for event in seen if event["stage"] == "dynamics"]
    assert dynamics and all(event["total_ns"] == pytest.approx(2000 * md.TIMESTEP_FS * 1e-6) for event in dynamics)
    simulated = [event["simulated_ns"] for event in dynamics]
    assert simulated == sorted(simulated)
    assert simulated[-1] == pytest.approx(dynamics[-1]["total_ns"])
    for event in dynamics:
        assert event["simulated_ns"] == pytest.approx(event["total_ns"] * event["percent"] / 100)
        assert event["remaining_s"] is None or event["remaining_s"] >= 0


def test_time_left_is_the_speed_so_far_applied_to_the_steps_left() -> None:
    # 1,000 of 4,000 steps in 10 s: 3,000 steps left at 100 steps/s.
    assert md.time_left(1000, 4000, 10.0) == {"simulated_ns": 0.002, "total_ns": 0.008, "remaining_s": 30.0}
    # Not yet timed (under a second of dynamics): no estimate rather than a wild one.
    assert md.time_left(10, 4000, 0.2)["remaining_s"] is None
    assert md.time_left(0, 4000, 5.0)["remaining_s"] is None
    assert md.time_left(4000, 4000, 40.0)["remaining_s"] == 0.0


def test_the_protocol_line_carries_the_fields_through_the_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    report = stage_progress((50.0, 90.0))
    report("dynamics", 50.0, {"simulated_ns": 0.5, "total_ns": 1.0, "remaining_s": 12.5})
    report("minimisation", 10.0)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {"event": "progress", "stage": "dynamics", "percent": 70.0, "simulated_ns": 0.5, "total_ns": 1.0, "remaining_s": 12.5},
        {"event": "progress", "stage": "minimisation", "percent": 54.0},
    ]
