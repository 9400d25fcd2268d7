"""kerascanvas: build, understand and train Keras models by drawing them in Jupyter.

`import kerascanvas` is cheap; Keras is imported when a Graph or Canvas is first used.
"""

__version__ = "0.1.0"

__all__ = ["Canvas", "EditError", "Graph", "Problem", "register"]


def __getattr__(name):
    if name in ("Graph", "Problem"):
        from . import graph

        return getattr(graph, name)
    if name == "EditError":
        from .drawing import EditError

        return EditError
    if name == "register":
        from .custom import register

        return register
    if name == "Canvas":
        from .widget import Canvas

        return Canvas
    raise AttributeError(f"module 'kerascanvas' has no attribute {name!r}")
