"""Regression tests for the hostile-input and fault audit (issue 13): nothing lost, nothing
corrupted by paste, NaN, odd strings, mixed precision or a load during training."""

import pytest
from support import fingerprint, ok

import kerascanvas as kc


# ----- 1. paste (duplicate) keeps the edge indexes right --------------------------------------

def test_a_pasted_edge_is_a_real_edge(tmp_path):
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    assert g.duplicate(["x", "d"]) == {"x": "x_1", "d": "d_1"}
    ok(g)
    assert g.is_built("d_1") and g.tensor("d_1").shape == (None, 2)
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="already has"):
        g.connect("x", "d_1")  # the slot is taken by the pasted edge
    assert fingerprint(g) == before
    g.disconnect("x_1", "d_1")  # the pasted edge exists for disconnect
    ok(g)
    g.undo()
    g.save(tmp_path / "pasted.kcanvas")
    loaded = ok(kc.Graph.load(tmp_path / "pasted.kcanvas"))
    assert loaded.edges == g.edges


def test_paste_of_part_of_a_merge_closes_the_list_gap():
    g = kc.Graph()
    g.add_input((4,), name="a")
    g.add_input((4,), name="b")
    g.add_layer("Add", name="add")
    g.connect("a", "add")
    g.connect("b", "add")
    copies = g.duplicate(["b", "add"])  # input 0 of the copy came from outside the selection
    ok(g)
    assert ((copies["b"], 0, 0), (copies["add"], 0, 0)) in g.edges


# ----- 5. training never destroys work ------------------------------------------------------

def _mlp():
    g = kc.Graph()
    g.add_input((8,), name="x")
    g.add_layer("Dense", units=8, name="hidden")
    g.add_layer("Dense", units=1, name="out")
    g.connect("x", "hidden")
    g.connect("hidden", "out")
    return g


def _data(n=256, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype("float32")
    return x, x.sum(axis=1, keepdims=True)


def _weights(g):
    return [w.copy() for w in g.model.get_weights()]


def _same(a, b):
    import numpy as np

    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_a_training_run_is_one_undo_step_and_redo_brings_it_back():
    from kerascanvas.training import Trainer

    g = _mlp()
    before = _weights(g)
    trainer = Trainer(g)
    trainer.set_data(*_data())
    trainer.fit(epochs=2, block=True)
    trained = _weights(g)
    assert not _same(before, trained) and g.can_undo
    g.undo()
    assert _same(_weights(g), before)
    g.redo()
    assert _same(_weights(g), trained)
    ok(g)


def test_nan_in_arrays_is_refused_before_any_step():
    import numpy as np

    from kerascanvas.training import DataError, Trainer

    g = _mlp()
    x, y = _data()
    before = _weights(g)
    bad = x.copy()
    bad[40, 3] = np.nan
    trainer = Trainer(g)
    with pytest.raises(DataError, match=r"x holds a non-finite value \(nan\) at index \(40, 3\)"):
        trainer.set_data(bad, y)
    trainer.set_data(x, y)
    y[7] = np.inf  # changed after set_data: fit checks again
    with pytest.raises(DataError, match=r"y holds a non-finite value \(inf\) at index \(7, 0\)"):
        trainer.fit(block=True)
    assert _same(_weights(g), before) and g._edit_lock is None


def test_a_nan_batch_in_a_dataset_stops_before_it_reaches_the_weights():
    import numpy as np
    import tensorflow as tf

    from kerascanvas.training import DataError, Trainer

    g = _mlp()
    x, y = _data()
    x[100] = np.nan  # batch 4 of 32
    before = _weights(g)
    trainer = Trainer(g)
    trainer.set_data(tf.data.Dataset.from_tensor_slices((x, y)).batch(32))
    with pytest.raises(DataError, match="NaN or infinite"):
        trainer.fit(epochs=2, block=True)
    after = _weights(g)
    assert all(np.isfinite(w).all() for w in after) and not _same(after, before)
    assert trainer.status["state"] == "failed" and g._edit_lock is None
    g.undo()  # the three good batches are one undo step
    assert _same(_weights(g), before)
    g.redo()
    trainer.set_data(tf.data.Dataset.from_tensor_slices(_data()).batch(32))
    trainer.fit(epochs=1, block=True)  # retraining works
    assert trainer.status["state"] == "finished"


def test_a_nan_batch_in_a_py_dataset_stops_before_it_reaches_the_weights():
    import keras
    import numpy as np

    from kerascanvas.training import DataError, Trainer

    x, y = _data()

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            xs = x[i * 32:(i + 1) * 32].copy()
            if i == 5:
                xs[0, 0] = np.inf
            return xs, y[i * 32:(i + 1) * 32]

    g = _mlp()
    trainer = Trainer(g)
    trainer.set_data(Batches())
    with pytest.raises(DataError, match="NaN or infinite"):
        trainer.fit(epochs=1, block=True)
    assert all(np.isfinite(w).all() for w in g.model.get_weights())


def test_a_diverging_loss_keeps_finite_weights():
    import numpy as np

    from kerascanvas.training import Trainer

    g = _mlp()
    x, y = _data()
    trainer = Trainer(g)
    trainer.set_data(x * 1e18, y * 1e18)
    with pytest.warns(RuntimeWarning, match="loss became"):
        trainer.fit(epochs=3, optimizer="sgd", learning_rate=10.0, block=True)
    assert "restored" in trainer.status["message"]
    assert all(np.isfinite(w).all() for w in g.model.get_weights())
