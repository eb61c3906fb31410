"""A generated potential's bundle carries, besides the topology, each GAFF kind's antechamber and
parmchk2 output under force_field/ (with a README on rebuilding the kinds in tleap), so a chemist can
take one molecule's parameters elsewhere."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

FORCE_FIELD_README = """# Force-field files of each molecule kind

- `<kind>.mol2` — antechamber's output for the kind: its GAFF/GAFF2 atom types and AM1-BCC charges (Tripos mol2).
- `<kind>.frcmod` — parmchk2's output for the kind: the bonded terms missing from gaff.dat/gaff2.dat.

With them, `tleap` rebuilds each kind (`source leaprc.gaff2`, `loadamberparams <kind>.frcmod`,
`<kind> = loadmol2 <kind>.mol2`). Water and monatomic ions use their standard models (TIP3P,
Joung-Cheatham) from AmberTools and have no files here.
"""


def add_force_field_files(bundle: Path, topology_dir: Path, labels: list[str]) -> None:
    """Adds each GAFF kind's antechamber (mol2) and parmchk2 (frcmod) output to the bundle under
    force_field/, named after the kind; written to a copy renamed at the end, as the bundle is."""
    entries: list[tuple[Path, str]] = []
    for number, label in enumerate(labels, start=1):
        stem = re.sub(r"[^A-Za-z0-9_.+-]+", "_", label).strip("_") or f"kind_{number}"
        for name, suffix in (("kind.mol2", "mol2"), ("kind.frcmod", "frcmod")):
            path = topology_dir / f"kind_{number}" / name
            if path.is_file():
                entries.append((path, f"force_field/{stem}.{suffix}"))
    if not entries:
        return
    partial = bundle.with_name(f".{bundle.name}.partial")
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "README.md":  # the bundle's README lists every file of the zip
                data = (data.decode().rstrip("\n") + "\n\n" + _force_field_section([name for _, name in entries])).encode()
            archive.writestr(info, data)
        archive.writestr("force_field/README.md", FORCE_FIELD_README)
        for path, name in entries:
            archive.write(path, name)
    partial.replace(bundle)


def _force_field_section(names: list[str]) -> str:
    """The bundle README's lines for the force-field files of each kind."""
    lines = ["## Force-field files of each molecule kind\n", "- `force_field/README.md` — how tleap rebuilds each kind from them."]
    for name in names:
        what = "antechamber's atom types and AM1-BCC charges" if name.endswith(".mol2") else "parmchk2's missing bonded terms"
        lines.append(f"- `{name}` — {what}.")
    return "\n".join(lines) + "\n"
