"""Make ``import rhwp_core`` mean the installed package in these tests.

With ``--import-mode=importlib`` (root pyproject) pytest names this folder's modules
``rhwp_core.tests.<name>`` and, to do so, registers the *source folder* ``rhwp_core/`` (the
distribution, which has no ``__init__.py``) as a namespace package called ``rhwp_core``,
shadowing the real package. Put the real one back before any test module imports it.
"""

from __future__ import annotations

import importlib
import sys

_shadow = sys.modules.get("rhwp_core")
if _shadow is not None and getattr(_shadow, "__file__", None) is None:
    del sys.modules["rhwp_core"]
    sys.modules["rhwp_core"] = importlib.import_module("rhwp_core")

# The helpers the view tests share (rhwp_core_test_support.py) live next to this file.
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
