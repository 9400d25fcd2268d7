"""Issue 18: every slot lit while a wire is dragged is one the kernel then accepts, and every slot
dimmed one it refuses. Each output of a mixed drawing (a Dense with a second call, merge layers, a
MultiHeadAttention's named slots, a nested model, inputs of other ranks) is dragged onto every
slot the hints light or dim (accepts.ports_accepting: the slots part of the widget's `accepts`
answer; its catalog part, checked in test_widget_protocol.py, builds every catalog class per
shape, which takes a minute under jax); the same drop is then sent as a `connect` intent and its
answer compared."""

import keras
import pytest
from support import recorder, sent

import kerascanvas as kc
from kerascanvas.kinds.accepts import ports_accepting

_ids = iter(range(1, 1_000_000))


def _intent(canvas, **message):
    """The reply to one intent (a state diff may be sent after it)."""
    message["id"] = next(_ids)
    canvas.receive(message)
    return next(m for m in reversed(sent(canvas)) if m.get("id") == message["id"])


@pytest.fixture(scope="module")
def canvas():
    inp = keras.Input((4,), name="inner_in")
    inner = keras.Model(inp, keras.layers.Dense(2, name="inner_dense")(inp), name="inner")
    x = keras.Input((8,), name="x")
    g = kc.Graph.from_model(keras.Model(x, inner(keras.layers.Dense(4, name="d0")(x)), name="outer"))
    g.disconnect("d0", "inner")                          # the nested model's slot is free
    g.add_input((4, 4, 3), name="img")                   # a rank-4 tensor
    g.add_input((5, 8), name="seq")
    g.add_layer("Dense", units=4, name="dense")
    g.connect("x", "dense")
    g.add_call("dense")                                  # call 1 takes only width 8
    g.add_layer("Add", name="add")
    g.connect("d0", "add")                               # slot 1 free: takes only (None, 4)
    g.add_layer("Concatenate", name="cat")
    g.add_layer("MultiHeadAttention", num_heads=2, key_dim=4, name="mha")
    g.connect("seq", "mha", slot=0)                      # value and key free
    g.add_layer("Conv2D", filters=2, kernel_size=2, name="conv")
    c = kc.Canvas(g)
    recorder(c)
    return c


def _outputs(g):
    found = []
    for name in g.layers:
        for node in range(g.calls(name)):
            for t in range(3):
                if g.tensor((name, node, t)) is not None:
                    found.append([name, node, t])
    return found


def test_every_lit_slot_is_accepted_and_every_dimmed_one_refused(canvas):
    g = canvas.graph
    outputs = _outputs(g)
    assert ["inner", 0, 0] not in outputs  # the nested model's call waits for its input
    judged, disagree = 0, []
    for src in outputs:
        hint = ports_accepting(g, g.tensor(tuple(src)))
        for verdict, keys in (("lit", hint["accept"]), ("dimmed", hint["refuse"])):
            for key in keys:
                _, name, call, slot = key.split(":")
                slot_arg = None if g.specs[name].slots.kind == "list" else int(slot)
                before = g.edges
                answer = _intent(canvas, kind="connect", id=2, src=src, dst=[name, int(call), slot_arg])
                if answer.get("ok"):
                    assert _intent(canvas, kind="undo", id=3)["ok"]
                assert g.edges == before
                judged += 1
                if bool(answer.get("ok")) != (verdict == "lit"):
                    disagree.append((src, key, verdict, answer.get("error", "accepted")[:120]))
    assert not disagree, disagree
    # every free slot was judged for every output: inner 0.0, dense 1.0, add 0.1, cat 0.0, mha 0.1,
    # 0.2 and 0.3 (value, key, and attention_mask, a tensor keyword slot), conv 0.0
    assert judged == 8 * len(outputs)


def _hints(canvas, src):
    return ports_accepting(canvas.graph, canvas.graph.tensor(tuple(src)))


def test_the_hints_name_the_slots_the_issue_saw_refused(canvas):
    """A second call of a Dense takes only its first call's width; a rank-4 tensor lights neither
    that call nor the Add; the value and key of a MultiHeadAttention are judged."""
    hint = _hints(canvas, ["img", 0, 0])
    assert "in:dense:1:0" in hint["refuse"]
    assert "in:add:0:1" in hint["refuse"]
    assert "in:conv:0:0" in hint["accept"]
    same = _hints(canvas, ["x", 0, 0])
    assert "in:dense:1:0" in same["accept"]
    seq = _hints(canvas, ["seq", 0, 0])
    assert {"in:mha:0:1", "in:mha:0:2"} <= set(seq["accept"])
    fits = _hints(canvas, ["dense", 0, 0])
    assert "in:add:0:1" in fits["accept"]  # (None, 4) beside d0's (None, 4)
