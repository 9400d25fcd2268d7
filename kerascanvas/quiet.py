"""Keep TensorFlow's start-up log lines (oneDNN and CPU-feature notices, CUDA stubs and factory
registration, cuInit, "TF-TRT Warning", absl's "before InitializeLog") out of the notebook: C++
prints them on file descriptor 2, which Jupyter shows as a red block.

Two ways, one for each place:

- In a Jupyter kernel, `install()` puts a filter on fd 2 for the rest of the process: those lines
  are dropped, every other byte goes on to where fd 2 went before (Jupyter's own capture). It
  works whatever TF_CPP_MIN_LOG_LEVEL says and whenever TensorFlow is imported: kerascanvas calls
  it when it is imported in a kernel, and kerascanvas-quiet.pth (installed beside the package,
  see kerascanvas/startup.py) calls it just before TensorFlow or Keras is first imported in a
  kernel, so `import keras, kerascanvas as kc` in a first cell shows nothing either.
- Elsewhere (a script), `quiet_tensorflow()` around kerascanvas's own first import of Keras: quiet
  settings where the user set none, and fd 2 held back during the import (given back if it fails).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import select
import sys
import tempfile
import threading

# What TensorFlow reads at import; each is set only when the user has not set it.
QUIET_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3"}

# TensorFlow's (and XLA's) start-up lines: the C++ sources that print them in absl/glog's format
# ("I0000 00:00:1795523900.551698   29882 port.cc:153] ..."), and the lines printed without it.
START_UP_SOURCES = (
    "port.cc", "cpu_feature_guard.cc", "cudart_stub.cc", "cuda_fft.cc", "cuda_dnn.cc",
    "cuda_blas.cc", "cuda_platform.cc", "cuda_driver.cc", "cuda_executor.cc", "cuda_diagnostics.cc",
    "computation_placer.cc", "gpu_device.cc", "dso_loader.cc", "service.cc", "cuda_dnn_plugin.cc",
)
_LOG_LINE = re.compile(r"^[IWEF]\d{4} \d+:\d+:\d+(?:\.\d+)?\s+\d+ ([\w.-]+):\d+\] (.*)$")
_BARE = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "To enable the following instructions:",
)


def is_start_up_line(line: str) -> bool:
    """Whether one line of fd 2 is part of TensorFlow's start-up block."""
    line = line.rstrip("\r\n")
    if line.startswith(_BARE):
        return True
    m = _LOG_LINE.match(line)
    return m is not None and (m.group(1) in START_UP_SOURCES or "TF-TRT Warning" in m.group(2)
                              or "Unable to register" in m.group(2))


def filtered(data: bytes) -> bytes:
    """`data` (whole lines) without TensorFlow's start-up lines."""
    return b"".join(line for line in data.splitlines(keepends=True)
                    if not is_start_up_line(line.decode("utf-8", "replace")))


_installed: int | None = None  # the fd where kept lines go, once the filter is on


def in_kernel() -> bool:
    """Whether this process runs a Jupyter (IPython) kernel, not merely imports ipykernel (as
    a test runner may), and its user did not ask to see TensorFlow's start-up lines
    (KERASCANVAS_SHOW_TF_STARTUP=1)."""
    app = sys.modules.get("ipykernel.kernelapp")
    return (app is not None and app.IPKernelApp.initialized()
            and os.environ.get("KERASCANVAS_SHOW_TF_STARTUP") != "1")


def install() -> bool:
    """Filter fd 2 for the rest of the process (once): TensorFlow's start-up lines are dropped,
    all else is passed on. False where fd 2 cannot be filtered (no real fd 2, Windows)."""
    global _installed
    if _installed is not None:
        return True
    if os.name == "nt":
        return False
    try:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            sys.stderr.flush()
        onward = os.dup(2)
        read, write = os.pipe()
    except OSError:
        return False
    os.dup2(write, 2)
    os.close(write)
    _installed = onward
    worker = threading.Thread(target=_forward, args=(read, onward), daemon=True,
                              name="kerascanvas-quiet")
    worker.start()
    atexit.register(_uninstall, worker)
    return True


def _forward(read: int, onward: int) -> None:
    """Lines from the pipe to `onward`, less the start-up ones. A line not ended within a tenth
    of a second goes on as it is (a prompt, a crash message)."""
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
            return
        held += chunk
        cut = held.rfind(b"\n") + 1
        if cut:
            _write(onward, filtered(held[:cut]))
            held = held[cut:]


def _write(fd: int, data: bytes) -> None:
    while data:
        try:
            data = data[os.write(fd, data):]
        except OSError:
            return


def _uninstall(worker: threading.Thread) -> None:
    """At exit: fd 2 back where it went, and what the pipe still holds passed on."""
    global _installed
    if _installed is None:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    with contextlib.suppress(OSError):
        os.dup2(_installed, 2)  # the pipe's last writer closes: the worker reads to its end
    worker.join(timeout=1)
    _installed = None


@contextlib.contextmanager
def quiet_tensorflow():
    """Around kerascanvas's first import of Keras/TensorFlow: quiet settings, and, outside a
    kernel whose fd 2 is filtered already, fd 2 captured. The captured lines come back on
    stderr if the import fails (then they are the useful part)."""
    if "tensorflow" in sys.modules or "keras" in sys.modules:
        yield
        return
    user_set = any(k in os.environ for k in QUIET_ENV)
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    if _installed is not None or user_set:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no real fd 2 (some embedded interpreters)
        yield
        return
    with tempfile.TemporaryFile() as sink:
        ok = False
        try:
            os.dup2(sink.fileno(), 2)
            yield
            ok = True
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            if not ok:
                sink.seek(0)
                text = sink.read().decode(errors="replace")
                if text:
                    sys.stderr.write(text)


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
