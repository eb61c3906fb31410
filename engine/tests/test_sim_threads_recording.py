"""A job's dynamics use the CPUs the job was given (the runner's setting, else Slurm's
allocation, else the CPUs the process may run on), and recording writes the DCD OpenMM would."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
from openmm import app, unit
from polyforge_engine.runtime.allocation import THREADS_ENV
from polyforge_engine.runtime.openmm_cpu import cpu_properties, engine_threads
from polyforge_engine.simulate import md
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.simulate.run import run_protocol
from polyforge_engine.simulate.trajectory import DcdWriter
from test_sim_protocol import argon_lattice


def test_threads_follow_the_setting_then_the_allocation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The setting, else the job's allocation (test_runtime_allocation.py covers its sources)."""
    for name in (THREADS_ENV, "POLYFORGE_OPENMM_THREADS", "SLURM_CPUS_PER_TASK", "SLURM_JOB_CPUS_PER_NODE"):
        monkeypatch.delenv(name, raising=False)
    assert engine_threads() <= len(os.sched_getaffinity(0))
    monkeypatch.setenv("SLURM_CPUS_PER_TASK", "1")
    assert engine_threads() == 1
    monkeypatch.setenv(THREADS_ENV, "5")
    assert engine_threads() == 5
    assert cpu_properties() == {"Threads": "5", "DeterministicForces": "true"}
    monkeypatch.setenv(THREADS_ENV, "none")  # not a count: the allocation decides
    assert engine_threads() == 1


@pytest.mark.parametrize("threads", [1, 2])
def test_dynamics_run_on_the_threads_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    argon_lattice(tmp_path, 1.0)
    monkeypatch.setenv(THREADS_ENV, str(threads))
    report, files = run_protocol(tmp_path / "argon.prmtop", tmp_path / "argon.inpcrd", Protocol(10, 100, 120.0, "NVT", 4), tmp_path, lambda *_, **__: None)
    assert f"CPU threads: {threads}\n" in files.log.read_text()  # as the OpenMM context reports it
    assert report.performance is not None
    assert report.performance["threads"] == threads and report.performance["platform"] == "CPU"
    assert report.performance["ns_per_day"] > 0 and report.performance["dynamics_s"] > 0


def test_frames_are_recorded_at_least_fifty_steps_apart() -> None:
    assert md.recording_interval(500) == 50
    assert md.recording_interval(100_000) == 1000
    assert md.recording_interval(12_345) % md.STEPS_BETWEEN_CANCEL_CHECKS == 0


def test_dcd_frames_are_the_bytes_openmm_writes(tmp_path: Path) -> None:
    structure = argon_lattice(tmp_path, 1.0)
    topology = app.AmberPrmtopFile(str(tmp_path / "argon.prmtop")).topology
    box = np.array(structure.box[:3]) / 10
    topology.setUnitCellDimensions(box * unit.nanometer)
    rng = np.random.default_rng(1)
    frames = [rng.uniform(0, 2, size=(len(structure.atoms), 3)) for _ in range(3)]
    ours, theirs = io.BytesIO(), io.BytesIO()
    writer = DcdWriter(ours, len(structure.atoms), 0.002, 50, periodic=True)
    reference = app.DCDFile(theirs, topology, 0.002 * unit.picoseconds, 0, 50)
    for number, frame in enumerate(frames):
        sides = tuple(box * (1 + 0.01 * number))  # a barostat's box changes from frame to frame
        writer.write(frame, sides)
        vectors = [[sides[0], 0, 0], [0, sides[1], 0], [0, 0, sides[2]]] * unit.nanometer
        reference.writeModel(frame * unit.nanometer, periodicBoxVectors=vectors)
    a, b = bytearray(ours.getvalue()), bytearray(theirs.getvalue())
    a[100:260] = b[100:260]  # the two 80-character title lines (creator and date)
    assert a == b
