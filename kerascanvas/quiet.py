"""Keep TensorFlow's start-up block (oneDNN and CPU-feature notices, CUDA stubs, "TF-TRT Warning",
absl's "before InitializeLog") out of the notebook: C++ prints it on file descriptor 2, which
Jupyter shows as a red block.

Only that block is taken, and only while TensorFlow starts: `start_up_window()` puts a filter on
fd 2 for the time TensorFlow or Keras is first imported, and gives fd 2 back when that import ends
(or fails). The filter drops the information and warning lines of TensorFlow's start-up sources
and the block's bare lines; error and fatal lines always pass (TensorFlow's Python error then says
"see the log above"), and so does every other byte, at once: a partial line is held only while it
could still become one of the block's lines (a progress bar redrawn with \r never is). After that
first import nothing is filtered, and no log level is set for the user (TF_CPP_MIN_LOG_LEVEL is
theirs: 2 hides TensorFlow's information and warnings, 3 its errors too).

The window is opened:
- in a Jupyter kernel, around the first import of TensorFlow or Keras: by kerascanvas-quiet.pth
  (installed beside the package, see kerascanvas/startup.py), so `import keras, kerascanvas as kc`
  in a first cell shows nothing either, and by `startup.install()` when kerascanvas is imported first;
- anywhere, around kerascanvas's own first import of Keras (`quiet_tensorflow()`).
KERASCANVAS_SHOW_TF_STARTUP=1 turns it off.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import select
import sys
import threading

# The modules whose first import is TensorFlow's start-up (Keras imports its backend).
WATCHED = ("tensorflow", "keras")

# TensorFlow's (and XLA's) start-up lines: the C++ sources that print them in absl/glog's format
# ("I0000 00:00:1795523900.551698   29882 port.cc:153] ..."), and the lines printed without it.
START_UP_SOURCES = (
    "port.cc", "cpu_feature_guard.cc", "cudart_stub.cc", "cuda_fft.cc", "cuda_dnn.cc",
    "cuda_blas.cc", "cuda_platform.cc", "cuda_driver.cc", "cuda_executor.cc", "cuda_diagnostics.cc",
    "computation_placer.cc", "gpu_device.cc", "dso_loader.cc", "service.cc", "cuda_dnn_plugin.cc",
)
_LOG_LINE = re.compile(r"([IWEF])\d{4} \d+:\d+:\d+(?:\.\d+)?\s+\d+ ([\w.-]+):\d+\] (.*)")
_BARE = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "To enable the following instructions:",
)
_BARE_BYTES = tuple(bare.encode() for bare in _BARE)
# what makes a line of another source part of the block
_SAID = ("TF-TRT Warning", "Unable to register")
_SAID_BYTES = tuple(said.encode() for said in _SAID)
# The beginning of an information or warning line up to its source, and every beginning of one
# that stops short of it (what a partial line may be while it could still become one).
_HEAD = re.compile(rb"[IW]\d{4} \d+:\d+:\d+(?:\.\d+)?\s+\d+ ([\w.-]+):\d+\]")
_SHORT_OF_HEAD = re.compile(
    rb"[IW](?:\d{1,4}(?: (?:\d+(?::(?:\d+(?::(?:\d+(?:\.\d*)?(?:\s+(?:\d+(?: (?:[\w.-]+"
    rb"(?::\d*)?)?)?)?)?)?)?)?)?)?)?)?")


def is_start_up_line(line: str) -> bool:
    """Whether one whole line of fd 2 belongs to TensorFlow's start-up block: an information or
    warning line of its start-up sources, or one of the block's bare lines. Never an error or
    fatal line, nor a line redrawn with \\r."""
    line = line.removesuffix("\n").removesuffix("\r")
    if "\r" in line:
        return False
    if line.startswith(_BARE):
        return True
    m = _LOG_LINE.fullmatch(line)
    return m is not None and m.group(1) in "IW" and (
        m.group(2) in START_UP_SOURCES or any(said in m.group(3) for said in _SAID))


def may_become_start_up_line(part: bytes) -> bool:
    """Whether a line begun but not yet ended could still become one of the block's lines (then
    it may wait for its end while the filter is on; all else goes on at once)."""
    if not part or b"\r" in part:
        return False
    if any(bare.startswith(part) or part.startswith(bare) for bare in _BARE_BYTES):
        return True
    head = _HEAD.match(part)
    if head is not None:
        said = part[head.end():].removeprefix(b" ")
        return head.group(1).decode() in START_UP_SOURCES or any(
            whole.startswith(said) or whole in said for whole in _SAID_BYTES)
    return _SHORT_OF_HEAD.fullmatch(part) is not None


def _whole_lines(data: bytes) -> list[bytes]:
    return re.findall(rb"[^\n]*\n|[^\n]+", data)


def filtered(data: bytes) -> bytes:
    """`data` without TensorFlow's start-up lines (lines end at \\n)."""
    return b"".join(line for line in _whole_lines(data)
                    if not is_start_up_line(line.decode("utf-8", "replace")))


def in_kernel() -> bool:
    """Whether this process runs a Jupyter (IPython) kernel, not merely imports ipykernel (as
    a test runner may), and its user did not ask to see TensorFlow's start-up lines
    (KERASCANVAS_SHOW_TF_STARTUP=1)."""
    app = sys.modules.get("ipykernel.kernelapp")
    return (app is not None and app.IPKernelApp.initialized()
            and os.environ.get("KERASCANVAS_SHOW_TF_STARTUP") != "1")


def started() -> bool:
    """Whether TensorFlow's start-up is behind us (or under way): TensorFlow or Keras imported."""
    return any(name in sys.modules for name in WATCHED)


# The open window: how many have opened it, the fd where kept bytes go, the thread that forwards.
_lock = threading.Lock()
_depth = 0
_open: tuple[int, threading.Thread] | None = None


@contextlib.contextmanager
def start_up_window():
    """fd 2 filtered for the duration (TensorFlow's first import), then given back as it was.
    Windows may nest (and come from several threads): the outermost one filters."""
    opened = _open_window()
    try:
        yield
    finally:
        if opened:
            _close_window()


def _open_window() -> bool:
    global _depth, _open
    with _lock:
        if _depth:
            _depth += 1
            return True
        if os.name == "nt":
            return False
        with contextlib.suppress(AttributeError, ValueError, OSError):
            sys.stderr.flush()
        try:
            onward = os.dup(2)
        except OSError:  # no real fd 2
            return False
        try:
            read, write = os.pipe()
        except OSError:
            os.close(onward)
            return False
        worker = threading.Thread(target=_forward, args=(read, onward), daemon=True,
                                  name="kerascanvas-quiet")
        try:
            worker.start()  # (its reader first: a pipe nobody reads would stop fd 2's writers)
        except RuntimeError:
            for fd in (read, write, onward):
                os.close(fd)
            return False
        try:
            os.dup2(write, 2)
        except OSError:
            os.close(write)  # the reader reads to the end and closes its own
            return False
        os.close(write)
        _open, _depth = (onward, worker), 1
        atexit.register(_close_at_exit)
        return True


def _close_window() -> None:
    global _depth
    with _lock:
        _depth -= 1
        if _depth == 0:
            _give_back()
            atexit.unregister(_close_at_exit)


def _close_at_exit() -> None:
    global _depth
    with _lock:
        if _depth:
            _depth = 0
            _give_back()


def _give_back() -> None:
    """fd 2 back where it went; the pipe's last writer closes with it, and the forwarder passes on
    what the pipe still holds before anything written after (it ends the window's bytes)."""
    global _open
    if _open is None:
        return
    onward, worker = _open
    _open = None
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    with contextlib.suppress(OSError):
        os.dup2(onward, 2)
    worker.join(timeout=2)  # (a child process that kept the pipe: its bytes still go on after)


def _forward(read: int, onward: int) -> None:
    """Bytes from the pipe to `onward`, less the block's lines. Whole lines go on at once, and so
    does a partial line, unless it could still become one of the block's lines: that one waits
    for its end, at most a tenth of a second of quiet (a prompt, a crash message)."""
    held = b""
    while True:
        ready, _, _ = select.select([read], [], [], 0.1 if held else None)
        if not ready:
            _write(onward, filtered(held))
            held = b""
            continue
        try:
            chunk = os.read(read, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            _write(onward, filtered(held))
            os.close(read)
            os.close(onward)
            return
        held += chunk
        cut = held.rfind(b"\n") + 1
        out, held = filtered(held[:cut]), held[cut:]
        if not may_become_start_up_line(held):
            out, held = out + held, b""
        _write(onward, out)


def _write(fd: int, data: bytes) -> None:
    while data:
        try:
            data = data[os.write(fd, data):]
        except OSError:
            return


@contextlib.contextmanager
def quiet_tensorflow():
    """Around kerascanvas's own first import of Keras/TensorFlow, in a kernel or a script: the
    start-up block filtered out of fd 2 during it (all else passes, a failed import's lines
    included), unless KERASCANVAS_SHOW_TF_STARTUP=1."""
    if started() or os.environ.get("KERASCANVAS_SHOW_TF_STARTUP") == "1":
        yield
        return
    with start_up_window():
        yield


class _OwnRetracing(logging.Filter):
    """Drops TensorFlow's "triggered tf.function retracing" warning when kerascanvas's own
    threads (named "kerascanvas-...") made the traces: every drawing trained is a new model, whose
    train and record functions TensorFlow counts as retraces of Keras's one function (by its
    code), and from a few drawings on it told the user to fix a loop they never wrote."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (threading.current_thread().name.startswith("kerascanvas-")
                    and "tf.function retracing" in record.getMessage())


_RETRACING = _OwnRetracing()


def quiet_own_retracing() -> None:
    """Put the filter on TensorFlow's logger (once)."""
    logger = logging.getLogger("tensorflow")
    if _RETRACING not in logger.filters:
        logger.addFilter(_RETRACING)
