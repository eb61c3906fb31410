"""The engine's output protocol (ARCHITECTURE §6): JSON lines on stdout, progress events, then
exactly one result or error event. Exit code 0 only with a result."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

# An absolute path (two or more segments): the server's directories are nobody else's business.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/])(?:/[\w.+@-]+)+/([\w.+@-]+)")


class EngineError(Exception):
    """A failure a chemist can act on: a stable code and a plain sentence, never a trace."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def emit(event: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def progress(stage: str, percent: float, **extra: Any) -> None:
    emit({"event": "progress", "stage": stage, "percent": round(float(percent), 1), **extra})


def result(**payload: Any) -> None:
    emit({"event": "result", **payload})


def without_paths(message: str) -> str:
    """The message with every absolute path cut to its file name: a tool's error may name the server's
    directories, which are nobody else's business."""
    return _ABSOLUTE_PATH.sub(lambda match: match.group(1), message)


def error(code: str, message: str) -> None:
    emit({"event": "error", "code": code, "message": without_paths(message)})
