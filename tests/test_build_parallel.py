"""Both cores for one build (pipeline.workers): a forked child does half the art, half the text
fitting and the second paper; the PDFs are the ones one process writes, and every failure of
the child reaches the user as the same clear error."""

from __future__ import annotations

import os
import re
import time

import pytest

from engine.errors import CardpressError, DataError
from pipeline import workers
from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions
from pipeline.render.forms import CardErrors
from pipeline.scaffold import scaffold

pytestmark = pytest.mark.skipif(not workers.can_fork(), reason="fork is how a build uses a second core")


def _stable(pdf: bytes) -> bytes:
    """A PDF without its creation time and document id (they differ between any two runs)."""
    pdf = re.sub(rb"/(CreationDate|ModDate) \(D:[^)]*\)", b"", pdf)
    return re.sub(rb"/ID\s*\[<[0-9a-fA-F]+><[0-9a-fA-F]+>\]", b"", pdf)


# ---------------------------------------------------------------------------- the primitive


def test_the_child_half_runs_in_another_process_and_returns_plain_values():
    mine, theirs = workers.in_parallel(lambda: (os.getpid(), {("a", "b"): 1.5}), os.getpid, 2)
    assert theirs[0] != mine == os.getpid()
    assert theirs[1] == {("a", "b"): 1.5}


def test_one_job_runs_both_halves_here():
    mine, theirs = workers.in_parallel(os.getpid, os.getpid, 1)
    assert mine == theirs == os.getpid()


def test_a_childs_cardpress_error_reaches_the_parent_with_its_message():
    def child():
        raise CardpressError("card 'x', field 'text': too long")

    with pytest.raises(workers.WorkerError, match="card 'x', field 'text': too long"):
        workers.in_parallel(child, lambda: None, 2)


def test_a_childs_os_error_is_raised_again_as_one():
    def child():
        raise OSError(28, "No space left on device", "/out/cards-letter.pdf")

    with pytest.raises(OSError) as caught:
        workers.in_parallel(child, lambda: None, 2)
    assert (caught.value.errno, caught.value.filename) == (28, "/out/cards-letter.pdf")


def test_a_childs_bug_comes_with_its_traceback():
    def child():
        return {}["missing"]

    with pytest.raises(RuntimeError, match="KeyError: 'missing'"):
        workers.in_parallel(child, lambda: None, 2)


def test_a_child_that_dies_is_an_error_not_a_hang():
    with pytest.raises(RuntimeError, match="exit code 7"):
        workers.in_parallel(lambda: os._exit(7), lambda: None, 2)


def test_when_the_parent_fails_the_child_is_stopped():
    started = time.monotonic()

    def parent():
        raise ValueError("parent failed")

    with pytest.raises(ValueError, match="parent failed"):
        workers.in_parallel(lambda: time.sleep(60), parent, 2)
    assert time.monotonic() - started < 10


def test_a_childs_progress_is_seen_by_the_parent():
    shared = workers.Shared(1)
    seen = []

    def child():
        shared[0] = 42
        time.sleep(0.5)
        return None

    workers.in_parallel(child, lambda: None, 2, waiting=lambda: seen.append(shared[0]))
    assert 42 in seen


def test_jobs_are_one_or_two():
    assert workers.resolve_jobs(1) == 1
    assert workers.resolve_jobs(8) == 2
    assert workers.resolve_jobs(None) == (2 if workers.available_cores() >= 2 else 1)


# ---------------------------------------------------------------------------- builds


def test_two_processes_write_the_pdfs_one_process_writes(tmp_path, monkeypatch):
    calls = []
    real = workers.in_parallel

    def spy(child, parent, jobs, waiting=None):
        calls.append(jobs)
        return real(child, parent, jobs, waiting)

    monkeypatch.setattr("pipeline.plan.in_parallel", spy)          # the text fitting
    monkeypatch.setattr("pipeline.outputs.sheets.in_parallel", spy)  # the papers
    for jobs in (1, 2):
        build_sheets("ridm", BuildOptions(out_dir=tmp_path / str(jobs), jobs=jobs, cache=False))
    assert calls == [1, 2, 2]  # one process: fitting in line; two: fitting and the papers split
    for paper in ("a4", "letter"):
        one = (tmp_path / "1" / f"cards-{paper}.pdf").read_bytes()
        two = (tmp_path / "2" / f"cards-{paper}.pdf").read_bytes()
        assert _stable(one) == _stable(two)


def test_progress_of_both_processes_is_shown(tmp_path):
    seen: dict[str, tuple[int, int]] = {}
    build_sheets("duel", BuildOptions(out_dir=tmp_path, jobs=2), lambda label, n, total: seen.__setitem__(label, (n, total)))
    assert seen["laying out cards"][0] == seen["laying out cards"][1] > 0
    assert seen["drawing cards"][0] == seen["drawing cards"][1] > 0
    assert seen["A4 sheets"][0] == seen["A4 sheets"][1] > 0
    assert seen["LETTER sheets"][0] == seen["LETTER sheets"][1] > 0


def test_a_card_that_cannot_print_fails_a_two_process_build_and_writes_nothing(tmp_path):
    game = scaffold(tmp_path / "g", "缺字")
    cards = game / "cards" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("name: 斥候", "name: 斥候\U000f0001"), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(CardErrors, match="U\\+F0001"):
        build_sheets(game, BuildOptions(out_dir=out, jobs=2))
    assert not out.exists() or not any(out.iterdir())


def test_bad_art_in_the_childs_half_names_the_file_and_card(tmp_path):
    game = scaffold(tmp_path / "g", "坏图")
    (game / "art" / "scout.png").write_bytes(b"not an image")  # the only artwork: the child's half
    with pytest.raises(DataError) as caught:
        build_sheets(game, BuildOptions(out_dir=tmp_path / "out", jobs=2))
    message = str(caught.value)
    assert "scout.png" in message and "cannot read image" in message and "'art'" in message


def test_a_child_ends_when_its_parent_is_killed(tmp_path):
    """kill -9 of a build must not leave its second process writing into the output folder."""
    import signal
    import subprocess
    import sys

    marker = tmp_path / "child.pid"
    script = (
        "import os, time\n"
        "from pipeline import workers\n"
        f"def child():\n    open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(60)\n"
        "workers.in_parallel(child, lambda: time.sleep(60), 2)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(marker.read_text())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the child outlived its killed parent")
