"""What a box's class name stands for: the layer kinds. `layerkind.py` defines the `Kind`
protocol (slots, config schema, how a layer is built) and `calls.py` the call model (a call's
slots, keyword tensors and settings); `registry.py` holds what the kernel user trusted. The
catalog (keras.layers), keras.ops operations (`ops.py`, `slicing.py`), registered and Keras-own
classes (`custom.py`) and nested models (`nested.py`) each implement `Kind` without knowing each
other; `kinds.py` gathers them (lookup by name, the palette); `accepts.py` says which slots a
tensor may go to. `fresh_configs.py` keeps the config Keras gives a new built-in layer.

May use: the foundations (kerascanvas.errors, limits, text, words, quiet).
"""


def __getattr__(name):  # the names of the old module kerascanvas.kinds, as before the move
    import os

    here = os.path.dirname(__file__)
    if name.startswith("_") or os.path.exists(os.path.join(here, name + ".py")):  # a module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(".kinds", __name__), name)
