"""Shared helpers for the on-demand benchmarks: run a command and measure it as a whole process.

``measure(cmd)`` gives wall time, CPU time (user + system of the process and every descendant
it waited for, from ``getrusage(RUSAGE_CHILDREN)`` deltas) and peak memory of the **whole
process tree**, sampled every 20 ms (worker processes count):

- RSS: ``/proc/<pid>/status`` VmRSS of the process and all its descendants, summed. Pages a
  forked worker shares with its parent (fonts, code, the checked game) count once per process,
  so this over-states a tree of forked workers.
- PSS: ``/proc/<pid>/smaps_rollup`` Pss summed: each shared page is split between the processes
  that map it, so the sum is the memory the tree really holds (what it costs the machine).
  Reading it is costly for the measured processes, so it is read only while the RSS sum is
  within 10 % of its peak, at most every 0.25 s.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 0.02
PSS_SECONDS = 0.25
PSS_NEAR_PEAK = 0.9


@dataclass
class Measured:
    wall: float  # seconds
    cpu: float  # seconds, user + system, process tree
    rss_mb: float  # peak of the summed VmRSS over the process tree, MB
    stdout: str = ""
    pss_mb: float = 0.0  # peak of the summed Pss over the process tree, MB


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                out.extend(int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
            except OSError:
                pass
    except OSError:
        pass
    return out


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(root: int) -> list[int]:
    found, todo, seen = [], [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        found.append(pid)
        todo.extend(_children(pid))
    return found


def tree_rss_kb(root: int) -> int:
    """Summed VmRSS (kB) of ``root`` and all its descendants now."""
    return sum(_rss_kb(pid) for pid in _tree(root))


def tree_memory_kb(root: int) -> tuple[int, int]:
    """(summed VmRSS, summed Pss) in kB of ``root`` and all its descendants now."""
    pids = _tree(root)
    return sum(_rss_kb(pid) for pid in pids), sum(_pss_kb(pid) for pid in pids)


def measure(cmd: list[str], env: dict | None = None, cwd: str | Path | None = None) -> Measured:
    """Run ``cmd`` to completion; raise ``RuntimeError`` with its stderr when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0, 0]
    done = threading.Event()

    def sample() -> None:
        last_pss = 0.0
        while not done.is_set():
            pids = _tree(proc.pid)
            rss = sum(_rss_kb(pid) for pid in pids)
            peak[0] = max(peak[0], rss)
            # smaps_rollup walks every mapping under the process's memory lock: read it only near
            # the RSS peak and at most every PSS_SECONDS, or the sampling slows what it measures.
            now = time.perf_counter()
            if rss >= PSS_NEAR_PEAK * peak[0] and now - last_pss >= PSS_SECONDS:
                last_pss = now
                peak[1] = max(peak[1], sum(_pss_kb(pid) for pid in pids))
            done.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{err[-4000:]}\n{out[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the largest single descendant; the sampled tree sum is never less.
    single = after.ru_maxrss / 1024 if after.ru_maxrss > before.ru_maxrss else 0.0
    return Measured(wall, cpu, max(peak[0] / 1024, single), out, peak[1] / 1024)


def machine_load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"
