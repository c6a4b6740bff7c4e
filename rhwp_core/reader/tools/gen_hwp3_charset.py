#!/usr/bin/env python3
"""Generate rhwp_core/reader/src/hwp3/charset.bin and src/common/hanyang_pua.bin from libhwp's `hwp-charset.h`.

Source of the mapping: hallazzang/libhwp, src/hwp-charset.h (Hodong Kim; the file says it "has been
dedicated to the public domain in 2015"; generated there by hnc2unicode.rb). It maps every 16-bit code
of the 한글 3.x character set (ASCII, symbols up to 0x3FFF, KS X 1001 hanja from 0x4000, extended hanja
to 0x7FFF, Johab Hangul incl. old Hangul from 0x8000) to Unicode scalars (old Hangul: a conjoining-jamo sequence).

The same header's `hyc2uni_page14` maps the Hanyang private-use area (U+E0BC..U+F8F7: the old Hangul
syllables 한글 wrote as single private-use code points, e.g. U+F53A = ᄒᆞᆫ) to KS X 1026-1 conjoining-jamo
sequences. `hanyang_pua.bin` is that table alone (6,204 codes from U+E0BC, same packed form), which the
reader applies to the text of every format (`common/private_use.rs`).

Usage:  python tools/gen_hwp3_charset.py path/to/hwp-charset.h  [charset.bin [hanyang_pua.bin]]

Output format (then raw-deflated): for each code 0..65535 in order, one byte `n` (0..3, the number of
scalars, at most 15) followed by `n` zigzag LEB128 varints, each the difference from the previously written scalar.
`charset.rs` inflates it once, on first use. Corrections on top of the source table (see OVERRIDES)
are applied here so the binary is the single source of truth at run time.
"""

from __future__ import annotations

import re
import sys
import zlib
from pathlib import Path

# Where libhwp's table differs from what Hancom's own converter writes (compared with the HWP 5.0/HWPX
# twins of the corpus documents): code -> scalars.
OVERRIDES: dict[int, list[int]] = {}


def parse(header: str) -> list[list[int]]:
    table: list[list[int]] = [[] for _ in range(0x10000)]

    def body(name: str) -> str:
        m = re.search(r"\b" + name + r"\[[^=]*=\s*\{(.*?)\n\};", header, re.S)
        if not m:
            raise SystemExit(f"{name} not found")
        return m.group(1)

    def flat(name: str, start: int) -> None:
        vals = [int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]+", body(name))]
        for i, v in enumerate(vals):
            table[start + i] = [v] if v else []

    flat("hnc2uni_page0", 0x0000)
    flat("hnc2uni_page4", 0x4000)
    flat("hnc2uni_page5", 0x5318)
    triples = re.findall(
        r"\{\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*\}", body("hnc2uni_page8")
    )
    if len(triples) != 0x8000:
        raise SystemExit(f"page8 has {len(triples)} entries")
    # Old Hangul: the page-8 table writes it in Hanyang private-use code points (U+E0BC..U+F8F7);
    # the header's hyc2uni_page14 turns each into its conjoining-jamo sequence (KS X 1026-1 style),
    # which is what we write.
    hypua = hanyang(header)
    for i, t in enumerate(triples):
        seq: list[int] = []
        for v in (int(x, 16) for x in t):
            if v:
                seq.extend(hypua.get(v, [v]) if 0xE0BC <= v <= 0xF8F7 else [v])
        table[0x8000 + i] = seq
    # ASCII printable characters map to themselves (hwp_hnchar_to_utf8 does the same).
    for c in range(0x20, 0x7F):
        table[c] = [c]
    for code, seq in OVERRIDES.items():
        table[code] = seq
    return table


HANYANG_FIRST = 0xE0BC
HANYANG_LAST = 0xF8F7


def hanyang(header: str) -> dict[int, list[int]]:
    """Hanyang PUA code -> its conjoining-jamo sequence (`hyc2uni_page14`)."""
    m = re.search(r"\bhyc2uni_page14\[[^=]*=\s*\{(.*?)\n\};", header, re.S)
    if not m:
        raise SystemExit("hyc2uni_page14 not found")
    hy = re.findall(r"\{\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*\}", m.group(1))
    if len(hy) != HANYANG_LAST - HANYANG_FIRST + 1:
        raise SystemExit(f"hyc2uni_page14 has {len(hy)} entries")
    return {HANYANG_FIRST + i: [int(v, 16) for v in t if int(v, 16)] for i, t in enumerate(hy)}


def varint(n: int, out: bytearray) -> None:
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def encode(table: list[list[int]]) -> bytes:
    out = bytearray()
    prev = 0
    for seq in table:
        out.append(len(seq))
        for v in seq:
            d = v - prev
            varint((d << 1) ^ (d >> 63) if d < 0 else d << 1, out)
            prev = v
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(bytes(out)) + c.flush()


def main(argv: list[str]) -> int:
    src = Path(argv[0])
    dst = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "src" / "hwp3" / "charset.bin"
    header = src.read_text(encoding="utf-8", errors="replace")
    data = encode(parse(header))
    dst.write_bytes(data)
    print(f"wrote {dst} ({len(data)} bytes)")
    hy_dst = (
        Path(argv[2])
        if len(argv) > 2
        else Path(__file__).resolve().parent.parent / "src" / "common" / "hanyang_pua.bin"
    )
    hy = hanyang(header)
    hy_data = encode([hy[c] for c in range(HANYANG_FIRST, HANYANG_LAST + 1)])
    hy_dst.write_bytes(hy_data)
    print(f"wrote {hy_dst} ({len(hy_data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
