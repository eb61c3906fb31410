"""Command line: `python -m polyforge_engine <command> --input job.json --workdir DIR`."""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polyforge_engine import events
from polyforge_engine.runtime.parent_watch import watch_parent
from polyforge_engine.versions import tool_versions

# Each command is commands/<name with underscores>.py, whose `run(job, workdir)` returns the result
# payload. Imported only when its command runs: each pulls in different heavy libraries (AmberTools
# wrappers, ParmEd, SciPy), and every job is a fresh process.
COMMANDS = ("build-structure", "build-system", "convert-smiles", "validate-structure", "validate-topology", "generate-potential")


def command(name: str) -> Callable[[dict[str, Any], Path], dict[str, Any]]:
    module = importlib.import_module(f"polyforge_engine.commands.{name.replace('-', '_')}")
    return module.run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="polyforge_engine")
    sub = parser.add_subparsers(dest="command", required=True)
    version = sub.add_parser("version", help="print engine and tool versions")
    version.add_argument("--json", action="store_true")
    for name in sorted(COMMANDS):
        p = sub.add_parser(name)
        p.add_argument("--input", required=True, type=Path)
        p.add_argument("--workdir", required=True, type=Path)
    args = parser.parse_args(argv)

    if args.command == "version":
        versions = tool_versions()
        if args.json:
            print(json.dumps(versions))
        else:
            for name, value in versions.items():
                print(f"{name} {value or 'not found'}")
        return 0

    # First of all: from here on, the engine never outlives the server that started it.
    watch_parent()
    try:
        job = json.loads(args.input.read_text())
        args.workdir.mkdir(parents=True, exist_ok=True)
        # The command's imports (NumPy, RDKit, pydantic's job models, OpenMM wrappers) allocate much and
        # free little: collecting while they run finds nothing and costs start-up time (bench/README.md, "Simulation and parametrisation settings").
        gc.disable()
        run = command(args.command)
        # What they created lives until exit: keep it out of every later garbage collection, the one
        # at exit included.
        gc.freeze()
        gc.enable()
        payload = run(job, args.workdir)
    except events.EngineError as exc:
        events.error(exc.code, exc.message)
        return 1
    except json.JSONDecodeError as exc:
        events.error("INVALID_INPUT", f"The job file is not valid JSON: {exc.msg} at line {exc.lineno}.")
        return 1
    except Exception as exc:  # last resort: report, never a bare trace
        events.error("INTERNAL_ERROR", f"The engine failed unexpectedly ({type(exc).__name__}: {exc}).")
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    events.result(**payload)
    return 0
