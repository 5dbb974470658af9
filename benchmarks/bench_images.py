"""`cardpress images` benchmark: wall, CPU and peak RSS of the whole process tree.

Run on demand (not in CI):

    python benchmarks/bench_images.py                 # 600 cards, 1 and 2 worker processes
    python benchmarks/bench_images.py 60 600 3000     # several sizes
    python benchmarks/bench_images.py 600 --before REV   # also time the code of git revision REV

The game is bench_build's synthetic one (N distinct cards with realistic Chinese rules text and 200
shared noisy artworks), so every card is a distinct 300 dpi render (the worst case: no copies to
share). Each measurement runs in a fresh subprocess, measured by bench_common: the peak of the
summed RSS of that process and all its children (shared pages counted in each process, so the
figure errs high), plus user+system CPU of the tree. "images" is the time of
``write_images`` alone (``prepare`` excluded); art is normalised in a warm-up run first.

Targets (issue 13): peak RSS ≤ 300 MB at any deck size, ≤ 20 ms per card at 600 cards on 2 cores.
With --before, the tree of git revision REV is exported to a temp folder and run (2 workers)
from there (the spawned workers import it too), and its per-card PNGs are pixel-compared against
the new ones.

Measured with the earlier simpler game (600 cards, 2 cores shared with other jobs, load 2-3;
images = write_images only):
before (all renders kept, Pillow PNG) 39.4 s, 2841 MB; 1 worker 33.5-35.7 s, 234 MB;
2 workers 18.7 s (31 ms/card), 243 MB for the whole tree: 1.79x over 1 worker.
With bench_build's game (noisy art, long texts; load 0.8, idle otherwise): 1 worker 38.4 s
(64 ms/card), 235 MB; 2 workers 27.0 s (45 ms/card), 243 MB: 1.42x.
Rendered into PNG rows, ISA-L deflate, TTS cells rendered at their size (same run, load 2-3):
before (12753f9, 2 workers) 44.3 s (73.8 ms/card), 338 MB; now 1 worker 25.4 s (42.3 ms/card),
236 MB; 2 workers 20.4 s (33.9 ms/card), 264 MB; card PNGs pixel-identical to before. Split at
load ~1.6 (2 workers, 24.5 ms/card): PDF painting in the parent 4.2 s (7 ms/card, serial),
rendering 7.1 s (11.8 ms/card), TTS sheets 3.5 s (5.8 ms/card, serial).
Tried and dropped: the parent assembling each TTS sheet while the workers render (backs first):
same run, load ~1: 24.6 -> 23.3 ms/card but 242 -> 318 MB (a 49 MB sheet in the parent while
both workers are alive), over the 300 MB cap. The CPU floor on 2 cores is ~18 ms/card
(painting 7 + rendering 23.6 + sheets 5.8 CPU-ms per card, halved), so 20 ms needs the painting
overlapped with rendering too (pages handed to workers in several PDFs while the rest are painted).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The honest benchmark's game (realistic rules text, noisy art) and its process-tree measure.
from bench_build import make_art, make_cards, make_game  # noqa: E402
from bench_common import machine_load  # noqa: E402
from bench_common import measure as run_measured  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

RUN = textwrap.dedent('''
    # the guard: the spawned workers import this script as their __main__ module
    if __name__ == "__main__":
        import json, sys, time
        from pathlib import Path
        game, out, which = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
        t0 = time.perf_counter()
        try:
            from pipeline.plan import prepare
            from pipeline.outputs.images import write_images
        except ImportError:  # --before a revision older than the pipeline's reshape (issue 10 §4)
            from pipeline.build import prepare
            from pipeline.images import write_images
        write = lambda prep: write_images(prep, out, 300, 25.4 / 8, True, workers=int(which))
        prep = prepare(game, None, 25.4 / 8)
        t1 = time.perf_counter()
        result = write(prep)
        t2 = time.perf_counter()
        print("RESULT", json.dumps({"prepare": t1 - t0, "images": t2 - t1, "cards": len(result.cards),
                                     "sheets": len(result.tts_sheets)}))
''')


def export(rev: str, folder: Path) -> Path:
    """The repository's tree at ``rev`` in ``folder``: imported through PYTHONPATH by the run and
    by its spawned workers alike (a module loaded from a file path would not be found by them)."""
    import subprocess

    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(game: Path, out: Path, which: str, env: dict) -> dict:
    """One run of ``write_images`` in a fresh process (``bench_common.measure``: wall, CPU and
    peak RSS and PSS of the whole process tree) and what the run itself timed."""
    script = out.parent / "run_images.py"
    script.write_text(RUN)
    run = run_measured([sys.executable, str(script), str(game), str(out), which], env=env)
    data = json.loads(run.stdout.strip().splitlines()[-1].split(" ", 1)[1])
    data.update(wall=run.wall, cpu=run.cpu, rss_mb=run.rss_mb, pss_mb=run.pss_mb)
    return data


def same_pixels(a: Path, b: Path, names: list[str]) -> bool:
    from PIL import Image, ImageChops

    for name in names:
        with Image.open(a / "images" / name) as x, Image.open(b / "images" / name) as y:
            if x.size != y.size or x.info.get("dpi") != y.info.get("dpi") or ImageChops.difference(x, y).getbbox():
                return False
    return True


def main(sizes: list[int], before: str | None) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_art(root / "art")
        old = export(before, root / "before") if before else None
        print(f"{machine_load()}; dpi 300, 1/8\" bleed, TTS sheets on")
        print(f"{'cards':>6} {'variant':>10} {'wall s':>7} {'images s':>9} {'ms/card':>8} {'CPU s':>6} {'peak RSS MB':>12} {'PSS MB':>7}")
        for n in sizes:
            game = root / f"g{n}"
            make_game(game, make_cards(n), root / "art")
            measure(game, root / f"warm{n}", "1", env)  # normalise the art once
            variants = [("1 worker", "1", env), ("2 workers", "2", env)]
            if before:
                variants.insert(0, ("before", "2", {**env, "PYTHONPATH": str(old)}))
            results = {}
            for label, which, run_env in variants:
                out = root / f"out{n}-{label.replace(' ', '')}"
                r = measure(game, out, which, run_env)
                results[label] = (r, out)
                print(f"{n:>6} {label:>10} {r['wall']:>7.2f} {r['images']:>9.2f} {1000 * r['images'] / n:>8.1f} "
                      f"{r['cpu']:>6.2f} {r['rss_mb']:>12.0f} {r['pss_mb']:>7.0f}", flush=True)
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
        before = args[i + 1]
        del args[i:i + 2]
    main([int(a) for a in args] or [600], before)
