"""A record's numbers against a direct computation (issue 21): the probe batch's gradients and
activations come from one shared forward pass, and its statistics from tensors stacked by size
(tensor_stats); both must give what NumPy computes from the weights by hand. Quick: a 2-layer
model, no training."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from kerascanvas.insights import recording

RNG = np.random.default_rng(7)
X = RNG.normal(size=(8, 3)).astype("float32")
Y = RNG.normal(size=(8, 1)).astype("float32")
W1 = RNG.normal(size=(3, 4)).astype("float32")
B1 = np.array([0.3, -0.2, -5.0, 0.1], "float32")  # unit 2 is dead: zero on the whole probe
W2 = RNG.normal(size=(4, 1)).astype("float32")
B2 = np.array([0.5], "float32")


def model() -> keras.Model:
    x = keras.Input((3,), name="x")
    h = keras.layers.Dense(4, activation="relu", name="hidden")(x)
    h2 = keras.layers.Dense(4, activation="relu", name="hidden_2")(h)  # same shapes as hidden's
    out = keras.layers.Dense(1, name="out")(h2)
    m = keras.Model(x, out)
    m.compile(optimizer="sgd", loss="mean_squared_error")
    m.get_layer("hidden").set_weights([W1, B1])
    m.get_layer("hidden_2").set_weights([np.eye(4, dtype="float32"), np.zeros(4, "float32")])
    m.get_layer("out").set_weights([W2, B2])
    return m


def by_hand() -> tuple[dict, dict]:
    """Each weight's gradient of the mean squared error, and each layer's output, in NumPy."""
    h = np.maximum(X @ W1 + B1, 0.0)
    h2 = h  # (identity weights, and h >= 0 already)
    p = h2 @ W2 + B2
    dp = 2.0 * (p - Y) / p.size
    dh2 = (dp @ W2.T) * (h2 > 0)
    dh = (dh2 @ np.eye(4)) * (h > 0)
    grads = {("out", "kernel"): h2.T @ dp, ("out", "bias"): dp.sum(0),
             ("hidden_2", "kernel"): h.T @ dh2, ("hidden_2", "bias"): dh2.sum(0),
             ("hidden", "kernel"): X.T @ dh, ("hidden", "bias"): dh.sum(0)}
    return grads, {"hidden": h, "hidden_2": h2, "out": p}


def small_canvas():
    """A canvas of x (3) -> Dense(4, relu) "hidden" -> Dense(1) "out", with 64 samples set."""
    import kerascanvas as kc

    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=4, activation="relu", name="hidden")
    g.add_layer("Dense", units=1, name="out")
    g.connect("x", "hidden")
    g.connect("hidden", "out")
    canvas = kc.Canvas(g)
    canvas.set_data(RNG.normal(size=(64, 3)).astype("float32"),
                    RNG.normal(size=(64, 1)).astype("float32"))
    return canvas


@pytest.fixture(params=["stacked", "one by one"])
def stacking(request, monkeypatch):
    """Statistics of tensors stacked by size, and of tensors too big to stack (each alone,
    uncopied: a bound of 8 values makes every kernel here "big")."""
    from kerascanvas.insights import tensor_stats

    if request.param == "one by one":
        monkeypatch.setattr(tensor_stats, "STACK_VALUES", 8)
    return request.param


@pytest.mark.parametrize("record", ["first", "later"])  # (TensorFlow: eager, then traced)
def test_gradients_and_activations_of_one_shared_forward_pass_match_numpy(record, stacking):
    m = model()
    measure = recording.measure(m, (X, Y), {})
    assert measure.forward is not None and measure.with_gradients
    if record == "later":
        measure(X, Y, measure.initial())
    before = measure.initial()
    m.get_layer("out").set_weights([W2, B2])  # unchanged: an update ratio of 0
    rows, _ = measure(X, Y, before)
    grads, outputs = by_hand()
    seen = set()
    for (kind, layer, weight), (stats, a, b) in zip(measure.layout, rows):
        if kind == "weight":
            assert a == pytest.approx(float(np.linalg.norm(grads[layer, weight])), rel=1e-4)
            assert b == pytest.approx(0.0, abs=1e-7)
            seen.add((layer, weight))
        else:
            out = outputs[layer]
            unpacked = recording._unpack(stats)
            assert unpacked["mean"] == pytest.approx(float(out.mean()), rel=1e-5, abs=1e-6)
            assert unpacked["std"] == pytest.approx(float(out.std()), rel=1e-5, abs=1e-6)
            assert unpacked["zeros"] == pytest.approx(float((out == 0).mean()))
            expected, _ = np.histogram(out, bins=recording.BINS, range=(out.min(), out.max()))
            assert unpacked["histogram"]["counts"] == list(expected)
            assert a == float(((out == 0).mean(0) >= recording.DEAD_SHARE).sum())
            assert b == out.shape[-1]
            seen.add(layer)
    assert seen == set(grads) | set(outputs)
    dead = {layer: a for (kind, layer, _), (_, a, _) in zip(measure.layout, rows)
            if kind == "activation"}
    assert dead["hidden"] == 1.0  # its unit 2


def test_update_ratios_and_weight_statistics_match_numpy(stacking):
    m = model()
    measure = recording.measure(m, None, {})  # no probe: weights only
    before = measure.initial()
    new_w1 = W1 * 1.5 + 0.25
    m.get_layer("hidden").set_weights([new_w1, B1])
    rows, now = measure(None, None, before)
    got = {(layer, weight): (stats, a, b) for (kind, layer, weight), (stats, a, b)
           in zip(measure.layout, rows)}
    stats, grad, ratio = got["hidden", "kernel"]
    assert grad is None  # no probe batch, no gradient
    assert ratio == pytest.approx(np.linalg.norm(new_w1 - W1) / np.linalg.norm(W1), rel=1e-5)
    unpacked = recording._unpack(stats)
    assert unpacked["mean"] == pytest.approx(float(new_w1.mean()), rel=1e-5)
    assert unpacked["norm"] == pytest.approx(float(np.linalg.norm(new_w1)), rel=1e-5)
    assert (unpacked["min"], unpacked["max"]) == pytest.approx((new_w1.min(), new_w1.max()))
    assert got["hidden_2", "kernel"][2] == pytest.approx(0.0, abs=1e-7)
    for (layer, weight), value in (("out", "kernel"), W2), (("hidden", "bias"), B1):
        unpacked = recording._unpack(got[layer, weight][0])  # (one stacked group: the same size)
        assert unpacked["mean"] == pytest.approx(float(value.mean()), rel=1e-5)
        assert unpacked["std"] == pytest.approx(float(value.std()), rel=1e-5)
        expected, _ = np.histogram(value, bins=recording.BINS, range=(value.min(), value.max()))
        assert unpacked["histogram"]["counts"] == list(expected), (layer, weight)
    _, _, again = measure(None, None, now)[0][0]  # the copy it returned is the new baseline
    assert again == pytest.approx(0.0, abs=1e-7)
    m.get_layer("hidden").set_weights([W1, B1])  # (a copy: it kept the values it was taken at)
    _, _, back = measure(None, None, now)[0][0]
    assert back == pytest.approx(np.linalg.norm(W1 - new_w1) / np.linalg.norm(new_w1), rel=1e-5)


def test_a_runs_baseline_is_the_weights_as_it_begins_whether_or_not_they_changed():
    """initial() is the update ratios' baseline as a run begins. Under JAX, while the weights
    are the arrays the last record read (nothing trained or set them since), it is that record's
    copy, made again by nobody; weights set since are new arrays and are copied afresh."""
    m = model()
    measure = recording.measure(m, None, {})
    _, now = measure(None, None, measure.initial())  # the last record of a run

    def ratios(baseline):
        rows, _ = measure(None, None, baseline)
        return {(layer, weight): b for (kind, layer, weight), (_, _, b) in
                zip(measure.layout, rows) if kind == "weight"}

    same = measure.initial()
    if keras.backend.backend() == "jax":
        assert same is now  # (no second copy)
    assert all(r == pytest.approx(0.0, abs=1e-7) for r in ratios(same).values())
    m.get_layer("hidden").set_weights([W1 * 2.0, B1])  # set between two runs
    changed = ratios(measure.initial())
    assert all(r == pytest.approx(0.0, abs=1e-7) for r in changed.values())  # the set weights


@pytest.mark.skipif(keras.backend.backend() != "jax", reason="JAX compiles the record ahead")
def test_a_record_program_compiled_ahead_in_another_thread_gives_the_same_record():
    """prepare() hands XLA's compile to `later` (the worker thread); a record taken meanwhile
    (run there once it is compiled) or after equals the record of a program compiled at its
    first call."""
    import concurrent.futures

    handed = []

    def later(fn):
        handed.append(fn)
        return concurrent.futures.ThreadPoolExecutor(1).submit(fn)

    ahead = recording.measure(model(), (X, Y), {})
    before = ahead.initial()
    ahead.prepare(X, Y, before, later)
    assert len(handed) == 1  # the compile went to the other thread
    rows, _ = ahead(X, Y, before)
    plain = recording.measure(model(), (X, Y), {})
    expected, _ = plain(X, Y, plain.initial())
    assert [(s, a, b) for s, a, b in rows] == [(s, a, b) for s, a, b in expected]
    handed_now = len(handed)  # (the record went to the worker too if it still compiled)
    ahead.prepare(X, Y, before, later)
    assert len(handed) == handed_now  # compiled once


def test_a_torch_record_runs_its_operations_in_one_thread_and_gives_the_threads_back():
    """Under torch a record's few hundred small operations run without an intra-op team (half
    the time in a training thread); the calling thread's setting comes back after, also when
    the record fails."""
    if keras.backend.backend() != "torch":
        pytest.skip("torch's intra-op threads")
    import threading

    import torch

    from kerascanvas.insights import tensor_stats

    m = model()
    measure = recording.measure(m, (X, Y), {})
    before = measure.initial()
    seen, found = [], {}
    summaries = tensor_stats.summaries

    def counting(rows):
        seen.append(torch.get_num_threads())
        return summaries(rows)

    def in_a_thread():  # as in training: a thread of its own, two intra-op threads
        torch.set_num_threads(2)
        tensor_stats.summaries = counting
        try:
            measure.start(X, Y, before)
            found["after"] = torch.get_num_threads()
            with pytest.raises(Exception):  # noqa: B017 - any failure of the record
                measure.start(X, Y, None)
            found["after a failure"] = torch.get_num_threads()
        finally:
            tensor_stats.summaries = summaries

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen and set(seen) == {1}
    assert found == {"after": 2, "after a failure": 2}


def test_a_record_reads_the_weights_as_it_started_though_it_runs_after_they_changed():
    """A record is started in the training thread and its numbers are made later (under
    TensorFlow its whole program runs in the worker thread, beside training): what it reports
    is the weights and gradients as it started, not what training wrote since."""
    m = model()
    measure = recording.measure(m, (X, Y), {})
    before = measure.initial()
    vector, _ = measure.start(X, Y, before)
    m.get_layer("hidden").set_weights([W1 * 3.0 - 1.0, B1 + 2.0])  # training goes on
    m.get_layer("out").set_weights([W2 * 0.5, B2 - 1.0])
    rows = measure.rows(vector)
    grads, outputs = by_hand()
    for (kind, layer, weight), (stats, a, b) in zip(measure.layout, rows):
        unpacked = recording._unpack(stats)
        if kind == "weight":
            value = {("hidden", "kernel"): W1, ("hidden", "bias"): B1, ("out", "kernel"): W2,
                     ("out", "bias"): B2}.get((layer, weight))
            if value is not None:
                assert unpacked["mean"] == pytest.approx(float(value.mean()), rel=1e-5)
                assert unpacked["norm"] == pytest.approx(float(np.linalg.norm(value)), rel=1e-5)
            assert a == pytest.approx(float(np.linalg.norm(grads[layer, weight])), rel=1e-4)
            assert b == pytest.approx(0.0, abs=1e-7)
        else:
            assert unpacked["mean"] == pytest.approx(float(outputs[layer].mean()), rel=1e-5,
                                                     abs=1e-6)


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="TensorFlow's own path")
def test_under_tensorflow_a_records_program_runs_in_the_worker_not_the_training_thread():
    """TensorFlow runs a program in the thread that calls it: the training thread only copies
    the values (record_program._Deferred); the record's program runs in the recorder's worker,
    while training goes on, and every epoch the budget affords has its record."""
    import threading

    from kerascanvas.insights import insights, record_program

    ran_in, start = [], record_program._Deferred.__call__

    def spying(self, x, y, previous):
        program, now = start(self, x, y, previous)

        def run():
            ran_in.append(threading.current_thread().name)
            return program()
        return run, now

    canvas = small_canvas()
    g = canvas.graph
    record_program._Deferred.__call__ = spying
    every_epoch = recording.record_epoch
    recording.record_epoch = lambda *a, **k: True  # (every epoch affordable: see issue 45)
    try:
        canvas.fit(epochs=3, loss="mean_squared_error", batch_size=16)
    finally:
        record_program._Deferred.__call__ = start
        recording.record_epoch = every_epoch
    assert ran_in and all(n.startswith("kerascanvas-insights") for n in ran_in), ran_in
    assert [r["epoch"] for r in insights.of(g).records()["hidden"]] == [1, 2, 3]


def test_a_weight_that_was_all_zeros_has_no_update_ratio_not_a_huge_one():
    """A bias starts at zero: its change over a zero norm is undefined, so the first record
    says None (it said ||update|| / 1e-12, about 1e11); the next records have numbers."""
    m = model()
    m.get_layer("out").set_weights([W2, np.zeros(1, "float32")])
    measure = recording.measure(m, None, {})
    before = measure.initial()
    m.get_layer("out").set_weights([W2, np.array([0.25], "float32")])
    rows, now = measure(None, None, before)
    m.get_layer("out").set_weights([W2, np.array([0.5], "float32")])
    again, _ = measure(None, None, now)

    def ratio(rows_):
        return {(layer, weight): b for (kind, layer, weight), (_, _, b) in
                zip(measure.layout, rows_) if kind == "weight"}["out", "bias"]

    records = recording._records(rows, measure.layout, 1, False, measure.relu)
    assert records["out"]["gradients"]["bias"]["update_ratio"] is None
    assert ratio(again) == pytest.approx(1.0, rel=1e-5)  # 0.25 -> 0.5


def test_a_model_compiled_again_with_another_loss_records_the_gradients_of_that_loss():
    """The record's program is traced with the model's loss: after `compile` with another loss
    (the Train button's loss changed) the gradients are that loss's, not the first one's."""
    m = model()
    cache: dict = {}
    first = recording.measure(m, (X, Y), cache)
    mse, _ = first(X, Y, first.initial())
    m.compile(optimizer="sgd", loss="mean_absolute_error")
    again = recording.measure(m, (X, Y), cache)
    mae, _ = again(X, Y, again.initial())
    fresh = model()
    fresh.compile(optimizer="sgd", loss="mean_absolute_error")
    alone = recording.measure(fresh, (X, Y), {})
    expected, _ = alone(X, Y, alone.initial())

    def grad_norms(rows):
        return [a for (kind, _, _), (_, a, _) in zip(again.layout, rows) if kind == "weight"]

    assert grad_norms(mae) == pytest.approx(grad_norms(expected), rel=1e-5)
    assert grad_norms(mae) != pytest.approx(grad_norms(mse), rel=1e-3)


def test_the_probe_pass_runs_as_training_does_and_changes_no_state():
    """BatchNormalization whose moving statistics have not caught up (a fresh one: mean 0,
    variance 1) feeding a ReLU: in inference mode the shifted inputs leave most units at zero
    (MobileNetV2 after 2 epochs had half the units of 14 ReLUs 'dead' that way, none in
    training); the probe pass normalizes by the batch as training does. The moving statistics,
    the Dropout's seed and every weight are as before the record."""
    x = keras.Input((3,), name="x")
    h = keras.layers.BatchNormalization(name="norm")(x)
    h = keras.layers.ReLU(name="relu")(h)
    h = keras.layers.Dropout(0.5, name="drop")(h)
    out = keras.layers.Dense(1, name="out")(h)
    m = keras.Model(x, out)
    m.compile(optimizer="sgd", loss="mean_squared_error")
    shifted = (X - 10.0).astype("float32")  # inference mode: all below zero
    assert float(np.max(keras.ops.convert_to_numpy(
        m.get_layer("relu")(m.get_layer("norm")(shifted, training=False))))) == 0.0
    state = [np.array(keras.ops.convert_to_numpy(v.value)) for v in m.variables]
    measure = recording.measure(m, (shifted, Y), {})
    rows, _ = measure(shifted, Y, measure.initial())
    records = recording._records(rows, measure.layout, 1, False, measure.relu)
    relu = records["relu"]["activations"]
    assert relu["relu_like"] and relu["dead_units"] == 0 and relu["zeros"] < 0.9
    assert records["norm"]["activations"]["mean"] == pytest.approx(0.0, abs=1e-3)  # the batch's
    assert all(g["norm"] for g in records["out"]["gradients"].values())
    for v, before in zip(m.variables, state):
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(v.value), before, err_msg=v.path)


@pytest.mark.parametrize("cost, spent, every", [
    (0.01, 2.0, 334),  # a record of 10 ms, 1,000 batches of 2 ms: one every 334 (1.5%)
    (0.001, 2.0, 50),  # a cheap record: never more often than MIN_BATCHES_BETWEEN
    (0.1, 2.0, None),  # a record as dear as 5% of the whole epoch: none within it
])
def test_records_within_an_epoch_keep_to_their_share_of_its_time(cost, spent, every):
    """Records compute beside training, so an epoch's length per batch is what a batch costs
    (the rule subtracted a record's whole cost from the epoch once, when the first record was
    waited for); the record's cost is from its start until it is in the store."""
    assert recording.batches_between(cost, spent, 1000) == every


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="TensorFlow's tf.function")
def test_training_one_drawing_after_another_never_warns_of_retracing():
    """TensorFlow counts a function's traces by its code: the train and record functions of each
    new model (every drawing trained, every structural edit) counted as retraces of one function,
    and from the sixth model on its warning showed in the notebook. A user's own still shows."""
    import io
    import logging

    import kerascanvas as kc
    from kerascanvas.datasets import digits

    x, y = digits()
    said = io.StringIO()
    handler = logging.StreamHandler(said)
    logging.getLogger("tensorflow").addHandler(handler)
    try:
        for units in range(4, 12):
            g = kc.Graph()
            g.add_input((8, 8, 1), name="image")
            g.add_layer("Flatten")
            g.add_layer("Dense", units=units)
            g.add_layer("Dense", units=10)
            g.connect("image", "flatten")
            g.connect("flatten", "dense")
            g.connect("dense", "dense_1")
            canvas = kc.Canvas(g)
            canvas.set_data(x[:64], y[:64])
            canvas.fit(epochs=1, block=True)
            assert [r["epoch"] for r in canvas.insights["dense"]] == [1]
        assert "retracing" not in said.getvalue()
        import tensorflow as tf  # a function of the user's own, retraced: its warning still shows

        own = tf.function(lambda t: t + 1)
        for n in range(1, 9):
            own(tf.zeros((n,)))
    finally:
        logging.getLogger("tensorflow").removeHandler(handler)
    assert "retracing" in said.getvalue()


def test_tensors_of_one_size_are_summarized_together_whatever_their_shapes():
    """A row's statistics read its tensor's values flattened, so the (4, 1) kernel of "out" and
    the (4,) biases make one stacked group (fewer groups: a smaller program to compile, fewer
    calls under torch); outputs group by size and last axis, the units dead_units counts."""
    from kerascanvas.insights import tensor_stats

    measure = recording.measure(model(), (X, Y), {})
    names = [(layer, weight) for kind, layer, weight in measure.layout if kind == "weight"]
    grouped = [{names[i] for i in g} for g in measure.weight_groups]
    assert {("out", "kernel"), ("hidden", "bias"), ("hidden_2", "bias")} in grouped
    assert len(grouped) == 4  # sizes 12, 4, 16, 1 (five shapes)
    outputs = [np.zeros(s, "float32") for s in ((32, 4), (32, 2, 2), (128,), (32, 4), (4, 32))]
    assert tensor_stats.groups(outputs, by_units=True) == [[0, 3], [1], [2], [4]]
    assert tensor_stats.groups(outputs) == [[0, 1, 2, 3, 4]]


def test_stacks_hold_a_bounded_number_of_values_and_a_bigger_tensor_stands_alone(monkeypatch):
    """A large model's weights are not stacked into copies: a group holds at most STACK_VALUES
    values, a tensor bigger than that is summarized alone, from the tensor itself."""
    from kerascanvas.insights import tensor_stats

    monkeypatch.setattr(tensor_stats, "STACK_VALUES", 40)
    tensors = [np.zeros(s, "float32") for s in ((4, 4), (16,), (2, 8), (8, 8), (4,), (16,))]
    assert tensor_stats.groups(tensors) == [[0, 1], [2, 5], [3], [4]]  # 16 x 3 > 40
    big = keras.ops.convert_to_tensor(np.arange(64, dtype="float32").reshape(8, 8))
    alone = tensor_stats.stacked([big], [0], copy=False)
    assert tuple(alone.shape) == (1, 64)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(alone)[0], np.arange(64))
