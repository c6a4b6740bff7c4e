"""The shortcuts the views take for speed give what the long way gives."""

from __future__ import annotations

import sys

from oracle_views._common import _FORBIDDEN, clean


def test_every_forbidden_character_is_non_printable() -> None:
    # clean() returns printable text untouched without running the regex.
    printable_but_forbidden = [
        hex(code) for code in range(sys.maxunicode + 1) if chr(code).isprintable() and _FORBIDDEN.match(chr(code))
    ]
    assert printable_but_forbidden == []


def test_clean_removes_the_forbidden_and_keeps_the_rest() -> None:
    assert clean("가나다 abc") == "가나다 abc"
    assert clean("a\tb\nc") == "a\tb\nc"
    assert clean("a\x00b\x1fc\x7fd\x85e\ufffff\U0001fffeg") == "abcdefg"
    assert clean("\u00a0\ue000") == "\u00a0\ue000"  # not printable, but allowed
