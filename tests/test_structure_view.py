"""Structure and view apart (issue 11): a view edit (move, expand, arrange) is an undo step but
never touches Keras: g.model, the depth map and the Trainer's compiled model all survive it."""

import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc
from kerascanvas.geometry.boxes import box_size
from kerascanvas.training.trainer import Trainer


def nested():
    x = keras.Input((3,), name="x")
    inner = keras.Sequential([keras.Input((3,), name="i"), keras.layers.Dense(2, name="d")], name="inner")
    g = kc.Graph.from_model(keras.Model(x, keras.layers.Dense(1, name="head")(inner(x))))
    return g


def test_view_edits_keep_the_model_and_depth_map_and_undo_them():
    g = nested()
    model, depth, head = g.model, g.depth, g.keras_layer("head")
    g.move("head", 500, 20)
    g.expand("inner")
    g.arrange()
    g.expand("inner", open=False)
    assert g.model is model and g.depth is depth and g.keras_layer("head") is head
    g.undo()
    assert g.expanded == {"inner"} and g.model is model
    g.undo(), g.undo()
    assert g.positions["head"] == (500.0, 20.0) and g.model is model
    g.redo()
    assert "head" in g.pinned and g.model is model
    ok(g)


def test_a_batch_of_view_edits_is_a_view_edit_but_a_structural_one_is_not():
    g = nested()
    model = g.model
    with g.batch():
        g.move("head", 1, 2)
        g.move("x", 3, 4)
    assert g.model is model
    g.undo()
    assert g.model is model and not g.pinned
    g.configure("head", units=2)
    assert g.model is not model and g.model.output.shape == (None, 2)
    ok(g)


def test_set_outputs_is_structural():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="a")
    g.add_layer("Dense", units=3, name="b")
    g.connect("x", "a"), g.connect("x", "b")
    model = g.model
    g.set_outputs(["b"])
    assert g.model is not model and [t.shape[-1] for t in g.model.outputs] == [3, 2]


def test_a_move_between_two_fits_keeps_the_compiled_model_and_its_optimizer():
    rng = np.random.default_rng(0)
    x, y = rng.random((64, 4)).astype("float32"), rng.integers(0, 3, 64)
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=3, name="logits")
    g.connect("x", "logits")
    trainer = Trainer(g)
    trainer.set_data(x, y)
    trainer.fit(epochs=1, batch_size=16, block=True)
    model, optimizer = g.model, g.model.optimizer
    g.move("logits", 300, 200)
    g.arrange()
    trainer.fit(epochs=1, batch_size=16, block=True)
    assert g.model is model and g.model.optimizer is optimizer and int(optimizer.iterations) == 8


def test_box_sizes_come_from_python_and_the_layout_uses_them():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="shared")
    g.connect("x", "shared")
    for k in range(1, 4):  # four calls: a taller box
        g.connect("x", "shared", call=k)
    g.add_layer("Dense", units=2, name="below")
    g.connect(("shared", 3, 0), "below")
    _, h = g.box_sizes["shared"]
    assert h == box_size(g.specs["shared"], [1, 1, 1, 1])[1] > g.box_sizes["below"][1]
    assert g.positions["below"][1] >= g.positions["shared"][1] + h  # no overlap with the row below
    many = g.add_layer("Concatenate")
    for _ in range(12):
        g.connect("x", many)
    assert g.box_sizes[many][0] > 180  # 13 ports would crowd a plain box
    n = nested()
    n.expand("inner")
    assert n.box_sizes["inner"] == (n.inner("inner")["width"], n.inner("inner")["height"])


def test_placing_again_after_moves_matches_placing_afresh():
    import random

    from kerascanvas.geometry.layout import Placer, place

    rng = random.Random(3)
    rows = [[f"r{r}c{c}" for c in range(rng.randrange(1, 6))] for r in range(30)]
    names = [n for row in rows for n in row]
    sizes = {n: (rng.choice([180.0, 250.0]), rng.choice([62.0, 78.0, 200.0])) for n in names}
    placer, pinned = Placer(rows, sizes, (60.0, 40.0)), {}
    for _ in range(300):
        name = rng.choice(names)
        if name in pinned and rng.random() < 0.3:
            del pinned[name]
        else:
            pinned[name] = (rng.uniform(-800, 800), rng.uniform(0, 3000))
        assert placer.place(pinned) == place(rows, pinned, sizes)


def test_a_lock_refuses_structural_edits_only_and_history_can_be_reset():
    import pytest

    from kerascanvas.drawing.drawing import EditError

    g = nested()
    with g.locked("training runs"):
        assert g.lock_reason == "training runs"
        with pytest.raises(EditError, match="training runs"):
            g.configure("head", units=3)
        with pytest.raises(EditError, match="training runs"):
            g.lock("again")
        g.move("head", 1, 1)  # touches no Keras object
    assert g.lock_reason is None
    g.configure("head", units=3)
    g.reset_history()
    assert not g.can_undo and not g.can_redo
    assert g.node_inputs()[("head", 0)] == [("inner", 0, 0)]


def test_import_and_load_draw_through_the_same_replay(tmp_path):
    import keras

    x = keras.Input((4,), name="x")
    shared = keras.layers.Dense(4, name="shared")
    y = keras.layers.Add(name="add")([shared(x), shared(shared(x))])
    imported = kc.Graph.from_model(keras.Model(x, y))
    imported.save(tmp_path / "m.kcanvas")
    loaded = kc.Graph.load(tmp_path / "m.kcanvas")
    assert loaded.edges == imported.edges and loaded.calls("shared") == 3
    assert imported.can_undo and not loaded.can_undo  # import is one undo step; a file starts fresh
    fresh = kc.Graph()
    fresh.replay({"layers": [{"name": "i", "class_name": "InputLayer", "calls": 1,
                              "config": {"batch_shape": [None, 2], "dtype": "float32"}},
                             {"name": "d", "class_name": "Dense", "calls": 1, "config": {"units": 3}}],
                  "edges": [[["i", 0, 0], ["d", 0, 0]]]})
    assert fresh.model.output.shape == (None, 3)
    fresh.undo()
    assert not fresh.layers



def test_canvas_edits_pin_the_shown_boxes_which_leave_with_them_and_arrange_unpins():
    """A structural edit from the canvas pins every shown box where it is, so that nothing the
    user looks at moves; a dropped box stays where dropped; pins go with removed boxes (g.pinned
    never outgrows the drawing), and Arrange lays every box out from the depth map again."""
    c = kc.Canvas()
    g = c.graph
    g.add_input((4,), name="x")
    for src, name in (("x", "a"), ("a", "b"), ("b", "c")):
        g.add_layer("Dense", units=4, name=name)
        g.connect(src, name)
    assert not g.pinned
    laid_out = dict(g.positions)
    c.handle({"kind": "add_layer", "class_name": "Dense", "name": "d", "x": 900, "y": 40})
    assert g.positions["d"] == (900.0, 40.0)
    assert g.pinned == set(g.layers)  # the shown boxes and the dropped one
    assert {n: g.positions[n] for n in laid_out} == laid_out  # nothing shown moved
    c.handle({"kind": "connect", "src": ["c", 0, 0], "dst": ["d", 0, None]})
    c.handle({"kind": "remove", "names": ["b"]})
    assert g.pinned == set(g.layers) == {"x", "a", "c", "d"}
    assert g.positions["d"] == (900.0, 40.0) and g.positions["a"] == laid_out["a"]
    c.handle({"kind": "arrange"})
    assert not g.pinned and g.positions["d"] != (900.0, 40.0)
    fresh = kc.Graph()  # the same edits from Python, which pins nothing: the plain layout
    fresh.add_input((4,), name="x")
    for src, name in (("x", "a"), ("a", "b"), ("b", "c"), ("c", "d")):
        fresh.add_layer("Dense", units=4, name=name)
        fresh.connect(src, name)
    fresh.remove("b")
    assert not fresh.pinned and g.positions == fresh.positions


def test_move_many_pins_several_boxes_as_one_undo_step_and_a_bad_point_changes_nothing():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    model = g.model
    g.move_many({"x": (10, 20), "d": (30, 140)})
    assert g.pinned == {"x", "d"} and g.positions["d"] == (30.0, 140.0)
    assert g.model is model  # a view edit
    for bad in ({"x": (1, float("nan"))}, {"x": (0, 0), "nobody": (0, 0)}):
        with pytest.raises(kc.EditError):
            g.move_many(bad)
        assert g.positions["x"] == (10.0, 20.0) and g.pinned == {"x", "d"}
    g.undo()
    assert g.pinned == frozenset()
    ok(g)
