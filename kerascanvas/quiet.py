"""Keep TensorFlow's start-up log lines (oneDNN, CUDA stubs, absl's "before InitializeLog") out
of the notebook: they are printed by C++ on file descriptor 2, which Jupyter shows as a red block.

Only before TensorFlow is first imported, and only for variables the user has not set: a user who
sets TF_CPP_MIN_LOG_LEVEL (or imported TensorFlow already) sees exactly what they asked for.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile

# What TensorFlow reads at import; each is set only when the user has not set it.
QUIET_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3"}


@contextlib.contextmanager
def quiet_tensorflow():
    """Around the first import of Keras/TensorFlow: quiet settings, and fd 2 captured. The captured
    lines come back on stderr if the import fails (then they are the useful part)."""
    if "tensorflow" in sys.modules or "keras" in sys.modules:
        yield
        return
    user_set = any(k in os.environ for k in QUIET_ENV)
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    if user_set:
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
