"""kerascanvas: build, understand and train Keras models by drawing them in Jupyter.

`import kerascanvas` is cheap; Keras is imported when a Graph or Canvas is first used.
"""

__version__ = "0.1.0"

__all__ = ["Canvas", "EditError", "Graph", "Problem", "register", "unregister"]

import sys as _sys

if "ipykernel.kernelapp" in _sys.modules:  # in a kernel: TensorFlow's start-up lines stay out
    from . import quiet as _quiet  # of the notebook from here on

    if _quiet.in_kernel():
        from . import startup as _startup

        _startup.install()


def __getattr__(name):
    if name in ("Graph", "Problem"):
        from .quiet import quiet_tensorflow

        with quiet_tensorflow():
            from .graph import graph

        return getattr(graph, name)
    if name == "EditError":
        from .errors import EditError

        return EditError
    if name in ("register", "unregister"):
        from .kinds import custom

        return getattr(custom, name)
    if name == "Canvas":
        from .quiet import quiet_tensorflow

        with quiet_tensorflow():
            from .canvas.widget import Canvas
            from .graph import graph  # Keras's first import, quietly

        return Canvas
    if name == "limits":  # the caps on what an edit or a file may allocate (cheap: no keras)
        import importlib

        return importlib.import_module(".limits", __name__)
    raise AttributeError(f"module 'kerascanvas' has no attribute {name!r}")
