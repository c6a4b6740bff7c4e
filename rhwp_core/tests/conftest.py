"""Test set-up for rhwp_core/tests.

1. Make ``import rhwp_core`` mean the installed package. With ``--import-mode=importlib`` (root
   pyproject) pytest names this folder's modules ``rhwp_core.tests.<name>`` and, to do so,
   registers the *source folder* ``rhwp_core/`` (the distribution, which has no ``__init__.py``)
   as a namespace package called ``rhwp_core``, shadowing the real package. The real one is put
   back before any test module imports it.
2. Make the shared helpers (``rhwp_core_test_support.py``, next to this file) importable.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

_shadow = sys.modules.get("rhwp_core")
if _shadow is not None and getattr(_shadow, "__file__", None) is None:
    del sys.modules["rhwp_core"]
    sys.modules["rhwp_core"] = importlib.import_module("rhwp_core")

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
