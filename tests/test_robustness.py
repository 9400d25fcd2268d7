"""Regression tests for the hostile-input and fault audit (issue 13): nothing lost, nothing
corrupted by paste, NaN, odd strings, mixed precision or a load during training."""

import inspect

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


def _batches(x, y, spoil):
    """(x, y) as a keras.utils.PyDataset of 8 batches of 32 rows; `spoil(i)` is the value written
    into row 0, column 0 of batch i's x (np.nan, np.inf), or None to leave that batch clean."""
    import keras

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            xs = x[i * 32:(i + 1) * 32].copy()
            bad = spoil(i)
            if bad is not None:
                xs[0, 0] = bad
            return xs, y[i * 32:(i + 1) * 32]

    return Batches()


def test_a_training_run_is_one_undo_step_and_redo_brings_it_back():
    from kerascanvas.training.trainer import Trainer

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

    from kerascanvas.training.trainer import DataError, Trainer

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
    assert _same(_weights(g), before) and g.lock_reason is None
    with pytest.raises(DataError, match=r"validation_data's x holds a non-finite value"):
        trainer.set_data(*_data(8), validation_data=(bad, _data()[1]))


def test_a_nan_batch_in_a_dataset_stops_before_it_reaches_the_weights():
    import numpy as np
    import tensorflow as tf

    from kerascanvas.training.trainer import DataError, Trainer

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
    assert trainer.status["state"] == "failed" and g.lock_reason is None
    g.undo()  # the three good batches are one undo step
    assert _same(_weights(g), before)
    g.redo()
    trainer.set_data(tf.data.Dataset.from_tensor_slices(_data()).batch(32))
    trainer.fit(epochs=1, block=True)  # retraining works
    assert trainer.status["state"] == "finished"


def test_a_nan_batch_in_a_py_dataset_stops_before_it_reaches_the_weights():
    import numpy as np

    from kerascanvas.training.trainer import DataError, Trainer

    x, y = _data()
    g = _mlp()
    trainer = Trainer(g)
    trainer.set_data(_batches(x, y, lambda i: np.inf if i == 5 else None))
    with pytest.raises(DataError, match="NaN or infinite"):
        trainer.fit(epochs=1, block=True)
    assert all(np.isfinite(w).all() for w in g.model.get_weights())


def test_a_bad_first_batch_keeps_every_weight_and_a_second_run_trains():
    """Under JAX, Keras's fit detaches the variables' values when the first step begins and puts
    them back only after a step ran: the first step's batch failing left every weight (and the
    optimizer's slots) empty, so the model could neither be read nor trained again."""
    import numpy as np

    from kerascanvas.training.trainer import DataError, Trainer

    x, y = _data()
    reads_by_fit = []

    def only_the_first_batch_fit_reads_is_clean(i):
        """Under JAX, fit's first read is a look at the shapes; its first step reads the next."""
        if any(f.function == "describe_data" for f in inspect.stack()):
            return None
        reads_by_fit.append(i)
        return np.nan if len(reads_by_fit) > 1 else None

    g = _mlp()
    trainer = Trainer(g)
    trainer.set_data(_batches(x, y, only_the_first_batch_fit_reads_is_clean))
    with pytest.raises(DataError, match="NaN or infinite"):
        trainer.fit(epochs=1, block=True, shuffle=False)
    assert all(np.isfinite(w).all() for w in g.model.get_weights())  # raised when left empty
    trainer.set_data(x, y)
    trainer.fit(epochs=1, block=True)
    assert trainer.status["state"] == "finished"
    assert all(np.isfinite(w).all() for w in g.model.get_weights())
    ok(g)


def test_a_diverging_loss_keeps_finite_weights():
    import numpy as np

    from kerascanvas.training.trainer import Trainer

    g = _mlp()
    x, y = _data()
    trainer = Trainer(g)
    trainer.set_data(x * 1e18, y * 1e18)
    with pytest.warns(RuntimeWarning, match="loss became"):
        trainer.fit(epochs=3, optimizer="sgd", learning_rate=10.0, block=True)
    assert "restored" in trainer.status["message"]
    assert all(np.isfinite(w).all() for w in g.model.get_weights())


# ----- 6. mixed precision leaves no Cast nodes behind -------------------------------------------

def test_mixed_precision_leaves_no_cast_nodes_on_the_source():
    import numpy as np

    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=2, name="d", dtype="mixed_float16")
    for _ in range(3):
        g.connect("x", "d")
        ok(g)
        g.disconnect("x", "d")
        ok(g)
    g.connect("x", "d")
    assert [type(n.operation).__name__ for n in g.keras_layer("x")._outbound_nodes] == ["Dense"]
    ok(g)
    assert g.model.predict(np.ones((2, 3), "float32"), verbose=0).shape == (2, 2)
    g.undo()
    ok(g)


# ----- 3. strings: valid Unicode text, no control characters --------------------------------------

@pytest.mark.parametrize("bad", ["x\ud800", "\udfffy", "a\x00b", "tab\tname", "bell\x07", "c1\x85"])
def test_names_must_be_valid_text(bad):
    g = kc.Graph()
    g.add_input((3,), name="x")
    before = fingerprint(g)
    for edit in (lambda: g.add_input((3,), name=bad), lambda: g.rename("x", bad),
                 lambda: g.add_layer("Dense", units=2, name=bad)):
        with pytest.raises(kc.EditError, match="surrogate|control character"):
            edit()
        assert fingerprint(g) == before
    with pytest.raises(kc.EditError):
        kc.Graph(name=bad)


def test_config_strings_must_be_valid_text():
    g = kc.Graph()
    g.add_input((1,), name="w", dtype="string")
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="lone surrogate"):
        g.add_layer("StringLookup", vocabulary=["a", "b\ud800"])
    g.add_layer("StringLookup", vocabulary=["a", "line\nbreak"], name="lookup")  # whitespace is text
    with pytest.raises(kc.EditError, match="control character"):
        g.configure("lookup", oov_token="\x00")
    with pytest.raises(kc.EditError, match="lone surrogate"):
        g.add_layer_from_config({"class_name": "Dense", "config": {"name": "d", "units": 2,
                                                                    "activation": "\udc80"}})
    assert list(g.layers) == ["w", "lookup"] and before[1] == g.edges


def test_a_surrogate_from_the_browser_is_refused_and_the_canvas_keeps_pushing():
    import json

    c = kc.Canvas()
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)
    c.receive({"kind": "add_input", "id": 1, "shape": [3], "name": "x\ud800"})
    assert "surrogate" in sent[-1]["error"]
    c.receive({"kind": "add_layer", "id": 2, "class_name": "Dense",
                      "config": {"units": 2, "name_scope": "\ud800"}})
    assert "surrogate" in sent[-1]["error"] and c.graph.layers == {}
    c.receive({"kind": "add_input", "id": 3, "shape": [3], "name": "x"})
    assert sent[-1]["ok"] and [layer["name"] for layer in c.state["layers"]] == ["x"]
    json.dumps(c.state, ensure_ascii=False).encode("utf-8")  # what Jupyter does with it


# ----- 4. no load, no replacement while training runs ------------------------------------------

def test_load_and_replacing_the_drawing_are_refused_while_training(tmp_path):
    import time

    path = tmp_path / "m.kcanvas"
    g = _mlp()
    g.save(path)
    c = kc.Canvas(g, path=str(path))
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)
    x, y = _data(4096)
    c.set_data(x, y)
    c.fit(block=False, epochs=200, batch_size=1)
    try:
        end = time.monotonic() + 20
        while c.trainer.status["batch"] == 0:
            assert time.monotonic() < end
            time.sleep(0.01)
        c.receive({"kind": "load", "id": 1})
        assert "Training is running" in sent[-1]["error"]
        with pytest.raises(Exception, match="Training is running"):
            c.graph = kc.Graph()
        assert c.graph is g and c.trainer.running
    finally:
        c.stop()
        c.trainer.wait(timeout=30)
    assert c.trainer.status["state"] == "stopped"  # Stop reached the run
    c.receive({"kind": "load", "id": 2})
    assert sent[-1]["ok"] and c.graph is not g


# ----- 7. smaller ones ----------------------------------------------------------------------------

def test_a_serialized_lambda_is_refused_even_under_an_allowed_module():
    g = kc.Graph()
    for module in ("keras.initializers", None, "keras"):
        with pytest.raises(kc.EditError, match="Keras.s own initializers"):
            g.add_layer("Dense", units=2, kernel_initializer={
                "module": module, "class_name": "__lambda__", "config": {"value": "x"},
                "registered_name": None})
    assert g.layers == {}


def test_to_code_writes_non_finite_floats_as_code():
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("ReLU", max_value=float("inf"), name="r")
    g.connect("x", "r")
    code = g.to_code()
    assert 'max_value=float("inf")' in code
    exec(compile(code, "<to_code>", "exec"), {})  # noqa: S102 - the code is ours


def test_saving_keeps_the_file_mode(tmp_path):
    import os
    import stat

    g = _mlp()
    path = tmp_path / "m.kcanvas"
    g.save(path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    path.chmod(0o640)
    g.save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_what_saves_loads_and_calls_are_capped_in_one_place(tmp_path):
    from kerascanvas import limits

    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Identity", name="i")
    with limits.allow(calls=3):
        g.add_call("i")
        g.add_call("i")
        with pytest.raises(limits.LimitError, match="4 calls; the cap is 3"):
            g.add_call("i")
        with pytest.raises(limits.LimitError, match="the cap is 3"):
            g.connect("x", "i", call=3)
        g.save(tmp_path / "calls.kcanvas")
        assert kc.Graph.load(tmp_path / "calls.kcanvas").calls("i") == 3


def _rewrite(path, change):
    import io
    import json
    import zipfile

    with zipfile.ZipFile(path) as z:
        doc, weights = json.loads(z.read("kerascanvas.json")), z.read("weights.npz")
    change(doc)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("kerascanvas.json", json.dumps(doc))
        z.writestr("weights.npz", weights)
    path.write_bytes(buffer.getvalue())


def test_a_file_that_drops_a_built_layers_weights_is_refused(tmp_path):
    path = tmp_path / "m.kcanvas"
    _mlp().save(path)
    _rewrite(path, lambda doc: doc["layers"][1].update(weights=0))
    with pytest.raises(kc.EditError, match="weights of 'hidden' are missing"):
        kc.Graph.load(path)


@pytest.mark.parametrize("change", [
    lambda doc: doc["layers"][1].update(class_name="NoSuchLayer"),
    lambda doc: doc["layers"][1].update(class_name="Lambda"),
    lambda doc: doc["layers"][1]["config"].update(units=-3),
    lambda doc: doc["layers"][1]["config"].update(units="many"),
    lambda doc: doc["layers"][1]["config"].update(activation={"class_name": "Nope"}),
    lambda doc: doc.update(name=""),
    lambda doc: doc["layers"][0].update(name="x\udc80"),
], ids=range(7))
def test_bad_files_raise_edit_error(tmp_path, change):
    path = tmp_path / "m.kcanvas"
    _mlp().save(path)
    _rewrite(path, change)
    with pytest.raises(kc.EditError):
        kc.Graph.load(path)


def test_an_input_configured_from_the_browser_takes_add_inputs_dtypes():
    c = kc.Canvas()
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)
    c.receive({"kind": "add_input", "id": 1, "shape": [3], "name": "x"})
    for dtype in ("string", "object", 3):
        c.receive({"kind": "configure", "id": 2, "name": "x", "config": {"dtype": dtype}})
        assert "'dtype' must be one of" in sent[-1]["error"]
        assert c.graph.layers["x"]["config"]["dtype"] == "float32"
    c.receive({"kind": "configure", "id": 3, "name": "x", "config": {"dtype": "int32"}})
    assert sent[-1]["ok"]


def test_a_closed_canvas_lets_go_of_its_graph_and_keras_objects():
    import gc
    import weakref

    c = kc.Canvas()
    c.graph.add_input((3,), name="x")
    canvas, graph = weakref.ref(c), weakref.ref(c.graph)
    layer = weakref.ref(c.graph.keras_layer("x"))
    c.close()  # anywidget's file watcher had kept every canvas alive
    del c
    gc.collect()
    assert canvas() is None and graph() is None and layer() is None
