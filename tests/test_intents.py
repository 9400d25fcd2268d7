"""One description of the intents (kerascanvas/canvas/intents.json) for kernel and browser: the kernel
handles exactly the kinds it names and refuses an intent missing a required field or holding a
field of another type than the description says, changing nothing.
(js/test/protocol.test.ts checks the front end's side against the same file.)"""

import json
import os
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings
from support import fingerprint

import kerascanvas as kc
from kerascanvas.canvas import intent_checks, intent_handlers, intents


def test_the_description_names_exactly_the_kinds_the_kernel_handles():
    assert set(intents.kinds()) == set(intent_handlers.INTENTS)  # one table, no kind beside it


def test_only_edits_of_the_drawing_are_taken_back_when_their_state_is_too_big():
    edits = {k for k in intents.kinds() if intent_handlers.edits(k)}
    assert {"add_layer", "connect", "remove", "configure_call", "undo", "set_outputs"} <= edits
    assert not edits & {"explain", "accepts", "code", "state", "save", "load", "train", "stop",
                        "forward_steps", "export_html"}
    assert not intent_handlers.edits("exec") and not intent_handlers.edits(None)


def test_a_message_that_is_not_an_object_is_refused():
    with pytest.raises(intent_checks.IntentError, match="An intent is an object, got list"):
        kc.Canvas().handle(["add_input"])


def test_every_field_has_a_described_type_and_no_field_is_both_required_and_optional():
    types = intents.types()
    for kind, fields in intents.kinds().items():
        assert set(fields) == {"required", "optional"}, kind
        assert not set(fields["required"]) & set(fields["optional"]), kind
        for type_name in [*fields["required"].values(), *fields["optional"].values()]:
            assert type_name.removesuffix("?") in types, (kind, type_name)


def test_every_type_is_a_known_form_made_of_described_types():
    for name, spec in intents.types().items():
        assert set(spec) <= {"is", "of", "means"} and spec["means"], name
        assert spec["is"] in intents.FORMS, name
        if spec["is"] == "list":
            assert spec["of"].removesuffix("?") in intents.types(), name
        elif spec["is"] == "tuple":
            assert all(t.removesuffix("?") in intents.types() for t in spec["of"].values()), name
        else:
            assert "of" not in spec, name


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
    canvas.receive(message)
    assert words in sent[-1]["error"] and sent[-1]["id"] == message["id"]
    assert list(canvas.graph.layers) == ["x"]


# ----- field types ------------------------------------------------------------------------------

def _valid(type_name: str) -> st.SearchStrategy:
    """Values of a described type (any range: the check is about types)."""
    nullable = type_name.endswith("?")
    spec = intents.types()[type_name.removesuffix("?")]
    form = spec["is"]
    if form == "list":
        made = st.lists(_valid(spec["of"]), max_size=3)
    elif form == "tuple":
        made = st.tuples(*map(_valid, spec["of"].values())).map(list)
    else:
        made = {"text": st.text(max_size=6), "int": st.integers(-5, 10_000),
                "number": st.integers(-5, 5) | st.floats(-1e6, 1e6), "bool": st.booleans(),
                "object": st.dictionaries(st.sampled_from(["units", "rate"]), st.integers(1, 4),
                                          max_size=2)}[form]
    return made | st.none() if nullable else made


ANY_JSON = (st.none() | st.booleans() | st.integers(-10, 10) | st.floats(-10, 10)
            | st.text(max_size=4) | st.lists(st.integers(0, 3), max_size=3)
            | st.dictionaries(st.text(max_size=2), st.integers(0, 3), max_size=2))

# What each form takes, written out again here (not read from intents.FORMS): the oracle.
TAKES = {"text": lambda v: type(v) is str, "int": lambda v: type(v) is int,
         "number": lambda v: type(v) in (int, float), "bool": lambda v: type(v) is bool,
         "object": lambda v: type(v) is dict, "list": lambda v: type(v) is list,
         "tuple": lambda v: type(v) is list}


def _wrong(type_name: str) -> st.SearchStrategy:
    """JSON values not of the type's form (never a list for a list or tuple type: its items
    are what is wrong then, see _mistyped_intent)."""
    nullable = type_name.endswith("?")
    form = intents.types()[type_name.removesuffix("?")]["is"]
    return ANY_JSON.filter(lambda v: not (TAKES[form](v) or (v is None and nullable)))


FIELDS = [(kind, field, type_name) for kind, fields in intents.kinds().items()
          for group in ("required", "optional") for field, type_name in fields[group].items()]


@st.composite
def _mistyped_intent(draw):
    """(an intent whose fields all have their types but one, the words that must begin the
    refusal: the intent, that field, "must be")."""
    kind, field, type_name = draw(st.sampled_from(FIELDS))
    fields = intents.kinds()[kind]
    message = {"kind": kind, "id": 7}
    for f, t in fields["required"].items():
        message[f] = draw(_valid(t))
    for f, t in fields["optional"].items():
        if draw(st.booleans()):
            message[f] = draw(_valid(t))
    spec = intents.types()[type_name.removesuffix("?")]
    where = f"'{field}'"
    if spec["is"] == "tuple" and draw(st.booleans()):  # one item of the tuple is wrong
        items = list(spec["of"].items())
        i = draw(st.integers(0, len(items) - 1))
        value = draw(_valid(type_name.removesuffix("?")))
        value[i] = draw(_wrong(items[i][1]))
        where = f"'{items[i][0]}' of '{field}'"
    elif spec["is"] == "list" and draw(st.booleans()):  # one item of the list is wrong
        value = draw(st.lists(_valid(spec["of"]), min_size=1, max_size=3))
        i = draw(st.integers(0, len(value) - 1))
        value[i] = draw(_wrong(spec["of"]))
        where = f"item {i} of '{field}'"
    else:
        value = draw(_wrong(type_name))
    message[field] = value
    return message, f"{kind}: {where} must be "


def _canvas():
    canvas = kc.Canvas()
    canvas.graph.add_input((4,), name="x")
    canvas.graph.add_layer("Dense", units=3, name="d")
    canvas.graph.connect("x", "d")
    return canvas


def test_an_intent_with_a_field_of_another_type_is_refused_naming_it_and_changes_nothing():
    canvas = _canvas()
    sent = []
    canvas.send = sent.append
    before, state = fingerprint(canvas.graph), canvas.state

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_mistyped_intent())
    def refused(case):
        message, words = case
        canvas.receive(message)
        assert sent[-1]["id"] == 7 and "ok" not in sent[-1], (message, sent[-1])
        assert sent[-1]["error"].startswith(words), (message, sent[-1]["error"])
        assert fingerprint(canvas.graph) == before and canvas.state == state

    refused()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(intents.kinds())).flatmap(lambda kind: st.fixed_dictionaries(
    {f: _valid(t) for f, t in intents.kinds()[kind]["required"].items()},
    optional={f: _valid(t) for f, t in intents.kinds()[kind]["optional"].items()},
).map(lambda fields: {"kind": kind, "id": 1, **fields})))
def test_an_intent_whose_fields_have_their_types_passes_the_check(message):
    assert intents.check(message) == message["kind"]


@pytest.mark.parametrize("message, words", [
    ({"kind": "connect", "src": ["x", 0, 0], "dst": ["d", "x", 0]},
     "connect: 'call' of 'dst' must be a whole number, got 'x'."),
    ({"kind": "connect", "src": ["x", 0], "dst": ["d", 0, 0]},
     "connect: 'src' must be [layer, node_index, tensor_index], got ['x', 0]."),
    ({"kind": "move", "name": "d", "x": "3", "y": 0}, "move: 'x' must be a number, got '3'."),
    ({"kind": "move", "name": "d", "x": True, "y": 0}, "move: 'x' must be a number, got True."),
    ({"kind": "expand", "name": "d", "open": 1}, "expand: 'open' must be true or false, got 1."),
    ({"kind": "remove", "names": ["d", 3]}, "remove: item 1 of 'names' must be a layer name, got 3."),
    ({"kind": "remove_call", "name": "d", "call": 1.0},
     "remove_call: 'call' must be a whole number, got 1.0."),
    ({"kind": "add_input", "shape": [4, "8"]},
     "add_input: item 1 of 'shape' must be a whole number or null, got '8'."),
    ({"kind": "add_layer", "class_name": "Dense", "view": [0, 0, 1]},
     "add_layer: 'view' must be [x, y, width, height] or null, got [0, 0, 1]."),
    ({"kind": "configure", "name": "d", "config": [["units", 4]]},
     "configure: 'config' must be an object, got [['units', 4]]."),
    ({"kind": "rewire", "src": ["x", 0, 0], "old": ["d", 0, 0], "new": ["d", 0, None, 1]},
     "rewire: 'new' must be [layer, call, slot or null] or null, got ['d', 0, None, 1]."),
    ({"kind": "train", "epochs": "10"}, "train: 'epochs' must be a whole number, got '10'."),
    ({"kind": "state", "have": "3"}, "state: 'have' must be a revision (a whole number) or null"),
])
def test_a_mistyped_field_is_named_with_what_was_expected_and_what_came(message, words):
    canvas = _canvas()
    sent = []
    canvas.send = sent.append
    before = fingerprint(canvas.graph)
    canvas.receive({**message, "id": 3})
    assert sent[-1]["error"].startswith(words) and sent[-1]["id"] == 3
    assert fingerprint(canvas.graph) == before


def test_null_where_the_description_allows_it_reaches_the_handler():
    canvas = _canvas()
    assert intents.check({"kind": "rewire", "src": ["x", 0, 0], "old": ["d", 0, 0], "new": None})
    name = canvas.handle({"kind": "add_layer", "class_name": "Dense", "name": None, "x": None,
                          "y": None, "view": None, "src": ["d", 0, 0]})
    assert canvas.graph.edges[-1] == (("d", 0, 0), (name, 0, 0))
    canvas.handle({"kind": "connect", "src": ["x", 0, 0], "dst": ["d", 1, None]})  # the next slot
    assert canvas.graph.calls("d") == 2


# ----- one verdict on both sides ------------------------------------------------------------------
# The cases below are also written to js/test/fixtures/intent_types.json (KC_WRITE_FIXTURES=1);
# vitest runs them through js/src/mirror/protocol.ts's check, which must refuse the same intents with
# the same words up to ", got" (where each side shows the value in its own notation).

CROSS = Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures" / "intent_types.json"
# JSON values of every form; none a float with a whole value (the browser never sends 2.0: JSON
# from JavaScript writes it 2, an int to the kernel).
WRONG = ["x", 7, 1.5, -3, True, None, {}, {"a": 1}, [], ["x"], [1, 2, 3], ["x", 0, 0]]
SAMPLE = {"text": "x", "int": 0, "number": 2.5, "bool": False, "object": {"units": 2}}


def _sample(type_name: str):
    spec = intents.types()[type_name.removesuffix("?")]
    if spec["is"] == "list":
        return [_sample(spec["of"])]
    if spec["is"] == "tuple":
        return [_sample(t) for t in spec["of"].values()]
    return SAMPLE[spec["is"]]


def _cross_cases() -> list[dict]:
    cases = []
    for kind, fields in intents.kinds().items():
        base = {"kind": kind, **{f: _sample(t) for f, t in fields["required"].items()}}
        cases.append(base)
        for group in ("required", "optional"):
            for field, type_name in fields[group].items():
                cases += [{**base, field: w} for w in WRONG]
                spec = intents.types()[type_name.removesuffix("?")]
                if spec["is"] in ("tuple", "list"):
                    for i in range(len(_sample(type_name))):
                        for w in WRONG:
                            value = _sample(type_name)
                            value[i] = w
                            cases.append({**base, field: value})
    unique = {json.dumps(c): c for c in cases}  # (a wrong value may be the sample itself)
    return list(unique.values())


def _verdict(message: dict) -> str | None:
    """None when the kernel's check takes the intent; else its refusal up to ", got"."""
    try:
        intents.check(message)
    except ValueError as e:
        return str(e).split(", got ")[0]
    return None


def test_the_cases_vitest_checks_get_the_kernels_verdict():
    if os.environ.get("KC_WRITE_FIXTURES") == "1":
        cases = [{"intent": c, "refused": _verdict(c)} for c in _cross_cases()]
        CROSS.write_text("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")  # a case a line
    cases = json.loads(CROSS.read_text())
    assert len(cases) > 500 and sum(c["refused"] is None for c in cases) > 50
    for case in cases:
        assert _verdict(case["intent"]) == case["refused"], case


# ----- the training panel's fields (checked before Trainer.fit sees them) -----------------------

def test_panel_options_are_checked():
    import keras

    from kerascanvas.training import trainer as training

    options = intent_checks.panel_options({
        "optimizer": "sgd", "learning_rate": 0.05, "loss": "auto", "metrics": ["accuracy"],
        "epochs": 3, "batch_size": 16, "validation_split": 0.25, "strategy": "mirrored"})
    assert options == {"optimizer": "sgd", "learning_rate": 0.05, "loss": None,
                       "metrics": ["accuracy"], "epochs": 3, "batch_size": 16,
                       "validation_split": 0.25, "strategy": "mirrored"}
    for bad, match in (({"optimizer": "os.system"}, "'optimizer' must be one of"),
                       ({"learning_rate": float("nan")}, "'learning_rate' must be a number"),
                       ({"epochs": 2.5}, "'epochs' must be a whole number"),
                       ({"epochs": True}, "'epochs' must be a whole number"),
                       ({"batch_size": 0}, "'batch_size' must be a whole number"),
                       ({"validation_split": 1}, "'validation_split' must be a number"),
                       ({"metrics": "accuracy"}, "'metrics' must be a list"),
                       ({"metrics": [{"x": 1}]}, "'metrics' must be one of"),
                       ({"loss": None}, "'loss' must be one of"),
                       ({"strategy": "tf.distribute.X"}, "'strategy' must be one of")):
        with pytest.raises(intent_checks.IntentError, match=match):
            intent_checks.panel_options(bad)
    names = training.choices()
    for name in names["optimizers"]:
        keras.optimizers.get(name)
    for name in names["losses"][1:]:
        keras.losses.get(name)
    for name in names["metrics"]:
        keras.metrics.get(name)
