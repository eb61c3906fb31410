"""The engine ends when the server that started it dies, even killed with -9 (a cancel could not
reach an engine left behind). The server keeps the engine's stdin open and asks
for the watch with POLYFORGE_WATCH_PARENT=stdin; end of file means the server is gone, and the
watch kills the engine's whole process group (the tools it started included). A run by hand, in a
terminal, sets nothing and is not watched."""

from __future__ import annotations

import os
import signal
import sys
import threading

WATCH_VARIABLE = "POLYFORGE_WATCH_PARENT"


def _wait_for_parent_death() -> None:
    # The raw descriptor, not sys.stdin.buffer: a daemon thread blocked inside the buffered reader
    # holds its lock, and the interpreter's shutdown then aborts (SIGABRT, "could not acquire lock
    # for <stdin> at interpreter shutdown") after the result was written.
    try:
        while os.read(sys.stdin.fileno(), 65536):
            pass
    except (OSError, ValueError):
        pass
    os.killpg(os.getpgrp(), signal.SIGKILL)


def watch_parent() -> None:
    """Start the watch when the server asked for it (a daemon thread blocked on stdin)."""
    if os.environ.get(WATCH_VARIABLE) != "stdin":
        return
    threading.Thread(target=_wait_for_parent_death, name="parent-watch", daemon=True).start()
