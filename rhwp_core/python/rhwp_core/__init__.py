"""rhwp_core: read Korean HWP 5.0 and HWPX documents.

>>> import rhwp_core
>>> doc = rhwp_core.parse("report.hwp")
>>> doc.summary()["pages"], doc.extract_text()[:80]
"""

from __future__ import annotations

from . import _native
from .cache import clear_cache, load
from .comparison import Comparison, compare
from .document import Document, parse
from .errors import (
    CorruptDocumentError,
    DocumentIsADirectoryError,
    DocumentNotFoundError,
    DocumentPermissionError,
    HwpError,
    InvalidRequestError,
    PasswordRequiredError,
    TooLargeError,
    UnsupportedFormatError,
)
from .filling import FillPlan, FillResult, FillVerificationError, fill
from .media import BinDataItem, UnknownBinDataError, bin_data_names, read_bin_data, read_bin_item

__version__: str = _native.__version__
SCHEMA_VERSION: str = _native.SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "BinDataItem",
    "Comparison",
    "CorruptDocumentError",
    "Document",
    "DocumentIsADirectoryError",
    "DocumentNotFoundError",
    "DocumentPermissionError",
    "FillPlan",
    "FillResult",
    "FillVerificationError",
    "HwpError",
    "InvalidRequestError",
    "PasswordRequiredError",
    "TooLargeError",
    "UnknownBinDataError",
    "UnsupportedFormatError",
    "__version__",
    "bin_data_names",
    "clear_cache",
    "compare",
    "fill",
    "load",
    "parse",
    "read_bin_data",
    "read_bin_item",
]
