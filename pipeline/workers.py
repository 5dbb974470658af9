"""Both cores for one build: half of a job runs in a forked copy of this process.

A build's heavy steps (normalising art, fitting rules text, painting a paper's PDF) are pure
functions of state the process already holds, so the cheapest way to use a second core is
``fork``: the child starts with the checked game, templates, fonts and caches in memory (shared
pages, nothing re-read or re-parsed), does its half, and sends back plain values (``marshal``:
numbers, strings, tuples, lists, dicts; no objects are ever rebuilt from the pipe). The parent
does the other half meanwhile.

Where ``fork`` does not exist (Windows) or only one core is free, the child's half runs in this
process first and the results are the same. A caller whose threads the child would need (a
server) passes ``jobs=1``.
"""

from __future__ import annotations

import gc
import marshal
import multiprocessing
import os
import signal
import sys
import traceback
import warnings
from typing import Any, Callable, TypeVar

from engine.errors import CardpressError
from engine.i18n import _

T = TypeVar("T")
U = TypeVar("U")
POLL_SECONDS = 0.1


class WorkerError(CardpressError):
    """The forked half of a job failed; its message (a cardpress error) is passed on as is."""


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def resolve_jobs(jobs: int | None) -> int:
    """``jobs`` as given, or 2 when the machine has two free cores (the parts that split, split in
    two), 1 otherwise; always 1 where fork is unavailable."""
    if not can_fork():
        return 1
    if jobs is None:
        return 2 if available_cores() >= 2 else 1
    return max(1, min(jobs, 2))


class Shared:
    """Counters the child updates and the parent reads (progress of the child's half)."""

    def __init__(self, n: int):
        self._values = multiprocessing.get_context("fork").Array("q", n, lock=False) if can_fork() else [0] * n

    def __getitem__(self, k: int) -> int:
        return self._values[k]

    def __setitem__(self, k: int, value: int) -> None:
        self._values[k] = value


def in_parallel(child: Callable[[], T], parent: Callable[[], U], jobs: int,
                waiting: Callable[[], None] | None = None) -> tuple[U, T]:
    """Run ``child()`` in a forked process while ``parent()`` runs here; return both results.

    ``child()`` must return plain values (see the module doc). If it raises a ``CardpressError``
    the parent raises ``WorkerError`` with the same message, and an ``OSError`` (a full disk) is
    raised again as one; any other failure is a bug and is raised as ``RuntimeError`` with the
    child's traceback. If ``parent()`` raises, the child is
    stopped and the error goes on. ``waiting`` is called every 0.1 s while the parent waits for
    the child (to show its progress). With ``jobs`` 1, ``child()`` runs here, before ``parent()``.
    """
    if jobs < 2 or not can_fork():
        mine = child()
        return parent(), mine
    ctx = multiprocessing.get_context("fork")
    for stream in (sys.stdout, sys.stderr):  # or the child would write their buffers again
        stream.flush()
    receive, send = ctx.Pipe(duplex=False)

    parent_pid = os.getpid()

    def run() -> None:
        _die_with(parent_pid)
        receive.close()
        try:
            message = ("ok", child())
        except CardpressError as exc:
            message = ("error", str(exc))
        except OSError as exc:  # a full disk, say: raised again here, where it is reported
            message = ("oserror", (exc.errno, exc.strerror, exc.filename and str(exc.filename)))
        except BaseException:  # a bug: the parent shows the traceback
            message = ("bug", traceback.format_exc())
        send.send_bytes(marshal.dumps(message))
        send.close()

    process = ctx.Process(target=run, name="cardpress-worker", daemon=True)
    # Objects the two processes share stay shared: the cyclic collector writes to every object
    # it visits, which would copy each page of them into the child (and into the parent, for
    # whichever collects first). Frozen, it skips them until the child is done.
    gc.freeze()
    with warnings.catch_warnings():
        # Python ≥ 3.12 warns when a process with threads forks (a progress bar's refresh
        # thread, say): the child runs none of them and takes no lock they hold.
        warnings.filterwarnings("ignore", message=".*multi-threaded.*fork", category=DeprecationWarning)
        process.start()
    send.close()
    try:
        mine = parent()
        while not receive.poll(POLL_SECONDS):
            if waiting:
                waiting()
        try:
            kind, value = marshal.loads(receive.recv_bytes())
        except EOFError:  # the child ended (killed, or exited) without an answer
            process.join()
            raise RuntimeError(_("a build worker stopped without an answer (exit code {code})")
                               .format(code=process.exitcode)) from None
    except BaseException:
        process.terminate()
        raise
    finally:
        process.join()
        receive.close()
        gc.unfreeze()
    if kind == "error":
        raise WorkerError(value)
    if kind == "oserror":
        number, reason, filename = value
        raise OSError(number, reason, filename)
    if kind == "bug":
        raise RuntimeError(_("a build worker failed:") + f"\n{value}")
    return mine, value


def _die_with(parent_pid: int) -> None:
    """End this child if its parent ends (killed, say): an orphan would go on writing into the
    output folder after the user thought the build was gone. Linux's PR_SET_PDEATHSIG; elsewhere
    the child finishes its half and finds the pipe closed."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(1)


def halves(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """Split a list for two processes, interleaved so each half gets a like mix of the work."""
    return items[0::2], items[1::2]
