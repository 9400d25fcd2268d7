"""Run at every interpreter start of an environment kerascanvas is installed in (by the one line of
kerascanvas-quiet.pth, in site-packages): in a Jupyter kernel, the first import of TensorFlow or
Keras runs with the filter on fd 2 (quiet.py), so TensorFlow's start-up block stays out of the
notebook even when Keras is imported before kerascanvas; when that import ends, fd 2 is as it was.
Elsewhere it does nothing, and it costs one small finder on sys.meta_path until that first import.
(kerascanvas imported first in a kernel puts the same finder on: install.)"""

from __future__ import annotations

import os
import sys

WATCHED = ("tensorflow", "keras")  # (as quiet.WATCHED: quiet.py is not imported outside kernels)


class _FirstImport:
    """A meta path finder that notes the first import of a watched module: in a kernel, it gives
    the spec the other finders give, whose loader runs the module inside quiet's window."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in WATCHED:
            return None
        remove()
        if "ipykernel.kernelapp" not in sys.modules:  # (quiet.py is not imported elsewhere)
            return None
        try:
            from . import quiet

            if not quiet.in_kernel():
                return None
            return _run_in(quiet.start_up_window, _spec_of(name, path, target))
        except Exception:  # noqa: BLE001 (never in the way of the import: the finders after
            return None  # this one find it as they always do)


def _spec_of(name, path, target):
    """The spec the import system would find (this finder removed), or None where it cannot be
    told the same way (a finder of the old protocol)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            return None
        spec = find(name, path, target)
        if spec is not None:
            return spec
    return None


def _run_in(window, spec):
    """`spec` with its loader running the module (once) inside `window`; None where that loader
    cannot be told so (then the import goes on unfiltered)."""
    loader = getattr(spec, "loader", None)
    run = getattr(loader, "exec_module", None)
    if run is None or "exec_module" in getattr(loader, "__dict__", ("exec_module",)):
        return None

    def exec_module(module):
        try:
            del loader.exec_module  # the loader as it was, for any module after this one
        except AttributeError:
            pass
        with window():
            run(module)

    try:
        loader.exec_module = exec_module
    except (AttributeError, TypeError):
        return None
    return spec


def install() -> bool:
    """In a Jupyter kernel, from kerascanvas's import: the filter on fd 2 during the first import
    of TensorFlow or Keras (as kerascanvas-quiet.pth does where it is installed). False where
    that import has begun already or fd 2 cannot be filtered (Windows)."""
    from . import quiet

    if os.name == "nt" or quiet.started():
        return False
    watch()
    return True


def watch() -> None:
    if not any(isinstance(f, _FirstImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _FirstImport())


def remove() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _FirstImport)]


watch()
