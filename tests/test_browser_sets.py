"""What the browser may set (issue 38): nothing it sends names a file. `path` and every other
synced trait the kernel acts on belong to the kernel: a comm update of one is refused, logged
and set back in the browser; the three traits the front end does set are checked."""

import gc
import inspect
import logging
import sys

import pytest
from support import Wire, intent, recorded_canvas

import kerascanvas as kc
from kerascanvas.canvas.widget import BROWSER_SETS


def small_graph():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="head")
    g.connect("x", "head")
    return g


def test_the_browser_cannot_choose_the_file_save_writes_or_load_reads(tmp_path, caplog):
    own, target = tmp_path / "model.kcanvas", tmp_path / "site-packages" / "evil.pth"
    target.parent.mkdir()
    target.write_text("import os  # a file the kernel can write\n")
    canvas = kc.Canvas(small_graph(), path=str(own))
    wire = Wire(canvas)
    with caplog.at_level(logging.WARNING, logger="kerascanvas.widget"):
        wire.update({"path": str(target)})
    assert canvas.path == str(own)
    assert "'path'" in caplog.text and "refused" in caplog.text
    sent_back = [m["state"] for m in wire.messages if m.get("method") == "update"]
    assert {"path": str(own)} in sent_back  # the browser's copy is set back
    wire.deliver({"kind": "save", "id": 1})
    assert wire.custom()[-1] == {"id": 1, "ok": True, "result": str(own)}
    assert target.read_text() == "import os  # a file the kernel can write\n"  # untouched
    assert kc.Graph.load(own).layers.keys() == {"x", "head"}
    wire.update({"path": str(target)})
    wire.deliver({"kind": "load", "id": 2})
    assert wire.custom()[-1]["ok"] and list(canvas.graph.layers) == ["x", "head"]


def test_every_synced_trait_but_three_is_the_kernels(caplog):
    canvas = kc.Canvas(small_graph(), path="somewhere.kcanvas")
    wire = Wire(canvas)
    owned = sorted(set(canvas.keys) - set(BROWSER_SETS))
    assert {"path", "snapshot", "revision", "palette", "training", "height", "_esm"} <= set(owned)
    before = {name: getattr(canvas, name) for name in owned}
    for name in owned:
        value = before[name]
        other = ("/etc/passwd" if isinstance(value, str) else 99 if isinstance(value, int)
                 else {"layers": []} if isinstance(value, dict) else [1] if isinstance(value, list)
                 else "IPY_MODEL_x")
        with caplog.at_level(logging.WARNING, logger="kerascanvas.widget"):
            wire.update({name: other})
        assert getattr(canvas, name) == value, name
        assert repr(name) in caplog.text
        caplog.clear()
    wire.update({"edits": 3, "insight_focus": "head", "insight_epoch": 1.0})
    assert (canvas.edits, canvas.insight_focus, canvas.insight_epoch) == (3, "head", 1.0)


@pytest.mark.parametrize("name, value", [
    ("edits", -1), ("edits", 10**400), ("edits", "3"), ("edits", True),
    ("insight_epoch", 10**400), ("insight_epoch", float("nan")), ("insight_epoch", "1"),
    ("insight_focus", "x\udc80"), ("insight_focus", "x" * 2000), ("insight_focus", 5)])
def test_what_the_browser_may_set_is_checked(name, value, caplog):
    canvas = kc.Canvas(small_graph())
    wire = Wire(canvas)
    before = getattr(canvas, name)
    with caplog.at_level(logging.WARNING, logger="kerascanvas.widget"):
        wire.update({name: value})
    assert getattr(canvas, name) == before and "refused" in caplog.text


def test_an_echo_of_the_kernels_own_value_is_no_refusal(caplog):
    canvas = kc.Canvas(small_graph())
    wire = Wire(canvas)
    with caplog.at_level(logging.WARNING, logger="kerascanvas.widget"):
        wire.update({"height": canvas.height, "revision": canvas.revision, "state": {}})
    assert caplog.text == ""


# ----- numbers out of range in intents: refused naming the field, nothing changed ---------------

HUGE = 10**400  # valid JSON


@pytest.mark.parametrize("message, field", [
    ({"kind": "move", "name": "head", "x": HUGE, "y": 0}, "'x'"),
    ({"kind": "add_layer", "class_name": "Dense", "x": 0, "y": HUGE}, "'y'"),
    ({"kind": "add_layer", "class_name": "Dense", "config": {"units": HUGE}}, "config value"),
    ({"kind": "duplicate", "names": ["head"], "view": [HUGE, 0, 10, 10]}, "'x'"),
    ({"kind": "train", "epochs": HUGE}, "'epochs'"),
    ({"kind": "train", "learning_rate": HUGE}, "'learning_rate'"),
    ({"kind": "remove_call", "name": "head", "call": -HUGE}, "'call'"),
    ({"kind": "configure_call", "name": "head", "call": 0, "settings": {"training": HUGE}},
     "training"),
    ({"kind": "state", "have": HUGE}, "'have'"),
])
def test_a_number_out_of_range_is_refused_by_name(message, field):
    canvas = recorded_canvas(small_graph())
    before = canvas.state
    answer = intent(canvas, id=7, **message)
    assert "error" in answer and "Internal error" not in answer["error"], answer
    assert field in answer["error"] and "range" in answer["error"]
    assert canvas.state == before


# ----- Ctrl+C while a canvas takes a loaded drawing ----------------------------------------------

def interrupt_at(line: int, action) -> bool:
    """Raise KeyboardInterrupt at the `line`-th line event in the canvas's module and the
    Graph's (its observe) while `action()` runs (what is made aside before the swap, the new
    state, changes nothing of the canvas); True if it was raised."""
    seen = [0]
    files = (inspect.getfile(kc.Canvas), inspect.getfile(kc.Graph))

    def tracer(frame, event, arg):
        if event == "line":
            seen[0] += 1
            if seen[0] == line:
                raise KeyboardInterrupt
        return tracer

    gc.disable()  # (a collected widget's __del__ would take the interrupt meant for `action`)
    sys.settrace(lambda frame, event, arg: tracer if frame.f_code.co_filename in files else None)
    try:
        action()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
        gc.enable()
    return False


def test_an_interrupt_at_any_line_of_taking_a_drawing_leaves_one_watched_and_shown():
    old, new = small_graph(), small_graph()
    new.add_layer("Dense", units=3, name="more")
    gc.collect()
    line, interrupted = 1, True
    while interrupted:
        canvas = kc.Canvas(old)
        interrupted = interrupt_at(line, lambda c=canvas: setattr(c, "graph", new))
        held = canvas.graph
        assert held is old or held is new, line
        # shown: the browser's snapshot is the held drawing, or the revision makes it ask for it
        names = [layer["name"] for layer in canvas.snapshot["layers"]]
        assert names == list(held.layers) or canvas.revision > canvas.snapshot["revision"], line
        assert [layer["name"] for layer in canvas.state["layers"]] == list(held.layers), line
        # watched: an edit of the held drawing reaches the state, and one of the other does not
        revision = canvas.revision
        held.add_layer("Dropout", rate=0.1, name=f"d{line}")
        assert f"d{line}" in [layer["name"] for layer in canvas.state["layers"]], line
        assert canvas.revision > revision, line
        other = new if held is old else old
        other.add_layer("Dropout", rate=0.1, name=f"o{line}")
        assert f"o{line}" not in [layer["name"] for layer in canvas.state["layers"]], line
        held.remove(f"d{line}"), other.remove(f"o{line}")
        canvas.close()
        line += 1
    assert line > 10  # the interrupts did land inside the swap
