"""Cooperative cancellation. The server cancels a job by sending SIGTERM to the engine's process
group (ARCHITECTURE §7); long loops call `raise_if_cancelled()` between short chunks of work so
the engine stops within seconds and reports CANCELLED instead of dying mid-write."""

from __future__ import annotations

import signal
import threading
from types import FrameType

from polyforge_engine.events import EngineError

CANCELLED = "CANCELLED"

_requested = threading.Event()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _requested.set()


def install_sigterm_handler() -> None:
    """Turn SIGTERM into a cancellation request instead of an immediate kill."""
    signal.signal(signal.SIGTERM, _on_sigterm)


def cancel_requested() -> bool:
    return _requested.is_set()


def raise_if_cancelled() -> None:
    if _requested.is_set():
        raise EngineError(CANCELLED, "The run was cancelled before it finished; no results were kept.")
