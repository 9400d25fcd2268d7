"""Issue 20: the audit of the browser and file boundary, one test per failure it found.

Each cost a message or a file can cause is counted before it is paid (kerascanvas/limits.py);
bombs are built small here (a few MB of zeros compress to a few KB) and the caps lowered to
match, so each test stays quick."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
import warnings
import xml.dom.minidom
import zipfile
from pathlib import Path

import keras
import numpy as np
import pytest
from support import fingerprint, intent, interrupt_fit_at, ok, recorded_canvas, residual, undo_all

import kerascanvas as kc
from kerascanvas import limits
from kerascanvas.kinds import accepts, custom

ROOT = Path(__file__).resolve().parents[1]


canvas = recorded_canvas



# ----- 1. accepts: probes are counted before any weight exists ----------------------------------

def test_a_pending_box_over_the_parameter_cap_is_not_probed_with_real_weights():
    g = kc.Graph()
    g.add_input((1000,), name="x")
    g.add_layer("Dense", units=2000, name="big")  # pending: 2,002,000 parameters on x
    g.add_layer("Dense", units=3, name="small")
    with limits.allow(layer_params=100_000):
        answer = accepts.ports_accepting(g, g.tensor("x"))
        with pytest.raises(limits.LimitError, match="2,002,000 parameters; the cap is 100,000"):
            g.connect("x", "big")  # the hint agrees with the edit
    assert "in:big:0:0" in answer["refuse"] and "in:small:0:0" in answer["accept"]


def test_quick_add_leaves_out_classes_whose_probe_would_break_the_cap():
    tensor = keras.KerasTensor((None, 4321), dtype="float32")  # Dense(32): 138,304 parameters
    with limits.allow(layer_params=100_000):
        capped = accepts.classes_accepting(tensor)
    assert "Dense" not in capped and "Activation" in capped
    assert "Dense" in accepts.classes_accepting(tensor)  # the answer follows the cap


def test_a_probe_allocates_no_weights(monkeypatch):
    """Probes are shapes only: their variables never get values."""
    made = []
    original = keras.Variable._initialize

    def counting(self, value):
        made.append(self.path)
        return original(self, value)

    monkeypatch.setattr(keras.Variable, "_initialize", counting)
    g = kc.Graph()
    g.add_input((7777,), name="x")
    g.add_layer("Dense", units=5, name="d")
    made.clear()
    accepts.ports_accepting(g, g.tensor("x"))
    accepts.classes_accepting(keras.KerasTensor((None, 7777), dtype="float32"))
    assert made == []


# ----- 2. compression bombs inside weights.npz ------------------------------------------------

def _dense_file(path: Path, pending: bool = False, units: int = 2) -> Path:
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=units, name="d")
    g.connect("x", "d")
    if pending:  # d keeps its weights while its input is gone
        g.disconnect("x", "d")
    g.save(path)
    return path


def _with_npz_entries(path: Path, entries: dict[str, bytes]) -> Path:
    """The file at `path` with its weights archive holding `entries` too, or in place of its
    own entries of the same names (deflated, as a crafted file may)."""
    with zipfile.ZipFile(path) as z:
        doc, npz = z.read("kerascanvas.json"), z.read("weights.npz")
    with zipfile.ZipFile(io.BytesIO(npz)) as old:
        held = {info.filename: old.read(info) for info in old.infolist()}
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as w:
        for name, data in {**held, **entries}.items():
            w.writestr(name, data)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", doc)
        z.writestr("weights.npz", inner.getvalue())
    return path


def _npy(n_bytes: int) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, np.zeros(n_bytes // 4, "float32"))
    return out.getvalue()


def test_an_unused_entry_inflating_to_megabytes_is_refused_unread(tmp_path, monkeypatch):
    # the drawing's weights (64 KB) are bigger than the deflated bomb: the outer size passes
    path = _with_npz_entries(_dense_file(tmp_path / "m.kcanvas", units=4000),
                             {"junk.npy": _npy(8 << 20)})
    assert path.stat().st_size < 64 << 10  # 8 MB of zeros in a few KB
    inflated = []
    original = zipfile.ZipExtFile.read

    def read(self, n=-1):
        data = original(self, n)
        inflated.append(len(data))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", read)
    with pytest.raises(limits.LimitError, match="'junk.npy', which is no weight of its drawing"):
        kc.Graph.load(path)
    assert inflated and max(inflated) < 1 << 20, inflated  # the 8 MB entry never inflated


def test_a_used_entry_bigger_than_its_layer_is_refused_unread(tmp_path):
    path = _with_npz_entries(_dense_file(tmp_path / "m.kcanvas", units=4000),
                             {"l1_0.npy": _npy(8 << 20)})
    with pytest.raises(limits.LimitError, match=r"'l1_0\.npy' inflates to 8,388,\d+ bytes, but the weight it is for takes 49,024"):
        kc.Graph.load(path)


def test_pending_weights_are_counted_per_entry_against_their_cap(tmp_path):
    path = _with_npz_entries(_dense_file(tmp_path / "m.kcanvas", pending=True),
                             {"l1_0.npy": _npy(4 << 20)})
    assert path.stat().st_size < 64 << 10
    with limits.allow(pending_weight_bytes=1 << 20), \
            pytest.raises(limits.LimitError, match=r"the cap is 1,048,576"):
        kc.Graph.load(path)
    g = kc.Graph.load(_dense_file(tmp_path / "ok.kcanvas", pending=True))  # a true file loads
    assert len(g.saved_weights("d")) == 2


# ----- 3. files load in O(layers + edges) -----------------------------------------------------

def _blocks_file(path: Path, blocks: int = 4) -> tuple[Path, dict]:
    g = kc.Graph()
    prev = g.add_input((8,), name="x")
    for i in range(blocks):
        prev = residual(g, prev, i)
    head = g.repeats[0].blocks[0][0]
    g.fold(head)
    g.save(path)
    with zipfile.ZipFile(path) as z:
        return path, json.loads(z.read("kerascanvas.json"))


def _rewrite_document(path: Path, change) -> Path:
    with zipfile.ZipFile(path) as z:
        doc, npz = json.loads(z.read("kerascanvas.json")), z.read("weights.npz")
    change(doc)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", json.dumps(doc))
        z.writestr("weights.npz", npz)
    return path


def test_a_fold_list_repeating_one_name_loads_at_once(tmp_path):
    path, doc = _blocks_file(tmp_path / "m.kcanvas")
    head = doc["folded"][0]
    _rewrite_document(path, lambda d: d.update(folded=[head] * 100_000,
                                                 expanded=[] * 100_000))
    started = time.process_time()
    g = kc.Graph.load(path)
    assert g.folded == {head}
    assert time.process_time() - started < 20  # was: hours (one drawing copy per entry)


def test_fold_and_expand_lists_are_checked_against_the_drawing_before_any_work(tmp_path):
    path, doc = _blocks_file(tmp_path / "m.kcanvas")
    _rewrite_document(path, lambda d: d.update(folded=[doc["folded"][0]] * 50_000 + ["nope"]))
    with pytest.raises(kc.EditError, match="'folded' names 'nope', which is not a layer"):
        kc.Graph.load(path)
    _rewrite_document(path, lambda d: d.update(folded=[], expanded=["ghost"]))
    with pytest.raises(kc.EditError, match="'expanded' names 'ghost', which is not a layer"):
        kc.Graph.load(path)


def test_a_fold_list_costs_one_pass_over_the_drawing(tmp_path, monkeypatch):
    """However many entries the lists hold, the runs are found once and the drawing copied a
    few times (not once per entry)."""
    from kerascanvas.drawing import drawing
    from kerascanvas.graph import view

    path, doc = _blocks_file(tmp_path / "m.kcanvas")
    names = [layer["name"] for layer in doc["layers"]]
    _rewrite_document(path, lambda d: d.update(folded=names * 50))
    copies, finds = [], []
    original_copy, original_find = drawing.Drawing.copy, view.find_repeats
    monkeypatch.setattr(drawing.Drawing, "copy",
                        lambda self, **k: copies.append(1) or original_copy(self, **k))
    monkeypatch.setattr(view, "find_repeats",
                        lambda *a, **k: finds.append(1) or original_find(*a, **k))
    with pytest.raises(kc.EditError, match="is not part of a run"):  # x heads no run
        kc.Graph.load(path)
    copies.clear(), finds.clear()
    _rewrite_document(path, lambda d: d.update(folded=[doc["folded"][0]] * 5000))
    kc.Graph.load(path)
    assert len(finds) <= 3 and len(copies) < 3 * len(names) + 50


def _concatenate_file(path: Path, n: int) -> Path:
    g = kc.Graph()
    g.add_input((1,), name="x")
    g.add_layer("Concatenate", name="cat")
    with g.batch(all_or_nothing=True):
        for _ in range(n):
            g.connect("x", "cat", slot=None)
    g.save(path)
    return path


def test_edges_into_one_concatenate_cost_one_step_each(monkeypatch):
    """Finding a merge layer's next slot looks at no other edge (it was a set of all of them
    per edge: quadratic)."""
    from kerascanvas.drawing import drawing

    g = kc.Graph()
    g.add_input((1,), name="x")
    g.add_layer("Concatenate", name="cat")
    seen = []

    with g.batch(all_or_nothing=True):
        for _ in range(200):
            g.connect("x", "cat", slot=None)
        monkeypatch.setattr(drawing.Edge, "dst", property(lambda e: seen.append(1) or e[1]))
        for _ in range(200):
            g.connect("x", "cat", slot=None)
        monkeypatch.undo()
    assert len(seen) < 200 * 10, len(seen)
    assert len(g.edges) == 400


def test_a_merge_call_takes_at_most_the_list_cap(tmp_path):
    path = _concatenate_file(tmp_path / "cat.kcanvas", 30)
    with limits.allow(list_inputs=20), pytest.raises(
            limits.LimitError, match="cat call 0 would take 21 tensors; the cap is 20 per call"):
        kc.Graph.load(path)
    assert len(kc.Graph.load(path).edges) == 30
    g = kc.Graph()
    g.add_input((1,), name="x")
    g.add_layer("Add", name="add")
    with limits.allow(list_inputs=3):
        for _ in range(3):
            g.connect("x", "add", slot=None)
        with pytest.raises(limits.LimitError, match="4 tensors; the cap is 3"):
            g.connect("x", "add", slot=None)


def test_a_file_drawing_a_cycle_is_refused_by_one_check_after_its_edges(tmp_path):
    g = kc.Graph()
    g.add_input((2,), name="x")
    for name in ("a", "b", "c"):
        g.add_layer("Identity", name=name)
        g.add_call(name)
    g.connect("x", "a")
    g.connect("a", "b")
    g.connect("b", "c")
    path = tmp_path / "m.kcanvas"
    g.save(path)
    _rewrite_document(path, lambda d: d["edges"].extend(
        [[["a", 1, 0], ["b", 1, 0]], [["b", 1, 0], ["c", 1, 0]], [["c", 1, 0], ["a", 1, 0]]]))
    with pytest.raises(kc.EditError, match=r"cycle between calls: (b\(1\) -> c\(1\) -> "
                                           r"a\(1\) -> b\(1\))"):
        kc.Graph.load(path)
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match=r"cycle between calls: .*b\(1\) -> c\(1\)"), \
            g.batch(all_or_nothing=True):  # the same check for any all-or-nothing batch
        g.connect(("a", 1, 0), "b", call=1)
        g.connect(("b", 1, 0), "c", call=1)
        g.connect(("c", 1, 0), "a", call=1)
    assert fingerprint(g) == before
    ok(g)


# ----- 4. undo history counts what it really holds --------------------------------------------

def test_undo_history_counts_drawing_copies_and_stays_under_its_cap():
    g = kc.Graph()
    g.add_input((4,), name="x")
    with g.batch():
        for i in range(300):
            g.add_layer("Identity", name=f"i{i}")
    g.move_many({n: (0.0, float(k)) for k, n in enumerate(g.layers)})
    cap = 2 << 20
    with limits.allow(history_bytes=cap), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        for k in range(1500):
            g.move(f"i{k % 300}", float(k), 1.0)
        grown = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
    assert [str(w.message) for w in said if "cap of 2,097,152" in str(w.message)]  # said once
    assert len([w for w in said if "Undo history" in str(w.message)]) == 1
    assert grown < cap * 1.1, f"{grown:,} bytes held for a cap of {cap:,}"
    assert g.history_dropped > 0
    g.undo()  # the newest steps still undo
    assert g.positions["i299"] == (1199.0, 1.0)
    assert 1 <= 1 + undo_all(g) < 1500


def test_undo_history_counts_replaced_configs():
    g = kc.Graph()
    g.add_input((4,), name="x")
    padding = [f"word{i}" for i in range(20_000)]  # a long config value: about 1.4 MB held
    big = limits.config_bytes(padding)
    assert big > 1_000_000
    with limits.allow(history_bytes=big // 2):
        g.add_layer("StringLookup", vocabulary=padding, name="lookup")
        with pytest.warns(RuntimeWarning, match="the oldest"):
            g.remove("lookup")  # the step keeps the removed box's config: over the cap
    assert undo_all(g) == 1  # the removal alone is kept: its step held the config



def test_a_config_replaced_by_one_that_shares_its_parts_weighs_only_what_it_alone_holds():
    padding = [f"word{i}" for i in range(2_000)]
    old = {"name": "lookup", "vocabulary": padding, "trainable": True}
    assert limits.config_bytes_beyond(old, {**old, "trainable": False}) < 1_000  # shared list
    assert limits.config_bytes_beyond(old, old) == 0
    assert limits.config_bytes_beyond(old, None) == limits.config_bytes(old)
    copied = {**old, "vocabulary": list(padding)}  # a new list holds the same strings: its own
    assert limits.config_bytes_beyond(old, copied) > sys.getsizeof(padding)
    g = kc.Graph()  # a configure that replaces the vocabulary still counts the old one
    g.add_input((4,), name="x")
    with limits.allow(history_bytes=limits.config_bytes(padding) // 2):
        g.add_layer("StringLookup", vocabulary=padding, name="lookup")
        with pytest.warns(RuntimeWarning, match="the oldest"):
            g.configure("lookup", vocabulary=["a", "b"])

# ----- 5. an interrupt at any step of fit never leaves the canvas locked -----------------------

def _trainer():
    from kerascanvas.training.trainer import Trainer

    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    t = Trainer(g)
    t.set_data(np.zeros((8, 4), "float32"), np.zeros((8, 2), "float32"))
    return g, t


def test_an_interrupt_at_any_step_of_fit_leaves_the_canvas_unlocked():
    g, t = _trainer()
    t.fit(epochs=1, batch_size=8, loss="mse", block=True)  # compiled once: later runs are quick
    interrupted, line = 0, 1
    while interrupt_fit_at(t, line, epochs=1, batch_size=8, loss="mse"):
        interrupted += 1
        t.wait(timeout=60) if t.running else None
        assert not t.running and g.lock_reason is None, f"interrupt at line {line}"
        line += max(1, line // 25)  # every line early on, then a sample
    assert interrupted > 20 and line > 100
    t.wait(timeout=60)  # the run the last attempt started ends normally
    assert g.lock_reason is None and t.status["state"] == "finished"


class _Hanging(keras.utils.PyDataset):
    def __init__(self, release: threading.Event, hang_at: int = 1):
        super().__init__()
        self.release, self.hang_at = release, hang_at

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i >= self.hang_at:
            self.release.wait(60)
        return np.zeros((2, 4), "float32"), np.zeros((2, 2), "float32")


def test_stop_ends_a_run_whose_data_source_hangs_and_unlocks_the_canvas(monkeypatch):
    from kerascanvas.training import run_gate

    monkeypatch.setattr(run_gate, "STOP_GRACE_S", 1.0)
    g, t = _trainer()
    release = threading.Event()
    t.set_data(_Hanging(release))
    before = [w.copy() for w in g.keras_layer("d").get_weights()]
    t.fit(epochs=1, loss="mse", learning_rate=0.5)
    time.sleep(2.0)  # the run hangs in its data source
    assert t.running and g.lock_reason is not None
    t.stop()
    t.wait(timeout=10)
    assert not t.running and g.lock_reason is None
    assert t.status["state"] == "stopped" and "did not return" in t.status["message"]
    g.configure("d", units=2)  # the canvas takes edits again
    weights = [w.copy() for w in g.keras_layer("d").get_weights()]
    release.set()  # the data comes back late: the abandoned run takes no step with it
    time.sleep(1.5)
    assert g.lock_reason is None and not t.running
    for a, b in zip(weights, g.keras_layer("d").get_weights()):
        assert np.array_equal(a, b)
    assert len(before) == 2


def test_an_abandoned_run_whose_source_returns_during_the_next_run_stays_out_of_it(monkeypatch):
    """Stop while the source hangs leaves the run waiting on it. If the source returns while a
    later run trains the same model, the abandoned run must not go back into Keras's fit: its
    end-of-fit code would write the model's training state (under JAX the state the new run's
    steps hand on) from another thread. Its thread stays parked; the new run ends as usual."""
    from kerascanvas.training import run_gate

    monkeypatch.setattr(run_gate, "STOP_GRACE_S", 1.0)
    g, t = _trainer()

    def fit_threads():
        return {th for th in threading.enumerate() if th.name == "kerascanvas-fit"}

    first = threading.Event()
    t.set_data(_Hanging(first))
    earlier = fit_threads()  # (parked ones of earlier tests)
    t.fit(epochs=1, loss="mse", learning_rate=0.5)
    (abandoned,) = fit_threads() - earlier
    time.sleep(2.0)  # the run hangs in its data source
    t.stop()
    t.wait(timeout=10)
    assert t.status["state"] == "stopped" and "did not return" in t.status["message"]
    syncs = []
    if keras.backend.backend() == "jax":
        model_class = type(g.model)
        real = model_class.jax_state_sync

        def sync(model):
            syncs.append(threading.current_thread())
            return real(model)

        monkeypatch.setattr(model_class, "jax_state_sync", sync)
    second = threading.Event()
    t.set_data(_Hanging(second, hang_at=2))  # the same model, held within its first epoch
    t.fit(epochs=1, loss="mse", learning_rate=0.5)
    try:
        time.sleep(1.5)
        assert t.running
        first.set()  # the first run's source returns now
        time.sleep(1.0)
        assert abandoned.is_alive() and abandoned not in syncs  # parked, out of Keras's fit
    finally:
        second.set()
    t.wait(timeout=20)
    assert t.status["state"] == "finished" and g.lock_reason is None
    assert all(np.isfinite(w).all() for w in g.keras_layer("d").get_weights())
    g.configure("d", units=3)  # the canvas takes edits


class _HangingLater(keras.utils.PyDataset):
    """Batches of ones that hang from the `hang_after`+1-th read on: steps have run by then."""

    def __init__(self, release: threading.Event, hang_after: int):
        super().__init__()
        self.release, self.hang_after, self.reads = release, hang_after, 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        self.reads += 1
        if self.reads > self.hang_after:
            self.release.wait(60)
        return np.ones((2, 4), "float32"), np.ones((2, 2), "float32")


@pytest.mark.parametrize("hang_after", [6, 9])  # (reads include the shape checks' and read-ahead)
def test_stop_on_a_source_that_hangs_mid_run_keeps_the_trained_weights(monkeypatch, hang_after):
    """Under JAX the variables are detached while an epoch runs and each step deletes the state
    it was given: abandoning the run must put the last step's state back, not the epoch's first
    (deleted) values. Before the fix the weights were lost: every read raised 'Array has been
    deleted' and no edit could be made."""
    from kerascanvas.training import run_gate

    monkeypatch.setattr(run_gate, "STOP_GRACE_S", 1.0)
    g, t = _trainer()
    release = threading.Event()
    t.set_data(_HangingLater(release, hang_after))
    before = [w.copy() for w in g.keras_layer("d").get_weights()]
    t.fit(epochs=3, loss="mse", learning_rate=0.1)
    seen, still, deadline = None, 0.0, time.monotonic() + 40
    while (seen is None or seen <= (1, 0) or still < 1.0) and time.monotonic() < deadline:
        time.sleep(0.1)  # until steps ran (the first one compiles) and then none for 1 s: the
        now = (t.status["epoch"], t.status["batch"])  # run waits on the source (reads run
        still, seen = (still + 0.1 if now == seen else 0.0), now  # ahead of the steps)
    assert t.running and seen > (1, 0)  # hung after steps ran (JAX: mid-epoch, both cases)
    t.stop()
    t.wait(timeout=20)
    try:
        assert t.status["state"] == "stopped" and "did not return" in t.status["message"]
        assert "weights trained so far are kept" in t.status["message"]
        trained = [w.copy() for w in g.keras_layer("d").get_weights()]
        assert all(np.isfinite(w).all() for w in trained)
        assert not all(np.array_equal(a, b) for a, b in zip(before, trained))
        g.undo()  # the run is one undo step: the weights from before it come back
        for a, b in zip(before, g.keras_layer("d").get_weights()):
            assert np.array_equal(a, b)
        g.redo()
        for a, b in zip(trained, g.keras_layer("d").get_weights()):
            assert np.array_equal(a, b)
        g.configure("d", units=3)  # the canvas takes edits again
    finally:
        release.set()


def test_reattach_says_when_a_step_took_the_values(monkeypatch):
    """The rare case the fallback covers: a JAX step was running when the run was abandoned,
    so the values it was given are gone; `reattach` reports it instead of attaching them."""
    from kerascanvas.network import detached

    if keras.backend.backend() != "jax":
        assert detached.reattach(keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]),
                                 None)  # other backends never detach
        return
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0)
    values = detached.detachable_values(model)
    assert detached.reattach(model, values)  # nothing detached: all is well
    values[0].delete()  # as a step that donated it would leave it
    assert not detached.reattach(model, values)


class _Slow(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(0.6)


def test_stop_leaves_a_slow_run_that_reads_no_data_to_end_itself(monkeypatch):
    """Only a read of the data source waiting past the grace counts as a hang: a run busy
    computing (here a slow callback) ends by itself after Stop, keeping the canvas locked
    until then."""
    from kerascanvas.training import run_gate

    monkeypatch.setattr(run_gate, "STOP_GRACE_S", 0.3)
    g, t = _trainer()
    t.set_data(_Hanging(threading.Event(), hang_at=10**6))  # never hangs
    t.fit(epochs=1, loss="mse", callbacks=[_Slow()])
    time.sleep(0.3)
    t.stop()
    time.sleep(1.0)  # past the grace: the batch's callback still sleeps
    t.wait(timeout=30)
    assert t.status["state"] == "stopped" and "did not return" not in t.status["message"]
    assert g.lock_reason is None


class _Failing(keras.utils.PyDataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i == 2:  # (TensorFlow wraps an error past the first batches in its own)
            raise ValueError("the sensor file row 17 is corrupt")
        return np.zeros((2, 4), "float32"), np.zeros((2, 2), "float32")


def test_a_failing_data_source_shows_its_own_error():
    g, t = _trainer()
    t.set_data(_Failing())
    with pytest.raises(ValueError, match="the sensor file row 17 is corrupt"):
        t.fit(epochs=1, loss="mse", block=True)
    assert "ValueError: the sensor file row 17 is corrupt" in t.status["message"]
    assert g.lock_reason is None and t.status["state"] == "failed"


# ----- 6. names and strings that XML cannot hold ----------------------------------------------

@pytest.mark.parametrize("bad", ["a\ufffe", "\uffffb", "c\U0010ffff"[:1] + "\ufffe"])
def test_non_xml_characters_are_refused_in_names(bad):
    g = kc.Graph()
    with pytest.raises(kc.EditError, match="U\\+FFF[EF]"):
        g.add_input((3,), name=bad)
    g.add_input((3,), name="x")
    with pytest.raises(kc.EditError, match="U\\+FFF[EF]"):
        g.rename("x", bad)
    with pytest.raises(kc.EditError, match="U\\+FFF[EF]"):
        g.add_layer("Dense", units=2, name="d", bias_initializer={"class_name": "Zeros",
                                                                 "config": {"x": bad}})
    with pytest.raises(kc.EditError, match="U\\+FFF[EF]"):
        kc.Graph(bad)


def test_the_static_svg_of_what_is_accepted_always_parses():
    from kerascanvas.io import picture

    g = kc.Graph("café \U0001f600 & <model>")
    g.add_input((3,), name="in<&>\u2028")
    xml.dom.minidom.parseString(picture.svg(g.state()))


def test_the_static_svg_reads_each_edge_a_few_times_not_once_per_layer():
    from kerascanvas.io import picture

    class Counted(dict):
        reads = 0

        def __getitem__(self, key):
            Counted.reads += 1
            return super().__getitem__(key)

    g = kc.Graph()
    prev = g.add_input((2,), name="x")
    with g.batch(all_or_nothing=True):
        for i in range(300):
            g.add_layer("Identity", name=f"i{i}")
            g.connect(prev, f"i{i}")
            prev = f"i{i}"
    state = g.state()
    plain = picture.svg(state)
    state["edges"] = [Counted(e) for e in state["edges"]]
    assert picture.svg(state) == plain
    assert Counted.reads < 10 * len(state["edges"]), Counted.reads  # was: layers x edges


# ----- 7. exported code never shadows a name it uses ------------------------------------------

@pytest.mark.parametrize("op_names", [False, True])
@pytest.mark.parametrize("name", ["float", "int", "len", "keras", "layers", "np", "model",
                                  "print", "range"])
def test_exported_code_never_shadows_a_name_it_uses(name, op_names):
    g = kc.Graph()
    g.add_input((3,), name=name)
    g.add_layer("add", x2=float("inf"), name="plus")
    g.connect(name, "plus")
    g.add_layer("Dense", units=2, name="float_1" if name != "float_1" else "d")
    g.connect("plus", "float_1")
    code = g.to_code(op_names=op_names)
    scope: dict = {}
    exec(compile(code, "<exported>", "exec"), scope)  # noqa: S102 - the export is the subject
    assert scope["model"].count_params() == g.model.count_params()
    assert len(scope["model"].layers) == len(g.model.layers)


# ----- 8. unregistering a class a drawing uses ------------------------------------------------

class Twice(keras.layers.Layer):
    def call(self, x):
        return x * 2


def test_unregistering_a_class_in_use_keeps_its_boxes_drawn_and_makes_no_new_ones(tmp_path):
    """A user who unregisters a class means "no more of it", as in a new session: no new box
    from Python, a file or the browser. The boxes drawn hold live Keras objects of the model
    they built, so the canvas keeps drawing, exporting and saving them."""
    name = kc.register(Twice)
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer(name, name="t")
    g.connect("x", "t")
    c = canvas(g)
    kc.unregister(name)
    assert name not in custom.registered()
    assert g.state()["layers"] and "image/svg+xml" in c._repr_mimebundle_()[0]
    assert "Twice" in g.to_code()
    g.save(tmp_path / "m.kcanvas")
    g.add_call("t")  # the box itself still takes edits
    g.undo()
    with pytest.raises(ValueError, match="no class of that name is registered"):
        g.add_layer(name)
    with pytest.raises(ValueError, match="no class of that name is registered"):
        kc.Graph.load(tmp_path / "m.kcanvas")
    reply = intent(c, kind="add_layer", id=7, class_name=name, config={})
    assert "error" in reply and len(g.layers) == 2
    kc.register(Twice)
    try:
        assert kc.Graph.load(tmp_path / "m.kcanvas").layers["t"]["class_name"] == name
    finally:
        kc.unregister(name)


# ----- the smaller ones -----------------------------------------------------------------------

def test_a_failed_save_from_the_browser_says_why(tmp_path):
    (tmp_path / "m.kcanvas").mkdir()  # the target is a folder: the rename fails (an OSError)
    g = kc.Graph()
    g.add_input((3,), name="x")
    c = canvas(g, path=tmp_path / "m.kcanvas")
    reply = intent(c, kind="save", id=1)
    assert "Internal error" not in reply["error"]
    assert "Could not save" in reply["error"] and "m.kcanvas" in reply["error"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.kcanvas"]  # no temporary left


def test_a_save_killed_midway_leaves_no_temporary_file_after_the_next_save(tmp_path):
    path = tmp_path / "m.kcanvas"
    script = (f"import os, kerascanvas as kc, zipfile\n"
              f"g = kc.Graph(); g.add_input((3,), name='x')\n"
              f"real = zipfile.ZipFile.writestr\n"
              f"def die(self, *a, **k):\n    real(self, *a, **k); os._exit(9) if a[0] == 'weights.npz' else None\n"
              f"zipfile.ZipFile.writestr = die\n"
              f"g.save({str(path)!r})\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=120, check=False)
    assert done.returncode == 9 and not path.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # the crash's leftover
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.kcanvas"]


@pytest.mark.parametrize("value", [10**400, -(10**30), 2**63])
def test_an_integer_constant_too_big_for_any_tensor_is_refused(value):
    g = kc.Graph()
    g.add_input((3,), name="x")
    with pytest.raises(kc.EditError, match="64-bit"):
        g.add_layer("add", x2=value)
    g.add_layer("add", x2=2**62, name="fine")


def test_configure_makes_one_layer_not_two(monkeypatch):
    """Keras keeps about 3.5 MB per StringLookup made with a 50,000-word vocabulary (its lookup
    table, under every backend): configure makes the layer once, the network calls that one."""
    made = []
    original = keras.layers.StringLookup.__init__
    monkeypatch.setattr(keras.layers.StringLookup, "__init__",
                        lambda self, *a, **k: made.append(1) or original(self, *a, **k))
    g = kc.Graph()
    g.add_input((1,), dtype="string", name="x")
    g.add_layer("StringLookup", vocabulary=["a", "b", "c"], name="s")
    g.connect("x", "s")
    made.clear()
    g.configure("s", num_oov_indices=2)
    assert len(made) == 1 and g.keras_layer("s").num_oov_indices == 2
    ok(g)

