"""`cardpress images` benchmark: wall, CPU and peak RSS of the whole process tree.

Run on demand (not in CI):

    python benchmarks/bench_images.py                 # 600 cards, 1 and 2 worker processes
    python benchmarks/bench_images.py 60 600 3000     # several sizes
    python benchmarks/bench_images.py 600 --before OLD_IMAGES_PY   # also time an older images.py

The game is bench_build's (issue 2) synthetic one (N distinct cards with Chinese rules text and 200 shared
artworks), so every card is a distinct 300 dpi render (the worst case: no copies to share). Each
measurement runs in a fresh subprocess; this script samples the RSS of that process and all its
children every 10 ms from /proc and reports the peak of their sum (shared pages counted in each
process, so the figure errs high), plus user+system CPU of the tree. "images" is the time of
``write_images`` alone (``prepare`` excluded); art is normalised in a warm-up run first.

Targets (issue 13): peak RSS ≤ 300 MB at any deck size, ≤ 20 ms per card at 600 cards on 2 cores.
With --before, the older module's per-card PNGs are pixel-compared against the new ones.

Measured (600 cards, 2 cores shared with other jobs, load 2-3; images = write_images only):
before (all renders kept, Pillow PNG) 39.4 s, 2841 MB; 1 worker 33.5-35.7 s, 234 MB;
2 workers 18.7 s (31 ms/card), 243 MB for the whole tree: 1.79x over 1 worker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

# The synthetic game of bench_build (as of issue 2), kept here so the two benchmarks can change apart.
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

RUN = textwrap.dedent('''
    # the guard: the spawned workers import this script as their __main__ module
    if __name__ == "__main__":
        import importlib.util, json, resource, sys, time
        from pathlib import Path
        game, out, which = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
        t0 = time.perf_counter()
        from pipeline.build import prepare
        if which.startswith("file:"):
            spec = importlib.util.spec_from_file_location("pipeline._images_before", which[5:])
            mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)
            write = lambda prep: mod.write_images(prep, out, 300, 25.4 / 8, True)
        else:
            from pipeline.images import write_images
            write = lambda prep: write_images(prep, out, 300, 25.4 / 8, True, workers=int(which))
        prep = prepare(game, None, 25.4 / 8)
        t1 = time.perf_counter()
        result = write(prep)
        t2 = time.perf_counter()
        print("RESULT", json.dumps({"prepare": t1 - t0, "images": t2 - t1, "cards": len(result.cards),
                                     "sheets": len(result.tts_sheets)}))
''')


def _tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return pids


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(game: Path, out: Path, which: str, env: dict) -> dict:
    script = out.parent / "run_images.py"
    script.write_text(RUN)
    before = os.times()
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(script), str(game), str(out), which], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], sum(_rss_kb(p) for p in _tree(proc.pid)))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t
    sampler.join()
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(stderr)
    data = json.loads(stdout.strip().splitlines()[-1].split(" ", 1)[1])
    data.update(wall=wall, cpu=(after.children_user - before.children_user) + (after.children_system - before.children_system),
                rss_mb=peak[0] / 1024)
    return data


def same_pixels(a: Path, b: Path, names: list[str]) -> bool:
    from PIL import Image, ImageChops

    for name in names:
        with Image.open(a / "images" / name) as x, Image.open(b / "images" / name) as y:
            if x.size != y.size or x.info.get("dpi") != y.info.get("dpi") or ImageChops.difference(x, y).getbbox():
                return False
    return True


def main(sizes: list[int], before: str | None) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_art(root / "art")
        print(f"load average {os.getloadavg()[0]:.2f} (2 cores); dpi 300, 1/8\" bleed, TTS sheets on")
        print(f"{'cards':>6} {'variant':>10} {'wall s':>7} {'images s':>9} {'ms/card':>8} {'CPU s':>6} {'peak RSS MB':>12}")
        for n in sizes:
            game = root / f"g{n}"
            make_game(game, n, root / "art")
            measure(game, root / f"warm{n}", "1", env)  # normalise the art once
            variants = ([("before", f"file:{before}")] if before else []) + [("1 worker", "1"), ("2 workers", "2")]
            results = {}
            for label, which in variants:
                out = root / f"out{n}-{which.replace('/', '_')[-12:]}"
                r = measure(game, out, which, env)
                results[label] = (r, out)
                print(f"{n:>6} {label:>10} {r['wall']:>7.2f} {r['images']:>9.2f} {1000 * r['images'] / n:>8.1f} "
                      f"{r['cpu']:>6.2f} {r['rss_mb']:>12.0f}", flush=True)
            one, two = results["1 worker"][0], results["2 workers"][0]
            print(f"{n:>6} speed-up of images, 2 workers vs 1: {one['images'] / two['images']:.2f}×")
            if before:
                names = sorted(p.name for p in (results["before"][1] / "images").glob("*.png"))
                picks = names[:: max(1, len(names) // 8)] + names[-1:]
                for label in ("1 worker", "2 workers"):
                    ok = same_pixels(results["before"][1], results[label][1], picks)
                    print(f"{n:>6} {label}: {len(picks)} card images pixel-identical to before: {ok}")


if __name__ == "__main__":
    args = sys.argv[1:]
    before = None
    if "--before" in args:
        i = args.index("--before")
        before = str(Path(args[i + 1]).resolve())
        del args[i:i + 2]
    main([int(a) for a in args] or [600], before)
