"""What a training run records and what the records show: `recording.py` is the callback that
takes a record each epoch, `record_program.py` what one record computes on the device,
`tensor_stats.py` the statistics of stacked tensors, `insights.py` the store of records kept by
layer name (with the drawing's file and undo), their problems and their view for the browser.

May use: the foundations, kinds, drawing, geometry and network.
"""


def __getattr__(name):  # the names of the old module kerascanvas.insights, as before the move
    import os

    here = os.path.dirname(__file__)
    if name.startswith("_") or os.path.exists(os.path.join(here, name + ".py")):  # a module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(".insights", __name__), name)
