#!/usr/bin/env python3
"""Write the IR's JSON Schema to rhwp_core/schema/hwp_document.schema.json (or check it is current).

    python rhwp_core/scripts/export_schema.py          # rewrite the checked-in file
    python rhwp_core/scripts/export_schema.py --check  # exit 1 if it is out of date

The schema is generated from the Pydantic models in ``rhwp_core/ir.py`` (serialization mode:
every field the reader writes is listed as required); ``rhwp_core/tests/test_ir.py`` fails when
the checked-in copy is stale, and when it differs from ``model.rs`` field by field.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema" / "hwp_document.schema.json"


def schema_text() -> str:
    from rhwp_core.ir import document_json_schema

    return json.dumps(document_json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = schema_text()
    if argv == ["--check"]:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    SCHEMA_PATH.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
