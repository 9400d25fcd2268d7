"""A drawing is never lost (issue 43): a canvas made without a file in a notebook cell keeps its
drawing, weights included, after every change, and the same cell's kc.Canvas() shows it again
after a kernel restart or a re-run. The kernel's cell id is stood in for (no kernel here)."""

import keras
import numpy as np
import pytest
from support import recorder, sent

import kerascanvas as kc
from kerascanvas.canvas import keeping


@pytest.fixture
def cell(monkeypatch, tmp_path):
    """Run as the cell "cell-a" of a notebook in tmp_path; returns a function that starts the
    cell's next run (restart=True: a new kernel, whose count of canvases starts again)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "digits.ipynb"))
    monkeypatch.delenv("KERASCANVAS_KEEP", raising=False)
    run = {"n": 0}

    def next_run(restart=False):
        run["n"] += 1
        if restart:
            keeping.new_kernel()
        monkeypatch.setattr(keeping, "_running_cell", lambda: ("cell-a", run["n"]))
    keeping.new_kernel()
    next_run()
    return next_run


def intent(canvas, **message):
    canvas.receive(message)
    return sent(canvas)[-1]


def draw_by_mouse(c):
    recorder(c)
    intent(c, kind="add_input", id=1, shape=[4], name="x", x=0, y=0)
    intent(c, kind="add_layer", id=2, class_name="Dense", config={"units": 3}, x=0, y=100)
    intent(c, kind="connect", id=3, src=["x", 0, 0], dst=["dense", 0, None])


@pytest.mark.parametrize("restart", [True, False])
def test_a_mouse_made_drawing_comes_back_with_its_weights(cell, tmp_path, restart):
    c = kc.Canvas()
    assert c.kept_in == keeping.FOLDER / "digits-cell-a-0.kc"
    draw_by_mouse(c)
    data = np.random.rand(2, 4).astype("float32")
    c.set_data(np.random.rand(16, 4).astype("float32"), np.random.rand(16, 3).astype("float32"))
    c.fit(epochs=1, block=True, loss="mse")  # trained weights are kept too
    expected = keras.ops.convert_to_numpy(c.graph.model(data))
    assert (tmp_path / c.kept_in).is_file()
    cell(restart=restart)  # the kernel restarted (or the cell runs again), the cell runs again
    again = kc.Canvas()
    assert set(again.graph.layers) == {"x", "dense"}
    np.testing.assert_allclose(keras.ops.convert_to_numpy(again.graph.model(data)), expected,
                               rtol=1e-6)
    assert "Restored from" in again.state["notes"][0]


def test_each_canvas_of_a_cell_keeps_its_own(cell):
    first, _second = kc.Canvas(), kc.Canvas()
    draw_by_mouse(first)
    cell(restart=True)
    assert set(kc.Canvas().graph.layers) == {"x", "dense"} and kc.Canvas().graph.layers == {}


def test_turned_off_nothing_is_kept(cell, monkeypatch):
    assert kc.Canvas(keep=False).kept_in is None
    assert kc.Canvas(path="m.kc").kept_in is None  # a canvas with its own file uses that
    monkeypatch.setenv("KERASCANVAS_KEEP", "0")
    assert kc.Canvas().kept_in is None


def test_outside_a_notebook_cell_nothing_is_kept():
    assert kc.Canvas().kept_in is None  # (no kernel here: no cell id)


def test_a_kept_file_that_cannot_be_read_is_left_alone(cell, tmp_path):
    c = kc.Canvas()
    draw_by_mouse(c)
    path = tmp_path / c.kept_in
    path.write_bytes(b"not a zip")
    cell(restart=True)
    again = kc.Canvas()
    assert again.graph.layers == {} and again.kept_in is None
    assert "could not be read" in again.state["notes"][0]
    recorder(again)
    intent(again, kind="add_input", id=1, shape=[4], name="x")  # an edit: still nothing kept
    assert path.read_bytes() == b"not a zip"  # nothing written over it


# ----- Save as... and Load... on every canvas: a bare file name in the notebook's folder --------

def test_save_as_and_load_by_a_file_name_from_the_browser(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    c = kc.Canvas()
    draw_by_mouse(c)
    assert "Save as" in intent(c, kind="save", id=10)["error"]  # no file yet: it says how
    assert intent(c, kind="save", id=11, name="my model")["result"] == "my model.kc"
    assert c.path == "my model.kc" and (tmp_path / "my model.kc").is_file()
    assert intent(c, kind="save", id=12)["ok"]  # then Save writes there
    other = kc.Canvas()
    recorder(other)
    assert intent(other, kind="load", id=13, name="my model.kc")["result"] == "my model.kc"
    assert set(other.graph.layers) == {"x", "dense"} and other.path == "my model.kc"


@pytest.mark.parametrize("name, says", [
    ("../up.kc", "no folders"), ("/etc/passwd", "no folders"), (".hidden.kc", "no folders"),
    ("a/b.kc", "no folders"), ("x" * 101, "up to 100"), (3, "bare name"),
])
def test_a_file_name_the_browser_cannot_use_is_refused(monkeypatch, tmp_path, name, says):
    monkeypatch.chdir(tmp_path)
    c = kc.Canvas()
    draw_by_mouse(c)
    for kind in ("save", "load"):
        assert says in intent(c, kind=kind, id=20, name=name)["error"]
    assert list(tmp_path.iterdir()) == [] and c.path == ""


def test_save_as_never_writes_over_a_file_it_did_not_make(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "theirs.kc").write_bytes(b"someone's")
    c = kc.Canvas()
    draw_by_mouse(c)
    assert "already in the notebook's folder" in intent(c, kind="save", id=1, name="theirs")["error"]
    assert (tmp_path / "theirs.kc").read_bytes() == b"someone's"
    assert "There is no" in intent(c, kind="load", id=2, name="missing.kc")["error"]
    intent(c, kind="save", id=3, name="mine.kc")
    assert intent(c, kind="save", id=4, name="mine.kc")["ok"]  # its own file: saved again


# ----- an empty canvas's "Start from an example" ----------------------------------------------

def test_start_from_an_example_draws_a_model_shaped_like_the_data():
    from kerascanvas.datasets import digits

    c = kc.Canvas()
    recorder(c)
    made = intent(c, kind="example", id=1)["result"]
    assert made == ["image", "conv2d", "max_pooling2d", "flatten", "dense"]
    assert c.graph.model.output.shape == (None, 10) and c.graph.can_undo
    x, y = digits()
    c.set_data(x, y)
    c.fit(epochs=1, batch_size=256, block=True)  # a first Train works at once
    assert "already" not in intent(c, kind="example", id=2)["error"] and "empty canvas" in \
        sent(c)[-1]["error"]
    other = kc.Canvas()
    recorder(other)
    other.set_data(np.random.rand(30, 5).astype("float32"), np.arange(30) % 3)
    intent(other, kind="example", id=3)
    assert other.graph.model.input.shape == (None, 5) and other.graph.model.output.shape == (None, 3)


def test_keeping_a_big_drawing_waits_its_share_of_time(cell, monkeypatch, tmp_path):
    """A save that took d seconds lets the next wait until d / KEEP_SHARE has passed: a big
    base keeps after a burst of edits, not after each (later.after runs it then)."""
    from kerascanvas.canvas import later

    c = kc.Canvas()
    draw_by_mouse(c)  # kept (the first save runs once the diff is drawn: at once here)
    waits = []
    monkeypatch.setattr(later, "after", lambda seconds, work: waits.append((seconds, work)))
    intent(c, kind="add_layer", id=9, class_name="Dropout", x=0, y=300)
    intent(c, kind="add_layer", id=10, class_name="ReLU", x=0, y=400)
    assert len(waits) == 1 and waits[0][0] > 0  # one deferred save for the burst
    assert "dropout" not in kc.Graph.load(tmp_path / c.kept_in).layers
    waits[0][1]()  # its time comes
    assert {"dropout", "re_lu"} <= set(kc.Graph.load(tmp_path / c.kept_in).layers)
