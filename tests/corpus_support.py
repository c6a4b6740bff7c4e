"""Where the corpus and the shared tools are (used by conftest and corpus tests).

The corpus lives outside the repository (`../shared/corpus` next to the checkout, or
$RHWP_CORPUS). Locally a missing corpus skips the corpus tests; in CI (env CI set)
it is a failure, never a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

# What each synthetic bad fixture must be refused with (the README's "Errors": damage is corrupt_document,
# what is no HWP or cannot be opened unsupported_format, a bomb or absurd nesting too_large).
BAD_CODES: dict[str, set[str]] = {
    "synthetic-a-bitflip-header.hwp": {"corrupt_document"},
    "synthetic-a-deep-nesting.hwpx": {"too_large", "corrupt_document"},
    "synthetic-a-empty.hwp": {"unsupported_format", "corrupt_document"},
    "synthetic-a-hwp3-signature.hwp": {"corrupt_document"},  # an HWP 3.x signature with no body
    "synthetic-a-missing-section.hwpx": {"corrupt_document"},
    "synthetic-a-png-renamed.hwp": {"unsupported_format"},
    "synthetic-a-text-renamed.hwpx": {"unsupported_format"},
    "synthetic-a-truncated-half.hwp": {"corrupt_document"},
    "synthetic-a-truncated-header.hwp": {"corrupt_document"},
    "synthetic-a-truncated.hwpx": {"corrupt_document"},
    "synthetic-a-zip-bomb.hwpx": {"too_large", "corrupt_document"},
    "synthetic-a-zip-not-hwpx.hwpx": {"unsupported_format"},
    "hwpswift-password-normal.hwp": {"password_required"},
    # A document wrapped by Fasoo DRM (its banner, then ciphertext): refused naming the product.
    "synthetic-b-fasoo-drm.hwp": {"unsupported_format"},
}


def _shared_dir() -> Path | None:
    candidates = []
    if os.environ.get("RHWP_SHARED"):
        candidates.append(Path(os.environ["RHWP_SHARED"]))
    if os.environ.get("RHWP_CORPUS"):
        candidates.append(Path(os.environ["RHWP_CORPUS"]).parent)
    candidates += [ROOT.parent / "shared", Path("/work/shared")]
    for c in candidates:
        if (c / "corpus" / "MANIFEST.tsv").is_file():
            return c
    return None


SHARED = _shared_dir()


def require_shared() -> Path:
    if SHARED is None:
        msg = "the shared corpus is missing (set RHWP_CORPUS=/path/to/shared/corpus)"
        if os.environ.get("CI"):
            pytest.fail(msg + " — in CI a missing corpus is a failure")
        pytest.skip(msg)
    return SHARED
