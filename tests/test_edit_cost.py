"""Issue 22: an edit costs what it changes, not the size of the drawing. Edits change the drawing in
place under a change log; an undo step holds only that log; undo and redo stay exact."""

import pytest
from support import fingerprint, ok, siamese, steps_kept

import kerascanvas as kc
from kerascanvas import limits
from kerascanvas.drawing import drawing
from kerascanvas.drawing.drawing import Drawing


def chain(n: int, name: str = "x") -> kc.Graph:
    g = kc.Graph()
    g.add_input((4,), name=name)
    with g.batch(all_or_nothing=True):
        prev = name
        for i in range(n):
            g.add_layer("Identity", name=f"i{i}")
            g.connect(prev, f"i{i}")
            prev = f"i{i}"
    return g


def test_edits_outside_a_batch_copy_no_drawing_and_a_batch_copies_it_once(monkeypatch):
    g = chain(20)
    copies = []
    original = Drawing.copy
    monkeypatch.setattr(Drawing, "copy", lambda self, **k: copies.append(1) or original(self, **k))
    for k in range(5):
        g.add_layer("Dense", units=2, name=f"d{k}")
        g.connect(f"i{k}", f"d{k}")
        g.move(f"d{k}", 10.0 * k, 0.0)
        g.configure(f"d{k}", units=3)
    g.disconnect("i0", "d0")
    g.remove("d1")
    assert copies == []
    with g.batch():
        g.add_layer("Dense", units=2, name="late")
        g.connect("i3", "late")
    assert copies == [1]
    ok(g)


def edits(g: kc.Graph, edit: str, n: int = 80) -> None:
    for k in range(n):
        if edit == "move":
            g.move(f"i{k % 5}", float(k), 1.0)
        elif k % 2 == 0:
            g.connect(f"i{k % 5}", "head")
        else:
            g.disconnect(f"i{(k - 1) % 5}", "head")


@pytest.mark.parametrize("edit", ["move", "connect"])
def test_an_undo_step_weighs_the_same_on_a_small_and_a_big_drawing(edit):
    """The history's cap keeps as many steps of one kind of edit whatever the drawing's size:
    a step holds what its edit changed (when it held a copy of the drawing, a big drawing's
    steps were dropped sooner)."""
    kept = []
    for n in (5, 400):
        g = chain(n)
        g.add_layer("Dense", units=2, name="head")
        g.reset_history()
        with limits.allow(history_bytes=60_000), pytest.warns(RuntimeWarning, match="the oldest"):
            edits(g, edit)
        kept.append(steps_kept(g))
    assert 5 < kept[0] < 80 and kept[0] == kept[1]


def test_undo_and_redo_put_back_the_exact_drawing_order_included():
    g = siamese()
    g.move("left", 5.0, 6.0)
    states = [fingerprint(g)]
    orders = [list(g.layers)]
    edits = [lambda: g.remove("left"), lambda: g.rename("shared", "twin"),
             lambda: g.add_layer("Dense", units=3, name="extra"),
             lambda: g.connect("right", "extra"), lambda: g.remove_call("twin", 0),
             lambda: g.arrange(), lambda: g.duplicate(["extra"])]
    for edit in edits:
        edit()
        states.append(fingerprint(g))
        orders.append(list(g.layers))
    for k in range(len(edits), 0, -1):
        g.undo()
        assert fingerprint(g) == states[k - 1] and list(g.layers) == orders[k - 1]
    for k in range(1, len(edits) + 1):
        g.redo()
        assert fingerprint(g) == states[k] and list(g.layers) == orders[k]
    ok(g)


def test_a_refused_edit_leaves_the_drawing_and_its_history_as_they_were():
    g = siamese()
    g.add_layer("Add", name="sum")
    g.connect("left", "sum")
    before, steps = fingerprint(g), steps_kept(g)
    revision = g.structure_revision
    with pytest.raises(kc.EditError, match="slots"):  # refused by the drawing after a new call
        g.connect("right", "shared", call=2, slot=5)
    with pytest.raises(kc.EditError, match="Keras refused"):  # by Keras as the network rebuilds
        g.connect(("shared", 0, 0), "sum")  # (None, 4) + (None, 3)
    with pytest.raises(kc.EditError), g.batch():
        g.add_layer("Dense", units=2, name="inside")
        g.connect("left", "inside")
        g.connect("inside", "subtract", slot=0)  # taken
    assert g.structure_revision == revision  # nothing changed: nothing to send
    assert fingerprint(g) == before and steps_kept(g) == steps
    assert "inside" not in g.layers


def test_a_refused_edit_inside_a_batch_takes_back_only_itself():
    g = siamese()
    with g.batch():
        g.add_layer("Dense", units=2, name="kept")
        with pytest.raises(kc.EditError, match="slots"):
            g.connect("left", "kept", call=1, slot=5)  # its new call 1 goes with it
        g.connect("left", "kept")
    assert g.calls("kept") == 1 and g.call_slots("kept") == {0: ("left", 0, 0)}
    ok(g)
    g.undo()
    assert "kept" not in g.layers


def test_the_parameter_total_follows_layers_through_edits_undo_and_redo():
    g = siamese()

    def total():
        return sum(limits.params_of(layer) for layer in map(g.live_layer, g.live_names)
                   if layer is not None)

    g.add_layer("Dense", units=5, name="wide")
    g.connect("subtract", "wide")
    g.configure("wide", units=7)
    counted = total()

    def at_the_cap():  # an edit that adds no parameter passes; one that adds some is refused
        with limits.allow(total_params=counted):
            g.configure("wide", activation="relu")
            with pytest.raises(limits.LimitError):
                g.configure("wide", units=8)
            g.undo()

    at_the_cap()
    g.remove("wide")  # its 28 parameters go
    with limits.allow(total_params=counted - 28), pytest.raises(limits.LimitError):
        g.add_layer("Dense", units=1, name="one")
        g.connect("subtract", "one")
    g.undo()  # "one" (added, its edge refused)
    g.undo()  # the removal: the total counts "wide" again
    at_the_cap()
    for _ in range(3):
        g.undo()
    for _ in range(3):
        g.redo()
    at_the_cap()
    assert total() == counted


def test_names_a_drawing_forbids_are_its_own_and_the_module_list_stays_as_it_is():
    rules = dict(drawing.FORBIDDEN_IN_NAMES)
    strict = Drawing(forbidden={".": "no dots here"})
    with pytest.raises(kc.EditError, match="no dots here"):
        strict.check_new_name("a.b")
    assert Drawing().check_new_name("a.b") == "a.b"
    assert strict.copy().forbidden == {".": "no dots here"}
    with pytest.raises(kc.EditError, match="no dots here"):
        strict.check_new_name("a.b", "InputLayer")
    assert strict.check_new_name("a.b", "Functional") == "a.b"  # (its weights are its layers')
    with pytest.raises(kc.EditError, match="Keras uses '/'"):
        strict.check_new_name("a/b", "Functional")
    kc.Graph()
    assert drawing.FORBIDDEN_IN_NAMES == rules
