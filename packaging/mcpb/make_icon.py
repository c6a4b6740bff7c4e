"""Draw the bundle's icon (icon.png, 512×512): a page with a folded corner and lines of text on a
blue tile. Geometry only, so no font (with or without Hangul) is needed to redraw it.

    python packaging/mcpb/make_icon.py   # rewrites packaging/mcpb/icon.png (needs Pillow)
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

SIZE = 512
SCALE = 4  # drawn large, then shrunk: smooth edges without an anti-aliasing primitive
BLUE = (31, 94, 185, 255)
PAGE = (255, 255, 255, 255)
FOLD = (196, 214, 240, 255)
INK = (31, 94, 185, 255)
ACCENT = (232, 76, 61, 255)


def draw() -> Image.Image:
    s = SIZE * SCALE
    image = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    pen.rounded_rectangle((0, 0, s - 1, s - 1), radius=s // 6, fill=BLUE)
    left, top, right, bottom = s * 0.24, s * 0.14, s * 0.76, s * 0.86
    fold = s * 0.14
    pen.polygon([(left, top), (right - fold, top), (right, top + fold), (right, bottom), (left, bottom)], fill=PAGE)
    pen.polygon([(right - fold, top), (right - fold, top + fold), (right, top + fold)], fill=FOLD)
    # A heading, then body lines of varying length, like a Korean form's first page.
    line = s * 0.035
    pen.rounded_rectangle(
        (left + s * 0.06, top + s * 0.16, left + s * 0.30, top + s * 0.16 + line * 1.4), radius=line, fill=ACCENT
    )
    for i, width in enumerate((0.40, 0.34, 0.40, 0.26, 0.38, 0.30)):
        y = top + s * 0.28 + i * s * 0.075
        pen.rounded_rectangle((left + s * 0.06, y, left + s * (0.06 + width), y + line), radius=line / 2, fill=INK)
    return image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


if __name__ == "__main__":
    target = Path(__file__).with_name("icon.png")
    draw().save(target, optimize=True)
    print(target)
