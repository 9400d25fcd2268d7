"""Run at every interpreter start of an environment kerascanvas is installed in (by the one line of
kerascanvas-quiet.pth, in site-packages): in a Jupyter kernel, the filter on fd 2 (quiet.py) goes
on just before TensorFlow or Keras is first imported, so TensorFlow's start-up block stays out of
the notebook even when Keras is imported before kerascanvas. Elsewhere it does nothing, and it
costs one small finder on sys.meta_path until that first import."""

from __future__ import annotations

import sys

WATCHED = ("tensorflow", "keras")


class _FirstImport:
    """A meta path finder that finds nothing: it notes the first import of a watched module."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in WATCHED:
            remove()
            if "ipykernel.kernelapp" in sys.modules:  # (quiet.py is not imported elsewhere)
                from . import quiet

                if quiet.in_kernel():
                    quiet.install()


def watch() -> None:
    if not any(isinstance(f, _FirstImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _FirstImport())


def remove() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _FirstImport)]


watch()
