"""The Pydantic IR: parity with model.rs (field by field, through the checked-in schema), the tagged
block union, iter_blocks, the checked-in schema."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from rhwp_core.ir import (
    Equation,
    HwpDocument,
    Paragraph,
    Picture,
    Section,
    Shape,
    Table,
    TableCell,
    Unknown,
    iter_blocks,
)

from rhwp_core import ir

HERE = Path(__file__).resolve().parent
CORE = HERE.parent
MODEL_RS = CORE / "reader" / "src" / "model.rs"
SHOWCASE = HERE / "ir" / "showcase.json"


def showcase() -> HwpDocument:
    return HwpDocument.model_validate_json(SHOWCASE.read_text(encoding="utf-8"))


# -- parity with model.rs ---------------------------------------------------------------------------


def rust_structs() -> dict[str, list[tuple[str, str]]]:
    """Struct name -> its `pub` fields as (name, Rust type), in order, from model.rs."""
    source = MODEL_RS.read_text(encoding="utf-8")
    structs: dict[str, list[tuple[str, str]]] = {}
    for match in re.finditer(r"pub struct (\w+) \{(.*?)\n\}", source, re.S):
        fields = structs[match.group(1)] = []
        for name, rest in re.findall(r"^\s*pub (\w+):(.*)$", match.group(2), re.M):
            rust_type = re.fullmatch(r"\s*(.+),\s*", rest)
            assert rust_type is not None, f"{match.group(1)}.{name}: this test reads a field's type from its line"
            fields.append((name, rust_type.group(1)))
    return structs


def test_every_model_rs_struct_has_a_model_with_the_same_fields_in_order() -> None:
    structs = rust_structs()
    assert "Paragraph" in structs and "Document" in structs
    block_models = {Paragraph, Table, Picture, Equation, Shape, ir.FormControl, Unknown}
    for rust_name, rust_fields in structs.items():
        model = ir.MODEL_CLASSES[rust_name]
        assert getattr(ir, model.__name__) is model
        # Blocks get their `kind` tag from serde's `#[serde(tag = "kind")]`, not from a Rust field.
        python_fields = [name for name in model.model_fields if not (model in block_models and name == "kind")]
        assert python_fields == [name for name, _ in rust_fields], rust_name


def rust_unit_enums() -> dict[str, list[str]]:
    """Enum name -> its variants as serde writes them (`rename_all` applied), from model.rs."""
    source = MODEL_RS.read_text(encoding="utf-8")
    enums: dict[str, list[str]] = {}
    for match in re.finditer(r'#\[serde\(rename_all = "(\w+)"\)\]\s*pub enum (\w+) \{(.*?)\}', source, re.S):
        rename, name, body = match.groups()
        variants = re.findall(r"^\s*(\w+),", body, re.M)
        assert rename in ("lowercase", "snake_case"), rename
        enums[name] = [v.lower() if rename == "lowercase" else _snake(v) for v in variants]
    return enums


def rust_block_variants() -> list[tuple[str, str]]:
    """`Block`'s variants as (variant, the struct it holds), in order, from model.rs."""
    enum = re.search(r"pub enum Block \{(.*?)\}", MODEL_RS.read_text(encoding="utf-8"), re.S)
    assert enum is not None
    return re.findall(r"^\s*(\w+)\((\w+)\),", enum.group(1), re.M)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


_INTEGER_BITS = {"u8": 8, "u16": 16, "u32": 32, "u64": 64}


def _serialised_as(rust: str, node: dict[str, Any], enums: dict[str, list[str]]) -> bool:
    """Whether the JSON Schema `node` describes what serde writes for a value of Rust type `rust`."""
    generic = re.fullmatch(r"(\w+)<(.+)>", rust)
    if generic is not None:
        outer, inner = generic.groups()
        if outer == "Option":
            options = node.get("anyOf", [])
            return len(options) == 2 and options[1] == {"type": "null"} and _serialised_as(inner, options[0], enums)
        if outer == "Vec":
            return node.get("type") == "array" and _serialised_as(inner, node["items"], enums)
        if outer == "Deferred":  # serialised as the value it defers
            return _serialised_as(inner, node, enums)
        return False
    if rust in ("String", "&'static str"):
        return node.get("type") == "string"
    if rust == "bool":
        return node.get("type") == "boolean"
    if rust in _INTEGER_BITS:
        bound = 2 ** _INTEGER_BITS[rust] - 1
        return node.get("type") == "integer" and node.get("minimum") == 0 and node.get("maximum", bound) == bound
    if rust == "Block":  # serde's internally tagged enum: the variant's struct, tagged `kind`
        refs = {
            _snake(variant): f"#/$defs/{ir.MODEL_CLASSES[struct].__name__}" for variant, struct in rust_block_variants()
        }
        return node.get("oneOf") == [{"$ref": ref} for ref in refs.values()] and node.get("discriminator") == {
            "mapping": refs,
            "propertyName": "kind",
        }
    if rust in enums:
        return node.get("type") == "string" and node.get("enum") == enums[rust]
    return rust in ir.MODEL_CLASSES and node.get("$ref") == f"#/$defs/{ir.MODEL_CLASSES[rust].__name__}"


def test_the_schema_types_every_field_as_model_rs_serialises_it() -> None:
    """Field by field, the checked-in schema (made from these models) says what model.rs writes:
    the same fields, all required, each of the type serde writes for its Rust type (nullable
    exactly when the Rust field is an `Option`, integer bounds of its width, the enum's values),
    whether or not a document exercising the field is at hand."""
    schema = json.loads((CORE / "schema" / "hwp_document.schema.json").read_text(encoding="utf-8"))
    enums = rust_unit_enums()
    assert "Format" in enums
    wrong = []
    for rust_name, fields in rust_structs().items():
        python_name = ir.MODEL_CLASSES[rust_name].__name__
        definition = schema if python_name == "HwpDocument" else schema["$defs"][python_name]
        properties = dict(definition["properties"])
        if "kind" in properties and properties["kind"].get("const") == _snake(rust_name):
            del properties["kind"]  # a block's tag, written by serde's `tag = "kind"`
        assert list(properties) == [name for name, _ in fields], rust_name
        assert set(definition["required"]) == set(definition["properties"]), rust_name
        wrong += [
            f"{rust_name}.{name}: {rust} vs {properties[name]}"
            for name, rust in fields
            if not _serialised_as(rust, properties[name], enums)
        ]
    assert not wrong, "\n".join(wrong)


def test_block_variants_and_schema_version_match_model_rs() -> None:
    assert [_snake(variant) for variant, _ in rust_block_variants()] == list(ir.BLOCK_KINDS)
    source = MODEL_RS.read_text(encoding="utf-8")
    version = re.search(r'pub const SCHEMA_VERSION: &str = "([^"]+)"', source)
    assert version is not None and version.group(1) == ir.SCHEMA_VERSION


def test_showcase_round_trips_to_the_same_json() -> None:
    raw = json.loads(SHOWCASE.read_text(encoding="utf-8"))
    doc = showcase()
    assert json.loads(doc.model_dump_json()) == raw
    assert HwpDocument.model_validate_json(doc.model_dump_json()) == doc


# -- the tagged union -------------------------------------------------------------------------------


def test_blocks_are_routed_by_kind() -> None:
    blocks = showcase().sections[0].blocks
    kinds = [(type(b).__name__, b.kind) for b in blocks]
    assert ("Table", "table") in kinds and ("Picture", "picture") in kinds
    assert ("Equation", "equation") in kinds and ("Shape", "shape") in kinds
    assert ("Unknown", "unknown") in kinds
    for block in blocks:
        assert _snake(type(block).__name__) == block.kind


def test_a_kind_from_a_newer_reader_becomes_an_unknown_block() -> None:
    data: dict[str, Any] = {
        "format": "hwpx",
        "sections": [
            {
                "blocks": [
                    {
                        "kind": "chart",
                        "title": "매출",
                        "text": "차트 제목",
                        "provenance": {"section": 0, "paragraph": 3},
                    },
                    {"kind": "paragraph", "text": "뒤", "new_field_from_the_future": 1},
                    {"kind": 7},
                ]
            }
        ],
    }
    doc = HwpDocument.model_validate_json(json.dumps(data))
    chart, paragraph, odd = doc.sections[0].blocks
    assert isinstance(chart, Unknown) and chart.object == "chart" and chart.text == "차트 제목"
    assert chart.provenance.paragraph == 3
    assert isinstance(paragraph, Paragraph) and paragraph.text == "뒤"
    assert isinstance(odd, Unknown) and odd.object == "unknown"


def test_invalid_known_blocks_are_still_rejected() -> None:
    with pytest.raises(ValidationError):
        HwpDocument.model_validate({"format": "hwp", "sections": [{"blocks": [{"kind": "table", "rows": -1}]}]})
    with pytest.raises(ValidationError):
        HwpDocument.model_validate({"format": "doc"})


def test_models_are_frozen() -> None:
    doc = showcase()
    with pytest.raises(ValidationError):
        doc.format = "hwpx"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        doc.sections[0].blocks[0].text = "x"  # type: ignore[union-attr]


def test_deep_nesting_validates() -> None:
    # Deeper than the 200 JSON levels pydantic-core's parser accepts (4 per nested table).
    block: dict[str, Any] = {"kind": "paragraph", "text": "바닥"}
    for _ in range(64):
        block = {"kind": "table", "rows": 1, "cols": 1, "cells": [{"row": 0, "col": 0, "blocks": [block]}]}
    doc = HwpDocument.model_validate_json(json.dumps({"format": "hwp", "sections": [{"blocks": [block]}]}))
    assert len(list(iter_blocks(doc, kind="table"))) == 64
    assert [b.text for b in iter_blocks(doc, kind="paragraph") if isinstance(b, Paragraph)] == ["바닥"]


# -- iter_blocks ------------------------------------------------------------------------------------


def texts(blocks: Any) -> list[str]:
    return [b.text for b in blocks if isinstance(b, Paragraph)]


def test_top_level_blocks_in_reading_order() -> None:
    doc = showcase()
    top = list(iter_blocks(doc))
    assert top == list(doc.sections[0].blocks)
    assert [type(b) for b in top[6:11]] == [Table, Table, Picture, Equation, Shape]


def test_kind_reaches_nested_blocks_in_reading_order() -> None:
    doc = showcase()
    tables = list(iter_blocks(doc, kind="table"))
    # simple table, merged table, the table nested in its cell, the table inside the text box
    assert [(t.rows, t.cols) for t in tables if isinstance(t, Table)] == [(2, 2), (3, 3), (1, 2), (1, 1)]
    paragraphs = texts(iter_blocks(doc, kind="paragraph"))
    # caption first, then cells in order, nested cells in place, then the picture caption, the box
    start = paragraphs.index("표 1. 단순한 표")
    assert paragraphs[start : start + 4] == ["표 1. 단순한 표", "구분", "값 | 단위", "길이"]
    assert paragraphs.index("안쪽 표") < paragraphs.index("여러 줄\n둘째 줄") < paragraphs.index("그림 1. 로고")
    assert paragraphs.index("글상자 안의 글") < paragraphs.index("상자 속 표")
    assert "각주 내용입니다." not in paragraphs
    assert [b.script for b in iter_blocks(doc, kind="equation") if isinstance(b, Equation)] == [
        "x = {-b +- sqrt {b^2 - 4ac}} over {2a}"
    ]


def test_scopes() -> None:
    doc = showcase()
    furniture = texts(iter_blocks(doc, scope="furniture"))
    assert furniture == [
        "머리말 텍스트",
        "꼬리말 텍스트",
        "각주 내용입니다.",
        "미주 내용입니다.",
        "주민등록상 이름인지 확인",
    ]
    everything = list(iter_blocks(doc, scope="all"))
    assert everything == list(iter_blocks(doc)) + list(iter_blocks(doc, scope="furniture"))
    assert texts(iter_blocks(doc, kind="paragraph", scope="all"))[-1] == "주민등록상 이름인지 확인"


def test_bad_kind_or_scope_is_an_error() -> None:
    doc = showcase()
    with pytest.raises(ValueError, match="kind"):
        iter_blocks(doc, kind="tables")
    with pytest.raises(ValueError, match="scope"):
        iter_blocks(doc, scope="everything")


def test_hand_built_documents_use_defaults() -> None:
    cell = TableCell(row=0, col=0, blocks=[Paragraph(text="a")])
    doc = HwpDocument(format="hwp", sections=[Section(blocks=[Table(rows=1, cols=1, cells=[cell])])])
    assert doc.schema_version == ir.SCHEMA_VERSION
    assert json.loads(doc.model_dump_json())["sections"][0]["blocks"][0]["kind"] == "table"
    assert isinstance(Shape(shape_kind="container").blocks, list)


# -- the checked-in schema --------------------------------------------------------------------------


def test_checked_in_schema_is_current() -> None:
    spec = importlib.util.spec_from_file_location("export_schema", CORE / "scripts" / "export_schema.py")
    assert spec is not None and spec.loader is not None
    export_schema = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export_schema)
    checked_in = (CORE / "schema" / "hwp_document.schema.json").read_text(encoding="utf-8")
    assert checked_in == export_schema.schema_text(), "run: python rhwp_core/scripts/export_schema.py"


def test_schema_describes_the_tagged_union_and_requires_every_field() -> None:
    schema = ir.document_json_schema()
    paragraph = schema["$defs"]["Paragraph"]
    assert paragraph["description"].startswith("A paragraph")
    assert set(paragraph["required"]) == set(paragraph["properties"])
    blocks = schema["$defs"]["Section"]["properties"]["blocks"]["items"]
    assert blocks["discriminator"]["propertyName"] == "kind"
    assert set(blocks["discriminator"]["mapping"]) == set(ir.BLOCK_KINDS)


def test_ir_written_by_a_1_0_reader_still_reads() -> None:
    """Schema 1.1 only added fields: JSON a 1.0 reader wrote validates, the new fields at their defaults."""
    old = HwpDocument.model_validate_json((HERE / "ir" / "showcase-1.0.json").read_text(encoding="utf-8"))
    assert old.schema_version == "1.0"
    paragraphs = list(iter_blocks(old, kind="paragraph", scope="all"))
    assert paragraphs and all(p.fields == [] for p in paragraphs if isinstance(p, Paragraph))
    assert all(f.author is None and f.anchor_text is None for f in old.furniture)


def test_showcase_holds_every_1_1_addition() -> None:
    doc = showcase()
    paragraphs = [p for p in iter_blocks(doc, kind="paragraph") if isinstance(p, Paragraph)]
    fields = [f for p in paragraphs for f in p.fields]
    assert {f.value for f in fields if f.kind == "click_here"} == {"홍길동", ""}
    filled = next(p for p in paragraphs if p.fields)
    for f in filled.fields:
        shown = filled.text[f.start : f.end]
        assert shown == (f.value or f"[{f.name}: {f.guide}]")
    # The deleted run is in the runs, not in the text.
    deleted = [r for r in filled.runs if r.change is not None and r.change.kind == "deleted"]
    assert deleted and deleted[0].text not in filled.text
    assert "".join(r.text for r in filled.runs if r not in deleted) == filled.text
    controls = list(iter_blocks(doc, kind="form_control"))
    assert [c.control for c in controls if isinstance(c, ir.FormControl)] == ["checkbox", "combo_box"]
    assert [f.kind for f in doc.furniture][-1] == "memo"
    cells = [c for t in iter_blocks(doc, kind="table") if isinstance(t, Table) for c in t.cells]
    assert any(c.field_name == "신청금액" for c in cells)
