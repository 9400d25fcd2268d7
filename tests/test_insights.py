"""Training insights (issue 21): per-layer records of weights, gradients and activations while a
drawn network trains, the problems they name, their undo, their file, the browser's view; and the
training panel's word when a run was undone (issue 18). Quick: a few epochs on 256 digits."""

from __future__ import annotations

import json
import math
import os
import threading
import time
import warnings
import zipfile
from pathlib import Path

import keras
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kerascanvas as kc
from kerascanvas import limits
from kerascanvas.datasets import digits
from kerascanvas.drawing.drawing import EditError
from kerascanvas.insights import insights, record_program, recording


@pytest.fixture
def every_epoch(monkeypatch):
    """Every epoch recorded, as when records cost little beside an epoch (recording.record_epoch
    chooses the epochs within a budget: these tests' epochs are a few milliseconds)."""
    monkeypatch.setattr(recording, "record_epoch", lambda *a, **k: True)


@pytest.fixture(scope="module")
def data():
    x, y = digits()
    return x[:256], y[:256]


def drawn(bias: float = 0.0, units: int = 16) -> kc.Graph:
    """image -> Flatten -> Dense(units, relu, bias from `bias`) -> Dense(10) logits."""
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Flatten")
    g.add_layer("Dense", units=units, activation="relu",
                bias_initializer={"class_name": "Constant", "config": {"value": bias}})
    g.add_layer("Dense", units=10)
    for src, dst in (("image", "flatten"), ("flatten", "dense"), ("dense", "dense_1")):
        g.connect(src, dst)
    return g


def trained(data, epochs=2, bias=0.0, **fit):
    canvas = kc.Canvas(drawn(bias))
    canvas.set_data(*data)
    canvas.fit(epochs=epochs, batch_size=32, **fit)
    insights.of(canvas.graph).settle()  # (a new model's records may land after its run ends)
    return canvas


def kinds(canvas, layer):
    return {kind for name, kind, _, _ in canvas.insight_problems if name == layer}


def test_one_record_per_layer_and_epoch_with_weights_gradients_activations(data, every_epoch):
    canvas = trained(data, epochs=3)
    records = canvas.insights
    assert set(records) == {"flatten", "dense", "dense_1"}
    for name, rs in records.items():
        assert [r["epoch"] for r in rs] == [1, 2, 3], name
        assert all(not r["partial"] for r in rs)
    last = records["dense"][-1]
    kernel = last["weights"]["kernel"]
    live = np.asarray(canvas.graph.keras_layer("dense").get_weights()[0])
    assert kernel["mean"] == pytest.approx(float(live.mean()), abs=1e-5)
    assert kernel["std"] == pytest.approx(float(live.std()), rel=1e-3)
    assert kernel["norm"] == pytest.approx(float(np.linalg.norm(live)), rel=1e-3)
    assert sum(kernel["histogram"]["counts"]) == live.size
    assert kernel["histogram"]["range"] == pytest.approx([live.min(), live.max()], abs=1e-5)
    g = last["gradients"]["kernel"]
    assert g["norm"] > 0 and 0 < g["update_ratio"] < 1  # it learns, by small steps
    a = last["activations"]
    assert a["units"] == 16 and a["relu_like"] and 0 <= a["zeros"] < 1 and a["std"] > 0
    assert sum(a["histogram"]["counts"]) == recording.PROBE_SAMPLES * 16
    assert records["flatten"][-1]["weights"] == {}  # no weights: activations only
    assert kinds(canvas, "dense") == set()  # a healthy network names no problem


def test_a_relu_layer_whose_bias_starts_far_below_zero_has_dead_units(data):
    canvas = trained(data, epochs=2, bias=-50.0)
    problems = [p for p in canvas.insight_problems if p[:2] == ("dense", "dead_units")]
    assert len(problems) == 1
    _, _, epoch, message = problems[0]
    assert epoch == 2 and "16 of 16 units are dead" in message
    assert canvas.insights["dense"][-1]["activations"]["dead_units"] == 16
    assert canvas.insights["dense"][-1]["gradients"]["kernel"]["norm"] == 0  # nothing reaches it
    assert "dead_units" not in kinds(canvas, "dense_1")  # a linear layer's zeros are no ReLU's


def test_a_too_high_learning_rate_is_named(data):
    canvas = trained(data, epochs=2, learning_rate=1e3, optimizer="sgd")
    named = {(layer, kind) for layer, kind, _, _ in canvas.insight_problems}
    assert ("dense", "dead_units") in named  # the first steps threw its units into the dark


def test_problems_across_depth_from_records():
    def record(norm, epoch=4):
        return {"epoch": epoch, "partial": False, "weights": {},
                "gradients": {"kernel": {"norm": norm, "update_ratio": 0.01,
                                         "non_finite": norm is not None and not math.isfinite(norm)}},
                "activations": None}

    found = insights.problems({"a": (record(1e-9),), "b": (record(0.5),), "c": (record(5e4),)})
    assert [(n, k, e) for n, k, e, _ in found] == [("a", "vanishing_gradients", 4),
                                                   ("c", "exploding_gradients", 4)]
    found = insights.problems({"a": (record(float("nan")),)})
    assert {k for _, k, _, _ in found} == {"non_finite", "exploding_gradients"}
    # across depth: a healthy deep network's first layers reach 100-150 times its median
    # layer's gradient (ResNet101's first convolution: 1,133 against 10), not exploding; a
    # network whose every layer's gradient is huge is, at every depth
    healthy = {f"l{i}": (record(10.0),) for i in range(9)} | {"first": (record(1133.0),)}
    assert insights.problems(healthy) == []
    huge = {f"l{i}": (record(1.4e6),) for i in range(5)}
    found = insights.problems(huge)
    assert {(k, "huge at every depth" in said) for _, k, _, said in found} == \
        {("exploding_gradients", True)}
    assert len(found) == 5
    # of two layers, one huge: huge against the other, not at every depth
    found = [p for p in insights.problems({"a": (record(5e4),), "b": (record(0.3),)})
             if p[0] == "a"]
    assert [(n, k) for n, k, _, _ in found] == [("a", "exploding_gradients")]
    assert "times the median layer's" in found[0][3]


def test_undo_of_a_run_takes_its_records_and_the_panel_says_so(data):
    canvas = kc.Canvas(drawn())
    canvas.send = lambda *a, **k: None  # no browser
    canvas.set_data(*data)
    canvas.fit(epochs=1, loss=None)
    canvas.fit(epochs=2, loss=None)
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1, 2, 3]  # runs count on
    assert canvas.training["undone"] is False and canvas.insight_summary["layers"]["dense"]
    canvas.receive({"kind": "undo", "id": 1})
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1]
    assert canvas.training["undone"] is True
    assert canvas.training["status"]["state"] == "finished"  # the run's own word stays below
    assert canvas.insight_summary["layers"]["dense"]["epochs"] == [1]
    canvas.receive({"kind": "redo", "id": 2})
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1, 2, 3]
    assert canvas.training["undone"] is False
    canvas.graph.undo()
    canvas.graph.undo()
    assert canvas.insights == {} and canvas.training["undone"] is True


def test_records_are_kept_in_the_drawings_file(data, tmp_path):
    canvas = trained(data, epochs=2, bias=-50.0)
    path = tmp_path / "dead.kcanvas"
    canvas.graph.save(path)
    loaded = kc.Canvas(kc.Graph.load(path))
    assert loaded.insights == canvas.insights
    assert ("dense", "dead_units") in {p[:2] for p in loaded.insight_problems}
    assert loaded.insight_summary["layers"]["dense"]["problems"]


@pytest.mark.parametrize("where, value, said", [
    (("weights", "kernel", "mean"), "<script>", "not a finite number"),
    (("weights", "kernel", "mean"), float("inf"), "not a finite number"),
    (("epoch",), float("nan"), "not a finite number"),  # (a later fit counted epochs from it)
    (("epoch",), -3, "negative"),
    (("gradients", "kernel", "norm"), -5e4, "negative"),
])
def test_a_file_with_bad_records_is_refused_and_names_them(data, tmp_path, where, value, said):
    canvas = trained(data, epochs=1)
    good = tmp_path / "good.kcanvas"
    canvas.graph.save(good)
    with zipfile.ZipFile(good) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    records = json.loads(entries["insights.json"])
    target = records["records"]["dense"][0]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value  # (json writes NaN and Infinity, and reads them back)
    bad = tmp_path / "bad.kcanvas"
    with zipfile.ZipFile(bad, "w") as z:
        for name, body in entries.items():
            z.writestr(name, json.dumps(records) if name == "insights.json" else body)
    with pytest.raises(EditError, match=said):
        kc.Graph.load(bad)


def test_a_files_records_of_a_layer_the_drawing_lacks_are_left_out(data, tmp_path):
    """Files saved before a removed box took its records kept them: read, they stay out (a
    problem of a layer that is gone was listed); a bad record is refused whoever it names."""
    canvas = trained(data, epochs=1, bias=-50.0)
    canvas.graph.save(tmp_path / "good.kcanvas")
    with zipfile.ZipFile(tmp_path / "good.kcanvas") as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    records = json.loads(entries["insights.json"])
    records["records"]["gone"] = records["records"]["dense"]
    with zipfile.ZipFile(tmp_path / "orphan.kcanvas", "w") as z:
        for name, body in entries.items():
            z.writestr(name, json.dumps(records) if name == "insights.json" else body)
    loaded = kc.Canvas(kc.Graph.load(tmp_path / "orphan.kcanvas"))
    assert set(loaded.insights) == {"flatten", "dense", "dense_1"}
    assert {p[0] for p in loaded.insight_problems} == {"dense"}
    records["records"]["gone"] = [{"epoch": -1}]
    with zipfile.ZipFile(tmp_path / "bad.kcanvas", "w") as z:
        for name, body in entries.items():
            z.writestr(name, json.dumps(records) if name == "insights.json" else body)
    with pytest.raises(EditError):
        kc.Graph.load(tmp_path / "bad.kcanvas")


def test_records_within_long_epochs_and_the_memory_cap(data, monkeypatch):
    monkeypatch.setattr(recording, "MIN_BATCHES_BETWEEN", 3)
    monkeypatch.setattr(recording, "COST_SHARE", 1e9)  # any cost is cheap enough
    canvas = trained(data, epochs=1)  # (a record's cost known: a run plans from its first epoch)
    canvas.fit(epochs=2, batch_size=32, loss=None)
    rs = canvas.insight_records["dense"]
    assert [r["epoch"] for r in rs if not r["partial"]] == [1, 2, 3]
    partial = [r["epoch"] for r in rs if r["partial"]]
    # within the run's second epoch (8 batches), after 3 batches; not after 3 more: that one
    # would come a batch before the epoch's own record
    assert partial == [2.375], partial
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1, 2, 3]  # one per epoch
    monkeypatch.setattr(limits, "INSIGHT_BYTES", 3 * 4000)
    with pytest.warns(RuntimeWarning, match="INSIGHT_BYTES"):
        canvas.fit(epochs=3, loss=None)
    rs = canvas.insight_records["dense"]
    assert len(rs) < 4 + len(partial) + 2 + 3 and rs[-1]["epoch"] == 6  # the latest kept


def test_insights_give_one_record_per_epoch_the_latest_taken_in_it():
    """Records within long epochs stay out of `canvas.insights` (one per epoch, as a per-epoch
    plot wants); an epoch that has no end record (thinned at the cap, or a loop that left it
    early) keeps its last."""
    store = insights.Insights()
    for epoch in (1, 1.5, 2, 2.25, 2.5, 3, 3.4):
        store.add({"dense": {**_strip_record(epoch, 1.0, 1.0), "partial": epoch % 1 != 0}})
    assert [r["epoch"] for r in store.records()["dense"]] == [1, 2, 3, 3.4]
    assert [r["epoch"] for r in store.records(within_epochs=True)["dense"]] == \
        [1, 1.5, 2, 2.25, 2.5, 3, 3.4]


def test_the_training_thread_never_waits_for_a_models_first_record(data, monkeypatch):
    """Its cost is asked for at the epoch's end, to plan records within epochs; waiting for it
    held training for the record's computation (under JAX for its compile, about a second on a
    50-layer model): here the first record cannot finish before the second epoch ends."""
    released = threading.Event()
    rows = record_program.Measure.rows

    def held_rows(self, vector):
        assert released.wait(20), "the first record was waited for"
        return rows(self, vector)

    class Release(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                released.set()

    monkeypatch.setattr(record_program.Measure, "rows", held_rows)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        canvas = trained(data, epochs=2, callbacks=[Release()])
    assert not [w for w in said if "insights" in str(w.message)]  # (no record failed)
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1, 2]


def test_the_browser_asks_for_a_boxs_histograms_by_name_only(data):
    canvas = trained(data, epochs=2)
    canvas.insight_focus = "no such box<img src=x>"
    assert canvas.insight_detail == {}
    canvas.insight_focus = "dense"
    detail = canvas.insight_detail
    assert detail["layer"] == "dense" and detail["epochs"] == [1, 2]
    assert set(detail["weights"]) == {"kernel", "bias"}
    assert len(detail["activations"]) == 2 and len(detail["activations"][0]["counts"]) == 16
    # the panel says what each record holds besides the histograms: gradients, dead units
    kept = canvas.insights["dense"]
    for i, record in enumerate(kept):
        for w in ("kernel", "bias"):
            shown = detail["weights"][w][i]
            assert shown["norm"] == record["gradients"][w]["norm"] > 0
            assert shown["update_ratio"] == record["gradients"][w]["update_ratio"]
        a = detail["activations"][i]
        assert (a["zeros"], a["dead_units"], a["units"]) == tuple(
            record["activations"][k] for k in ("zeros", "dead_units", "units"))
        assert a["units"] == 16
    json.dumps(detail, allow_nan=False)  # what Jupyter can send


def test_the_panel_shows_a_few_of_a_nested_models_weights_and_says_how_many_it_has(data):
    inner_in = keras.Input((64,), name="inner_in")
    h = inner_in
    for i in range(4):  # 8 weights: more than the panel shows
        h = keras.layers.Dense(8, activation="relu", name=f"inner_{i}")(h)
    image = keras.Input((8, 8, 1), name="image")
    flat = keras.layers.Flatten(name="flatten")(image)
    body = keras.Model(inner_in, h, name="body")
    model = keras.Model(image, keras.layers.Dense(10, name="head")(body(flat)))
    canvas = kc.Canvas(kc.Graph.from_model(model))
    canvas.set_data(*data)
    canvas.fit(epochs=1, batch_size=32)
    insights.of(canvas.graph).settle()  # (a new model's records may land after its run ends)
    canvas.insight_focus = "body"
    detail = canvas.insight_detail
    assert detail["weight_count"] == 8 == len(canvas.insights["body"][-1]["weights"])
    assert len(detail["weights"]) == insights.DETAIL_WEIGHTS < 8
    canvas.insight_focus = "head"
    assert canvas.insight_detail["weight_count"] == len(canvas.insight_detail["weights"]) == 2


def test_a_renamed_box_keeps_its_records_and_undo_takes_the_name_and_records_back(data, tmp_path):
    canvas = trained(data, epochs=2)
    g = canvas.graph
    before = canvas.insights
    g.rename("dense", "hidden")
    assert set(canvas.insights) == {"flatten", "hidden", "dense_1"}
    assert canvas.insights["hidden"] == before["dense"]
    canvas.insight_focus = "hidden"
    assert canvas.insight_detail["layer"] == "hidden" and canvas.insight_detail["epochs"] == [1, 2]
    assert "hidden" in canvas.insight_strips["layers"]
    canvas.fit(epochs=1, batch_size=32)  # the next run goes on in the same history
    assert [r["epoch"] for r in canvas.insights["hidden"]] == [1, 2, 3]
    g.save(tmp_path / "renamed.kcanvas")
    assert kc.Canvas(kc.Graph.load(tmp_path / "renamed.kcanvas")).insights == canvas.insights
    g.undo()  # the run
    g.undo()  # the rename: the records go back to the old name
    assert canvas.insights == before
    g.redo()
    assert set(canvas.insights) == {"flatten", "hidden", "dense_1"}
    with g.batch():  # names swapped in one step: each box keeps its own records
        g.rename("hidden", "swap")
        g.rename("dense_1", "hidden")
        g.rename("swap", "dense_1")
    assert canvas.insights["dense_1"] == before["dense"]
    assert canvas.insights["hidden"] == before["dense_1"]
    g.undo()
    assert canvas.insights["hidden"] == before["dense"]


def test_a_removed_box_takes_its_records_and_problems_and_undo_brings_them_back(data):
    canvas = trained(data, epochs=2, bias=-50.0)
    g = canvas.graph
    assert kinds(canvas, "dense") == {"dead_units", "vanishing_gradients"}
    g.remove("dense")  # the user takes the broken layer out...
    assert "dense" not in canvas.insights and kinds(canvas, "dense") == set()
    g.undo()
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1, 2]
    assert kinds(canvas, "dense") == {"dead_units", "vanishing_gradients"}
    g.redo()  # ...and draws a healthy one under the same name: it starts without records
    g.add_layer("Dense", units=16, activation="relu", name="dense")
    g.connect("flatten", "dense")
    g.connect("dense", "dense_1")
    assert "dense" not in canvas.insights and canvas.insight_problems == []
    canvas.fit(epochs=1, batch_size=32)
    assert [r["epoch"] for r in canvas.insights["dense"]] == [3]
    assert kinds(canvas, "dense") == set()


def test_training_without_insights_records_nothing(data):
    canvas = trained(data, epochs=1, insights=False)
    assert canvas.insights == {} and canvas.insight_problems == []


@pytest.mark.parametrize("part", ["start", "rows"])  # in the training thread; in the worker
def test_a_failure_while_recording_never_ends_the_training_run(data, monkeypatch, part):
    def broken(self, *args):
        raise RuntimeError("no statistics today")

    monkeypatch.setattr(recording.Measure, part, broken)
    canvas = kc.Canvas(drawn())
    canvas.set_data(*data)
    # (said as the run ends, or, for a new model's records that land after it, when they are
    # read: insights/late.py)
    with pytest.warns(RuntimeWarning, match="no statistics today"):  # noqa: PT031 - (either)
        history = canvas.fit(epochs=2)
        assert canvas.insights == {}
    assert len(history.history["loss"]) == 2 and canvas.trainer.status["state"] == "finished"


def test_the_forward_pass_view_shows_the_activations_recorded_at_a_chosen_epoch(data, every_epoch):
    canvas = trained(data, epochs=3)
    records = canvas.insights
    for k in (1, 2, 3):  # Python: each layer's output statistics as recorded at epoch k
        shown = canvas.activations_at(k)
        assert set(shown) == {"flatten", "dense", "dense_1"}
        for name, a in shown.items():
            assert a == records[name][k - 1]["activations"], (name, k)
    assert canvas.activations_at(1)["dense"]["mean"] != canvas.activations_at(3)["dense"]["mean"]
    with pytest.raises(ValueError, match=r"epoch 7; there are records at: 1, 2, 3"):
        canvas.activations_at(7)
    # the browser picks an epoch: each box's summary is that epoch's record, not a new run
    assert canvas.insight_activations == {"epochs": [1, 2, 3], "epoch": None, "layers": {}}
    canvas.insight_epoch = 2
    view = canvas.insight_activations
    assert view["epoch"] == 2 and view["epochs"] == [1, 2, 3]
    for name, box in view["layers"].items():
        a = records[name][1]["activations"]
        assert {k: box[k] for k in ("mean", "std", "zeros", "dead_units", "units")} == \
            {k: a[k] for k in ("mean", "std", "zeros", "dead_units", "units")}
        assert box["counts"] == a["histogram"]["counts"] and box["range"] == a["histogram"]["range"]
    canvas.insight_epoch = 3
    assert canvas.insight_activations["layers"]["dense"]["mean"] == records["dense"][2][
        "activations"]["mean"] != view["layers"]["dense"]["mean"]
    for asked, picked in ((2.4, 2), (99, 3), (-1, None), (float("nan"), None)):  # untrusted
        canvas.insight_epoch = asked
        assert canvas.insight_activations["epoch"] == picked, asked
    canvas.insight_epoch = 1
    canvas.graph.undo()  # the run's records go with its undo, and so does the view
    assert canvas.insight_activations == {"epochs": [], "epoch": None, "layers": {}}


def test_a_tf_data_pipeline_is_probed_under_every_backend(data):
    """A tf.data batch is TensorFlow's: the probe takes it as NumPy, so JAX's and torch's
    measures record activations and gradients from it too (they refused it before)."""
    import warnings

    import tensorflow as tf

    x, y = data
    canvas = kc.Canvas(drawn())
    canvas.set_data(tf.data.Dataset.from_tensor_slices((x, y)).batch(32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # "insights stopped recording" included
        canvas.fit(epochs=2)
    records = canvas.insights["dense"]
    assert [r["epoch"] for r in records] == [1, 2]
    assert all(r["activations"] and r["gradients"] for r in records)


def test_a_runs_updates_send_the_strips_again_only_when_records_land(data):
    """The canvas asks for the strips with every training update (ten a second); they go to the
    browser again only with new records (a run's start, its status updates, its end without a
    new record send nothing)."""
    canvas = trained(data, epochs=1)
    sent = []
    canvas.observe(lambda change: sent.append(change), names="insight_strips")
    canvas.fit(epochs=2, loss=None)
    assert sent, "the run's records reached the canvas"
    for change in sent:
        assert change["new"]["layers"] != change["old"]["layers"]
    assert sent[-1]["new"] == insights.wire_summary(insights.of(canvas.graph))
    strip = canvas.insight_summary["layers"]["dense"]
    assert strip["epochs"] == [1, 2, 3]
    norm = float(np.linalg.norm(np.concatenate(
        [w.ravel() for w in canvas.graph.keras_layer("dense").get_weights()])))
    assert strip["norms"][-1] == pytest.approx(norm, rel=1e-3)  # (4 significant digits)


def _strip_record(epoch, norm, std):
    def stats(**more):
        return {"mean": 0.0, "std": std, "norm": norm, "min": -1.0, "max": 1.0, "zeros": 0.0,
                "non_finite": 0, "histogram": {"counts": [1] * 16, "range": [-1.0, 1.0]}, **more}

    return {"epoch": epoch, "partial": False, "weights": {"kernel": stats()},
            "gradients": {"kernel": {"norm": 0.1, "update_ratio": 0.01, "non_finite": False}},
            "activations": stats(dead_units=0, units=4, relu_like=False)}


STRIPS_FIXTURE = Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures" / "strips.json"


def test_the_strips_as_the_browser_gets_them_say_what_the_summary_says():
    """wire_summary (a strip as one string a layer: ipywidgets walks no numbers) read back gives
    `summary`. The case is also js/test/fixtures/strips.json (KC_WRITE_FIXTURES=1 writes it),
    which vitest reads through js/src/training/insights.ts readStrips: one description, both sides."""
    store = insights.Insights()
    dead = _strip_record(1, 2.5, 0.0)
    dead["activations"].update(relu_like=True, dead_units=4, units=4)
    store.add({"dense": _strip_record(0.5, 1.23456789, 0.5), "flatten": _strip_record(0.5, 0, 0)})
    store.add({"dense": dead, "flatten": {**_strip_record(1, 0, 0), "weights": {},
                                         "activations": None}})
    wire, summary = insights.wire_summary(store), insights.summary(store)
    if os.environ.get("KC_WRITE_FIXTURES") == "1":
        STRIPS_FIXTURE.write_text(json.dumps({"wire": wire, "summary": summary}, indent=1) + "\n")
    assert json.loads(STRIPS_FIXTURE.read_text()) == {"wire": wire, "summary": summary}
    assert wire["layers"]["flatten"]["strip"] == "0.5;0.0;0.0,1;;"  # (no weights, no output)
    assert summary["layers"]["dense"]["norms"] == [1.235, 2.5]
    assert [p["kind"] for p in summary["layers"]["dense"]["problems"]] == ["dead_units"]
    for name, layer in summary["layers"].items():
        points = [p.split(";") for p in wire["layers"][name]["strip"].split(",")]
        for i, column in enumerate(("epochs", "norms", "spreads")):
            assert [float(p[i]) if p[i] else None for p in points] == layer[column]
        assert wire["layers"][name]["problems"] == layer["problems"]
    assert insights.wire_summary(store) is wire  # (the same records: nothing to send again)


@pytest.mark.parametrize("read", ["summary", "wire_summary"])
def test_a_record_that_lands_while_the_strips_are_made_is_not_in_them(read, monkeypatch):
    """The worker adds records while the canvas reads the strips: the answer kept for one
    reading of the records is made of that reading (else an undo back to it showed the strips
    of records it does not have)."""
    store = insights.Insights()
    store.add({"dense": _strip_record(1, 1.0, 1.0)})
    first = store.cell["records"]
    strips_now = insights._strips_now

    def landing(store_, *args):
        if store_.cell["records"] is first:
            store_.add({"dense": _strip_record(2, 2.0, 1.0)})  # (the worker, meanwhile)
        return strips_now(store_, *args)

    monkeypatch.setattr(insights, "_strips_now", landing)
    getattr(insights, read)(store)
    store.cell["records"] = first  # (what an undo does)
    answer = getattr(insights, read)(store)["layers"]["dense"]
    assert answer.get("epochs", answer.get("strip")) in ([1], "1;1.0;1.0")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("add"), st.integers(1, 3)),
                          st.tuples(st.just("back"), st.integers(0, 50)),
                          st.tuples(st.just("file"), st.just(0))), max_size=60),
       st.booleans())
def test_the_strips_kept_between_updates_read_as_a_fresh_reading_does(steps, small_cap):
    """What `summary` and `epochs` keep between updates (a strip grows by the records that land,
    the epochs by theirs) give the same answer as reading the records afresh, after records, thinning at the cap, undo and
    redo (the records of another moment put back) and a file's records."""
    store, seen, epoch = insights.Insights(), [], 0
    cap = 40 * len(json.dumps(_strip_record(1.5, 1.0, 1.0))) if small_cap else limits.INSIGHT_BYTES
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (thinning says so once)
        patch.setattr(limits, "INSIGHT_BYTES", cap)
        if small_cap:  # (and the cap on memory: a file of what is kept must load)
            patch.setattr(limits, "INSIGHT_MEMORY", 30 * limits.INSIGHT_VALUE_BYTES *
                          limits.json_values(json.dumps(_strip_record(1.5, 1.0, 1.0))))
        for kind, n in steps:
            if kind == "add":
                for _ in range(n):
                    epoch += 1
                    store.add({name: _strip_record(epoch, epoch * k, 1.0 / epoch)
                               for k, name in enumerate(("a", "b"), 1)})
            elif kind == "back" and seen:
                store.cell["records"] = seen[n % len(seen)]
            else:
                store.load_json(store.to_json() or '{"version": 1, "records": {}}', "a file",
                                ("a", "b"))
            seen.append(store.cell["records"])
            fresh = insights.Insights()
            fresh.cell["records"] = store.cell["records"]
            answer = insights.summary(store)
            assert answer == insights.summary(fresh)
            assert store.epochs() == fresh.epochs()  # (kept between records, as the strips are)
            assert insights.summary(store) is answer  # the same, while nothing landed


def test_records_slower_than_epochs_wait_so_that_few_copies_are_held(data, every_epoch, monkeypatch):
    """Each record started holds a copy of the weights until it is in the store: records slower
    than the epochs (a large model's eager records, tiny epochs) wait for the oldest, so that at
    most recording.PENDING_RECORDS are under way; every epoch still has its record."""
    lock = threading.Lock()
    under_way, most = [0], [0]
    start, rows = record_program.Measure.start, record_program.Measure.rows

    def counted_start(self, *args):
        with lock:
            under_way[0] += 1
            most[0] = max(most[0], under_way[0])
        return start(self, *args)

    def slow_rows(self, vector):
        time.sleep(0.3)
        try:
            return rows(self, vector)
        finally:
            with lock:
                under_way[0] -= 1

    monkeypatch.setattr(record_program.Measure, "start", counted_start)
    monkeypatch.setattr(record_program.Measure, "rows", slow_rows)
    x, y = data
    canvas = kc.Canvas(drawn())
    canvas.set_data(x[:64], y[:64])  # epochs of 2 batches: far quicker than a record
    canvas.fit(epochs=6, block=True)
    assert most[0] == recording.PENDING_RECORDS
    assert [r["epoch"] for r in canvas.insights["dense"]] == [1, 2, 3, 4, 5, 6]


def _rewritten(tmp_path, good, name, change):
    """A copy of the file `good` whose insights.json `change(records)` changed."""
    with zipfile.ZipFile(good) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    records = json.loads(entries["insights.json"])
    change(records["records"])
    bad = tmp_path / name
    with zipfile.ZipFile(bad, "w") as z:
        for entry, body in entries.items():  # (json.dumps writes a lone surrogate as \udc80)
            z.writestr(entry, json.dumps(records) if entry == "insights.json" else body)
    return bad


def _rename_weight(rs):
    rs["dense"][0]["weights"]["k\udc80"] = rs["dense"][0]["weights"].pop("kernel")


@pytest.mark.parametrize("change", [
    _rename_weight,
    lambda rs: rs["dense"][0]["gradients"].update({"\udc80": {"norm": 1.0}}),  # a key
    lambda rs: rs.update({"gone\udc80": rs["dense"]}),  # a layer name (of no layer here)
    lambda rs: rs["dense"][0].update({"partial": "\udc80"}),  # a string value
    lambda rs: rs["dense"][0]["weights"]["kernel"].update({"note\x00": 1}),  # a control char
], ids=["weight name", "gradient key", "layer name", "string value", "control character"])
def test_a_files_insight_text_that_is_not_valid_unicode_is_refused(data, tmp_path, change):
    """Issue 38: a lone surrogate in an insight record's weight name loaded, and then no state
    could be encoded (kc.Canvas(path=...) raised UnicodeEncodeError; the Load button replaced
    the drawing and answered with an error). Every string of insights.json, keys included, is
    checked as it enters: the load is refused naming the file, and creates nothing."""
    canvas = trained(data, epochs=1)
    good = tmp_path / "good.kcanvas"
    canvas.graph.save(good)
    bad = _rewritten(tmp_path, good, "bad.kcanvas", change)
    with pytest.raises(EditError, match=r"bad\.kcanvas.*insights\.json"):
        kc.Graph.load(bad)
    with pytest.raises(EditError, match=r"bad\.kcanvas"):
        kc.Canvas(path=str(bad))
    assert kc.Canvas(path=str(good)).insights == canvas.insights  # (a good file still loads)


def test_insight_records_are_capped_by_what_they_cost_in_memory_not_their_json_bytes():
    """Issue 38: 96 KiB of minimal insight records (32 MiB of JSON, under INSIGHT_BYTES) cost
    +560 MB and 6-9 s to load. Records are weighed by their values (limits.INSIGHT_MEMORY,
    limits.INSIGHT_VALUE_BYTES per value), counted before the JSON is parsed: such a file is
    refused at once, naming the cap, and the store is unchanged."""
    record = json.dumps({"epoch": 0, "weights": {}, "gradients": {}})
    count = limits.INSIGHT_MEMORY // (limits.INSIGHT_VALUE_BYTES * limits.json_values(record))
    text = '{"version": 1, "records": {"x": [' + ",".join([record] * (count + 10)) + "]}}"
    assert len(text) < limits.INSIGHT_BYTES  # (what the cap in JSON bytes let through)
    store = insights.Insights()
    store.add({"x": _strip_record(1, 1.0, 1.0)})
    before = store.cell["records"]
    started = time.perf_counter()
    with pytest.raises(limits.LimitError, match="INSIGHT_MEMORY|insight_memory") as refused:
        store.load_json(text, "'big.kcanvas'", ("x",))
    assert time.perf_counter() - started < 1.0  # (refused unparsed: 0.02 s)
    assert "big.kcanvas" in str(refused.value) and f"{limits.INSIGHT_MEMORY:,}" in str(refused.value)
    assert store.cell["records"] is before
    under = '{"version": 1, "records": {"x": [' + ",".join([record] * (count - 10)) + "]}}"
    store.load_json(under, "a file", ("x",))  # just under the cap: loads
    assert len(store.cell["records"]["x"]) == count - 10


def test_records_thinned_at_the_memory_cap_are_a_file_that_loads():
    """Training thins records at INSIGHT_MEMORY as at INSIGHT_BYTES, so that what it saves
    always loads again."""
    one = json.dumps(_strip_record(1.5, 1.0, 1.0))
    cap = 30 * limits.INSIGHT_VALUE_BYTES * limits.json_values(one)
    store = insights.Insights()
    with limits.allow(insight_memory=cap), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        for epoch in range(1, 60):
            store.add({name: _strip_record(epoch, 1.0, 1.0) for name in ("a", "b")})
        assert store.thinned and "INSIGHT_MEMORY" in str(said[0].message)
        text = store.to_json()
        assert limits.INSIGHT_VALUE_BYTES * limits.json_values(text) <= cap
        again = insights.Insights()
        again.load_json(text, "a file", ("a", "b"))
    assert again.cell["records"] == store.cell["records"]


def test_a_layer_unfrozen_between_runs_is_recorded_with_its_gradients(data, every_epoch):
    """The record program reads the model's trainable variables in order: unfreezing a layer
    changes that order on the same model, so the next run needs a program of its own (the CI
    JAX pass stopped recording with 'Invalid variable value in StatelessScope')."""
    canvas = kc.Canvas(drawn())
    canvas.set_data(*data)
    canvas.graph.set_trainable("dense", False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        canvas.fit(epochs=1, batch_size=32)
        # (unfrozen before the first run's records land: their program may be made after it)
        canvas.graph.set_trainable("dense", True)
        canvas.fit(epochs=1, batch_size=32)
        insights.of(canvas.graph).settle()
    first, second = canvas.insights["dense"]
    assert first["epoch"] == 1 and second["epoch"] == 2
    assert first["gradients"]["kernel"]["norm"] is None  # frozen: no gradient
    assert second["gradients"]["kernel"]["norm"] > 0
