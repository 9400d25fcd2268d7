"""Issue 45: records within a budget, and a record program made off the training thread.

`recording.record_epoch` chooses the epochs to record from measured costs (tested as a pure
function, no timing asserted); a real fit always records its first and last epochs and names the
epochs it recorded; the record's program is traced (TensorFlow, JAX) in the recorder's worker,
never in the training thread."""

from __future__ import annotations

import threading
import time

import keras
import numpy as np
import pytest

import kerascanvas as kc
from kerascanvas.insights import record_program, recording

RNG = np.random.default_rng(45)


def small_canvas() -> kc.Canvas:
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=4, activation="relu", name="hidden")
    g.add_layer("Dense", units=1, name="out")
    g.connect("x", "hidden")
    g.connect("hidden", "out")
    canvas = kc.Canvas(g, keep=False)
    canvas.set_data(RNG.normal(size=(64, 3)).astype("float32"),
                    RNG.normal(size=(64, 1)).astype("float32"))
    return canvas


def chosen(epochs: int, epoch_s: float, cost: float) -> list[int]:
    """The epochs (from 1) a run of `epochs` epochs of `epoch_s` seconds records, records
    costing `cost` seconds, each in the store before the next epoch ends."""
    recorded, since = [], 0.0
    for e in range(epochs):
        since += epoch_s
        if recording.record_epoch(e, epochs - 1, since, None if not recorded else cost,
                                  busy=False):
            recorded.append(e + 1)
            since = 0.0
    return recorded


def test_first_and_last_epochs_are_always_recorded():
    for last in range(5):
        assert recording.record_epoch(0, last, 0.0, None, busy=True)
        assert recording.record_epoch(last, last, 0.0, None, busy=True)


def test_epochs_between_are_recorded_when_the_time_since_affords_one():
    share = recording.RECORD_SHARE
    assert recording.record_epoch(1, 5, since_s=1.0, cost=share * 1.0, busy=False)
    assert not recording.record_epoch(1, 5, since_s=1.0, cost=share * 1.01, busy=False)
    assert not recording.record_epoch(1, 5, since_s=100.0, cost=None, busy=False)  # unmeasured
    assert not recording.record_epoch(1, 5, since_s=100.0, cost=0.001, busy=True)  # under way
    assert recording.record_epoch(1, 5, since_s=0.0, cost=1.0, busy=False, within=True)


@pytest.mark.parametrize(("epoch_s", "cost", "expected"), [
    (10.0, 0.01, list(range(1, 21))),  # long epochs: every epoch
    (0.3, 0.03, [1, 5, 9, 13, 17, 20]),  # short: every 4 (4 x 0.3 s x 3% >= 0.03)
    (0.026, 0.5, [1, 20]),  # tiny (JAX's 26 ms epochs), a costly record: the run's ends only
])
def test_the_cadence_keeps_records_within_the_budget(epoch_s, cost, expected):
    got = chosen(20, epoch_s, cost)
    assert got == expected
    between = len(got) - 2  # (the first and last are always recorded)
    assert between * cost <= recording.RECORD_SHARE * 20 * epoch_s + 1e-9


def test_a_fit_records_its_first_and_last_epochs_and_says_which(monkeypatch):
    """With records too costly for any epoch between (a zero budget), a run still records its
    first and last epochs; `canvas.insights` and `canvas.insight_epochs` name them, and the
    problems are read from them."""
    monkeypatch.setattr(recording, "RECORD_SHARE", 0.0)
    canvas = small_canvas()
    canvas.fit(epochs=4, loss="mean_squared_error", batch_size=16)
    assert [r["epoch"] for r in canvas.insights["hidden"]] == [1, 4]
    assert canvas.insight_epochs == [1, 4]
    canvas.fit(epochs=2, loss="mean_squared_error", batch_size=16)  # epochs count on
    assert canvas.insight_epochs == [1, 4, 5, 6]
    assert all(r["gradients"]["kernel"]["norm"] > 0 for r in canvas.insights["hidden"])


@pytest.mark.skipif(keras.backend.backend() == "torch",
                    reason="torch runs records eagerly: no program to trace")
def test_the_record_program_is_traced_off_the_training_thread(monkeypatch):
    """A new model's record program is traced where records are finished (the recorder's
    worker), never in the training thread, and only once its run has ended (a run going on
    HOLD_S after its first record has it made then): a first fit neither stalls on it nor
    shares the CPU with it (issue 45)."""
    traced_in: list[tuple[str, float]] = []
    stateless = record_program.Measure.stateless

    def spying(self, gradient):
        run = stateless(self, gradient)

        def traced(*args):  # (called only while tracing under TensorFlow and JAX)
            traced_in.append((threading.current_thread().name, time.monotonic()))
            return run(*args)
        return traced

    monkeypatch.setattr(record_program.Measure, "stateless", spying)
    stacked_in: list[str] = []  # (JAX compiled the run's first baseline in the training thread)
    stacked = record_program.tensor_stats.stacked

    def stacking(*args, **kwargs):
        stacked_in.append(threading.current_thread().name)
        return stacked(*args, **kwargs)

    monkeypatch.setattr(record_program.tensor_stats, "stacked", stacking)
    monkeypatch.setattr(recording, "HOLD_S", 600.0)  # (however slow this machine's fit)
    epochs_ended: list[float] = []

    class Ends(keras.callbacks.Callback):  # (called after the recorder's own)
        def on_epoch_end(self, epoch, logs=None):
            epochs_ended.append(time.monotonic())

    canvas = small_canvas()
    canvas.fit(epochs=3, loss="mean_squared_error", batch_size=16, callbacks=[Ends()])
    # (read first: a new model's program is made as its run ends, its records land after)
    assert canvas.insight_epochs[0] == 1 and canvas.insight_epochs[-1] == 3
    assert traced_in and all(n.startswith("kerascanvas-insights") for n, _ in traced_in)
    assert min(at for _, at in traced_in) >= epochs_ended[-1], "traced while the run went on"
    assert stacked_in and "kerascanvas-fit" not in stacked_in
    assert canvas.insights["hidden"][-1]["activations"]["units"] == 4


def held_program(monkeypatch) -> threading.Event:
    """The record's program held in the worker (tracing waits) until the returned event is
    set: a new model's compile slower than its fit."""
    release = threading.Event()
    stateless = record_program.Measure.stateless

    def held(self, gradient):
        run = stateless(self, gradient)

        def traced(*args):  # (called only while tracing under TensorFlow and JAX)
            assert release.wait(120)
            return run(*args)
        return traced

    monkeypatch.setattr(record_program.Measure, "stateless", held)
    return release


def test_only_the_first_job_is_held_until_the_run_ends():
    submit = recording._worker().submit
    ended = threading.Event()
    later = recording._first_held(submit, ended, 600.0)
    first, second = later(lambda: "program"), later(lambda: "record")
    time.sleep(0.2)
    assert not first.done() and not second.done()  # the record waits behind the program
    ended.set()
    assert first.result(timeout=10) == "program" and second.result(timeout=10) == "record"
    fast = recording._first_held(submit, threading.Event(), 0.05)  # or until hold_s pass
    assert fast(lambda: 1).result(timeout=10) == 1


@pytest.mark.skipif(keras.backend.backend() == "torch",
                    reason="torch runs records eagerly: no program to wait for")
def test_a_run_ends_without_waiting_for_its_record_program(monkeypatch):
    """A fit whose record program is still being made ends (unlocked, one undo step) without
    waiting for it; its records land after, marked with the epochs they were taken at, and
    are part of its undo step (undo takes them away, redo brings them back); canvas.insights
    waits for them; a second fit counts its epochs on from them (issue 45)."""
    from kerascanvas.insights import insights

    release = held_program(monkeypatch)
    canvas = small_canvas()
    g = canvas.graph
    canvas.fit(epochs=3, loss="mean_squared_error", batch_size=16)
    assert g.lock_reason is None and insights.of(g).cell["records"] == {}  # (not yet in)
    release.set()
    assert canvas.insight_epochs == [1, 3]
    assert canvas.insights["hidden"][-1]["activations"]["units"] == 4
    g.undo()
    assert canvas.insights == {}
    g.redo()
    assert [r["epoch"] for r in canvas.insights["out"]] == [1, 3]
    canvas.fit(epochs=1, loss="mean_squared_error", batch_size=16)
    assert canvas.insight_epochs == [1, 3, 4]


@pytest.mark.skipif(keras.backend.backend() == "torch",
                    reason="torch runs records eagerly: no program to wait for")
def test_late_records_of_an_undone_run_come_back_with_its_redo(monkeypatch):
    """Records that land after their run was undone are not shown (the run is gone) but are
    part of its redo; records that land after an edit renamed their layer are dropped, not
    shown under a name that is gone."""
    release = held_program(monkeypatch)
    canvas = small_canvas()
    g = canvas.graph
    canvas.fit(epochs=2, loss="mean_squared_error", batch_size=16)
    g.undo()
    release.set()
    assert canvas.insights == {}
    g.redo()
    assert canvas.insight_epochs == [1, 2]

    release.clear()
    other = small_canvas()
    other.fit(epochs=2, loss="mean_squared_error", batch_size=16)
    other.graph.rename("hidden", "renamed")
    release.set()
    assert "hidden" not in other.insights and "renamed" not in other.insights
