"""Folded runs of repeated blocks (issue 12, "repeated blocks collapse"): a view choice like
`expand`: one undo step, never a new g.model or depth map; an edit that breaks the run drops the
fold; the folded run is one box in the layout; files keep folds; the canvas intent is checked."""

import keras
import pytest
from support import fingerprint, ok, residual_stack

import kerascanvas as kc
from kerascanvas.geometry import folds
from kerascanvas.mirror.diffs import apply


def drawn(blocks=3):
    """x -> stem -> `blocks` residual blocks -> head, drawn by hand (opens unfolded)."""
    return residual_stack(blocks)


MEMBERS = [f"b{i}_{k}" for i in range(3) for k in ("a", "b", "add", "out")]


def test_fold_is_a_view_choice_that_undo_takes_back():
    g = drawn()
    assert g.folded == frozenset() and g.run_head("b1_add") == "b0_a"
    model, depth, layer = g.model, g.depth, g.keras_layer("b1_b")
    revision = g.structure_revision
    g.fold("b1_add")  # any layer of the run names it
    assert g.folded == {"b0_a"}
    assert g.model is model and g.depth is depth and g.keras_layer("b1_b") is layer
    assert g.structure_revision == revision
    g.fold("b0_a", folded=False)
    assert g.folded == frozenset()
    g.undo()
    assert g.folded == {"b0_a"} and g.model is model
    g.undo()
    assert g.folded == frozenset() and g.model is model
    g.redo()
    assert g.folded == {"b0_a"}
    ok(g)


def test_a_folded_run_is_one_box_and_the_drawing_gets_shorter():
    g = drawn()
    tall = g.positions["head"][1]
    g.fold("b0_a")
    pos, sizes = g.positions, g.box_sizes
    assert sizes["b0_a"] == folds.size()
    assert all(pos[n] == pos["b0_a"] for n in MEMBERS)  # the hidden layers sit under their box
    # the run takes one row: stem above it, head right below it
    stem_bottom = pos["stem"][1] + sizes["stem"][1]
    assert stem_bottom < pos["b0_a"][1]
    assert pos["b0_a"][1] + sizes["b0_a"][1] < pos["head"][1] < tall
    assert pos["head"][1] - pos["stem"][1] < 3 * 100  # three rows, not fourteen
    g.fold("b0_a", False)
    assert g.positions["head"][1] == tall


def test_the_state_marks_runs_and_the_folded_box():
    g = drawn()
    c = kc.Canvas(g)
    held, sent = c.snapshot, []
    c.send = lambda content, buffers=None: sent.append(content)
    by_name = {item["name"]: item for item in c.state["layers"]}
    assert {n for n, item in by_name.items() if item["run"] == "b0_a"} == set(MEMBERS)
    assert by_name["stem"]["run"] is None and by_name["b0_a"]["fold"] is None
    g.fold("b2_out")
    by_name = {item["name"]: item for item in c.state["layers"]}
    assert by_name["b0_a"]["fold"] == {"copies": 3, "layers": 4, "last": "b2_out",
                                       "classes": "Dense ×2, Add, ReLU", "members": 12,
                                       "stack": folds.STACK}
    assert (by_name["b0_a"]["w"], by_name["b0_a"]["h"]) == folds.size()
    assert all(by_name[n]["fold"] is None for n in MEMBERS[1:])
    g.configure("head", units=3)  # a structural edit after a fold: the run's entries stay right
    for m in sent:
        held = apply(held, m["diff"])
    assert held == c.state  # the diffs the browser applies reach the same state
    assert [m["diff"]["layers"]["patch"][0]["name"] for m in sent[:1]] == ["b0_a"]  # one box sent


def test_an_edit_that_breaks_the_run_drops_the_fold_and_undo_brings_it_back():
    g = drawn()
    g.fold("b0_a")
    g.configure("b1_b", units=8, use_bias=False)  # block 1 is no longer a copy of block 0
    assert g.folded == frozenset() and not g.repeats
    assert "b1_b" in g.layers and g.positions["b1_b"] != g.positions["b0_a"]  # nothing is lost
    g.undo()
    assert g.folded == {"b0_a"}
    ok(g)


def test_an_edit_that_shortens_the_run_keeps_the_fold():
    g = drawn()
    g.fold("b0_a")
    g.configure("b2_b", units=8, use_bias=False)  # the last copy differs: two copies remain
    assert g.folded == {"b0_a"} and len(g.repeats[0].blocks) == 2
    assert g.positions["b2_b"] != g.positions["b0_a"]  # the third block shows again
    ok(g)


def test_renaming_the_first_layer_keeps_the_fold():
    g = drawn()
    g.fold("b0_a")
    g.rename("b0_a", "first")
    assert g.folded == {"first"} and g.run_head("b2_out") == "first"


def test_only_layers_of_a_run_fold():
    g = drawn()
    before = g.state()
    with pytest.raises(kc.EditError, match="'stem' is not part of a run of repeated blocks"):
        g.fold("stem")
    with pytest.raises(kc.EditError, match="no layer named 'nope'"):
        g.fold("nope")
    with pytest.raises(TypeError, match="folded must be True or False"):
        g.fold("b0_a", folded="yes")
    assert g.folded == frozenset() and g.state() == before  # refused: nothing changed


def test_fold_all_and_files_keep_folds(tmp_path):
    g = drawn()
    g.fold_all()
    assert g.folded == {"b0_a"}
    g.save(tmp_path / "d.kcanvas")
    h = kc.Graph.load(tmp_path / "d.kcanvas")
    assert h.folded == {"b0_a"} and h.positions == g.positions
    g.fold_all(False)
    assert g.folded == frozenset()


def test_imported_models_with_repeats_open_folded():
    x = keras.Input((8,), name="x")
    y = keras.layers.Dense(8, name="stem")(x)
    for i in range(3):
        z = keras.layers.Dense(8, activation="relu", name=f"b{i}_a")(y)
        z = keras.layers.Dense(8, name=f"b{i}_b")(z)
        y = keras.layers.ReLU(name=f"b{i}_out")(keras.layers.Add(name=f"b{i}_add")([z, y]))
    g = kc.Graph.from_model(keras.Model(x, keras.layers.Dense(2, name="head")(y)))
    assert g.folded == {"b0_a"}
    assert not g.can_undo or g.model is not None  # one import step; folds came with it
    g.fold_all(False)
    assert g.folded == frozenset()
    ok(g)


def test_the_fold_intent_checks_its_fields_and_changes_nothing_on_refusal():
    c = kc.Canvas(drawn())
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)

    def intent(**m):
        c.receive(m)
        return sent[-1]

    for bad, words in (({"name": "b0_a", "folded": "yes"}, "'folded' must be true or false"),
                       ({"name": "b0_a"}, "needs 'folded'"),
                       ({"name": ["b0_a"], "folded": True}, "'name' must be a layer name"),
                       ({"name": "stem", "folded": True}, "not part of a run"),
                       ({"name": "ghost", "folded": True}, "no layer named 'ghost'")):
        before = fingerprint(c.graph), c.graph.folded, c.graph.can_undo
        reply = intent(kind="fold", id=1, **bad)
        assert words in reply["error"], reply
        assert (fingerprint(c.graph), c.graph.folded, c.graph.can_undo) == before
    assert intent(kind="fold", id=2, name="b1_b", folded=True) == {"id": 2, "ok": True, "result": None}
    assert c.graph.folded == {"b0_a"}
    assert intent(kind="fold_all", id=3, folded=False)["ok"] and c.graph.folded == frozenset()
    assert "error" in intent(kind="fold_all", id=4, folded=1)


def test_resnet50_opens_folded_and_much_shorter():
    g = kc.Graph.from_model(keras.applications.ResNet50(weights=None))
    assert len(g.folded) == 4 and "conv2_block2_1_conv" in g.folded
    model = g.model

    def height():
        pos, sizes = g.positions, g.box_sizes
        return max(pos[n][1] + sizes[n][1] for n in g.layers)

    short = height()
    g.fold_all(False)
    assert height() > 1.5 * short and g.model is model
    g.fold("conv3_block3_2_bn")
    assert g.folded == {"conv3_block2_1_conv"}


def test_with_every_box_pinned_folding_moves_the_boxes_below_up_and_unfolding_puts_them_back():
    from kerascanvas.canvas import placement

    g = drawn()
    placement.freeze(g)  # as the canvas does before a structural edit: every shown box pinned
    before = dict(g.positions)
    g.fold("b0_a")
    pos, sizes = g.positions, g.box_sizes
    assert pos["b0_a"] == before["b0_a"] and pos["stem"] == before["stem"]
    folded_bottom = pos["b0_a"][1] + sizes["b0_a"][1]
    assert folded_bottom < pos["head"][1] < before["head"][1]  # moved up under the folded box
    assert pos["head"][1] - folded_bottom == before["head"][1] - (before["b2_out"][1] + sizes["b2_out"][1])
    g.fold("b0_a", folded=False)
    assert g.positions == before  # the run's layers around its box again, the rest back down
    ok(g)


def test_the_canvas_pins_no_hidden_layer_and_unfolding_places_the_run_around_its_box():
    from kerascanvas.canvas import placement

    g = drawn()
    g.fold("b0_a")
    placement.freeze(g)  # a structural edit from the canvas while folded
    assert not set(MEMBERS[1:]) & g.pinned and {"stem", "b0_a", "head"} <= g.pinned
    g.fold("b0_a", folded=False)
    pos, sizes = g.positions, g.box_sizes
    boxes = [(n, *pos[n], *sizes[n]) for n in g.layers]
    for i, (a, ax, ay, aw, ah) in enumerate(boxes):  # no two boxes overlap
        for b, bx, by, bw, bh in boxes[i + 1:]:
            assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay, (a, b)
    assert pos["b1_a"][1] > pos["b0_out"][1] and pos["head"][1] > pos["b2_out"][1]


def test_a_fold_an_edit_breaks_in_a_pinned_drawing_shows_its_layers_around_its_box():
    from kerascanvas.canvas import placement

    g = drawn()
    placement.freeze(g)
    before = dict(g.positions)
    g.fold("b0_a")
    with g.batch():  # as the canvas edits: shown boxes pinned, then the edit
        placement.freeze(g)
        g.configure("b0_a", units=8, use_bias=False)  # the first block is no copy any more
    assert g.folded == frozenset()
    assert g.positions == before  # every layer where it was before the fold
    ok(g)
