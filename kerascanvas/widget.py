"""The old path of the canvas's widget: `kerascanvas.widget` is `kerascanvas.canvas.widget`
(the same module object), so code that imported it keeps working."""

import sys

from .canvas import widget

sys.modules[__name__] = widget
