"""The engine's store on disk of results that are costly to compute and the same every time.

relaxed_torsions.py keeps its torsion scans here, chain_statistics.py its transfer tables: each in a
directory of its own under POLYFORGE_CACHE_DIR, else the user's cache directory ($XDG_CACHE_HOME,
~/.cache), in polyforge-engine/. A file is written whole under a temporary name and renamed into
place, so a build reading it while another writes sees the old file or the new one. The store is only
ever a shortcut: where it cannot be written nothing is kept, and its readers treat a file they cannot
read as absent and compute again.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

CACHE_VARIABLE = "POLYFORGE_CACHE_DIR"


def cache_directory(name: str) -> Path | None:
    """The directory `name` of the store (not created), or None where there is no home for one."""
    root = os.environ.get(CACHE_VARIABLE) or os.environ.get("XDG_CACHE_HOME")
    if not root:
        try:
            root = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home directory (a bare service account): memory only
            return None
    return Path(root) / "polyforge-engine" / name


def write_atomically(path: Path, data: bytes) -> None:
    """Writes `data` to `path` by renaming a whole temporary file into place; where the directory
    cannot be made or written, nothing is written."""
    name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False, suffix=".tmp") as handle:
            name = handle.name
            handle.write(data)
        os.replace(name, path)
    except OSError:
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(name)
