"""Python-side mutation test: no input crashes the interpreter or escapes the error vocabulary.

Each example mutates a real fixture (bit flips, truncation, spliced garbage) and parses it in
process: the outcome must be a Document or an ``HwpError`` — never another exception, never a
crash (which would take pytest down with it). Bounded: a fixed number of examples per run.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rhwp_core

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
SEEDS = [
    p.read_bytes()
    for p in sorted((FIXTURES / "hwp").glob("*.hwp"))
    + sorted((FIXTURES / "hwpx").glob("*.hwpx"))
    # HWP 3.x: the small ones, whose header and deflated body a mutation reaches alike.
    + sorted(p for p in (FIXTURES / "hwp3").glob("*.hwp") if p.stat().st_size < 40_000)
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "truncate", "splice", "zero"]))
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "truncate":
            del data[i:]
        elif op == "splice":
            data[i:i] = draw(st.binary(min_size=1, max_size=32))
        else:
            data[i : i + 64] = bytes(len(data[i : i + 64]))
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_documents_parse_or_raise_hwp_error(data: bytes) -> None:
    try:
        doc = rhwp_core.parse(data)
    except rhwp_core.HwpError as e:
        # (password_required: a mutation may set a header's password flag.)
        assert e.code in {"unsupported_format", "password_required", "corrupt_document", "too_large"}
        assert e.suggestion
        return
    doc.extract_text()
    doc.summary()


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4096))
def test_arbitrary_bytes_never_escape_the_error_vocabulary(data: bytes) -> None:
    try:
        rhwp_core.parse(data)
    except rhwp_core.HwpError:
        pass
