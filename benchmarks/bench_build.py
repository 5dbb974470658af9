"""Card-sheet build benchmark: cardpress against a plain ReportLab script drawing the same sheets.

Run on demand (not in CI):

    python benchmarks/bench_build.py            # 60, 600 and 3000 cards
    python benchmarks/bench_build.py 600        # one size

A synthetic game is generated in a temp folder: N distinct cards, each with Chinese rules text,
sharing 200 PNG artworks of 600 × 840 px. Each measurement runs in a fresh subprocess and
reports wall time and peak RSS. "cold" = empty art cache (fonts already built: they are a
one-off install step); "warm" = the cache from the cold run. The baseline is a straightforward
ReportLab script: 9 cards per A4 sheet with mirrored backs, crop marks, art drawn by filename,
name and 3 lines of Chinese rules in a Paragraph. Results print as ratios against it.

Targets (issue 2): 600 cards cold ≤ 5 s and ≤ 1.5× the baseline; peak memory ≤ 200 MB and flat
as N grows; PDF size close to the sum of the unique normalised images.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ARTWORKS = 200
RULES = "【入场】时：抽1张牌，然后弃置1张手牌。本卡攻击时，对方单位受到的伤害+2。若场上有其他单位，本卡生命值+1。"

GAME_YAML = """\
id: bench
name: 基准测试
players: 2
card_types:
  unit:
    name: 单位
    fields:
      cost: {label: 费用, type: int, required: true, min: 0, max: 20}
      attack: {label: 攻击, type: int, required: true, min: 0, max: 20}
      hp: {label: 生命, type: int, required: true, min: 1, max: 20}
deck: {min_size: 1, max_size: 10000, max_copies: 3}
"""


def make_art(folder: Path) -> None:
    """200 distinct 600 × 840 PNGs: smooth gradients and shapes, like painted art (not noise)."""
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    for i in range(ARTWORKS):
        img = Image.new("RGB", (600, 840))
        draw = ImageDraw.Draw(img)
        for y in range(0, 840, 4):
            t = y / 840
            draw.rectangle((0, y, 600, y + 4), fill=(int(40 + 180 * t), int((i * 37) % 200 + 30 * t), int(200 - 150 * t)))
        for k in range(12):
            r = 30 + (i * 13 + k * 29) % 120
            cx, cy = (i * 71 + k * 97) % 600, (i * 53 + k * 131) % 840
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=((k * 40 + i) % 255, (i * 3) % 255, (k * 90) % 255))
        img.save(folder / f"art{i:03d}.png")


def make_game(folder: Path, n: int, art: Path) -> None:
    (folder / "cards").mkdir(parents=True)
    (folder / "game.yaml").write_text(GAME_YAML, encoding="utf-8")
    shutil.copytree(art, folder / "art")
    lines = []
    for i in range(n):
        lines.append(
            f"- {{id: c{i:05d}, type: unit, name: 测试单位{i}, cost: {i % 10}, attack: {i % 7}, hp: {1 + i % 9}, "
            f"art: art{i % ARTWORKS:03d}.png, text: {json.dumps(RULES, ensure_ascii=False)}}}"
        )
    (folder / "cards" / "cards.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


BASELINE = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from reportlab.lib.units import mm
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Paragraph
    from pipeline.fonts import register_fonts
    fonts = register_fonts()
    game, n, out = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rules = sys.argv[4]
    style = ParagraphStyle("r", fontName=fonts.regular, fontSize=8, leading=10.5, wordWrap="CJK")
    c = Canvas(out, pagesize=(210 * mm, 297 * mm), initialFontName=fonts.regular)
    W, H, B = 63 * mm, 88 * mm, 3 * mm
    ox, oy = (210 * mm - 3 * W) / 2, (297 * mm - 3 * H) / 2
    cells = [(ox + col * W, oy + (2 - row) * H) for row in range(3) for col in range(3)]
    for start in range(0, n, 9):
        batch = range(start, min(start + 9, n))
        for i, (x, y) in zip(batch, cells):
            c.saveState()
            p = c.beginPath(); p.rect(x - B, y - B, W + 2 * B, H + 2 * B); c.clipPath(p, stroke=0, fill=0)
            c.setFillColorRGB(0.2, 0.25, 0.3); c.rect(x - B, y - B, W + 2 * B, H + 2 * B, stroke=0, fill=1)
            c.drawImage(str(game / "art" / f"art{i % 200:03d}.png"), x + 4.5 * mm, y + 40 * mm, 54 * mm, 34 * mm)
            c.setFillColorRGB(1, 1, 1); c.setFont(fonts.bold, 11); c.drawString(x + 6 * mm, y + 79 * mm, f"测试单位{i}")
            para = Paragraph(rules, style); para.wrap(51 * mm, 30 * mm); para.drawOn(c, x + 6 * mm, y + 12 * mm)
            c.restoreState()
        c.setLineWidth(0.3)
        for k in range(4):
            c.line(ox + k * W, oy + 3 * H + B + 1, ox + k * W, oy + 3 * H + B + 12)
            c.line(ox - B - 1, oy + k * H, ox - B - 8, oy + k * H)
        c.showPage()
        for i, (x, y) in zip(batch, cells):
            c.setFillColorRGB(0.3, 0.2, 0.2); c.rect(210 * mm - x - W, y, W, H, stroke=0, fill=1)
        c.showPage()
    c.save()
''')

PIPELINE = textwrap.dedent('''
    import sys
    from pathlib import Path
    from pipeline.build import BuildOptions, build_sheets
    build_sheets(sys.argv[1], BuildOptions(papers=("a4",), out_dir=Path(sys.argv[3])))
''')

MEASURE = textwrap.dedent('''
    import resource, runpy, sys, time
    script = sys.argv[1]; sys.argv = sys.argv[1:]
    t = time.perf_counter()
    exec(compile(open(script).read(), script, "exec"), {"__name__": "__main__"})
    wall = time.perf_counter() - t
    print("RESULT", wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
''')


def run(script: Path, measure: Path, args: list[str], env: dict) -> tuple[float, float]:
    proc = subprocess.run([sys.executable, str(measure), str(script), *args], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    _, wall, rss = proc.stdout.strip().splitlines()[-1].split()
    return float(wall), float(rss)


def main(sizes: list[int]) -> None:
    from pipeline.fonts import build_fonts

    fonts_dir = build_fonts()[0].parent
    repo = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        art = tmp / "art-src"
        make_art(art)
        measure, baseline, pipeline = tmp / "measure.py", tmp / "baseline.py", tmp / "pipeline_run.py"
        measure.write_text(MEASURE)
        baseline.write_text(BASELINE)
        pipeline.write_text(PIPELINE)
        png_total = sum(p.stat().st_size for p in art.iterdir())
        print(f"{'cards':>6} {'baseline s':>10} {'cold s':>8} {'×base':>6} {'warm s':>8} {'×base':>6} "
              f"{'base MB':>8} {'peak MB':>8} {'base PDF':>8} {'PDF MB':>7} {'art MB':>7}")
        for n in sizes:
            game = tmp / f"game{n}"
            make_game(game, n, art)
            cache = tmp / f"cache{n}"
            shutil.copytree(fonts_dir, cache / "fonts" / fonts_dir.name)
            env = {**os.environ, "CARDPRESS_CACHE": str(cache), "PYTHONPATH": str(repo)}
            base_t, base_m = run(baseline, measure, [str(game), str(n), str(tmp / f"base{n}.pdf"), RULES], env)
            cold_t, cold_m = run(pipeline, measure, [str(game), str(n), str(tmp / f"out{n}")], env)
            warm_t, warm_m = run(pipeline, measure, [str(game), str(n), str(tmp / f"out{n}")], env)
            pdf = (tmp / f"out{n}" / "cards-a4.pdf").stat().st_size / 1e6
            base_pdf = (tmp / f"base{n}.pdf").stat().st_size / 1e6
            norm = sum(p.stat().st_size for p in (cache / "art").iterdir()) / 1e6
            print(f"{n:>6} {base_t:>10.2f} {cold_t:>8.2f} {cold_t / base_t:>6.2f} {warm_t:>8.2f} {warm_t / base_t:>6.2f} "
                  f"{base_m:>8.0f} {max(cold_m, warm_m):>8.0f} {base_pdf:>8.1f} {pdf:>7.1f} {norm:>7.1f}")
        print(f"(art sources: {ARTWORKS} PNGs, {png_total / 1e6:.1f} MB; 'art MB' = normalised cache actually embedded)")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [60, 600, 3000])
