"""Password-protected documents: ``parse(source, password=...)``. A missing or wrong password is
``password_required`` and no error quotes the password; a scheme we cannot open (HWP 5.0
``EncryptVersion`` 0) is ``unsupported_format``.

The licence-noted fixtures in tests/fixtures/encrypted (password ``123456``): an HWPX package
(OWPML/ODF encryption) with its unencrypted twin, and an HWP 3.x document (DES) holding the same
한글 97 notice. The corpus test reads every ``encrypted/`` document with its password from
``PASSWORDS.tsv`` against its twin.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from rhwp_core.cache import clear_cache, load
from rhwp_core_test_support import recall

import rhwp_core
from rhwp_core import PasswordRequiredError, UnsupportedFormatError

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "encrypted"
HWPX = FIXTURES / "kordoc-hwpx-password-123456.hwpx"
TWIN = FIXTURES / "kordoc-hwpx-password-123456-twin.hwpx"
HWP3 = FIXTURES / "rhwp-hwp3-password-123456.hwp"
PASSWORD = "123456"
WRONG = ["1234567", "", "비밀번호-wrong", "12345"]


def _error_text(e: rhwp_core.HwpError) -> str:
    return f"{e} {e.args} {e.suggestion} {e!r}"


@pytest.mark.parametrize("path", [HWPX, HWP3], ids=["hwpx", "hwp3"])
def test_reads_with_its_password_like_the_twin(path: Path) -> None:
    ours = rhwp_core.parse(path, password=PASSWORD).extract_text()
    twin = rhwp_core.parse(TWIN).extract_text()
    assert recall(twin, ours) >= 0.99
    assert recall(ours, twin) >= 0.99
    assert rhwp_core.parse(path.read_bytes(), PASSWORD).extract_text() == ours


@pytest.mark.parametrize("path", [HWPX, HWP3], ids=["hwpx", "hwp3"])
def test_without_or_with_a_wrong_password_password_required(path: Path) -> None:
    with pytest.raises(PasswordRequiredError) as info:
        rhwp_core.parse(path)
    assert info.value.code == "password_required"
    assert "password" in info.value.suggestion
    for wrong in WRONG:
        with pytest.raises(PasswordRequiredError) as info:
            rhwp_core.parse(path, password=wrong)
        assert "wrong" in str(info.value)
        if wrong:
            assert wrong not in _error_text(info.value)
    # The right password never shows either, whatever fails.
    with pytest.raises(PasswordRequiredError) as info:
        rhwp_core.parse(path, password=PASSWORD + "x")
    assert PASSWORD not in _error_text(info.value)


def test_a_password_for_a_plain_document_is_ignored() -> None:
    assert rhwp_core.parse(TWIN, password="anything").extract_text() == rhwp_core.parse(TWIN).extract_text()


def test_pictures_of_an_encrypted_package() -> None:
    from rhwp_core import read_bin_item

    names = rhwp_core.bin_data_names(rhwp_core.parse(HWPX, password=PASSWORD))
    assert names
    for name in names:
        item = read_bin_item(HWPX, name, password=PASSWORD)
        assert item.media_type is not None
    with pytest.raises(PasswordRequiredError):
        read_bin_item(HWPX, names[0])
    with pytest.raises(PasswordRequiredError):
        read_bin_item(HWPX, names[0], password="wrong")


def test_cache_keys_on_the_password_never_holding_it() -> None:
    from rhwp_core import cache

    clear_cache()
    doc = load(HWPX, password=PASSWORD)
    assert load(HWPX, password=PASSWORD) is doc
    with pytest.raises(PasswordRequiredError):
        load(HWPX)
    with pytest.raises(PasswordRequiredError):
        load(HWPX, password="wrong")
    keys = list(cache._entries)
    # (The fixture's file name holds the digits too: only the rest of the key is checked.)
    assert keys and all(k[-1] and PASSWORD not in repr(k[1:]) and PASSWORD.encode() not in k[-1] for k in keys)
    assert load(TWIN) is load(TWIN)
    clear_cache()


def test_older_hwp5_schemes(corpus_dir: Path) -> None:
    # The corpus's protected HWP 5.0 files (EncryptVersion 0, an older scheme): without a
    # password the caller is asked for one; with one, the scheme is named as unsupported.
    for name in ("pyhwp-password-12345.hwp", "hwpswift-password-normal.hwp"):
        path = corpus_dir / "bad" / name
        with pytest.raises(PasswordRequiredError):
            rhwp_core.parse(path)
        with pytest.raises(UnsupportedFormatError) as info:
            rhwp_core.parse(path, password="12345")
        assert "EncryptVersion 0" in str(info.value)
        assert "12345" not in _error_text(info.value).replace("EncryptVersion", "")


def test_every_encrypted_corpus_document_reads_like_its_twin(corpus_dir: Path) -> None:
    folder = corpus_dir / "encrypted"
    with (folder / "PASSWORDS.tsv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert rows
    for row in rows:
        path = folder / row["file"]
        ours = rhwp_core.parse(path, password=row["password"]).extract_text()
        twin = rhwp_core.parse(folder / "twins" / row["file"]).extract_text()
        assert recall(twin, ours) >= 0.99, row["file"]
        assert recall(ours, twin) >= 0.99, row["file"]
        with pytest.raises(PasswordRequiredError):
            rhwp_core.parse(path)
        with pytest.raises(PasswordRequiredError) as info:
            rhwp_core.parse(path, password=row["password"] + "-wrong")
        assert row["password"] not in _error_text(info.value)
