"""The picture output follows the drawing, debounced: many edits, one update of the picture."""

import IPython.display

import kerascanvas as kc
from kerascanvas.canvas import picture_output


class FakeLoop:
    """The kernel's event loop as picture_output uses it: callbacks at once, timers kept."""

    def __init__(self):
        self.timers = []

    def add_callback(self, callback):
        callback()

    def call_later(self, delay, callback):
        self.timers.append(callback)
        return callback

    def remove_timeout(self, timer):
        self.timers.remove(timer)


def test_edits_update_the_picture_once_after_the_last_and_at_the_cell_end(monkeypatch):
    loop, shown, updates = FakeLoop(), [], []
    monkeypatch.setattr(picture_output, "kernel_loop", lambda: loop)
    monkeypatch.setattr(IPython.display, "display", lambda data, **kw: shown.append((data, kw)))
    monkeypatch.setattr(IPython.display, "update_display",
                        lambda data, **kw: updates.append((data, kw)))
    g = kc.Graph()
    g.add_input((4,), name="x")
    canvas = kc.Canvas(g)
    canvas._ipython_display_()
    (live, _), (picture, meta) = shown
    assert "application/vnd.jupyter.widget-view+json" in live and "image/svg+xml" not in live
    assert meta["display_id"].startswith("kerascanvas-") and "image/svg+xml" in picture
    for i in range(5):  # a loop of edits: one timer waiting, restarted by each
        g.add_layer("Dense", units=2, name=f"d{i}")
    assert len(loop.timers) == 1 and not updates
    loop.timers.pop()()  # the last edit's timer fires
    assert len(updates) == 1 and updates[0][1]["display_id"] == meta["display_id"]
    assert "d4" in updates[0][0]["image/svg+xml"] and "6 layers" in updates[0][0]["text/plain"]
    picture_output.flush_all()  # the cell ends: nothing left to send
    assert len(updates) == 1
    g.rename("d0", "first")
    picture_output.flush_all()  # an edit at the end of a cell goes out with the cell
    assert len(updates) == 2 and "first" in updates[1][0]["image/svg+xml"]
    loop.timers.pop()()  # its timer then finds nothing to send
    assert len(updates) == 2


def test_a_canvas_never_displayed_sends_no_picture(monkeypatch):
    loop = FakeLoop()
    monkeypatch.setattr(picture_output, "kernel_loop", lambda: loop)
    g = kc.Graph()
    kc.Canvas(g)
    g.add_input((4,), name="x")
    assert loop.timers == [] and picture_output.waiting() == 0
