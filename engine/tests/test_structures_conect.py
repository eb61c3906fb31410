"""CONECT fields that name several atoms (serials that repeat, digits read two ways) are resolved
with whole arrays; the record-by-record loop is the reference they must agree with."""

from __future__ import annotations

import numpy as np
import pytest
from polyforge_engine.construct.writers import _pdb_index
from polyforge_engine.structures import readers
from polyforge_engine.structures.readers import _PdbSerials


def _serials(fields: list[str], bonds: list[tuple[int, int]]) -> _PdbSerials:
    serials = _PdbSerials()
    serials.atom_fields += "".join(f"{field:>5}"[:5] for field in fields).encode()
    for line, (a, b) in enumerate(bonds, start=1):
        serials.add_conect(fields[a].encode(), fields[b].encode(), line)
    return serials


def _both_ways(serials: _PdbSerials, count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray]:
    vectorised, _ = serials.resolve(count)
    with monkeypatch.context() as patched:
        patched.setattr(readers, "_nearest_in_order", readers._nearest_in_order_loop)
        loop, _ = serials.resolve(count)
    return vectorised, loop


def _chain_bonds(count: int, generator: np.random.Generator, span: int = 6) -> list[tuple[int, int]]:
    """Bonds as CONECT records list them: records going forward through the atoms, each to a few
    near neighbours, either side (a ring closure, a branch)."""
    bonds = []
    for atom in range(0, count - span):
        for _ in range(int(generator.integers(1, 3))):
            bonds.append((atom, int(np.clip(atom + generator.integers(-span, span + 1), 0, count - 1))))
    return bonds


@pytest.mark.parametrize("period", [997, 10_000, 100_000])
def test_repeating_serials_agree_with_the_loop(period: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # GROMACS-style serials that wrap: every field names one atom per period.
    generator = np.random.default_rng(period)
    count = 3 * period + 123
    fields = [str((atom + 1) % period) for atom in range(count)]
    bonds = _chain_bonds(count, generator)
    vectorised, loop = _both_ways(_serials(fields, bonds), count, monkeypatch)
    assert np.array_equal(vectorised, loop)
    # …and they are the bonds written (each record resolved near its atoms).
    expected = np.array([bond for bond in bonds if bond[0] != bond[1]])
    assert np.array_equal(vectorised, expected)


def test_the_engines_serials_past_fffff_agree_with_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # Decimal to 99,999, hexadecimal from A0000 to FFFFF, then wrapped (digits-only fields read
    # either way): CONECT records around both switches.
    count = 493_215 + 60_000
    fields = [_pdb_index(atom + 1, 5) for atom in range(count)]
    generator = np.random.default_rng(1)
    bonds = [
        (atom, int(np.clip(atom + generator.integers(-4, 5), 0, count - 1)))
        for start in (0, 95_000, 480_000, 493_100, count - 20_000)
        for atom in range(start, min(start + 20_000, count))
    ]
    vectorised, loop = _both_ways(_serials(fields, bonds), count, monkeypatch)
    assert np.array_equal(vectorised, loop)
    expected = np.array([bond for bond in bonds if bond[0] != bond[1]])
    assert np.array_equal(vectorised, expected)
