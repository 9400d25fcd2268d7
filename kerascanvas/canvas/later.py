"""Work an edit leaves until its diff has reached the page and been drawn: Keras's check of the
model, the repeated blocks, Python's garbage collection. In an IPython kernel it runs on the
kernel's event loop a moment later; elsewhere (a script, a test, marimo) at once.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Callable

_log = logging.getLogger(__name__)

DRAWING_TIME = 0.1  # seconds: an edit's diff reaches the page and is drawn (bench_canvas.py (4))
_waiting: list[Callable[[], None]] = []  # work left until the diff has been drawn, in order


def when_drawn(work: Callable[[], None]) -> None:
    """Run `work` once an edit's diff has had time to reach the page and be drawn, in an IPython
    kernel (at once elsewhere: a script, a test, marimo). Work left for then (Keras's check of
    the model, the repeated blocks, Python's garbage collection) would otherwise compete with
    the diff's way out and its drawing for the machine's cores. Whatever is still waiting when
    the next intent comes runs first, so nothing waits longer than that."""
    loop = _kernel_loop()
    if loop is None:
        work()
        return
    _waiting.append(work)
    loop.add_callback(lambda: loop.call_later(DRAWING_TIME, run_waiting))  # from any thread


def after(seconds: float, work: Callable[[], None]) -> None:
    """Run `work` on the kernel's event loop in `seconds` (at once outside a kernel)."""
    loop = _kernel_loop()
    if loop is None:
        work()
        return
    loop.add_callback(lambda: loop.call_later(seconds, work))  # from any thread


def waiting() -> int:
    """How many pieces of work wait until the browser has drawn the last diff."""
    return len(_waiting)


def run_waiting() -> None:
    while _waiting:
        work = _waiting.pop(0)
        try:
            work()
        except Exception:  # noqa: BLE001 - a bug: logged, and the rest (the collector) still runs
            _log.exception("kerascanvas: work left after an edit failed")


def _kernel_loop():
    """The event loop of the IPython kernel this code runs in, or None. (Not any running asyncio
    loop: Playwright's sync API, for one, keeps a loop "running" that only turns when it is used.)"""
    kernelbase = sys.modules.get("ipykernel.kernelbase")
    if kernelbase is None or not kernelbase.Kernel.initialized():
        return None
    return getattr(kernelbase.Kernel.instance(), "io_loop", None)


_collector = {"holds": 0, "was_on": True}


def hold_collector() -> None:
    """Python's cyclic garbage collector waits while intents are answered and drawn: on a big
    drawing a full collection over Keras's objects takes 350-600 ms and fell inside about one edit
    in five. A user's own gc.disable() is kept."""
    if _collector["holds"] == 0:
        _collector["was_on"] = gc.isenabled()
        gc.disable()
    _collector["holds"] += 1


def release_collector() -> None:
    _collector["holds"] -= 1
    if _collector["holds"] == 0 and _collector["was_on"]:
        gc.enable()
