"""Work computed ahead in a forked child process, read back by key as the parent comes to it.

The first build of a chemistry computes its relaxed torsion scans (construct/relaxed_torsions.py) one by
one as the chain tables that need them are computed: on a job given two CPUs, a child forked when the
tables start computes the scans while the parent computes the tables, and the parent takes each scan
when it comes to it. The child is a copy of the parent (fork: nothing to import or send), dies with it
(PR_SET_PDEATHSIG; it is also in the engine's process group, which cancel and the parent watch end),
ends at once on SIGTERM, and leaves with os._exit, running none of the parent's exit handlers."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable, Hashable
from multiprocessing.connection import Connection
from typing import Any

MISSING = object()  # what `take` answers for a key the child did not send
_PR_SET_PDEATHSIG = 1

Send = Callable[[Hashable, Any], None]


class Ahead:
    """`produce(send)` run in a forked child, which sends (key, value) pairs as it finds them."""

    def __init__(self, produce: Callable[[Send], None]):
        parent = os.getpid()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            code = 1
            try:
                _die_with(parent)
                out = Connection(write, readable=False)
                produce(lambda key, value: out.send((key, value)))
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pid = pid
        self._connection = Connection(read, writable=False)
        self._received: dict[Hashable, Any] = {}
        self._finished = False

    def take(self, key: Hashable) -> Any:
        """The value the child sent for `key`, waiting for it while the child runs; MISSING once the
        child ended without sending it (it had nothing to send, or failed)."""
        while key not in self._received and not self._finished:
            try:
                sent, value = self._connection.recv()
            except (EOFError, OSError):
                self._finished = True
                break
            self._received[sent] = value
        return self._received.pop(key, MISSING)

    def close(self) -> None:
        """Ends the child (whatever it was still computing is dropped) and reaps it."""
        with contextlib.suppress(ProcessLookupError):  # it ended already
            os.kill(self._pid, signal.SIGKILL)
        os.waitpid(self._pid, 0)
        self._connection.close()


def _die_with(parent: int) -> None:
    """In the child: killed when `parent` dies, and on SIGTERM or SIGINT, as a process with no handlers."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(1)
