"""The error codes a client can see, held equal across the two packages that name them.

Who owns what:

- ``rhwp_core`` owns the codes about documents and opening them, in one table in the Rust reader
  (``rhwp_reader::error::VOCABULARY``, exported as ``rhwp_core._native.ERROR_CODES``): each
  code with its default suggestion and the ``rhwp_core`` exception class that carries it
  (unsupported_format, password_required, corrupt_document, too_large, invalid_input,
  file_not_found, permission_denied).
- The host owns the list every tool speaks, ``rhwp_mcp_host.plugin.errors.ErrorCode`` (a ``Literal``;
  ``ERROR_CODES`` is derived from it), and the one code only it gives: ``internal_error``, an
  exception that carries no code of its own, which is a bug. The host is domain-agnostic and never
  imports ``rhwp_core``, so it cannot read the table: it names the codes itself, because it also
  raises file_not_found, permission_denied, invalid_input and too_large on its own (document
  sources, the path policy, argument validation, response caps) and maps plain ``OSError`` s with
  its own domain-free suggestions.

So the host's codes are the table's codes plus ``internal_error``, exactly; this test holds that,
and that the host's named constants are the ``Literal``'s members.
"""

from __future__ import annotations

from typing import get_args

from rhwp_mcp_host.plugin import errors as host_errors

import rhwp_mcp_host
from rhwp_core import _native

HOST_ONLY = {"internal_error"}


def test_the_hosts_codes_are_the_tables_plus_its_own() -> None:
    table = {code for code, _, _ in _native.ERROR_CODES}
    host = set(get_args(host_errors.ErrorCode))
    assert not table & HOST_ONLY
    assert host == table | HOST_ONLY


def test_the_hosts_tuple_and_constants_are_its_literal() -> None:
    assert host_errors.ERROR_CODES == get_args(host_errors.ErrorCode)
    assert rhwp_mcp_host.ERROR_CODES is host_errors.ERROR_CODES
    constants = {
        value
        for name, value in vars(host_errors).items()
        if name.isupper() and not name.startswith("_") and isinstance(value, str)
    }
    assert constants == set(host_errors.ERROR_CODES)
