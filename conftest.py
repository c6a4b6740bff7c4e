"""Shared fixtures for every package's tests (paths: tests/corpus_support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_support import FIXTURES, require_shared


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return require_shared()


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpus"


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES
