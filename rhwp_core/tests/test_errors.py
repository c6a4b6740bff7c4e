"""The error vocabulary: one table in the Rust reader, the exception classes built from it.

``rhwp_reader::error::VOCABULARY`` (exported as ``_native.ERROR_CODES``) holds each code, its
default suggestion and the ``rhwp_core`` class that carries it. The classes take both from it, and
the reader's own errors arrive with the same default suggestions, so the wording a user reads for
a code is the same whether Rust or Python raised it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rhwp_core.media import UnknownBinDataError

import rhwp_core
from rhwp_core import _native

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


def test_every_row_is_a_public_class_with_that_code_and_suggestion() -> None:
    codes = [code for code, _, _ in _native.ERROR_CODES]
    assert len(set(codes)) == len(codes)
    for code, suggestion, name in _native.ERROR_CODES:
        cls = getattr(rhwp_core, name)
        assert name in rhwp_core.__all__
        assert (cls.code, cls.suggestion) == (code, suggestion), name
        assert suggestion.strip() and suggestion == suggestion.strip()


def test_every_exception_class_speaks_a_code_of_the_vocabulary() -> None:
    codes = {code for code, _, _ in _native.ERROR_CODES}
    classes = [rhwp_core.HwpError, rhwp_core.DocumentIsADirectoryError, UnknownBinDataError]
    classes += [getattr(rhwp_core, name) for _, _, name in _native.ERROR_CODES]
    for cls in classes:
        assert cls.code in codes, cls.__name__


@pytest.mark.parametrize(
    ("fixture", "error"),
    [
        ("synthetic-a-truncated.hwpx", rhwp_core.CorruptDocumentError),
        ("synthetic-a-png-renamed.hwp", rhwp_core.UnsupportedFormatError),
        ("synthetic-a-zip-bomb.hwpx", rhwp_core.TooLargeError),
        ("hwpswift-password-normal.hwp", rhwp_core.PasswordRequiredError),
    ],
)
def test_a_reader_error_carries_its_codes_default_suggestion(fixture: str, error: type[rhwp_core.HwpError]) -> None:
    with pytest.raises(error) as info:
        rhwp_core.parse(FIXTURES / "bad" / fixture)
    assert info.value.code == error.code
    assert info.value.suggestion == error.suggestion


def test_a_missing_file_carries_the_default_suggestion(tmp_path: Path) -> None:
    with pytest.raises(rhwp_core.DocumentNotFoundError) as info:
        rhwp_core.parse(tmp_path / "nope.hwp")
    assert (info.value.code, info.value.suggestion) == ("file_not_found", rhwp_core.DocumentNotFoundError.suggestion)
