"""Tool pack ``fill``: values into a copy of a form, nothing else changed.

``fill_form`` resolves each key to the places it names (click-here fields of that name, cells of
that name, or the empty cell beside a label cell), has ``rhwp_core`` write a copy of the document
with the values in, reads that copy back to check it, and hands it to the host, which keeps it
where the server's rules say (a new file beside the input or in ``--output-dir``; a ``doc:`` handle
over HTTP, with the copy itself embedded in the answer when it is small). The input is never
modified. Unless ``partial``, nothing is written while a key is unmatched or ambiguous: the answer
lists them (an ambiguous label with each candidate's address).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from rhwp_core.filling import AmbiguousKey, FilledPlace
from typing_extensions import TypedDict

from rhwp_mcp_host import FilePath, Register, ToolFailure, current_password, hookimpl, save_output


class FillFormResult(TypedDict):
    output: str | None
    """Where the filled copy is: a file path, or a doc: handle (GET /documents/<handle>; a copy up to
    256 KiB also comes in the answer's content as an embedded resource of that uri); null when
    nothing was written (dry_run, or keys unmatched or ambiguous without partial)."""
    filled: list[FilledPlace]
    unmatched: list[str]
    ambiguous: list[AmbiguousKey]
    verified: bool
    """The written bytes were read back: every value at its place, everything else as it was."""
    warnings: list[str]


Values = Annotated[
    dict[str, str | bool | list[str]],
    Field(
        description="Key -> value. A key is a click-here field's name (누름틀; every field of that name gets "
        "the value), a table cell's name, or a label written in a cell (성명, 연락처...: the empty cell to "
        "its right, else below, gets the value), or a form control's name (true/false ticks or clears a "
        "checkbox or radio button; text fills an edit box or picks a combo/list box choice). A value "
        "is text (a line feed starts a new line), a list of lines, or true/false.",
        min_length=1,
    ),
]


def fill_form(
    path: FilePath,
    values: Values,
    output: Annotated[
        str | None,
        Field(
            description="The file to write (an existing one is replaced; never the input). Default: "
            "NAME.filled.EXT beside the input (or in the server's output folder). Over HTTP leave it "
            "out: the result comes back as a doc: handle (and, up to 256 KiB, embedded in the answer as a "
            "resource)."
        ),
    ] = None,
    dry_run: Annotated[bool, Field(description="Say what would be filled, write nothing.")] = False,
    partial: Annotated[
        bool, Field(description="Write even when some keys are unmatched or ambiguous (they are left alone).")
    ] = False,
) -> FillFormResult:
    """Fill a form: write `values` into a copy of the HWPX or HWP document at `path` (the input is
    never modified) and say {output, filled, unmatched, ambiguous, verified, warnings}. `filled` lists
    each place written: key, kind (click_here, cell, label), name, address (section, paragraph,
    cells: row/col from the outer table in, block for iter_blocks), before and after. Unless
    `partial`, nothing is written while a key is unmatched or ambiguous; call get_fields to see
    the form's field and cell names. Run with dry_run=true first to see the plan.

    HWPX and HWP 5.0 take every kind of key (a field, cell or control holding an object is left
    unmatched, with a warning). HWP 3.x, HWPML, distribution and password-protected documents are
    refused (unsupported_format) with the way out: save a copy as HWPX in 한글.
    """
    from rhwp_core.filling import fill

    result = fill(path, values, password=current_password())
    plan = result.plan
    warnings = list(plan["warnings"])
    blocked = bool(plan["unmatched"] or plan["ambiguous"]) and not partial
    written: str | None = None
    if blocked:
        warnings.append(
            "nothing was written: some keys are unmatched or ambiguous (fix them, or pass partial=true "
            "to fill the others)"
        )
    elif not plan["filled"]:
        raise ToolFailure(
            "invalid_input",
            "no key names a place in this form",
            "call get_fields to see its click-here fields and named cells, or use a label written in a cell",
        )
    elif not dry_run:
        written = save_output(result.data, input_path=path, output=output, media_type=_media_type(result.data))
    return {
        "output": written,
        "filled": plan["filled"],
        "unmatched": plan["unmatched"],
        "ambiguous": plan["ambiguous"],
        "verified": result.verified,
        "warnings": warnings,
    }


HWPX_MEDIA_TYPE = "application/hwp+zip"
"""What an HWPX package says it is (its own ``mimetype`` entry)."""
HWP_MEDIA_TYPE = "application/x-hwp"
"""HWP 5.0's customary type (it has no registered one)."""


def _media_type(data: bytes) -> str:
    """The filled copy's MIME type, for a client that gets it embedded: a zip is HWPX (the only zip
    the writers make), anything else the HWP 5.0 compound file."""
    return HWPX_MEDIA_TYPE if data.startswith(b"PK\x03\x04") else HWP_MEDIA_TYPE


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(
        fill_form,
        title="Fill an HWP/HWPX form (writes a new file)",
        read_only=False,
        destructive=False,
        idempotent=False,
    )
