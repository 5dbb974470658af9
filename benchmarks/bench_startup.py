"""Per-process fixed cost of cardpress (issue 13 §2: imports + font registration ≤ 0.15 s).

Run on demand (not in CI), from the repository root:

    env -u PYTHONDONTWRITEBYTECODE .venv/bin/python benchmarks/bench_startup.py
    ... bench_startup.py --repeat 15      # best of 15 (default 7)
    ... bench_startup.py --modules        # also list the heavy libraries each command imports
    ... bench_startup.py --before /tmp/before   # also an earlier tree, in the same run:
        git archive COMMIT | tar -x -C /tmp/before  (a copy with pipeline/, engine/, card_data/...)

Every figure is a whole process (bench_common.measure), best of N, printed against two baselines
measured in the same run, because other work on this 2-core machine moves absolute figures:
`python -c pass` (the interpreter) and `import reportlab.pdfgen.canvas, reportlab.platypus` (the
floor any ReportLab tool pays). The libraries the build path needs are also timed alone, so the
floor under `cardpress build` can be read off: what is left above their sum is cardpress's own.

"modules" is how many modules the process imported (lines of ``-X importtime``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import machine_load, measure  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable  # the venv's, as the usage above runs it

BASELINES = {
    "python -c pass": [PYTHON, "-c", "pass"],
    "import reportlab (canvas, platypus)": [PYTHON, "-c", "import reportlab.pdfgen.canvas, reportlab.platypus"],
    "import pydantic + BaseModel": [PYTHON, "-c", "import pydantic\nclass M(pydantic.BaseModel): x: int"],
    "import typer": [PYTHON, "-c", "import typer"],
    "import jinja2": [PYTHON, "-c", "import jinja2"],
    "import yaml": [PYTHON, "-c", "import yaml"],
    "all of the above": [PYTHON, "-c", "import reportlab.pdfgen.canvas, reportlab.platypus, typer, jinja2, yaml, "
                         "pydantic\nclass M(pydantic.BaseModel): x: int"],
}

# The build path: what `cardpress build` has imported before its first card (CLI + build + fonts
# registered from their cache).
BUILD_PATH = "import pipeline.cli.app, pipeline.plan, pipeline.render.fonts as f; f.register_fonts()"

# What the `cardpress` console script does, from the tree in the working directory (so that an
# earlier tree can be measured the same way).
ENTRY = "import sys; sys.argv[0] = 'cardpress'; from pipeline import main; main()"

COMMANDS = {
    "cardpress --help": [PYTHON, "-c", ENTRY, "--help"],
    "cardpress build --help": [PYTHON, "-c", ENTRY, "build", "--help"],
    "cardpress track --help": [PYTHON, "-c", ENTRY, "track", "--help"],
    "cardpress check duel --no-render": [PYTHON, "-c", ENTRY, "check", "duel", "--no-render"],
    "cardpress check duel": [PYTHON, "-c", ENTRY, "check", "duel"],
    "import build path + fonts": [PYTHON, "-c", BUILD_PATH],
}

# Libraries a command should import only when it needs them; --modules shows which ones it did.
HEAVY = ("reportlab", "pydantic", "typer", "rich", "jinja2", "yaml", "PIL", "engine.tracker", "engine.definitions",
         "pipeline.cli.track", "pipeline.plan", "fontTools", "pypdfium2", "starlette", "uvicorn", "openpyxl")


def imported(cmd: list[str], env: dict, tree: Path) -> list[str]:
    """The modules ``cmd`` imports, in order (from ``python -X importtime``)."""
    proc = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env, cwd=tree, capture_output=True, text=True)
    return [line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line and not line.rstrip().endswith("imported package")]


def best_walls(runs: dict[str, tuple[list[str], Path]], env: dict, repeat: int) -> dict[str, float]:
    """Best of ``repeat`` whole-process wall times (the least disturbed by other work), the
    commands taken in turn so that a change of machine load touches them all alike."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, (cmd, tree) in runs.items():
            best[name] = min(best[name], measure(cmd, env=env, cwd=tree).wall)
    return best


def heavy_of(modules: list[str]) -> str:
    """Which of HEAVY (or their submodules) are among ``modules``."""
    return " ".join(h for h in HEAVY if any(m == h or m.startswith(h + ".") for m in modules)) or "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="best of N runs per figure")
    parser.add_argument("--modules", action="store_true", help="list the heavy libraries each command imports")
    parser.add_argument("--before", type=Path, help="an earlier tree to measure in the same run")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = {name: (cmd, REPO) for name, cmd in BASELINES.items()}
    for name, cmd in COMMANDS.items():
        runs[name] = (cmd, REPO)
        if args.before:
            runs[f"  before: {name}"] = (cmd, args.before.resolve())
    for cmd, tree in runs.values():  # fill the bytecode and font caches first
        measure(cmd, env=env, cwd=tree)
    print(f"bench_startup: best of {args.repeat}, {machine_load()}")
    walls = best_walls(runs, env, args.repeat)
    python, reportlab = walls["python -c pass"], walls["import reportlab (canvas, platypus)"]
    print(f"{'':40} {'wall s':>7} {'- python':>8} {'× reportlab':>11} {'modules':>7}")
    for name, (cmd, tree) in runs.items():
        modules = imported(cmd, env, tree)
        print(f"{name:40} {walls[name]:7.3f} {walls[name] - python:8.3f} {walls[name] / reportlab:11.2f} "
              f"{len(modules):7d}")
        if args.modules and name not in BASELINES:
            print(f"{'':42}{heavy_of(modules)}")
    print(f"after the run: {machine_load()}")


if __name__ == "__main__":
    main()
