"""Views of the IR: Markdown (``render_markdown``) and HTML (``render_html``).

Both render from the frozen ``HwpDocument`` IR, deterministically; equations also get a
best-effort LaTeX form (``equation.to_latex``).
"""

from __future__ import annotations

from .equation import to_latex
from .html import render_html
from .markdown import render_markdown

__all__ = ["render_html", "render_markdown", "to_latex"]
