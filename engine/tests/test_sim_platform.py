"""The OpenMM platform a simulation runs on: the CPU unless POLYFORGE_OPENMM_PLATFORM asks
for a GPU; a GPU platform the node cannot use falls back to the CPU with the reason in the log.

This machine has no GPU, so the GPU branch is checked through its logic (a probe that says the
platform works) and the fallback for real (OpenMM here has no CUDA or OpenCL device)."""

from __future__ import annotations

from pathlib import Path

import openmm
import pytest
from polyforge_engine.runtime.openmm_platform import PLATFORM_ENV, choose_platform, gpu_properties, probe_platform
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.simulate.run import run_protocol
from test_sim_protocol import argon_lattice

HAS_GPU = any(
    openmm.Platform.getPlatform(i).getName() in ("CUDA", "OpenCL") and probe_platform(openmm.Platform.getPlatform(i).getName()) is None
    for i in range(openmm.Platform.getNumPlatforms())
)


def test_cpu_by_default_and_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PLATFORM_ENV, raising=False)
    for choice in (choose_platform(), choose_platform("cpu"), choose_platform(" CPU ")):
        assert (choice.name, choice.note) == ("CPU", None)
        assert choice.properties["DeterministicForces"] == "true"
        assert choice.platform().getName() == "CPU"


def test_auto_takes_cuda_then_opencl_where_they_work() -> None:
    tried: list[str] = []

    def only_opencl(name: str) -> str | None:
        tried.append(name)
        return None if name == "OpenCL" else "no usable CUDA device (no driver)"

    choice = choose_platform("auto", probe=only_opencl)
    assert tried == ["CUDA", "OpenCL"]
    assert (choice.name, choice.note, choice.properties) == ("OpenCL", None, gpu_properties("OpenCL"))
    cuda = choose_platform("AUTO", probe=lambda name: None)
    assert (cuda.name, cuda.note) == ("CUDA", None)
    assert cuda.properties == {"Precision": "mixed", "DeterministicForces": "true"}
    asked = choose_platform("CUDA", probe=lambda name: None)
    assert (asked.name, asked.requested) == ("CUDA", "CUDA")


def test_a_gpu_that_cannot_be_used_falls_back_to_the_cpu_with_the_reason() -> None:
    choice = choose_platform("auto", probe=lambda name: f"no usable {name} device (CUDA_ERROR_NO_DEVICE)")
    assert choice.name == "CPU"
    assert choice.note == ("asked for a GPU, ran on the CPU: no usable CUDA device (CUDA_ERROR_NO_DEVICE); no usable OpenCL device (CUDA_ERROR_NO_DEVICE)")
    cuda = choose_platform("cuda", probe=lambda name: "this OpenMM has no CUDA platform")
    assert (cuda.name, cuda.note) == ("CPU", "asked for CUDA, ran on the CPU: this OpenMM has no CUDA platform")
    unknown = choose_platform("TPU")
    assert unknown.name == "CPU"
    assert unknown.note == f"{PLATFORM_ENV}=TPU is not one of CPU, auto, CUDA, OpenCL; ran on the CPU"


@pytest.mark.skipif(HAS_GPU, reason="this machine has a usable GPU platform")
def test_the_real_probe_says_why_there_is_no_gpu_here() -> None:
    for name in ("CUDA", "OpenCL"):
        reason = probe_platform(name)
        assert reason is not None and name in reason


@pytest.mark.skipif(HAS_GPU, reason="this machine has a usable GPU platform")
def test_a_simulation_asked_for_a_gpu_runs_on_the_cpu_and_logs_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argon_lattice(tmp_path, 1.0)
    monkeypatch.setenv(PLATFORM_ENV, "auto")
    report, files = run_protocol(tmp_path / "argon.prmtop", tmp_path / "argon.inpcrd", Protocol(10, 20, 300.0, "NVT", 7), tmp_path, lambda *_progress: None)
    assert report.platform == "CPU"
    assert report.platform_note is not None and report.platform_note.startswith("asked for a GPU, ran on the CPU: ")
    log = files.log.read_text()
    assert "on CPU;" in log
    assert f"platform: {report.platform_note}\n" in log
