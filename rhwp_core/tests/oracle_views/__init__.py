"""The test oracle for the native views: Markdown (``render_markdown``) and HTML (``render_html``)
rendered in Python from the ``HwpDocument`` IR (equations show the ``latex`` the IR carries: the
one translator is the reader's, tested in ``test_views_equation.py``).

These were the product's views before the native renderer (``rhwp_reader::views``) replaced them;
they left the package (issue 25) and live here as the second, independent implementation that
``test_views_native.py`` compares the native output with on every corpus document and fixture.
A view rule that changes is changed in both, deliberately: a difference is a bug in one of them.
"""

from __future__ import annotations

from .html import render_html
from .markdown import render_markdown

__all__ = ["render_html", "render_markdown"]
