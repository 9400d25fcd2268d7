"""`kc.Graph`, the public API and a composition (`graph.py`): `edits.py` (the edits that build a
drawing, each one transaction), `history.py` (transactions, undo steps of what changed, the
training lock), `view.py` (positions, pins, folds, expanded boxes: never Keras) and `reads.py`
(the live objects read: calls, tensors, the model, its problems, its depth map). The Graph
offers the layers below it as methods (code, files, HTML, teaching, state), calling them with
itself.

May use: everything below it. `kerascanvas.graph.Graph` is the old path of `kc.Graph`.
"""


def __getattr__(name):  # the names of the old module kerascanvas.graph, as before the move
    import os

    here = os.path.dirname(__file__)
    if name.startswith("_") or os.path.exists(os.path.join(here, name + ".py")):  # a module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(".graph", __name__), name)
