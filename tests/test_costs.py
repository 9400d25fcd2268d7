"""Issue 38: what an edit or a read costs grows linearly with the drawing (a file listing
100,000 output ports took 82 s to refuse; the node view of 2,000 layers took 1.2 s, because
`Graph.layers` was made again on every access)."""

from __future__ import annotations

import copy
import json
import time
import zipfile

import pytest

import kerascanvas as kc
from kerascanvas.drawing.drawing import EditError
from kerascanvas.teaching.internals import node_graph


def many(n: int) -> kc.Graph:
    """An Input feeding `n` Dense boxes (pending ones: cheap to draw)."""
    g = kc.Graph()
    with g.batch():
        g.add_input((4,), name="x")
        for i in range(n):
            g.add_layer("Dense", units=2, name=f"d{i}")
    return g


def test_a_hundred_thousand_outputs_that_do_not_exist_are_refused_at_once(tmp_path):
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    bogus = [(f"nope{i}", 0, 0) for i in range(100_000)]
    started = time.perf_counter()
    with pytest.raises(EditError, match="nope0"):
        g.set_outputs(bogus)
    assert time.perf_counter() - started < 5  # (was quadratic: 82 s; now 0.1 s)
    with pytest.raises(EditError, match="listed twice"):  # a port listed twice is still found
        g.set_outputs([("d", 0, 0), ("x", 0, 0), ("d", 0, 0)])
    # the same list in a file
    g.save(tmp_path / "m.kcanvas")
    with zipfile.ZipFile(tmp_path / "m.kcanvas") as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    document = json.loads(entries["kerascanvas.json"])
    document["outputs"] = [list(t) for t in bogus]
    with zipfile.ZipFile(tmp_path / "bad.kcanvas", "w") as z:
        for name, body in entries.items():
            z.writestr(name, json.dumps(document) if name == "kerascanvas.json" else body)
    started = time.perf_counter()
    with pytest.raises(EditError):
        kc.Graph.load(tmp_path / "bad.kcanvas")
    assert time.perf_counter() - started < 5


def test_graph_layers_is_made_once_per_change_and_stays_read_only():
    g = many(3)
    layers = g.layers
    assert g.layers is layers  # made once, not on every access
    assert layers["d0"]["config"]["units"] == 2 and layers["d0"]["class_name"] == "Dense"
    g.configure("d0", units=5)
    assert layers["d0"]["config"]["units"] == 2  # (what was read stays as it was)
    assert g.layers is not layers and g.layers["d0"]["config"]["units"] == 5
    g.undo()
    assert g.layers["d0"]["config"]["units"] == 2
    g.move("d0", 10, 20)  # (a view edit)
    assert g.layers["d0"]["config"]["units"] == 2
    # nested configs are read-only too: a caller cannot change the drawing through them
    config = g.layers["d0"]["config"]
    with pytest.raises(TypeError):
        config["units"] = 7
    with pytest.raises(TypeError):
        config["kernel_initializer"]["class_name"] = "Zeros"
    with pytest.raises((TypeError, AttributeError)):
        config["kernel_initializer"]["config"].update(seed=3)
    assert g.specs["d0"].config["kernel_initializer"]["class_name"] != "Zeros"
    # ... and copy, compare and serialize as the plain values they show
    plain = copy.deepcopy(dict(config))
    plain["kernel_initializer"]["class_name"] = "Zeros"  # (a copy is the caller's own)
    assert dict(config) == json.loads(json.dumps(dict(config)))
    assert g.specs["d0"].config["kernel_initializer"]["class_name"] != "Zeros"


def test_a_list_in_a_config_is_read_only_and_equal_to_the_list():
    g = kc.Graph()
    g.add_input((1,), dtype="int64", name="x")
    g.add_layer("IntegerLookup", vocabulary=[1, 2, 3], name="lookup")
    value = g.layers["lookup"]["config"]["vocabulary"]
    assert value == [1, 2, 3] and json.loads(json.dumps(value)) == [1, 2, 3]
    with pytest.raises(TypeError):
        value.append(4)
    with pytest.raises(TypeError):
        value += [4]
    assert g.specs["lookup"].config["vocabulary"] == [1, 2, 3]
    mine = copy.copy(value)
    mine.append(4)  # (a copy is the caller's own)
    assert type(mine) is list and g.layers["lookup"]["config"]["vocabulary"] == [1, 2, 3]


def test_the_node_view_of_two_thousand_layers_reads_the_layers_once():
    g = many(2000)
    started = time.perf_counter()
    for _ in range(2000):
        g.layers  # noqa: B018  (was made again each time: 2,000 x 2,000 configs)
    node_graph(g)
    assert time.perf_counter() - started < 2
