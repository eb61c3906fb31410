"""Reading fixed-column text files a block at a time with NumPy: a block of whole lines becomes a
byte array, columns are gathered for all its lines at once and fixed-width decimal numbers parsed
without a Python call per line. The readers use this for the bulk of a file (atom lines, CONECT
records) and read a block line by line only when it holds something else or something wrong, so
every message still names its line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

BLOCK_BYTES = 8 * 1024 * 1024
SPACE, NEWLINE, DOT, MINUS = ord(" "), ord("\n"), ord("."), ord("-")
_POWERS = 10.0 ** np.arange(-30, 31)


class LineTooLong(Exception):
    """A line longer than the reader's limit; `line` is its number (1-based)."""

    def __init__(self, line: int):
        super().__init__(f"line {line} is too long")
        self.line = line


def blocks(path: Path, max_line: int) -> Iterator[tuple[bytes, int]]:
    """(block, number of its first line): blocks of whole lines; the last one may lack its line end.
    A line longer than `max_line` bytes raises LineTooLong once that many bytes of it are read: a
    line is never gathered whole, which copied it at every read."""
    number = 1
    carry = b""
    with path.open("rb") as handle:
        while True:
            data = handle.read(BLOCK_BYTES)
            if not data:
                break
            data = carry + data if carry else data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if len(data) > max_line:
                    raise LineTooLong(number)
                carry = data
                continue
            block = data[:cut] if cut < len(data) else data
            yield block, number
            number += block.count(b"\n")
            carry = data[cut:]
    if carry:
        if len(carry) > max_line:
            raise LineTooLong(number)
        yield carry, number


class Lines:
    """The lines of a block: byte array, start and end (exclusive, before the line end) of each.
    A line longer than `max_line` raises LineTooLong (`first` is the block's first line number)."""

    def __init__(self, block: bytes, first: int = 1, max_line: int | None = None):
        self.buffer = np.frombuffer(block, dtype=np.uint8)
        ends = np.flatnonzero(self.buffer == NEWLINE)
        if len(ends) == 0 or ends[-1] != len(self.buffer) - 1:
            ends = np.append(ends, len(self.buffer))  # last line without its line end
        self.starts = np.r_[0, ends[:-1] + 1]
        if max_line is not None and len(ends) and (ends - self.starts).max() > max_line:
            raise LineTooLong(first + int(np.argmax(ends - self.starts > max_line)))
        self.line_ends = ends
        carriage = (ends > self.starts) & (self.buffer[np.maximum(ends - 1, 0)] == ord("\r"))
        self.ends = np.where(carriage, ends - 1, ends)

    def __len__(self) -> int:
        return len(self.starts)

    def raw(self, index: int) -> bytes:
        return self.buffer[self.starts[index] : self.line_ends[index] + 1].tobytes()

    def columns(self, rows: np.ndarray, first: int, last: int) -> np.ndarray:
        """Columns first..last-1 (0-based) of the given lines, spaces past a line's end."""
        starts = self.starts[rows]
        lengths = self.ends[rows] - starts
        if len(rows) and (lengths >= last).all():
            offsets = starts[:, None] + np.arange(first, last)
            return self.buffer[offsets]
        offsets = starts[:, None] + np.arange(first, last)
        inside = offsets < (starts + lengths)[:, None]
        # a gather clipped to the buffer, then spaces past each line's end: 3x cheaper than a masked scatter
        return np.where(inside, self.buffer[np.minimum(offsets, len(self.buffer) - 1)], np.uint8(SPACE)).astype(np.uint8, copy=False)

    def record(self, rows: np.ndarray | None = None, width: int = 6) -> np.ndarray:
        rows = np.arange(len(self)) if rows is None else rows
        return self.columns(rows, 0, width)


def equals(record: np.ndarray, text: bytes) -> np.ndarray:
    """Rows of a (lines, width) byte array that hold `text` (padded with spaces to the width)."""
    return (record == np.frombuffer(text.ljust(record.shape[1]), dtype=np.uint8)).all(axis=1)


def fixed_decimals(field: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of right-aligned decimal numbers in a (lines, width) byte array (`  -12.345`), and
    which rows hold one: digits, one point, a leading minus, spaces before the number only."""
    digit = (field >= ord("0")) & (field <= ord("9"))
    dot = field == DOT
    minus = field == MINUS
    space = field == SPACE
    started = np.cumsum(~space, axis=1) > 0
    first = (~space).argmax(axis=1)
    columns = np.arange(field.shape[1])
    ok = (
        (digit | dot | minus | space).all(axis=1)
        & (dot.sum(axis=1) == 1)
        & digit.any(axis=1)
        & ~(space & started).any(axis=1)
        & ~(minus & (columns[None, :] != first[:, None])).any(axis=1)
    )
    point = dot.argmax(axis=1)[:, None]
    exponent = point - columns[None, :] - 1 + (columns[None, :] > point)
    values = np.where(digit, (field.astype(np.float64) - ord("0")) * _POWERS[np.clip(exponent, -30, 30) + 30], 0.0).sum(axis=1)
    return np.where(minus.any(axis=1), -values, values), ok


def keys(field: np.ndarray) -> np.ndarray:
    """One integer per row for byte fields up to 8 wide (for grouping equal texts)."""
    width = field.shape[1]
    padded = np.zeros((len(field), 8), dtype=np.uint8)
    padded[:, :width] = field
    return padded.view(np.uint64).ravel()


def text_of(key: int, width: int) -> bytes:
    return int(key).to_bytes(8, "little")[:width]
