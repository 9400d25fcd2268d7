"""The configure_call intent (issue 23): a call's settings edited from the canvas, checked as
untrusted input, applied through Graph.configure_call as one undo step."""

import keras
import pytest
from support import fingerprint, ok, recorder, sent

import kerascanvas as kc


@pytest.fixture
def canvas():
    x = keras.Input((4, 8), name="x")
    y = keras.layers.MultiHeadAttention(2, 4, name="mha")(x, x)
    c = kc.Canvas(kc.Graph.from_model(keras.Model(x, y)))
    recorder(c)
    return c


def intent(canvas, **message):
    canvas.receive({"id": 7, **message})
    return sent(canvas)[-1] if sent(canvas)[-1].get("id") == 7 else next(
        m for m in reversed(sent(canvas)) if m.get("id") == 7)


def node_kwargs(g):
    return g.keras_layer("mha")._inbound_nodes[0].arguments.kwargs


def state_settings(canvas):
    layer = next(entry for entry in canvas.state["layers"] if entry["name"] == "mha")
    return layer["calls"][0]["settings"]


def test_a_setting_set_through_the_intent_reaches_keras_code_state_and_undo(canvas):
    g = canvas.graph
    assert "use_causal_mask" not in node_kwargs(g) and g.call_settings("mha") == {}
    reply = intent(canvas, kind="configure_call", name="mha", call=0,
                   settings={"use_causal_mask": True})
    assert reply["ok"], reply
    ok(g)
    assert node_kwargs(g)["use_causal_mask"] is True
    assert g.call_settings("mha") == {"use_causal_mask": True}
    assert state_settings(canvas) == {"use_causal_mask": True}
    assert "use_causal_mask=True" in g.to_code()
    # null takes it away again; then undo brings it back, a second undo goes to the start
    assert intent(canvas, kind="configure_call", name="mha", call=0,
                  settings={"use_causal_mask": None})["ok"]
    assert g.call_settings("mha") == {} and "use_causal_mask" not in g.to_code()
    assert intent(canvas, kind="undo")["ok"]
    assert g.call_settings("mha") == {"use_causal_mask": True}
    assert intent(canvas, kind="undo")["ok"]
    assert g.call_settings("mha") == {} and "use_causal_mask" not in node_kwargs(g)
    assert state_settings(canvas) == {}


BAD = [
    ({"name": "nope", "call": 0, "settings": {"use_causal_mask": True}}, "no layer named 'nope'"),
    ({"name": "mha", "call": 1, "settings": {"use_causal_mask": True}}, "no call 1"),
    ({"name": "mha", "call": -1, "settings": {"use_causal_mask": True}}, "index 0..9999"),
    ({"name": "mha", "call": 0, "settings": {"use_causal_mask": {"a": 1}}}, "must be true/false"),
    ({"name": "mha", "call": 0, "settings": {"use_causal_mask": [True]}}, "must be true/false"),
    ({"name": "mha", "call": 0, "settings": {"use causal": True}}, "identifier"),
    ({"name": "mha", "call": 0, "settings": {"__import__('os')": 1}}, "identifier"),
    ({"name": "mha", "call": 0, "settings": {}}, "1 to 16"),
    ({"name": "mha", "call": 0, "settings": [["use_causal_mask", True]]}, "'settings' must be"),
    ({"name": "mha", "call": 0, "settings": {"no_such_arg": 1}}, "takes no argument"),
    ({"name": "mha", "call": 0, "settings": {"query": 1}}, "slot of the call"),
    ({"name": "x", "call": 0, "settings": {"training": True}}, "Input"),
    ({"name": "mha", "settings": {"use_causal_mask": True}}, "needs 'call'"),
]


@pytest.mark.parametrize(("fields", "why"), BAD)
def test_bad_payloads_are_refused_with_a_clear_error_and_change_nothing(canvas, fields, why):
    before, state = fingerprint(canvas.graph), canvas.state
    reply = intent(canvas, kind="configure_call", **fields)
    assert "ok" not in reply and why in reply["error"], reply
    assert fingerprint(canvas.graph) == before and canvas.state == state
