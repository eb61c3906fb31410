"""Running AmberTools programs (antechamber, parmchk2, tleap) as child processes that can be
cancelled, and whose failures become chemist-readable errors instead of tracebacks."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.cancellation import cancel_requested, raise_if_cancelled
from polyforge_engine.versions import find_tool

TOOL_MISSING = "TOOL_NOT_FOUND"
_POLL_SECONDS = 0.1


def run_tool(name: str, args: list[str], cwd: Path, failure_code: str, failure_what: str) -> str:
    """Run an AmberTools program in `cwd` and return its combined output.

    A non-zero exit raises EngineError(failure_code, "<failure_what>: <the tool's own reason>").
    The child is killed as soon as cancellation is requested."""
    exe = find_tool(name)
    if exe is None:
        raise EngineError(TOOL_MISSING, f"The program {name} (AmberTools) is not installed in the engine's environment.")
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")  # sqm spins extra threads for no gain on small fragments
    log_path = cwd / f"{name}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen([exe, *args], cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
        while proc.poll() is None:
            if cancel_requested():
                proc.kill()
                proc.wait()
                raise_if_cancelled()
            time.sleep(_POLL_SECONDS)
    output = log_path.read_text(errors="replace")
    if proc.returncode != 0 or _reports_failure(name, output):
        raise EngineError(failure_code, f"{failure_what}: {_reason(output)}")
    return output


def _reports_failure(name: str, output: str) -> bool:
    # tleap exits 0 even when it could not build the unit or save the parameters.
    if name == "tleap":
        return "Failed to generate parameters" in output or "Could not open file" in output
    return False


def _reason(output: str) -> str:
    """The tool's most telling line: its first error/warning line, else its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        lowered = line.lower()
        if lowered.startswith(("error", "fatal", "warning: the assigned bond types", "info: the number of electrons")) or "error" in lowered:
            return line.removeprefix("Error:").strip()[:300]
    return lines[-1][:300] if lines else "the program stopped without a message"
