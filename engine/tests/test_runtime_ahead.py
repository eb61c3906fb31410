"""Work computed ahead in a forked child (runtime/ahead.py): values taken in any order, what the child
never sent, and a child that is ended, cancelled or told to leave."""

from __future__ import annotations

import atexit
import os
import signal
import time
from pathlib import Path

import pytest
from polyforge_engine.runtime.ahead import MISSING, Ahead, Send


def test_values_are_taken_by_key_in_any_order() -> None:
    def produce(send: Send) -> None:
        for n in range(5):
            send(("square", n), n * n)

    ahead = Ahead(produce)
    try:
        assert ahead.take(("square", 3)) == 9
        assert ahead.take(("square", 0)) == 0
        assert ahead.take(("square", 4)) == 16
        assert ahead.take(("square", 7)) is MISSING  # never sent: the child ended
        assert ahead.take(("square", 3)) is MISSING  # taken once
    finally:
        ahead.close()


def test_a_child_still_working_is_ended_and_reaped_by_close() -> None:
    ahead = Ahead(lambda send: time.sleep(60))
    started = time.monotonic()
    ahead.close()
    assert time.monotonic() - started < 30
    with pytest.raises(ProcessLookupError):
        os.kill(ahead._pid, 0)


def test_the_child_ends_on_sigterm_whatever_the_parent_does_with_it() -> None:
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)  # the engine's cancel request only sets a flag
    try:
        ahead = Ahead(lambda send: (time.sleep(60), send("late", 1)))
        time.sleep(0.2)  # the child has reset its handlers
        started = time.monotonic()
        os.kill(ahead._pid, signal.SIGTERM)
        assert ahead.take("late") is MISSING
        assert time.monotonic() - started < 30
        ahead.close()
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_the_child_runs_none_of_the_parents_exit_handlers(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    parent = os.getpid()

    def leave_a_mark() -> None:
        if os.getpid() != parent:
            marker.write_text("an exit handler ran in the child")

    atexit.register(leave_a_mark)
    try:
        ahead = Ahead(lambda send: send("done", True))
        assert ahead.take("done") is True
        ahead.close()
    finally:
        atexit.unregister(leave_a_mark)
    assert not marker.exists()
