"""Which OpenMM platform a simulation runs on: the CPU by default (openmm_cpu.py), a GPU (CUDA, then
OpenCL) when POLYFORGE_OPENMM_PLATFORM asks for one and the node has it; else the CPU, with the reason.

The server's Slurm executor sets POLYFORGE_OPENMM_PLATFORM=auto in the batch script of a job it
gave GPUs (--gpus), so a GPU node's CUDA device is used; Slurm's CUDA_VISIBLE_DEVICES tells OpenMM
which of the node's devices are the job's."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import openmm

from polyforge_engine.runtime.openmm_cpu import cpu_properties

PLATFORM_ENV = "POLYFORGE_OPENMM_PLATFORM"
# What the setting may say; `auto` tries the GPU platforms in this order.
GPU_PLATFORMS = ("CUDA", "OpenCL")
CHOICES = ("CPU", "auto", *GPU_PLATFORMS)


@dataclass(frozen=True)
class PlatformChoice:
    name: str  # the platform the simulation runs on
    properties: dict[str, str]
    requested: str  # what the setting asked for
    note: str | None  # why it is not the platform asked for (None when it is)

    def platform(self) -> openmm.Platform:
        return openmm.Platform.getPlatformByName(self.name)


# A platform's usability: None when a context can be made on it, else why not.
Probe = Callable[[str], str | None]


def gpu_properties(name: str) -> dict[str, str]:
    """Mixed precision (OpenMM's recommendation for dynamics); CUDA's forces summed in a fixed
    order, so a seed repeats on the same GPU. The device is OpenMM's first visible one: Slurm's
    CUDA_VISIBLE_DEVICES (or GPU_DEVICE_ORDINAL) names the job's."""
    if name == "CUDA":
        return {"Precision": "mixed", "DeterministicForces": "true"}
    return {"Precision": "mixed"}


def probe_platform(name: str) -> str | None:
    """None when a context can be made on the platform here (the plugin loaded and a device answers),
    else the reason, in one line."""
    try:
        platform = openmm.Platform.getPlatformByName(name)
    except Exception:  # OpenMM raises its own exception type for an unknown platform
        failures = [line for line in openmm.Platform.getPluginLoadFailures() if name.lower() in line.lower()]
        detail = f" ({_first_line(failures[0])})" if failures else ""
        return f"this OpenMM has no {name} platform{detail}"
    system = openmm.System()
    system.addParticle(1.0)
    try:
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), platform, gpu_properties(name))
    except Exception as error:  # no device, a driver too old: OpenMMException
        return f"no usable {name} device ({_first_line(str(error))})"
    del context
    return None


def choose_platform(requested: str | None = None, probe: Probe = probe_platform) -> PlatformChoice:
    """The platform for a simulation: `requested` (else POLYFORGE_OPENMM_PLATFORM, else CPU). A GPU
    platform that cannot be used here falls back to the CPU, and the choice says why."""
    raw = (requested if requested is not None else os.environ.get(PLATFORM_ENV, "")).strip() or "CPU"
    wanted = next((choice for choice in CHOICES if choice.lower() == raw.lower()), None)
    if wanted is None:
        note = f"{PLATFORM_ENV}={raw} is not one of {', '.join(CHOICES)}; ran on the CPU"
        return PlatformChoice("CPU", cpu_properties(), raw, note)
    if wanted == "CPU":
        return PlatformChoice("CPU", cpu_properties(), wanted, None)
    reasons: list[str] = []
    for name in GPU_PLATFORMS if wanted == "auto" else (wanted,):
        reason = probe(name)
        if reason is None:
            return PlatformChoice(name, gpu_properties(name), wanted, None)
        reasons.append(reason)
    asked = "a GPU" if wanted == "auto" else wanted
    return PlatformChoice("CPU", cpu_properties(), wanted, f"asked for {asked}, ran on the CPU: {'; '.join(reasons)}")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:200] if text.strip() else "no message"
