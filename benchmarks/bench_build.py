"""Card-sheet build benchmark (issue 13 §1): `cardpress build` against the ceiling a careful
hand-written ReportLab script reaches drawing the same sheets, measured in the same run.

Run on demand (not in CI), from the repository root:

    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python benchmarks/bench_build.py          # 60 600 3000
    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python benchmarks/bench_build.py 600 10000
    ... bench_build.py 600 --fresh-fonts     # also a line with an empty font cache (~70 s)
    ... bench_build.py 600 --repeat 3        # best of 3 for the warm and baseline runs

The game (generated in a temp folder, seeded, so every run draws the same cards):
- a deck of N printed cards: N / 3 distinct cards × 3 copies; each card has its own Chinese rules
  text of realistic length from a vocabulary, with 【keywords】, ①/△ markers and :icons: (the
  icons of templates/_common/style.yaml); about 60 % of the texts need shrink-to-fit;
- 200 distinct 600 × 840 PNG artworks of ~500 KB (gradients and shapes under fine noise, like
  scanned art), shared by the cards;
- both papers (A4 and Letter), as the default `cardpress build` makes them.

Each figure is a whole process (`cardpress build ...` as a user runs it; `python baseline.py`):
wall time, CPU time of the process tree, and the peak memory of the process tree sampled every
20 ms: RSS (VmRSS of the process and its workers summed; pages a forked worker shares with its
parent count twice) and PSS (shared pages split between the processes: the memory the tree
really holds; see bench_common.py). Modes: "cold" = empty art cache, fonts
ready; "fonts" = empty cache including fonts (--fresh-fonts); "warm" = the art cache of the cold
run (cold and warm start with an empty build cache, so every card is laid out and painted);
"edit1" = the designer's loop: the build cache of the previous build kept (pipeline.buildcache)
and one card's rules text edited before each run (best of 2).

The baseline reads the same cards (JSON) and the art as pre-normalised JPEGs (300 dpi, made
before timing), registers the same two TrueType fonts, and per distinct face draws the same
elements as templates/_common/card.yaml.j2 + base-card.j2 (bleed rect, rounded panels, name line
shrunk to width, cost disc, rounded art clip, type line, stat plates, one rich paragraph fitted by
the same binary search with the per-type shared size), once per paper into a form; then the same
imposition (cells, clips, rotations, trim/bleed boxes, crop marks, mirrored backs) from
pipeline.impose's geometry, computed before timing. It does no data or glyph checks.

Targets (issue 13): warm ≤ 1.5× baseline at 600 and 3000; 600 cold ≤ 5 s; peak memory of the
tree ≤ 200 MB and flat from 600 up (both sums are printed). Issue 12: edit1 ≤ 1 s at 600.

Figures (2026-12-01, 2 cores, otherwise idle; this machine's speed drifts up to 2× within an hour,
so only ratios measured in the same run compare): 60 / 600 / 3000 / 10000 cards warm 1.43× /
1.05× / 0.85× / 0.81× the baseline's wall time (1.5–1.7× its CPU: two processes), PSS 95 / 105 /
135 / 172 MB (baseline 85 / 105 / 138 / 245 MB RSS); cold PSS 199 MB at 10000. Re-run at 600 in
a faster hour: warm 2.22 s (0.94×), cold 5.10 s with this script's sampler, 4.55–4.63 s under
/usr/bin/time (3 runs).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import Measured, machine_load, measure  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ARTWORKS = 200
COPIES = 3
SEED = 13
CARD_W, CARD_H, BLEED = 63.0, 88.0, 3.0
ART_BOX = (54.0, 34.0)  # mm, base-card.j2's art element for this card
JPEG_QUALITY = 90  # pipeline.art.JPEG_QUALITY
PRINT_DPI = 300

GAME_YAML = """\
id: bench
name: 基准测试
players: 2
card_size: {width_mm: 63, height_mm: 88}
card_types:
  unit:
    name: 单位
    fields:
      cost: {label: 费用, type: int, required: true, min: 0, max: 20}
      attack: {label: 攻击, type: int, required: true, min: 0, max: 20}
      hp: {label: 生命, type: int, required: true, min: 1, max: 20}
keywords:
%s
deck: {min_size: 1, max_size: 100000, max_copies: 3}
"""

KEYWORDS = ["入场", "离场", "突袭", "守护", "潜行", "连锁", "反击", "冲锋", "召唤", "献祭", "复苏", "护盾"]
ICONS = ["cost", "attack", "hp", "guard", "charge", "sanity", "star"]
SUBJECTS = ["本卡", "目标单位", "对方单位", "你的英雄", "每个友方单位", "随机一个敌方单位", "相邻的单位", "场上所有单位"]
VERBS = ["获得", "失去", "受到", "恢复", "抽取", "弃置", "移回手牌", "消灭", "复制", "交换"]
AMOUNTS = ["1点", "2点", "3点", "X点", "等同于其攻击力的", "1张", "2张"]
OBJECTS = ["伤害", "生命值", "攻击力", "护甲", "手牌", "能量"]
CONDITIONS = ["若你的手牌多于对方", "本回合中第一次", "当此牌被弃置时", "每当友方单位死亡时", "在你的回合结束时",
              "若场上有其他单位", "当对方打出法术牌时", "若你控制三个或更多单位"]
TAILS = ["直到回合结束", "此效果每回合只能发动一次", "然后洗切你的牌库", "不能被对方响应", "并抽1张牌"]


def rules_text(rng: random.Random, long: bool) -> str:
    """Chinese rules text from the vocabulary: short (fits at full size) or long (needs shrinking,
    but still fits at the 6 pt floor: a line break counts as ~14 characters of room)."""
    while True:
        text = _rules_text(rng, long)
        if len(text) + 14 * text.count("\n") <= 135:
            return text


def _rules_text(rng: random.Random, long: bool) -> str:
    target = rng.randint(90, 125) if long else rng.randint(30, 60)
    parts: list[str] = []
    marker = 0
    while sum(len(p) for p in parts) < target:
        bits = []
        if rng.random() < 0.35:
            bits.append("①②③"[marker % 3] + "：" if rng.random() < 0.7 else "△：")
            marker += 1
        if rng.random() < 0.4:
            bits.append(f"【{rng.choice(KEYWORDS)}】")
        if rng.random() < 0.5:
            bits.append(rng.choice(CONDITIONS) + "，")
        bits.append(rng.choice(SUBJECTS) + rng.choice(VERBS) + rng.choice(AMOUNTS) + rng.choice(OBJECTS))
        if rng.random() < 0.35:
            bits.append(f"（支付{rng.randint(1, 5)}:{rng.choice(ICONS)}:）")
        if rng.random() < 0.3:
            bits.append("，" + rng.choice(TAILS))
        bits.append("。")
        part = "".join(bits)
        if part.startswith(("①", "②", "③", "△")) and parts:
            part = "\n" + part  # a marker starts its own line, as the shipped cards write them
        parts.append(part)
    return "".join(parts)


def make_cards(n_distinct: int) -> list[dict]:
    rng = random.Random(SEED)
    cards = []
    for i in range(n_distinct):
        cards.append({
            "id": f"c{i:05d}", "name": f"{rng.choice(['暗影', '烈焰', '寒霜', '雷霆', '荒原', '深渊'])}"
                                       f"{rng.choice(['守卫', '术士', '游侠', '巨像', '信徒', '猎手'])}{i}",
            "cost": rng.randint(0, 10), "attack": rng.randint(0, 12), "hp": rng.randint(1, 12),
            "art": f"art{i % ARTWORKS:03d}.png", "text": rules_text(rng, rng.random() < 0.58),
        })
    return cards


def make_art(folder: Path) -> None:
    """200 distinct 600 × 840 PNGs of ~500 KB: gradients and shapes under fine noise (scanned art)."""
    import numpy as np
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    h, w = 840, 600
    y = np.linspace(0, 1, h)[:, None, None]
    x = np.linspace(0, 1, w)[None, :, None]
    for i in range(ARTWORKS):
        top, bottom = rng.integers(20, 235, 3), rng.integers(20, 235, 3)
        img = Image.fromarray(((top * (1 - y) + bottom * y) * (0.7 + 0.3 * x)).astype(np.uint8))
        draw = ImageDraw.Draw(img)
        for _ in range(10):
            r = int(rng.integers(30, 150))
            cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=tuple(int(v) for v in rng.integers(0, 255, 3)))
        arr = np.asarray(img, dtype=np.float32)
        arr += rng.normal(0, 0.8, (h, w, 1)) + rng.normal(0, 0.4, (h, w, 3))
        Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).save(folder / f"art{i:03d}.png")


def make_game(folder: Path, cards: list[dict], art: Path) -> Path:
    """The game folder for cardpress and its deck (every card × COPIES); returns the deck path."""
    (folder / "cards").mkdir(parents=True)
    (folder / "decks").mkdir()
    kw = "\n".join(f"  - {{term: {k}, id: k{n}, summary: 基准关键词{n}。}}" for n, k in enumerate(KEYWORDS))
    (folder / "game.yaml").write_text(GAME_YAML % kw, encoding="utf-8")
    shutil.copytree(art, folder / "art", copy_function=os.link)  # hard links: no copy, inside the folder
    lines = []
    for c in cards:
        lines.append(f"- {{id: {c['id']}, type: unit, name: {c['name']}, cost: {c['cost']}, attack: {c['attack']}, "
                     f"hp: {c['hp']}, art: {c['art']}, text: {json.dumps(c['text'], ensure_ascii=False)}}}")
    (folder / "cards" / "cards.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    deck = folder / "decks" / "bench.yaml"
    deck.write_text("name: 基准\ncards:\n" + "".join(f"  {c['id']}: {COPIES}\n" for c in cards), encoding="utf-8")
    return deck


def edit_one_card(game: Path, n: int) -> None:
    """The designer's edit: one word more in the rules text of card c00007 (a new one each time)."""
    path = game / "cards" / "cards.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("- {id: c00007,"))
    lines[k] = lines[k].replace('text: "', f'text: "第{n + 1}版：', 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def normalise_for_baseline(art: Path, out: Path) -> int:
    """Pre-normalised JPEGs for the baseline (cover fit to the art box at 300 dpi); total bytes."""
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    tw, th = (round(v / 25.4 * PRINT_DPI) for v in ART_BOX)
    total = 0
    for src in sorted(art.iterdir()):
        with Image.open(src) as img:
            img = img.convert("RGB")
            w, h = img.size
            if w / h > tw / th:
                nw = round(h * tw / th)
                img = img.crop(((w - nw) // 2, 0, (w - nw) // 2 + nw, h))
            else:
                nh = round(w * th / tw)
                img = img.crop((0, (h - nh) // 2, w, (h - nh) // 2 + nh))
            img = img.resize((tw, th), Image.LANCZOS)
            dst = out / (src.stem + ".jpg")
            img.save(dst, "JPEG", quality=JPEG_QUALITY, optimize=True)
            total += dst.stat().st_size
    return total


def layout_data() -> dict:
    """Per paper: page size, cells, crop marks, bleed (pipeline.impose geometry, as cardpress uses)."""
    sys.path.insert(0, str(REPO))
    from pipeline.impose import choose_layout, paper_size

    papers = {}
    for paper in ("a4", "letter"):
        lay = choose_layout(paper, CARD_W, CARD_H, BLEED, 5.0, None)
        cell = lambda c: [c.x, c.y, c.w, c.h, c.rotation, list(c.clip)]  # noqa: E731
        papers[paper] = {
            "size": paper_size(paper), "per": lay.per_sheet, "bleed": lay.bleed,
            "fronts": [cell(c) for c in lay.front_cells()], "backs": [cell(c) for c in lay.back_cells("long")],
            "marks": [list(m) for m in lay.crop_marks()], "describe": lay.describe(),
        }
    return papers


BASELINE = textwrap.dedent(r'''
    """A careful plain-ReportLab script drawing the benchmark's sheets (both papers)."""
    import json, re, sys
    from pathlib import Path
    from reportlab.lib.colors import HexColor
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Paragraph

    data = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)
    R, B = "CardpressSansSC", "CardpressSansSC-Bold"
    pdfmetrics.registerFont(TTFont(R, data["fonts"][0]))
    pdfmetrics.registerFont(TTFont(B, data["fonts"][1]))
    pdfmetrics.registerFontFamily(R, normal=R, bold=B, italic=R, boldItalic=B)
    W, H, BL = 63.0, 88.0, 3.0
    ACCENT, PAPER, INK = HexColor("#3a4a5c"), HexColor("#f6f1e7"), HexColor("#1e1e1e")
    WHITE, BADGE, TYPELINE = HexColor("#ffffff"), HexColor("#1b1b1b"), HexColor("#e4dccb")
    BACK, BACK_LINE = HexColor("#2d3440"), HexColor("#c9b98f")
    KW = "#8a1c1c"
    ICONS = data["icons"]

    def rich(text):
        out = text.strip().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "<br/>")
        out = re.sub(r"【([^【】]{1,12})】", lambda m: f'<font name="{B}" color="{KW}">【{m.group(1)}】</font>', out)
        out = re.sub(r":([a-z][a-z0-9_]*):",
                     lambda m: f'<font name="{B}" color="{ICONS[m.group(1)]["color"]}">{ICONS[m.group(1)]["glyph"]}</font>', out)
        return re.sub(r"(^|<br/>)([①②③④⑤⑥⑦⑧⑨⑩△]+[：:]?)", lambda m: m.group(1) + f'<font name="{B}" color="{KW}">{m.group(2)}</font>', out)

    def box(x, y, w, h):
        return x * mm, (H - y - h) * mm, w * mm, h * mm

    PX, PY, PW, PH = box(6, 55.5, 51, 20.5)  # the rules paragraph
    BASE = ParagraphStyle("card", fontName=R, fontSize=8.5, leading=8.5 * 1.3, textColor=INK,
                          alignment=TA_JUSTIFY, wordWrap="CJK", allowWidows=1, allowOrphans=1)

    def attempt(markup, size):
        p = Paragraph(markup, ParagraphStyle("fit", parent=BASE, fontSize=size, leading=size * 1.3))
        return p, p.wrap(PW, PH)[1]

    def fit(markup, max_size, min_size, step=0.25):
        lo, hi = round(min_size / step), round(max_size / step)
        p, h = attempt(markup, hi * step)
        if h <= PH + 0.01:
            return p, hi * step, h
        best = None
        while lo <= hi:
            mid = (lo + hi) // 2
            p, h = attempt(markup, mid * step)
            if h <= PH + 0.01:
                best, lo = (p, mid * step, h), mid + 1
            else:
                hi = mid - 1
        if best is None:
            raise SystemExit(f"text does not fit at {min_size} pt: {markup}")
        return best

    def text(c, s, x, y, w, h, size, min_size, bold, col, align="left"):
        x, y, w, h = box(x, y, w, h)
        font = B if bold else R
        width = stringWidth(s, font, size)
        if width > w:
            size = size * w / width
        c.saveState(); c.setFillColor(col); c.setFont(font, size)
        base = y + (h - size) / 2 + 0.14 * size
        if align == "center": c.drawCentredString(x + w / 2, base, s)
        elif align == "right": c.drawRightString(x + w, base, s)
        else: c.drawString(x, base, s)
        c.restoreState()

    def rrect(c, x, y, w, h, r, fill=None, stroke=None, sw=0.5):
        x, y, w, h = box(x, y, w, h)
        c.saveState()
        if fill is not None: c.setFillColor(fill)
        if stroke is not None: c.setStrokeColor(stroke); c.setLineWidth(sw)
        if r: c.roundRect(x, y, w, h, r * mm, stroke=int(stroke is not None), fill=int(fill is not None))
        else: c.rect(x, y, w, h, stroke=int(stroke is not None), fill=int(fill is not None))
        c.restoreState()

    pw_ = (54 - 1.5) / 2
    def face(c, card, para, ph):
        rrect(c, -BL, -BL, W + 2 * BL, H + 2 * BL, 0, fill=ACCENT)
        rrect(c, 3, 3, W - 6, H - 6, 2.2, fill=PAPER)
        rrect(c, 4.5, 4.5, W - 9, 8, 1.4, fill=ACCENT)
        text(c, card["name"], 15, 4.5, W - 21.5, 8, 11.5, 7, True, WHITE)
        c.saveState(); c.setFillColor(BADGE); c.setStrokeColor(WHITE); c.setLineWidth(1.2)
        c.circle(9 * mm, (H - 8.5) * mm, 5 * mm, stroke=1, fill=1); c.restoreState()
        cost = str(card["cost"])
        text(c, cost, 4.2, 5.2, 9.6, 6.6, 12 if len(cost) < 3 else 8, 5, True, WHITE, "center")
        x, y, w, h = box(4.5, 13.5, 54, 34)
        c.saveState(); p = c.beginPath(); p.roundRect(x, y, w, h, 1 * mm); c.clipPath(p, stroke=0, fill=0)
        c.drawImage(data["jpg"] + "/" + card["art"][:-4] + ".jpg", x, y, w, h); c.restoreState()
        rrect(c, 4.5, 48.5, W - 9, 5.6, 1, fill=TYPELINE)
        text(c, "单位", 6, 48.5, W - 12, 5.6, 7, 5, True, INK)
        para.drawOn(c, PX, PY + PH - ph)
        for k, (label, value) in enumerate((("攻击", card["attack"]), ("生命", card["hp"]))):
            px = 4.5 + k * (pw_ + 1.5)
            rrect(c, px, 77.5, pw_, 6.5, 1.2, fill=ACCENT)
            text(c, label, px + 1, 77.5, pw_ * 0.5 - 1, 6.5, 6, 4, False, WHITE)
            text(c, str(value), px + pw_ * 0.45, 77.5, pw_ * 0.55 - 1, 6.5, 10.5, 5, True, WHITE, "right")

    def back(c):
        rrect(c, -BL, -BL, W + 2 * BL, H + 2 * BL, 0, fill=BACK)
        rrect(c, 4, 4, W - 8, H - 8, 2.5, stroke=BACK_LINE, sw=1.2)
        rrect(c, 6, 6, W - 12, H - 12, 1.8, stroke=BACK_LINE, sw=0.4)
        text(c, data["game"], 8, H / 2 - 6, W - 16, 12, 16, 7, True, BACK_LINE, "center")

    cards = data["cards"]
    markups = [rich(card["text"]) for card in cards]
    # Rules text size shared per card type (as cardpress): the largest size every card fits, not below 7 pt.
    fits = [fit(m, 8.5, 6) for m in markups]
    sizes = [f[1] for f in fits]
    cap = max(min(sizes), 7.0)
    print("SHRUNK", sum(s < 8.5 for s in sizes), len(sizes), cap)
    canvases = {}
    bbox = (-BL * mm, -BL * mm, (W + BL) * mm, (H + BL) * mm)
    for paper, lay in data["papers"].items():
        c = Canvas(str(out / f"cards-{paper}.pdf"), pagesize=(lay["size"][0] * mm, lay["size"][1] * mm),
                   initialFontName=R, pageCompression=1)
        c.setTitle(f"{data['game']} — print-and-play card sheets ({paper.upper()})"); c.setAuthor("baseline")
        c.setSubject(lay["describe"])
        canvases[paper] = c
    for n, (card, markup) in enumerate(zip(cards, markups)):
        # A card fitted below the shared size keeps its own fit; the others wrap once at the shared size.
        if fits[n][1] <= cap:
            para, size, ph = fits[n]
        else:
            (para, ph), size = attempt(markup, cap), cap
        for c in canvases.values():
            c.beginForm(f"Face{n}", *bbox); face(c, card, para, ph); c.endForm()
    for c in canvases.values():
        c.beginForm("Back0", *bbox); back(c); c.endForm()

    def place(c, cell, form):
        x, y, w, h, rot, (x0, y0, x1, y1) = cell
        c.saveState(); p = c.beginPath(); p.rect(x0 * mm, y0 * mm, (x1 - x0) * mm, (y1 - y0) * mm)
        c.clipPath(p, stroke=0, fill=0)
        x, y, w, h = x * mm, y * mm, w * mm, h * mm
        if rot == 90: c.translate(x + w, y); c.rotate(90)
        elif rot == 270: c.translate(x, y + h); c.rotate(-90)
        elif rot == 180: c.translate(x + w, y + h); c.rotate(180)
        else: c.translate(x, y)
        c.doForm(form); c.restoreState()

    def boxes(c, cells, b):
        x0 = min(k[0] for k in cells); y0 = min(k[1] for k in cells)
        x1 = max(k[0] + k[2] for k in cells); y1 = max(k[1] + k[3] for k in cells)
        c.setTrimBox((x0 * mm, y0 * mm, x1 * mm, y1 * mm))
        c.setBleedBox(((x0 - b) * mm, (y0 - b) * mm, (x1 + b) * mm, (y1 + b) * mm))

    seq = data["sequence"]
    for paper, lay in data["papers"].items():
        c, per = canvases[paper], lay["per"]
        for s in range(0, len(seq), per):
            sheet = seq[s:s + per]
            boxes(c, lay["fronts"][:len(sheet)], lay["bleed"])
            for k, cell in zip(sheet, lay["fronts"]):
                place(c, cell, f"Face{k}")
            c.saveState(); c.setStrokeColorRGB(0, 0, 0); c.setLineWidth(0.3)
            for x0, y0, x1, y1 in lay["marks"]:
                c.line(x0 * mm, y0 * mm, x1 * mm, y1 * mm)
            c.restoreState(); c.showPage()
            boxes(c, lay["backs"][:len(sheet)], lay["bleed"])
            for k, cell in zip(sheet, lay["backs"]):
                place(c, cell, "Back0")
            c.showPage()
        c.save()
''')


def best(runs: list[Measured]) -> Measured:
    return min(runs, key=lambda m: m.wall)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[60, 600, 3000], help="printed cards per deck")
    ap.add_argument("--fresh-fonts", action="store_true", help="also a cold run with an empty font cache (~70 s)")
    ap.add_argument("--repeat", type=int, default=1, help="warm and baseline runs per size (best kept)")
    ap.add_argument("--keep", type=Path, help="work in this (new) folder and keep the games and PDFs")
    args = ap.parse_args()

    sys.path.insert(0, str(REPO))
    from pipeline.render.fonts import build_fonts

    fonts = build_fonts()
    fonts_dir = fonts[0].parent
    style_icons = {"cost": {"glyph": "◆", "color": "#b8860b"}, "attack": {"glyph": "▲", "color": "#a02a1a"},
                   "hp": {"glyph": "♥", "color": "#b22222"}, "guard": {"glyph": "■", "color": "#3d5a80"},
                   "charge": {"glyph": "●", "color": "#0b6e8a"}, "sanity": {"glyph": "◎", "color": "#6a4c93"},
                   "star": {"glyph": "★", "color": "#c9a227"}}  # templates/_common/style.yaml
    cardpress = str(REPO / ".venv" / "bin" / "cardpress")
    env_base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env_base["PYTHONPATH"] = str(REPO)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp_name:
        tmp = Path(tmp_name)
        if args.keep:
            tmp = args.keep.resolve()
            tmp.mkdir(parents=True)
        art, jpg = tmp / "art-src", tmp / "art-jpg"
        make_art(art)
        png_total = sum(p.stat().st_size for p in art.iterdir())
        jpg_total = normalise_for_baseline(art, jpg)
        papers = layout_data()
        print(f"art: {ARTWORKS} PNGs 600×840, {png_total / 1e6:.0f} MB ({png_total / ARTWORKS / 1e3:.0f} KB each); "
              f"baseline JPEGs {jpg_total / 1e6:.1f} MB; {machine_load()}", flush=True)
        for n in args.sizes:
            distinct = max(1, n // COPIES)
            cards = make_cards(distinct)
            game = tmp / f"game{n}"
            deck = make_game(game, cards, art)
            data = tmp / f"base{n}.json"
            data.write_text(json.dumps({
                "fonts": [str(f) for f in fonts], "jpg": str(jpg), "icons": style_icons, "game": "基准测试",
                "papers": papers, "cards": cards, "sequence": [k for k in range(distinct) for _ in range(COPIES)],
            }, ensure_ascii=False), encoding="utf-8")
            (tmp / "baseline.py").write_text(BASELINE, encoding="utf-8")
            base_cmd = [sys.executable, str(tmp / "baseline.py"), str(data), str(tmp / f"base-out{n}")]
            out = tmp / f"out{n}"
            build_cmd = [cardpress, "build", str(game), "--deck", str(deck), "--out", str(out)]
            base = best([measure(base_cmd, env_base) for _ in range(args.repeat)])
            shrunk, total, cap = base.stdout.split("SHRUNK")[1].split()[:3]
            print(f"{n} cards: {total} distinct, {int(shrunk) / int(total):.0%} of rules texts need shrinking "
                  f"(type size {cap} pt)", flush=True)
            modes = []
            if args.fresh_fonts:
                env = {**env_base, "CARDPRESS_CACHE": str(tmp / f"fcache{n}")}
                modes.append(("fonts", measure(build_cmd, env)))
            cache = tmp / f"cache{n}"
            shutil.copytree(fonts_dir, cache / "fonts" / fonts_dir.name)
            env = {**env_base, "CARDPRESS_CACHE": str(cache)}

            def no_build_cache(k: str) -> dict:  # cold and warm lay out and paint every card
                return {**env, "CARDPRESS_CACHE_BUILDS": str(tmp / f"builds{n}-{k}")}

            modes.append(("cold", measure(build_cmd, no_build_cache("cold"))))
            modes.append(("warm", best([measure(build_cmd, no_build_cache(f"warm{r}")) for r in range(args.repeat)])))
            # The designer's loop: the last build's cache kept, one card's rules text edited.
            primed = {**env, "CARDPRESS_CACHE_BUILDS": str(tmp / f"builds{n}-edit")}
            measure(build_cmd, primed)
            edits = []
            for r in range(max(args.repeat, 2)):
                edit_one_card(game, r)
                edits.append(measure(build_cmd, primed))
            modes.append(("edit1", best(edits)))
            pdf = {p: (out / f"cards-{p}.pdf").stat().st_size / 1e6 for p in ("a4", "letter")}
            base_pdf = (tmp / f"base-out{n}" / "cards-a4.pdf").stat().st_size / 1e6
            norm = sum(p.stat().st_size for p in (cache / "art").iterdir()) / 1e6
            used = min(distinct, ARTWORKS)
            for mode, m in modes:
                row = (n, mode, m, base, pdf, base_pdf, norm, used)
                rows.append(row)
                print_row(row, header=len(rows) == 1)
        print()
        targets(rows)
        print(f"({machine_load()}; baseline PDF = A4; 'art MB' = the unique normalised art cardpress embedded)")


HEADER = (f"{'cards':>6} {'mode':>5} | {'wall s':>7} {'CPU s':>7} {'RSS MB':>6} {'PSS MB':>6} | {'base s':>7} "
          f"{'CPU s':>7} {'RSS MB':>6} | {'×wall':>5} {'×CPU':>5} | {'A4 MB':>6} {'Ltr MB':>6} {'baseA4':>6} "
          f"{'art MB':>6}")


def print_row(row, header: bool) -> None:
    n, mode, m, base, pdf, base_pdf, norm, used = row
    if header:
        print(HEADER)
    print(f"{n:>6} {mode:>5} | {m.wall:>7.2f} {m.cpu:>7.2f} {m.rss_mb:>6.0f} {m.pss_mb:>6.0f} | {base.wall:>7.2f} "
          f"{base.cpu:>7.2f} "
          f"{base.rss_mb:>6.0f} | {m.wall / base.wall:>5.2f} {m.cpu / base.cpu:>5.2f} | {pdf['a4']:>6.1f} "
          f"{pdf['letter']:>6.1f} {base_pdf:>6.1f} {norm:>6.1f}", flush=True)


def targets(rows) -> None:
    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    print("targets:")
    for n, mode, m, base, *_ in rows:
        if mode == "warm" and n in (600, 3000):
            r = m.wall / base.wall
            print(f"  {n} warm ≤ 1.5× baseline: {r:.2f}× — {verdict(r <= 1.5)}")
        if mode == "cold" and n == 600:
            print(f"  600 cold ≤ 5 s: {m.wall:.2f} s — {verdict(m.wall <= 5)}")
        if mode == "edit1" and n == 600:
            cold = next(c for k, mm, c, *_ in rows if k == n and mm == "cold")
            print(f"  600 rebuild after a one-card edit ≤ 1 s (both papers, a new process): {m.wall:.2f} s "
                  f"({m.wall / cold.wall:.2f}× the cold build) — {verdict(m.wall <= 1)}")
    for name, of in (("RSS", lambda m: m.rss_mb), ("PSS", lambda m: m.pss_mb)):
        big = [(n, of(m)) for n, mode, m, *_ in rows if n >= 600]
        if big:
            peak = max(r for _, r in big)
            spread = peak - min(r for _, r in big)
            print(f"  peak {name} of the process tree ≤ 200 MB from 600 up: {peak:.0f} MB — {verdict(peak <= 200)}"
                  f" (spread {spread:.0f} MB over sizes {sorted({n for n, _ in big})} and modes)")


if __name__ == "__main__":
    main()
