"""Regression tests for the hostile-input and fault audit (issue 13): nothing lost, nothing
corrupted by paste, NaN, odd strings, mixed precision or a load during training."""

import pytest
from support import fingerprint, ok

import kerascanvas as kc


# ----- 1. paste (duplicate) keeps the edge indexes right --------------------------------------

def test_a_pasted_edge_is_a_real_edge(tmp_path):
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    assert g.duplicate(["x", "d"]) == {"x": "x_1", "d": "d_1"}
    ok(g)
    assert g.is_built("d_1") and g.tensor("d_1").shape == (None, 2)
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="already has"):
        g.connect("x", "d_1")  # the slot is taken by the pasted edge
    assert fingerprint(g) == before
    g.disconnect("x_1", "d_1")  # the pasted edge exists for disconnect
    ok(g)
    g.undo()
    g.save(tmp_path / "pasted.kcanvas")
    loaded = ok(kc.Graph.load(tmp_path / "pasted.kcanvas"))
    assert loaded.edges == g.edges


def test_paste_of_part_of_a_merge_closes_the_list_gap():
    g = kc.Graph()
    g.add_input((4,), name="a")
    g.add_input((4,), name="b")
    g.add_layer("Add", name="add")
    g.connect("a", "add")
    g.connect("b", "add")
    copies = g.duplicate(["b", "add"])  # input 0 of the copy came from outside the selection
    ok(g)
    assert ((copies["b"], 0, 0), (copies["add"], 0, 0)) in g.edges
