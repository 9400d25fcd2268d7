"""Undo a person expects (issue 43): Ctrl+Z on the canvas undoes the canvas's own edits, stops
once before the edits a cell made and says so, and the next Ctrl+Z goes on. g.undo() from Python
never stops."""

import numpy as np
from support import recorder, sent

import kerascanvas as kc


def intent(canvas, **message):
    canvas.receive(message)
    return sent(canvas)[-1]


def cell_made():
    g = kc.Graph()
    x = g.add_input((4,), name="x")
    d = g.add_layer("Dense", units=2, name="d")
    g.connect(x, d)
    c = kc.Canvas(g)
    recorder(c)
    return g, c


def test_ctrl_z_stops_once_at_the_drawing_the_cell_made():
    g, c = cell_made()
    intent(c, kind="add_layer", id=1, class_name="Dropout", x=0, y=300)
    intent(c, kind="connect", id=2, src=["d", 0, 0], dst=["dropout", 0, None])
    assert intent(c, kind="undo", id=3)["ok"] and intent(c, kind="undo", id=4)["ok"]
    assert set(g.layers) == {"x", "d"}
    stopped = intent(c, kind="undo", id=5)
    assert "Undo stopped" in stopped["error"] and "Ctrl+Z again" in stopped["error"]
    assert set(g.layers) == {"x", "d"} and g.can_undo  # nothing undone
    assert intent(c, kind="undo", id=6)["ok"]  # the next one goes on
    assert not g.edges
    assert intent(c, kind="undo", id=7)["ok"]  # and on, without stopping again
    assert set(g.layers) == {"x"}


def test_a_canvas_edit_after_the_stop_makes_it_stop_again():
    _g, c = cell_made()
    assert "Undo stopped" in intent(c, kind="undo", id=1)["error"]
    intent(c, kind="add_layer", id=2, class_name="Dropout", x=0, y=300)
    assert intent(c, kind="undo", id=3)["ok"]
    assert "Undo stopped" in intent(c, kind="undo", id=4)["error"]


def test_a_cells_edit_made_after_the_canvas_is_shown_is_the_cells_too():
    g, c = cell_made()
    intent(c, kind="add_layer", id=1, class_name="Dropout", x=0, y=300)
    g.add_layer("ReLU", name="relu")  # a later cell
    assert "Undo stopped" in intent(c, kind="undo", id=2)["error"]
    assert "relu" in g.layers


def test_python_undo_never_stops_and_training_undoes_from_the_canvas():
    g, c = cell_made()
    g.undo()  # Python: unchanged
    assert not g.edges
    g.redo()
    c.set_data(np.ones((8, 4), "float32"), np.ones((8, 2), "float32"))
    c.fit(epochs=1, block=True, loss="mse")
    assert intent(c, kind="undo", id=1)["ok"]  # the run: undone without a stop
    assert "Undo stopped" in intent(c, kind="undo", id=2)["error"]
