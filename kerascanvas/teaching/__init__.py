"""Keras's own walk, read off the live objects and never changing them: node, layer and edge
explanations, the depth computation and the forward pass step by step (`teaching.py`), the
Keras internals an inspector tab shows and the outputs made explicit (`internals.py`).

May use: everything below it: foundations, kinds, drawing, geometry, network, insights, io.
"""


def __getattr__(name):  # the names of the old module kerascanvas.teaching, as before the move
    import os

    here = os.path.dirname(__file__)
    if name.startswith("_") or os.path.exists(os.path.join(here, name + ".py")):  # a module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(".teaching", __name__), name)
