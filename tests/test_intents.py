"""One description of the intents (kerascanvas/intents.json) for kernel and browser: the kernel
handles exactly the kinds it names and refuses an intent missing a required field.
(js/test/protocol.test.ts checks the front end's side against the same file.)"""

import pytest

import kerascanvas as kc
from kerascanvas import intents, widget

SPECIAL = {"save", "load", "train", "stop", "state", "forward_steps"}  # handled in Canvas.handle


def test_the_description_names_exactly_the_kinds_the_kernel_handles():
    assert set(intents.kinds()) == set(widget._HANDLERS) | SPECIAL


def test_every_field_has_a_known_type_and_no_field_is_both_required_and_optional():
    types = {"name", "names", "class_name", "index", "number", "flag", "port", "slot", "config",
             "shape", "view", "revision", "dtype", "choice", "choices"}
    for kind, fields in intents.kinds().items():
        assert set(fields) == {"required", "optional"}, kind
        assert not set(fields["required"]) & set(fields["optional"]), kind
        assert set(fields["required"].values()) | set(fields["optional"].values()) <= types, kind


@pytest.mark.parametrize("message, words", [
    ({"kind": "move", "id": 1, "name": "x", "x": 3}, "'move' intent needs 'y'"),
    ({"kind": "connect", "id": 2, "src": ["x", 0, 0]}, "'connect' intent needs 'dst'"),
    ({"kind": "rewire", "id": 3, "src": ["x", 0, 0], "old": ["d", 0, 0]}, "needs 'new'"),
    ({"kind": "exec", "id": 4}, "Unknown intent kind 'exec'"),
    ({"kind": None, "id": 5}, "Unknown intent kind None"),
])
def test_a_kind_not_described_or_a_missing_required_field_is_refused(message, words):
    canvas = kc.Canvas()
    canvas.graph.add_input((4,), name="x")
    sent = []
    canvas.send = sent.append
    canvas._on_message(canvas, message)
    assert words in sent[-1]["error"] and sent[-1]["id"] == message["id"]
    assert list(canvas.graph.layers) == ["x"]
