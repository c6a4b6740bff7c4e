"""Page 1 as we draw it against the preview 한글 saved in the document (HWP 5.0 `PrvImage`, HWPX
`Preview/PrvImage.png`): a structural-similarity score (SSIM, grey levels, 8×8 windows) per document.

    .venv/bin/python benches/preview_bench.py [--corpus ../shared/corpus] [--json] [--worst 10]

The preview is small (a thumbnail, often 177×250 or so) and drawn with 한글's own fonts; ours is
rendered at that size with the render pack's fonts. SSIM near 1 means the same page structure (text
blocks, tables, pictures where 한글 put them); below ~0.5 something is missing or misplaced. HWP 5.0
previews are read with the reader's own compound-file layer (`cargo run --example preview`).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "target" / "release" / "examples" / "preview"


def _preview(path: Path) -> bytes | None:
    if path.suffix.lower() == ".hwpx":
        try:
            with zipfile.ZipFile(path) as z:
                return z.read("Preview/PrvImage.png")
        except (KeyError, zipfile.BadZipFile):
            return None
    with tempfile.NamedTemporaryFile() as out:
        done = subprocess.run([str(EXAMPLE), str(path), out.name], capture_output=True, check=False)
        return Path(out.name).read_bytes() if done.returncode == 0 else None


def _grey(image: Image.Image, size: tuple[int, int]) -> list[float]:
    flat = Image.new("RGB", image.size, "white")
    rgba = image.convert("RGBA")
    flat.paste(rgba, mask=rgba.getchannel("A"))
    return [float(v) for v in flat.convert("L").resize(size, Image.Resampling.BOX).tobytes()]


def ssim(a: list[float], b: list[float], width: int, height: int, window: int = 8) -> float:
    """Mean SSIM over non-overlapping windows (the usual constants for 8-bit grey)."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    scores = []
    for y0 in range(0, height - window + 1, window):
        for x0 in range(0, width - window + 1, window):
            xs = [a[(y0 + y) * width + x0 + x] for y in range(window) for x in range(window)]
            ys = [b[(y0 + y) * width + x0 + x] for y in range(window) for x in range(window)]
            n = len(xs)
            mx, my = sum(xs) / n, sum(ys) / n
            vx = sum((v - mx) ** 2 for v in xs) / n
            vy = sum((v - my) ** 2 for v in ys) / n
            cov = sum((p - mx) * (q - my) for p, q in zip(xs, ys, strict=True)) / n
            scores.append(((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2)))
    return sum(scores) / len(scores) if scores else 0.0


def main(argv: list[str] | None = None) -> int:
    import rhwp_core
    import rhwp_mcp_tools_render

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worst", type=int, default=10)
    args = parser.parse_args(argv)
    if not EXAMPLE.exists():
        subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "preview"], cwd=ROOT, check=True)
    fonts = rhwp_mcp_tools_render.font_dirs()
    rows = []
    for path in sorted([*args.corpus.glob("hwp/*.hwp"), *args.corpus.glob("hwpx/*.hwpx")]):
        data = _preview(path)
        if data is None:
            rows.append({"document": path.name, "ssim": None, "why": "no preview stored"})
            continue
        try:
            preview = Image.open(io.BytesIO(data))
            preview.load()
            png = rhwp_core.parse(path).render_page(1, format="png", max_side=max(preview.size) * 2, font_dirs=fonts)
        except Exception as exc:  # a document we do not draw is reported, not skipped silently
            rows.append({"document": path.name, "ssim": None, "why": f"{type(exc).__name__}: {exc}"[:160]})
            continue
        ours = Image.open(io.BytesIO(png))
        size = preview.size
        score = ssim(_grey(preview, size), _grey(ours, size), *size)
        rows.append({"document": path.name, "ssim": round(score, 4), "preview": f"{size[0]}x{size[1]}"})
    scored = sorted((r for r in rows if r["ssim"] is not None), key=lambda r: r["ssim"])
    if args.json:
        json.dump({"documents": rows}, sys.stdout, ensure_ascii=False, indent=2)
        return 0
    for r in rows:
        print(f"{r['ssim'] if r['ssim'] is not None else '-':>8}  {r['document']}  {r.get('why', '')}")
    if scored:
        values = [r["ssim"] for r in scored]
        median = values[len(values) // 2]
        print(f"\n{len(scored)} documents scored, {len(rows) - len(scored)} not; median SSIM {median:.3f}")
        print(f"worst {args.worst}:", ", ".join(f"{r['document']} {r['ssim']}" for r in scored[: args.worst]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
