"""Type stub for the extension module built from rhwp_core/src/lib.rs."""

from os import PathLike
from typing import Any, final

__all__ = [
    "ERROR_CODES",
    "SCHEMA_VERSION",
    "IrClasses",
    "NativeDocument",
    "ReaderError",
    "__version__",
    "compare",
    "equation_latex",
    "fill",
    "parse_bytes",
    "parse_path",
    "read_bin_data",
    "render_page",
]

__version__: str
SCHEMA_VERSION: str
ERROR_CODES: tuple[tuple[str, str, str], ...]
"""The error vocabulary: ``(code, default suggestion, rhwp_core exception class name)`` a row."""

class ReaderError(Exception):
    """args = (code, message, suggestion)"""

@final
class IrClasses:
    """The IR classes by model struct name: ``{name: (class, field names in declared order)}``."""
    def __new__(cls, classes: dict[str, tuple[type[Any], tuple[str, ...]]]) -> IrClasses: ...

@final
class NativeDocument:
    @property
    def format(self) -> str: ...
    @property
    def warnings(self) -> list[str]: ...
    def extract_text(self, include_furniture: bool) -> str: ...
    def furniture_text(self) -> str: ...
    def block_texts(self, include_furniture: bool) -> list[tuple[str, int, int, str, int | None, str]]: ...
    def heading_levels(self) -> list[int | None]: ...
    def outline_headings(self) -> list[tuple[int, int, str | None]]: ...
    def to_markdown(
        self,
        include_furniture: bool,
        keep: tuple[list[int], list[int]] | None = None,
        pages: list[int] | None = None,
    ) -> tuple[str, list[int | None]]: ...
    def to_html(
        self,
        include_css: bool,
        include_furniture: bool,
        keep: tuple[list[int], list[int]] | None = None,
        pages: list[int] | None = None,
    ) -> str: ...
    def block_markdown(self, indices: list[int], pages: list[int] | None = None) -> list[str]: ...
    def block_pages(
        self,
    ) -> tuple[list[tuple[str, int | None]], list[tuple[str, str | None, int | None]]]: ...
    def block_last_pages(self) -> list[int | None]: ...
    def summary_json(self) -> str: ...
    def to_json(self) -> str: ...
    def to_ir(self, classes: IrClasses) -> Any | None: ...

def equation_latex(script: str) -> str | None:
    """한글's equation script as LaTeX (the translator behind every equation's ``latex``), or
    ``None`` when it does not translate."""

def parse_bytes(data: bytes, strict: bool = False, password: str | None = None) -> NativeDocument: ...
def parse_path(path: str, strict: bool = False, password: str | None = None) -> NativeDocument: ...
def render_page(
    source: bytes | str | PathLike[str],
    page: int,
    format: str,
    dpi: int,
    max_side: int | None,
    font_dirs: list[str],
    password: str | None = None,
) -> tuple[bytes, int]:
    """Page ``page`` (1-based) of the document ``source`` as SVG (UTF-8 bytes) or PNG, and the
    document's page count. Raises ``ReaderError`` with args ``(code, message, suggestion)``."""

def read_bin_data(
    source: bytes | str | PathLike[str], name: str, password: str | None = None
) -> tuple[bytes, str | None]:
    """The bin-data item ``name`` of the document ``source`` (its bytes, or a path) and the media type
    its first bytes show. Raises ``ReaderError`` with args ``(code, message, suggestion)``, and for a
    name the document does not hold ``("invalid_input", message, suggestion, names it holds)``."""

def fill(
    data: bytes, values: list[tuple[str, object]], password: str | None = None
) -> tuple[bytes | None, str, list[str]]:
    """Fill the form ``data`` with ``(key, value)`` pairs (value: str, bool or list of str): the filled
    document (None when nothing changes), the plan as JSON and the parts rewritten. Raises
    ``ReaderError`` (``unsupported_format`` for formats not written; ``internal_error`` for a bug)."""

def compare(
    a: NativeDocument,
    b: NativeDocument,
    source_a: bytes | None = None,
    source_b: bytes | None = None,
    password_a: str | None = None,
    password_b: str | None = None,
    scope: str = "body",
    only_a: tuple[list[int], list[int]] | None = None,
    only_b: tuple[list[int], list[int]] | None = None,
) -> str:
    """What changed from ``a`` to ``b`` as JSON (``rhwp_core.comparison.Comparison``); the sources'
    bytes, when given, compare pictures by content; ``only_*`` keep ``(body blocks, furniture
    items)`` of a page range. Runs without the GIL; raises ``ReaderError``."""
