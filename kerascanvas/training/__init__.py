"""Training a Graph's model: `trainer.py` (`Trainer.fit` runs Keras's fit in a thread with the
Graph locked), with its methods by concern in `reporting.py` (status, history, curve, updates),
`ending.py` (how a run ends, the weights put back) and `given.py` (its data and fit's
arguments); `choices.py` (what the panel offers), `data.py` (data checked against the model),
`run_gate.py` (one run at a time, a stop's grace) and `devices.py` (GPU or CPU, the engine).

May use: everything below it, the Graph included. `kerascanvas.training.Trainer` still works.
"""


def __getattr__(name):  # the names of the old module kerascanvas.training, as before the move
    import os

    here = os.path.dirname(__file__)
    if name.startswith("_") or os.path.exists(os.path.join(here, name + ".py")):  # a module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(".trainer", __name__), name)
