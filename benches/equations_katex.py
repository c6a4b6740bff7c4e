"""Equations as LaTeX over the corpus: how many equation blocks carry ``latex``, and how many of
those KaTeX reads.

    .venv/bin/python benches/equations_katex.py [--corpus ../shared/corpus] [--katex DIR]

Every equation block counts, nested ones included (table cells, text boxes, captions, notes,
page headers). ``--katex`` is a folder holding ``node_modules/katex`` (``npm install --prefix DIR
katex``); each ``latex`` is rendered with ``katex.renderToString(latex, {throwOnError: true})``
under Node (``node`` on the PATH). Prints one row per document with equations (blocks, translated,
KaTeX-parseable), the totals, and each script that does not translate or that KaTeX refuses.
Exit status 1 when fewer than 95 % of the blocks carry LaTeX KaTeX reads (issue 35's acceptance).
``tests/test_equation_latex.py`` runs the same check in the suite when Node and KaTeX are there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rhwp_core.ir import Block, Equation, HwpDocument, Picture, Shape, Table

import rhwp_core

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = Path(os.environ.get("RHWP_CORPUS", "/work/shared/corpus"))
SUFFIXES = (".hwp", ".hwpx", ".hml", ".hwpml")
TARGET = 0.95

# Reads JSON strings, one a line, on stdin; writes for each a line: `null` when KaTeX renders it,
# else the error message as a JSON string.
_CHECKER = """
const katex = require(process.argv[1]);
const lines = require('fs').readFileSync(0, 'utf8').split('\\n').filter((l) => l.length);
for (const line of lines) {
  try {
    katex.renderToString(JSON.parse(line), { throwOnError: true });
    console.log('null');
  } catch (e) {
    console.log(JSON.stringify(String(e.message)));
  }
}
"""


def equations(blocks: Sequence[Block]) -> Iterator[Equation]:
    """Every equation in ``blocks``, nested ones included."""
    for block in blocks:
        if isinstance(block, Equation):
            yield block
            yield from equations(block.caption)
        elif isinstance(block, Table):
            yield from equations(block.caption)
            for cell in block.cells:
                yield from equations(cell.blocks)
        elif isinstance(block, Shape):
            yield from equations(block.blocks)
            yield from equations(block.caption)
        elif isinstance(block, Picture):
            yield from equations(block.caption)


def document_equations(ir: HwpDocument) -> list[Equation]:
    found = [e for section in ir.sections for e in equations(section.blocks)]
    found += [e for furniture in ir.furniture for e in equations(furniture.blocks)]
    return found


def katex_module(folder: Path | None) -> Path | None:
    """The ``node_modules/katex`` folder under ``folder`` (or /tmp/katex), when Node is here too."""
    if shutil.which("node") is None:
        return None
    for base in [folder] if folder else [Path("/tmp/katex"), ROOT / "node_modules"]:
        module = base / "node_modules" / "katex"
        if (module / "package.json").is_file():
            return module
    return None


def katex_errors(latex: Sequence[str], module: Path) -> list[str | None]:
    """For each string, ``None`` when KaTeX renders it, else KaTeX's error."""
    if not latex:
        return []
    stdin = "".join(json.dumps(x) + "\n" for x in latex)
    done = subprocess.run(
        ["node", "-e", _CHECKER, str(module)], input=stdin, capture_output=True, text=True, check=True, timeout=600
    )
    errors: list[str | None] = [json.loads(line) for line in done.stdout.splitlines()]
    if len(errors) != len(latex):
        raise RuntimeError(f"the KaTeX checker answered {len(errors)} of {len(latex)}: {done.stderr[-500:]}")
    return errors


@dataclass
class Row:
    document: str
    blocks: int = 0
    translated: int = 0
    parsed: int = 0
    problems: list[str] = field(default_factory=list)


def measure(corpus: Path, module: Path) -> list[Row]:
    rows: list[Row] = []
    for path in sorted(p for p in corpus.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file()):
        relative = path.relative_to(corpus)
        if relative.parts[0] in ("bad", "encrypted"):
            continue
        try:
            ir = rhwp_core.parse(path).to_ir()
        except rhwp_core.HwpError:
            continue
        found = document_equations(ir)
        if not found:
            continue
        row = Row(str(relative), blocks=len(found))
        translated = [e for e in found if e.latex is not None]
        row.translated = len(translated)
        row.problems += [f"no LaTeX: {e.script!r}" for e in found if e.latex is None]
        for equation, error in zip(translated, katex_errors([e.latex or "" for e in translated], module), strict=True):
            if error is None:
                row.parsed += 1
            else:
                row.problems.append(f"KaTeX: {equation.script!r} -> {equation.latex!r}: {error}")
        rows.append(row)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the corpus folder (env RHWP_CORPUS)")
    parser.add_argument("--katex", type=Path, default=None, help="a folder holding node_modules/katex")
    args = parser.parse_args(argv)
    module = katex_module(args.katex)
    if module is None:
        print("needs node and katex: npm install --prefix /tmp/katex katex", file=sys.stderr)
        return 2
    rows = measure(args.corpus, module)
    if not rows:
        print(f"no document with equations under {args.corpus}", file=sys.stderr)
        return 2
    print(f"{'document':60} {'blocks':>7} {'latex':>7} {'katex':>7}")
    for row in rows:
        print(f"{row.document:60} {row.blocks:7} {row.translated:7} {row.parsed:7}")
    blocks = sum(r.blocks for r in rows)
    translated = sum(r.translated for r in rows)
    parsed = sum(r.parsed for r in rows)
    share = parsed / blocks
    print(f"{'total':60} {blocks:7} {translated:7} {parsed:7}  ({share:.1%} carry LaTeX KaTeX reads)")
    for row in rows:
        for problem in row.problems:
            print(f"  {row.document}: {problem}")
    return 0 if share >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
