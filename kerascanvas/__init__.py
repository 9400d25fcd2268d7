"""kerascanvas: build, understand and train Keras models by drawing them in Jupyter.

`import kerascanvas` is cheap; Keras is imported when a Graph or Canvas is first used.
"""

__version__ = "0.1.0"

__all__ = ["Canvas", "EditError", "Graph", "Problem", "compare", "register", "unregister"]

import sys as _sys

if "ipykernel.kernelapp" in _sys.modules:  # in a kernel: TensorFlow's start-up lines stay out
    from . import quiet as _quiet  # of the notebook from here on

    if _quiet.in_kernel():
        from . import startup as _startup

        _startup.install()


def compare(a, b, weights: bool = True):
    """What changed from model a to model b: each a kc.Graph, a snapshot (`g.snapshot()`,
    `g.as_imported`), a keras.Model or the path of a saved .kc or .keras file. Returns a
    Comparison: `added` and `removed` (layer names of b, of a), `renamed` [(name in a, name in
    b)], `changed` {name in b: {config key: (value in a, value in b)}}, `rewired` (edges only in
    a, edges only in b), `weights` {name in b: norm of the weights' difference}; print it to
    read it (kerascanvas/io/compare.py). weights=False compares the drawings without reading
    the weights (most of a comparison's time: one read per variable)."""
    from .quiet import quiet_tensorflow

    with quiet_tensorflow():
        from .graph.graph import Graph
        from .io.compare import compare as compare_drawings

    return compare_drawings(a, b, Graph, weights)


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
