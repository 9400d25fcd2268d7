"""The mirrored state's one description (kerascanvas/mirror/state.json): the kernel's states and diffs
agree with it; the shared fixtures (js/test/fixtures/states.json, boxes.json, diffs.json), which
vitest checks through js/src/mirror/shape.ts too, are what the kernel makes (KC_WRITE_FIXTURES=1 writes
them again); a state departing from it is caught, at the place it departs, on both sides."""

import copy
import itertools
import json
import os
from pathlib import Path
from types import SimpleNamespace

import keras
import pytest
from support import residual

import kerascanvas as kc
from kerascanvas.canvas.widget import Canvas
from kerascanvas.geometry import boxes, folds
from kerascanvas.mirror import shape
from kerascanvas.mirror.diffs import Tracker

FIXTURES = Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures"
WRITE = os.environ.get("KC_WRITE_FIXTURES") == "1"


def mixed() -> kc.Graph:
    """Inputs, a shared Dense (two calls), an LSTM with three outputs, MultiHeadAttention, an
    Add with a free slot, a pending call, a nested model expanded, a folded run of blocks."""
    g = kc.Graph()
    g.add_input((6, 4), name="seq")
    g.add_input((4,), name="vec")
    g.add_layer("LSTM", units=4, return_state=True, name="lstm")
    g.connect("seq", "lstm")
    g.add_layer("MultiHeadAttention", num_heads=1, key_dim=2, name="mha")
    g.connect("seq", "mha", slot=0)
    g.connect("seq", "mha", slot=1)
    g.add_layer("Dense", units=4, name="shared")
    g.connect(("lstm", 0, 1), "shared")
    g.connect("vec", "shared", call=1)
    g.add_layer("Add", name="add")
    g.connect(("shared", 0, 0), "add")
    g.connect(("shared", 1, 0), "add")
    x = keras.Input((4,))
    inner = keras.Model(x, keras.layers.Dense(4)(x), name="inner")
    nested = kc.Graph.from_model(keras.Model(x, inner(x)))
    g.add_layer("Dense", units=3, name="waiting")  # pending: nothing feeds it
    return g, nested


def blocks() -> kc.Graph:
    """Three residual blocks, folded into one box."""
    g = kc.Graph()
    g.add_input((8,), name="x")
    prev = "x"
    for i in range(3):
        prev = residual(g, prev, i)
    g.add_layer("Dense", units=2, name="head")
    g.connect(prev, "head")
    g.fold("b0_a")
    return g


def kernel_states() -> list[dict]:
    g, nested = mixed()
    inner_name = next(n for n, l in nested.layers.items() if l["class_name"] == "Functional")
    nested.expand(inner_name)
    return [g.state(), nested.state(), blocks().state(), kc.Graph().state()]


def test_the_kernel_states_and_diffs_are_as_described():
    for state in kernel_states():
        shape.check_state(state)
    g, _ = mixed()
    tracker = Tracker(g)
    shape.check_state(tracker.full())
    g.connect(("lstm", 0, 2), "add")  # into the Add's free slot: its port layout changes
    g.move("add", 400, 400)
    g.undo()
    change = tracker.update()
    shape.check_diff(change)
    assert "add" in change["view"] and change["view"]["add"][-1] == tracker.full()["layers"][
        list(g.layers).index("add")]["ports"]


def test_entries_are_built_from_the_described_fields():
    state = kc.Graph().state()
    assert set(state) == {"version", "layers", "edges", *shape.DRAWING_FIELDS}
    with pytest.raises(RuntimeError, match="departs from state.json"):
        shape.layer_entry({"name": "x"})
    with pytest.raises(RuntimeError, match="departs from state.json"):
        shape.edge_entry({"src": ["a", 0, 0], "dst": ["b", 0, 0], "shape": None, "dtype": None,
                          "built": True, "colour": "red"})


def test_the_empty_drawing_is_what_the_kernel_says():
    """The description's empty drawing-wide values (the browser's state before the kernel's
    first word) are the kernel's own for an empty Graph."""
    state = kc.Graph().state()
    said = {f: state[f] for f in shape.DRAWING_FIELDS if f != "problems"}
    assert said == {f: v for f, v in shape.DRAWING_EMPTY.items() if f != "problems"}
    assert shape.DRAWING_EMPTY["problems"] == []  # (none before the kernel has spoken)


def test_the_stub_for_a_state_too_big_is_as_described():
    state = {**Tracker(mixed()[0]).full()}
    stub = shape.too_big(state, "too big: 9 MB")
    shape.check_state(stub)
    assert stub["too_big"] and stub["layers"] == [] and stub["revision"] == state["revision"]
    assert stub["problems"][0]["message"] == "too big: 9 MB" and stub["can_undo"] == state["can_undo"]


def test_ports_and_sizes_in_the_state_are_the_kernels():
    g, _ = mixed()
    layers = {l["name"]: l for l in g.state()["layers"]}
    add = layers["add"]  # two filled slots and a free third one, along the top edge
    assert [p[:2] for p in add["ports"]["in"]] == [[0, 0], [0, 1], [0, 2]]
    assert [p[2] for p in add["ports"]["in"]] == [add["w"] / 4, add["w"] / 2, add["w"] * 3 / 4]
    lstm = layers["lstm"]
    assert [p[:2] for p in lstm["ports"]["out"]] == [[0, 0], [0, 1], [0, 2]]
    assert all(p[3] == lstm["h"] for p in lstm["ports"]["out"])
    shared = layers["shared"]  # two calls: a slot each, an output each
    assert [p[:2] for p in shared["ports"]["in"]] == [[0, 0], [1, 0]]
    assert [p[:2] for p in shared["ports"]["out"]] == [[0, 0], [1, 0]]
    assert layers["seq"]["ports"]["in"] == []
    # boxes.state_ports reads world positions off a state's layer (kerascanvas/io/picture.py can)
    ins, _ = boxes.state_ports(add)
    assert ins[(0, 2)] == (add["x"] + add["w"] * 3 / 4, add["y"])
    assert boxes.state_box(add) == (add["w"], add["h"])
    folded = next(l for l in blocks().state()["layers"] if l["fold"])
    assert (folded["w"], folded["h"]) == folds.size() and folded["fold"]["stack"] == folds.STACK


# ----- the shared fixtures -----------------------------------------------------------------------

# The boxes the front end's tests draw (js/test/kernel.ts): the kernel's size and port layout for
# each, keyed by what decides them.
BOX_CASES = [
    # is_input, slots (kind, names, min, max), n_outputs, filled per call, inside (w, h), folded
    (False, ("single", ["inputs"], 1, 1), 1, [0], None, False),
    (False, ("single", ["inputs"], 1, 1), 1, [1], None, False),
    (False, ("single", ["inputs"], 1, 1), 1, [0, 0], None, False),
    (False, ("single", ["inputs"], 1, 1), 1, [1, 0], None, False),
    (False, ("single", ["inputs"], 1, 1), 1, [1, 1], None, False),
    (False, ("single", ["inputs"], 1, 1), 1, [1, 0, 0], None, False),
    (False, ("single", ["inputs"], 1, 1), 3, [0, 0], None, False),
    (False, ("single", ["inputs"], 1, 1), 3, [1, 0], None, False),
    (False, ("single", ["inputs"], 1, 1), 3, [1, 1], None, False),
    (True, ("none", [], 0, 0), 1, [0], None, False),
    (True, ("single", ["inputs"], 1, 1), 1, [0], None, False),
    (False, ("single", ["inputs"], 1, 1), 3, [0], None, False),
    (False, ("list", [], 2, None), 1, [2], None, False),
    (False, ("args", ["query", "value", "key"], 2, 3), 1, [0], None, False),
    (False, ("list", ["inputs"], 2, None), 1, [0], None, False),
    (False, ("list", ["inputs"], 2, None), 1, [1], None, False),
    (False, ("list", ["inputs"], 2, None), 1, [2], None, False),
    (False, ("list", [], 2, None), 1, [0], None, False),
    (False, ("list", [], 2, None), 1, [1], None, False),
    (False, ("list", [], 2, 2), 1, [2], None, False),
    (False, ("single", ["inputs"], 1, 1), 3, [0], (400, 150), False),
    (False, ("single", ["inputs"], 1, 1), 1, [0], None, True),
    # many named slots (a KerasHub TransformerDecoder) and a merge of eight: widened for their names
    (False, ("args", ["decoder_sequence", "encoder_sequence", "decoder_padding_mask", "decoder_attention_mask",
                      "encoder_padding_mask", "encoder_attention_mask"], 1, 6), 1, [0], None, False),
    (False, ("list", ["inputs"], 2, None), 1, [8], None, False),
]


def box_key(is_input, slots, n_outputs, filled, inside, folded) -> str:
    """The case's key, as js/test/kernel.ts writes it (JSON.stringify of the same list)."""
    return json.dumps([is_input, list(slots), n_outputs, filled, inside and list(inside), folded],
                      separators=(",", ":"))


def kernel_box(is_input, slots, n_outputs, filled, inside, folded, direction="down") -> dict:
    kind, names, lo, hi = slots
    spec = SimpleNamespace(is_input=is_input, calls=len(filled), n_outputs=n_outputs,
                           slots=SimpleNamespace(kind=kind, names=tuple(names), min=lo, max=hi))
    inner = None if inside is None else {"width": inside[0], "height": inside[1]}
    size = folds.size() if folded else boxes.box_size(spec, filled, inner, direction)
    return {"w": size[0], "h": size[1], "ports": boxes.port_layout(spec, filled, size, direction),
            "stack": folds.STACK if folded else None}


def test_the_boxes_fixture_is_the_kernels_geometry():
    made = {box_key(*case): kernel_box(*case) for case in BOX_CASES}
    path = FIXTURES / "boxes.json"
    if WRITE:
        path.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                             for k, v in made.items()) + "\n}\n")
    assert json.loads(path.read_text()) == json.loads(json.dumps(made))
    # and what the kernel puts in a real state agrees with it
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Add", name="add")
    g.connect("x", "add")
    add = next(l for l in g.state()["layers"] if l["name"] == "add")
    case = made[box_key(False, ("list", [], 2, None), 1, [1], None, False)]
    assert (add["w"], add["h"], json.loads(json.dumps(add["ports"]))) == (
        case["w"], case["h"], case["ports"])


def test_the_left_to_right_boxes_fixture_is_the_kernels_geometry():
    """The same boxes in a drawing that flows right (js/test/portlabels.test.ts reads them): slots
    down the left edge, outputs down the right edge, a box tall enough for its ports."""
    made = {box_key(*case): kernel_box(*case, direction="right") for case in BOX_CASES
            if case[4] is None and not case[5]}  # (an inside and a folded run keep their size)
    path = FIXTURES / "boxes-right.json"
    if WRITE:
        path.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                             for k, v in made.items()) + "\n}\n")
    assert json.loads(path.read_text()) == json.loads(json.dumps(made))
    for box in made.values():
        ins, outs = box["ports"]["in"], box["ports"]["out"]
        assert all(x == 0 and 0 < y < box["h"] for _, _, x, y in ins)
        assert all(x == box["w"] and 0 < y < box["h"] for _, _, x, y in outs)
        for side in (ins, outs):
            ys = sorted(y for *_, y in side)
            assert all(b - a >= boxes.PORT_SPACING for a, b in itertools.pairwise(ys))
    # and a real state agrees
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Add", name="add")
    g.connect("x", "add")
    g.set_direction("right")
    add = next(l for l in g.state()["layers"] if l["name"] == "add")
    case = made[box_key(False, ("list", [], 2, None), 1, [1], None, False)]
    assert (add["w"], add["h"], json.loads(json.dumps(add["ports"]))) == (
        case["w"], case["h"], case["ports"])


def departures(state: dict, diff: dict) -> list[dict]:
    """States and diffs that each depart from the description at one place (`at`)."""
    def changed(what, at, edit):
        broken = copy.deepcopy(state if what == "state" else diff)
        edit(broken)
        return {"what": what, "value": broken, "at": at}

    name = next(iter(diff["view"]))
    return [
        changed("state", "state.layers[0] lacks 'ports'", lambda s: s["layers"][0].pop("ports")),
        changed("state", "state.layers[0] has 'colour'", lambda s: s["layers"][0].update(colour="red")),
        changed("state", "state.layers[0].w", lambda s: s["layers"][0].update(w="wide")),
        changed("state", "state.layers[2].slots.kind", lambda s: s["layers"][2]["slots"].update(kind="many")),
        changed("state", "state.layers[2].ports.in[0].x",
                lambda s: s["layers"][2]["ports"]["in"][0].__setitem__(2, None)),
        changed("state", "state.edges[0].dst", lambda s: s["edges"][0].update(dst=["add", 0])),
        changed("state", "state.model.params", 
                lambda s: s.update(model={"inputs": [], "outputs": [], "params": 1.5,
                                         "trainable_params": 0, "non_trainable_params": 0})),
        changed("state", "state lacks 'box'", lambda s: s.pop("box")),
        changed("state", "state.can_undo", lambda s: s.update(can_undo=1)),
        changed("diff", f"diff.view['{name}']", lambda d: d["view"][name].pop()),
        changed("diff", "diff has 'colour'", lambda d: d.update(colour="red")),
        changed("diff", "diff.layers.patch[0] lacks 'name'",
                lambda d: d["layers"].setdefault("patch", [{}]).__setitem__(0, {"params": 3})),
    ]


def test_the_states_fixture_is_checked_alike_on_both_sides():
    """Kernel states and diffs, and broken copies of them, with where each breaks: vitest runs
    the same file through js/src/mirror/shape.ts."""
    path = FIXTURES / "states.json"
    if WRITE:
        g, _ = mixed()
        tracker = Tracker(g)
        g.configure("waiting", units=5)
        g.move("add", 300, 500)
        diff = tracker.update()
        good = kernel_states()
        assert diff["view"] and diff["layers"]["patch"]
        path.write_text(json.dumps({"states": good, "diffs": [diff],
                                    "departures": departures(good[0], diff)}) + "\n")
    fixture = json.loads(path.read_text())
    for state in fixture["states"]:
        shape.check_state(state)
    for diff in fixture["diffs"]:
        shape.check_diff(diff)
    for case in fixture["departures"]:
        check = shape.check_state if case["what"] == "state" else shape.check_diff
        with pytest.raises(ValueError) as why:
            check(case["value"])
        assert case["at"] in str(why.value)


def test_the_diffs_fixture_is_as_described():
    fixture = json.loads((FIXTURES / "diffs.json").read_text())
    for state in (fixture["initial"], fixture["final"], fixture["held_before_loss"]):
        shape.check_state(state)
    for diff in fixture["diffs"]:
        shape.check_diff(diff)


def test_a_canvas_sends_states_and_diffs_as_described():
    c = Canvas(mixed()[0])
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)
    shape.check_state(c.snapshot)
    c.graph.add_layer("Dense", units=2)
    c.graph.connect("add", "dense")
    c.graph.move("dense", 10, 900)
    diffs = [m["diff"] for m in sent if "diff" in m]
    assert diffs
    for d in diffs:
        shape.check_diff(d)
