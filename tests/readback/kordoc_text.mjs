// Reads one HWPX or HWP 5.0 file with kordoc (npm `kordoc`, MIT) and prints what it found as JSON:
// `lines`, every paragraph's and every table cell's text in kordoc's reading order (a cell's
// paragraphs one line each, nested tables walked), and `fields`, kordoc's click-here fields
// (HWPX only: kordoc lists them for HWPX). Empty paragraphs and empty trailing columns are kept,
// so a blank and its filled copy line up. Usage: node kordoc_text.mjs KORDOC_INDEX_JS FILE
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [, , kordocIndex, file] = process.argv;
const kordoc = await import(pathToFileURL(kordocIndex).href);
const bytes = readFileSync(file);
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

const lines = [];
function text(value) {
  if (typeof value === "string") for (const line of value.split("\n")) lines.push(line);
}
function walk(blocks) {
  for (const block of blocks ?? []) {
    if (block.table) table(block.table);
    else text(block.text);
    walk(block.children);
  }
}
function table(t) {
  if (t.captionBlocks) walk(t.captionBlocks);
  else text(t.caption);
  for (const row of t.cells) {
    for (const cell of row) {
      if (cell.blocks) walk(cell.blocks);
      else text(cell.text);
    }
  }
}

const parsed = await kordoc.parse(buffer, { keepEmptyParagraphs: true, keepTrailingEmptyCols: true });
if (!parsed.success) {
  process.stderr.write(`kordoc: ${parsed.error ?? "parse failed"}\n`);
  process.exit(2);
}
walk(parsed.blocks);
const fields = parsed.fileType === "hwpx" ? await kordoc.extractClickHereFields(buffer) : [];
process.stdout.write(JSON.stringify({ format: parsed.fileType, lines, fields }));
