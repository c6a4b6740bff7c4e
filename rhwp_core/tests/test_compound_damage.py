"""A compound file damaged the way documents 한글 opens are: read, with the damage in the summary's warnings.

The fixture is a 51 KB document written by 한글 (512-byte sectors, one FAT sector listed first in the
header's DIFAT, two free sectors). The Rust tests (``rhwp_core/reader/tests/compound_damage.rs``) cover
each kind of damage; this one checks what reaches Python: the text, the warning, the error class.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import rhwp_core

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hwp" / "rhwp-nested-cell-pagination.hwp"
FREE = 0xFFFFFFFF


def fat_entries(data: bytes) -> tuple[int, int]:
    """Where the first FAT sector's entries start, and how many sectors the file holds."""
    first_fat_sector = struct.unpack_from("<I", data, 0x4C)[0]
    return (first_fat_sector + 1) * 512, (len(data) - 512 + 511) // 512


def test_a_zero_filled_fat_reads_with_a_warning() -> None:
    # Free sectors whose FAT entries are 0, not "free": the FAT points at sector 0 twice, which a strict
    # reader refuses ("Malformed FAT: sector 0 pointed to twice").
    data = bytearray(FIXTURE.read_bytes())
    fat, sectors = fat_entries(bytes(data))
    free = [s for s in range(sectors) if struct.unpack_from("<I", data, fat + 4 * s)[0] == FREE]
    assert len(free) >= 2
    for sector in free:
        struct.pack_into("<I", data, fat + 4 * sector, 0)
    damaged = rhwp_core.parse(bytes(data))
    assert damaged.extract_text() == rhwp_core.parse(FIXTURE).extract_text()
    warnings = damaged.summary()["warnings"]
    assert any("FAT points at sector 0 twice" in w for w in warnings), warnings
    with pytest.raises(rhwp_core.CorruptDocumentError):
        rhwp_core.parse(bytes(data), strict=True)


def test_chains_that_leave_the_file_are_refused() -> None:
    data = bytearray(FIXTURE.read_bytes())
    fat, sectors = fat_entries(bytes(data))
    # Every link of every chain past the end: no stream of the regular FAT (the section, the mini stream
    # that holds the small ones) can be followed.
    for sector in range(sectors):
        if struct.unpack_from("<I", data, fat + 4 * sector)[0] < sectors:
            struct.pack_into("<I", data, fat + 4 * sector, sectors + 5)
    with pytest.raises(rhwp_core.CorruptDocumentError):
        rhwp_core.parse(bytes(data))
