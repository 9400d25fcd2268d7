"""The widget protocol without a browser: intents as the front end sends them, hostile ones too."""

import pytest
from support import Wire, fingerprint, history, ok, recorder, sent

import kerascanvas as kc


@pytest.fixture
def canvas():
    c = kc.Canvas()
    recorder(c)
    return c


def intent(canvas, **message):
    canvas.receive(message)
    return sent(canvas)[-1]


def test_intents_build_a_model_and_state_follows(canvas):
    assert intent(canvas, kind="add_input", id=1, shape=[28, 28, 1], name="image") == {
        "id": 1, "ok": True, "result": "image"}
    assert intent(canvas, kind="add_layer", id=2, class_name="Conv2D", x=10, y=120)["result"] == "conv2d"
    intent(canvas, kind="add_layer", id=3, class_name="Flatten")
    intent(canvas, kind="add_layer", id=4, class_name="Dense", config={"units": 10})
    for src, dst in [("image", "conv2d"), ("conv2d", "flatten"), ("flatten", "dense")]:
        assert intent(canvas, kind="connect", id=5, src=[src, 0, 0], dst=[dst, 0, None])["ok"]
    g = ok(canvas.graph)
    assert [layer.name for layer in g.model.layers] == ["image", "conv2d", "flatten", "dense"]
    assert history(g, "dense", 0, 0) == ("flatten", 0, 0)
    assert canvas.state["model"]["params"] == g.model.count_params()
    assert g.positions["conv2d"] == (10.0, 120.0) and "conv2d" in g.pinned


def test_python_edits_reach_the_state_trait_at_once(canvas):
    canvas.graph.add_input((4,), name="x")
    assert [layer["name"] for layer in canvas.state["layers"]] == ["x"]
    # (Ctrl+Z on the canvas stops once before a cell's edit, then goes on: test_undo_stop.py)
    assert "Undo stopped" in intent(canvas, kind="undo", id=8)["error"]
    assert intent(canvas, kind="undo", id=9)["ok"] and canvas.state["layers"] == []


def test_refused_edit_answers_with_keras_message_and_changes_nothing(canvas):
    intent(canvas, kind="add_input", id=1, shape=[4], name="a")
    intent(canvas, kind="add_input", id=2, shape=[5], name="b")
    intent(canvas, kind="add_layer", id=3, class_name="Add")
    intent(canvas, kind="connect", id=4, src=["a", 0, 0], dst=["add", 0, None])
    before = fingerprint(canvas.graph)
    reply = intent(canvas, kind="connect", id=5, src=["b", 0, 0], dst=["add", 0, None])
    assert reply["id"] == 5 and "incompatible shapes" in reply["error"]
    assert fingerprint(canvas.graph) == before


HOSTILE = [
    "not a dict", ["list"], {"kind": "exec", "id": 1}, {"kind": "__class__", "id": 1},
    {"kind": "add_layer", "id": 1, "class_name": "os.system"},
    {"kind": "add_layer", "id": 1, "class_name": "Lambda"},
    {"kind": "add_layer", "id": 1, "class_name": "keras.src.layers.Dense"},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"__import__": 1}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": float("nan")}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": [[[[[[[[1]]]]]]]]}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "name": "x" * 101},
    {"kind": "add_input", "id": 1, "shape": [-1]},
    {"kind": "add_input", "id": 1, "shape": [10**12]},
    {"kind": "add_input", "id": 1, "shape": "(3,)"},
    {"kind": "add_input", "id": 1, "shape": [3], "dtype": "object"},
    {"kind": "connect", "id": 1, "src": ["x", 0], "dst": ["d", 0, None]},
    {"kind": "connect", "id": 1, "src": ["x", -1, 0], "dst": ["d", 0, None]},
    {"kind": "connect", "id": 1, "src": ["x", 0, 0], "dst": "d"},
    {"kind": "move", "id": 1, "name": "x", "x": float("inf"), "y": 0},
    {"kind": "move", "id": 1, "name": "x", "x": True, "y": 0},
    {"kind": "remove", "id": 1, "names": ["x"] * 500},
    {"kind": "rename", "id": 1, "name": "x", "new_name": "a/b"},
    {"kind": "remove_call", "id": 1, "name": "x", "call": "0"},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": [[1] * 200] * 200}},
    {"kind": "add_layer", "id": 1, "class_name": "Dense", "config": {"units": "9" * 10_001}},
    {"kind": "add_layer", "id": 1, "class_name": ["Dense"]},
    {"kind": "configure", "id": 1, "name": "x", "config": [["units", 3]]},
    {"kind": "duplicate", "id": 1, "names": []},
    {"kind": "duplicate", "id": 1, "names": "x"},
    {"kind": "rename", "id": 1, "name": "x", "new_name": ""},
    {"kind": "rename", "id": 1, "name": "x", "new_name": 42},
    {"kind": "connect", "id": 1, "src": ["x", 0, 0], "dst": ["nowhere", 0, None]},
    {"kind": "connect", "id": 1, "src": [["x"], 0, 0], "dst": ["x", 0, None]},
    {"kind": "add_call", "id": 1, "name": "x"},
    {"kind": None, "id": 1}, {"id": 1}, {},
]


@pytest.mark.parametrize("message", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_intents_get_errors_and_change_nothing(canvas, message):
    canvas.graph.add_input((3,), name="x")
    before = fingerprint(canvas.graph)
    canvas.receive(message)
    assert "error" in sent(canvas)[-1] and sent(canvas)[-1]["error"]
    assert fingerprint(canvas.graph) == before


def test_names_are_data_not_markup(canvas):
    name = "<img src=x onerror=alert(1)>"
    assert intent(canvas, kind="add_input", id=1, shape=[3], name=name)["ok"]
    assert canvas.state["layers"][0]["name"] == name


def test_canvas_arguments_are_checked():
    with pytest.raises(TypeError):
        kc.Canvas(graph="not a graph")
    with pytest.raises(TypeError):
        kc.Canvas(colour="red")


def test_comm_messages_reach_the_handler_and_are_answered_on_the_comm():
    c = kc.Canvas()
    wire = Wire(c)  # what ipywidgets would put on the wire, and the front end's messages
    wire.deliver({"kind": "add_input", "id": 7, "shape": [2]})
    assert c.graph.inputs == ["input_layer"]
    assert wire.custom()[-1] == {"id": 7, "ok": True, "result": "input_layer"}
    wire.deliver({"kind": "add_layer", "id": "a-1", "class_name": "Lambda"})
    last = wire.messages[-1]
    assert last["method"] == "custom" and last["content"]["id"] == "a-1"
    assert "Lambda" in last["content"]["error"] and "ok" not in last["content"]


def test_state_reaches_the_front_end_as_diffs_not_a_widget_per_layer():
    from kerascanvas.mirror.diffs import apply

    c = kc.Canvas()
    held = c.snapshot
    wire = Wire(c)
    wire.clear()  # (the state ipywidgets sends when a comm opens)
    c.graph.add_input((3,), name="x")
    c.graph.add_layer("Dense", units=2, name="d")
    sent = wire.messages
    updates = [m for m in sent if m.get("method") == "update"]
    assert updates and all(set(u["state"]) == {"revision"} for u in updates)  # no state trait
    for m in sent:
        if m.get("method") == "custom":
            held = apply(held, m["content"]["diff"])
    assert held == c.state and [layer["name"] for layer in held["layers"]] == ["x", "d"]


def test_a_malformed_id_is_answered_with_id_none(canvas):
    reply = intent(canvas, kind="undo", id={"x": 1})
    assert reply["id"] is None and "error" in reply
    assert intent(canvas, kind="add_input", id="x" * 65, shape=[2])["id"] is None


def test_an_internal_failure_is_still_answered(canvas, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(canvas.graph, "arrange", broken)
    reply = intent(canvas, kind="arrange", id=3)
    assert reply["id"] == 3 and "Internal error (KeyError)" in reply["error"]


def test_shared_calls_copies_renames_and_positions_through_intents(canvas):
    intent(canvas, kind="add_input", id=1, shape=[4], name="left")
    intent(canvas, kind="add_input", id=2, shape=[4], name="right")
    intent(canvas, kind="add_layer", id=3, class_name="Dense", name="shared", config={"units": 3})
    intent(canvas, kind="connect", id=4, src=["left", 0, 0], dst=["shared", 0, None])
    assert intent(canvas, kind="add_call", id=5, name="shared") == {"id": 5, "ok": True, "result": 1}
    layer = canvas.state["layers"][2]
    assert [c["built"] for c in layer["calls"]] == [True, False]  # the new call is pending
    assert any(p["layer"] == "shared" and p["call"] == 1 for p in canvas.state["problems"])
    assert intent(canvas, kind="connect", id=6, src=["right", 0, 0], dst=["shared", 1, None])["ok"]
    g = ok(canvas.graph)
    assert history(g, "shared", 1, 0) == ("right", 0, 0)
    assert g.keras_layer("shared")._inbound_nodes[1].input_tensors[0] is g.tensor("right")

    copies = intent(canvas, kind="duplicate", id=7, names=["left", "shared"])["result"]
    assert set(copies) == {"left", "shared"} and copies["shared"] in canvas.graph.layers
    assert ((copies["left"], 0, 0), (copies["shared"], 0, 0)) in canvas.graph.edges

    reply = intent(canvas, kind="configure", id=8, name="shared", config={"units": -1})
    assert "error" in reply and "units" in reply["error"]
    assert canvas.graph.layers["shared"]["config"]["units"] == 3
    assert intent(canvas, kind="rename", id=9, name="shared", new_name="twin")["ok"]
    assert "twin" in canvas.graph.layers and canvas.state["layers"][2]["name"] == "twin"

    assert intent(canvas, kind="move", id=10, name="twin", x=500.5, y=-20)["ok"]
    assert canvas.graph.positions["twin"] == (500.5, -20.0) and "twin" in canvas.graph.pinned
    assert canvas.state["layers"][2]["pinned"] is True
    assert intent(canvas, kind="arrange", id=11)["ok"] and not canvas.graph.pinned
    assert intent(canvas, kind="remove_call", id=12, name="twin", call=1)["ok"]
    assert canvas.graph.calls("twin") == 1


def test_delete_of_a_selection_is_one_undo_step(canvas):
    for i, name in enumerate(["a", "b", "c"]):
        intent(canvas, kind="add_input", id=i, shape=[2], name=name)
    assert intent(canvas, kind="remove", id=5, names=["a", "c"])["ok"]
    assert list(canvas.graph.layers) == ["b"]
    assert intent(canvas, kind="undo", id=6)["ok"]
    assert list(canvas.graph.layers) == ["a", "b", "c"]
    assert intent(canvas, kind="redo", id=7)["ok"] and list(canvas.graph.layers) == ["b"]
    assert canvas.state["can_undo"] is True


def test_a_nested_model_folds_out_and_back_through_intents():
    import keras

    x = keras.Input((3,), name="x")
    inner = keras.Sequential([keras.Input((3,), name="i"), keras.layers.Dense(2, name="d")], name="inner")
    c = kc.Canvas(kc.Graph.from_model(keras.Model(x, inner(x))))
    recorder(c)
    assert intent(c, kind="expand", id=1, name="inner", open=True) == {"id": 1, "ok": True, "result": None}
    layer = next(item for item in c.state["layers"] if item["name"] == "inner")
    assert layer["expanded"] and [b["name"] for b in layer["inner"]["layers"]] == ["i", "d"]
    for bad in ({"name": "inner", "open": "yes"}, {"name": "inner"}, {"name": "x", "open": True},
                {"name": ["inner"], "open": False}):
        before = fingerprint(c.graph), c.graph.expanded
        assert "error" in intent(c, kind="expand", id=2, **bad)
        assert (fingerprint(c.graph), c.graph.expanded) == before
    assert intent(c, kind="expand", id=3, name="inner", open=False)["ok"]
    assert not next(item for item in c.state["layers"] if item["name"] == "inner")["expanded"]


# ----- issue 12: edges as objects, insert on a wire, quick-add, stable layout -----------------

def _chain(canvas):
    intent(canvas, kind="add_input", id=1, shape=[28, 28, 1], name="image", x=0, y=0)
    intent(canvas, kind="add_layer", id=2, class_name="Flatten", x=0, y=100)
    intent(canvas, kind="add_layer", id=3, class_name="Dense", config={"units": 10}, x=0, y=200)
    intent(canvas, kind="connect", id=4, src=["image", 0, 0], dst=["flatten", 0, None])
    intent(canvas, kind="connect", id=5, src=["flatten", 0, 0], dst=["dense", 0, None])


def test_insert_layer_on_a_wire_is_one_undo_step_and_downstream_keeps_its_weights(canvas):
    _chain(canvas)
    g = canvas.graph
    dense = g.keras_layer("dense")
    kernel = dense.kernel.numpy().copy()
    y = g.positions["dense"][1]
    reply = intent(canvas, kind="insert_layer", id=6, class_name="Dropout", src=["flatten", 0, 0],
                   dst=["dense", 0, 0], x=0, y=y)
    assert reply["result"] == "dropout"
    assert history(ok(g), "dropout", 0, 0) == ("flatten", 0, 0)
    assert history(g, "dense", 0, 0) == ("dropout", 0, 0)
    assert g.keras_layer("dense") is dense and (dense.kernel.numpy() == kernel).all()
    assert g.positions["dense"][1] > y  # the box below made room
    intent(canvas, kind="undo", id=7)
    assert "dropout" not in g.layers and history(ok(g), "dense", 0, 0) == ("flatten", 0, 0)


def test_rewire_moves_or_unplugs_an_edge_in_one_step(canvas):
    _chain(canvas)
    intent(canvas, kind="add_layer", id=6, class_name="Dense", config={"units": 3})
    assert intent(canvas, kind="rewire", id=7, src=["flatten", 0, 0], old=["dense", 0, 0],
                  new=["dense_1", 0, None])["ok"]
    assert [e for e in canvas.graph.edges if e[0][0] == "flatten"] == [(("flatten", 0, 0), ("dense_1", 0, 0))]
    assert intent(canvas, kind="rewire", id=8, src=["flatten", 0, 0], old=["dense_1", 0, 0], new=None)["ok"]
    assert [e for e in canvas.graph.edges if e[0][0] == "flatten"] == []
    intent(canvas, kind="undo", id=9)
    assert (("flatten", 0, 0), ("dense_1", 0, 0)) in canvas.graph.edges


def test_remove_with_bridge_keeps_the_chain_joined(canvas):
    _chain(canvas)
    intent(canvas, kind="add_layer", id=6, class_name="Add")
    intent(canvas, kind="connect", id=7, src=["dense", 0, 0], dst=["add", 0, None])
    intent(canvas, kind="connect", id=8, src=["image", 0, 0], dst=["add", 0, None])
    assert intent(canvas, kind="remove", id=9, names=["image"], bridge=True)["error"]  # no input
    assert "image" in canvas.graph.layers
    intent(canvas, kind="insert_layer", id=10, class_name="Dropout", src=["flatten", 0, 0], dst=["dense", 0, 0])
    assert intent(canvas, kind="remove", id=11, names=["dropout"], bridge=True)["ok"]
    assert history(ok(canvas.graph), "dense", 0, 0) == ("flatten", 0, 0)


def test_accepts_names_classes_and_free_slots_for_a_tensor(canvas):
    _chain(canvas)
    intent(canvas, kind="add_layer", id=6, class_name="Conv2D")
    intent(canvas, kind="add_layer", id=7, class_name="Dense", config={"units": 2})
    result = intent(canvas, kind="accepts", id=8, src=["flatten", 0, 0])["result"]
    assert "Dense" in result["classes"] and "Conv2D" not in result["classes"]
    assert "in:dense_1:0:0" in result["accept"] and "in:conv2d:0:0" in result["refuse"]
    assert intent(canvas, kind="accepts", id=9, src=["nope", 0, 0])["error"]
    assert canvas.graph.keras_layer("flatten")._outbound_nodes.__len__() == 1  # nothing stale


def test_accepts_judges_the_free_slots_at_the_end_of_a_big_drawing():
    g = kc.Graph()
    with g.batch():
        g.add_input((4,), name="x")
        prev = "x"
        for i in range(400):  # an Add with a free list slot in every block
            d = g.add_layer("Dense", units=4, name=f"d{i}")
            g.connect(prev, d)
            prev = g.add_layer("Add", name=f"a{i}")
            g.connect(d, prev)
            g.connect(("x", 0, 0) if i == 0 else (f"a{i - 1}", 0, 0), prev)
        g.add_layer("Dense", units=2, name="tail")
    c = kc.Canvas(g)
    recorder(c)
    result = intent(c, kind="accepts", id=1, src=["a399", 0, 0])["result"]
    assert "in:tail:0:0" in result["accept"] and "in:a399:0:2" in result["accept"]
    assert len(result["accept"]) == 401  # every Add's next slot and the tail: none left out


def test_canvas_edits_move_only_what_they_must_and_paste_lands_in_view(canvas):
    _chain(canvas)
    before = dict(canvas.graph.positions)
    intent(canvas, kind="add_layer", id=6, class_name="Dense", x=before["dense"][0], y=before["dense"][1])
    g = canvas.graph
    assert all(g.positions[n] == p for n, p in before.items())  # nothing jumped
    assert g.positions["dense_1"] != before["dense"]  # not dropped on top of another box
    view = [1000, 1000, 800, 600]
    mapping = intent(canvas, kind="duplicate", id=7, names=["dense"], view=view)["result"]
    x, y = g.positions[mapping["dense"]]
    assert 1000 <= x <= 1800 and 1000 <= y <= 1600
    assert all(g.positions[n] == p for n, p in before.items())
    # dense_1 and the copy are wired to no Input: left out of the model, so the code is written
    assert "dense_1" not in intent(canvas, kind="code", id=8)["result"]["code"]
    assert "dense_1" in canvas.state["notes"][-1]
    intent(canvas, kind="remove", id=9, names=["dense_1", mapping["dense"]])
    assert intent(canvas, kind="code", id=10)["result"] == {"code": g.to_code(), "error": None}


def test_messages_speak_the_canvas_words(canvas):
    intent(canvas, kind="add_input", id=1, shape=[4], name="a")
    intent(canvas, kind="add_input", id=2, shape=[4], name="b")
    intent(canvas, kind="add_layer", id=3, class_name="Dense")
    intent(canvas, kind="connect", id=4, src=["a", 0, 0], dst=["dense", 0, None])
    error = intent(canvas, kind="connect", id=5, src=["b", 0, 0], dst=["dense", 0, 0])["error"]
    assert "call=" not in error and "Call again" in error
    assert intent(canvas, kind="insert_layer", id=6, class_name="os.system", src=["a", 0, 0],
                  dst=["dense", 0, 0])["error"]
    assert intent(canvas, kind="duplicate", id=7, names=["a"], view=[0, 0, -1, 5])["error"]


def test_a_wire_dropped_in_empty_space_adds_a_connected_layer_in_one_step(canvas):
    _chain(canvas)
    reply = intent(canvas, kind="add_layer", id=6, class_name="Dense", src=["flatten", 0, 0], x=400, y=400)
    assert history(ok(canvas.graph), reply["result"], 0, 0) == ("flatten", 0, 0)
    intent(canvas, kind="undo", id=7)
    assert reply["result"] not in canvas.graph.layers


def test_an_input_shape_with_none_blames_the_input_not_a_variable(canvas):
    intent(canvas, kind="add_input", id=1, shape=[4], name="a")
    intent(canvas, kind="add_layer", id=2, class_name="Dense")
    intent(canvas, kind="connect", id=3, src=["a", 0, 0], dst=["dense", 0, None])
    error = intent(canvas, kind="configure", id=4, name="a", config={"shape": [None]})["error"]
    assert error.split("(Shapes")[0].endswith("a gives None there. ")
