"""Training beyond one device (issue 46): keras.distribution objects and strategy="model_parallel"
under JAX on two logical CPU devices, in one subprocess (the device count is fixed as JAX starts);
the refusals of what is not a distribution, under whichever backend runs the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import keras
import numpy as np
import pytest

import kerascanvas as kc
from kerascanvas.training import devices, layouts
from kerascanvas.training.trainer import Trainer, TrainingError

ROOT = Path(__file__).resolve().parents[1]

JAX_RUN = """
    import json, math
    import keras, numpy as np
    import kerascanvas as kc
    from kerascanvas.datasets import digits
    from kerascanvas.training import placement
    from kerascanvas.training.trainer import Trainer

    def drawn():
        g = kc.Graph()
        g.add_input((8, 8, 1), name="image"); g.add_layer("Flatten")
        g.add_layer("Dense", units=64, activation="relu"); g.add_layer("Dropout", rate=0.1)
        g.add_layer("Dense", units=10, activation="softmax", name="head")
        g.connect("image", "flatten"); g.connect("flatten", "dense")
        g.connect("dense", "dropout"); g.connect("dropout", "head")
        return g

    def specs(g):
        return {f"{layer}/{v.name}": [a for a in v.value.sharding.spec]
                for layer in ("dense", "head") for v in g.keras_layer(layer).weights}

    x, y = digits()
    out = {}
    # a ModelParallel object made by hand (the Trainer is what canvas.fit runs)
    g = drawn()
    trainer = Trainer(g)
    trainer.set_data(x, y)
    before = g.keras_layer("dense").get_weights()[0].copy()
    mesh = keras.distribution.DeviceMesh((1, 2), ("batch", "model"),
                                         keras.distribution.list_devices())
    layout_map = keras.distribution.LayoutMap(mesh)
    layout_map["dense/kernel"] = (None, "model")
    given = keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = trainer.fit(block=True, epochs=3, learning_rate=3e-3, strategy=given)
    # the insights recorded on the mesh: a statistic of the sharded kernel against the same
    # statistic of the gathered array
    from kerascanvas.insights import insights
    recorded = insights.of(g).records()["dense"][-1]
    full = keras.ops.convert_to_numpy(g.keras_layer("dense").kernel.value)
    out["insights"] = {"epochs": insights.of(g).recorded_epochs(),
                       "kernel": recorded["weights"]["kernel"],
                       "gradient": recorded["gradients"]["kernel"]["norm"],
                       "units": recorded["activations"]["units"],
                       "full": {"norm": float(np.linalg.norm(full)), "mean": float(full.mean()),
                                "max": float(full.max()), "min": float(full.min())},
                       "warnings": [str(w.message) for w in caught
                                    if "insights" in str(w.message).lower()]}
    out["given"] = {"loss": history.history["loss"], "specs": specs(g),
                    "devices": len(g.keras_layer("dense").kernel.value.sharding.device_set),
                    "status": trainer.status["device"],
                    "mesh": trainer.status["mesh"],
                    "optimizer": [list(v.value.sharding.spec) for v in
                                  history.model.optimizer.variables
                                  if v.path.endswith("dense_kernel_momentum")],
                    "layouts": placement.weight_layouts(g.model),
                    "status_layouts": trainer.status["layouts"],
                    "changed": bool(not np.allclose(before, g.keras_layer("dense").get_weights()[0]))}
    trained = g.keras_layer("dense").get_weights()[0].copy()
    g.undo()  # the run is one undo step: the weights from before it, still laid out
    out["undo"] = {"back": bool(np.allclose(before, g.keras_layer("dense").get_weights()[0])),
                   "specs": specs(g)}
    g.redo()
    out["redo"] = bool(np.allclose(trained, g.keras_layer("dense").get_weights()[0]))
    out["code"] = g.to_code(training=True)
    import os, tempfile
    path = os.path.join(tempfile.mkdtemp(), "run.kcanvas")
    g.save(path)  # the weights' values, wherever they lie
    loaded = kc.Graph.load(path)
    out["loaded"] = bool(np.allclose(trained, loaded.keras_layer("dense").get_weights()[0]))
    # then on one device again: the weights gathered back
    trainer.fit(block=True, epochs=1, strategy="none")
    out["gathered"] = {"devices": len(g.keras_layer("dense").kernel.value.sharding.device_set),
                       "layouts": placement.weight_layouts(g.model),
                       "code": g.to_code(training=True)}
    # a layout that does not fit is refused, every variable left where it was
    bad_map = keras.distribution.LayoutMap(mesh)
    bad_map["head/kernel"] = (None, None, "model")  # three axes for a 2-D kernel
    kept = [w.copy() for w in g.model.get_weights()]
    try:
        trainer.fit(block=True, strategy=keras.distribution.ModelParallel(layout_map=bad_map))
        refused = ""
    except Exception as e:
        refused = f"{type(e).__name__}: {e}"
    out["bad"] = {"refused": refused, "unlocked": g.lock_reason is None,
                  "devices": sorted(len(v.value.sharding.device_set) for v in g.model.variables),
                  "same": all(np.array_equal(a, b) for a, b in zip(kept, g.model.get_weights()))}
    # strategy="model_parallel": the layout chosen for the drawing
    g = drawn()
    trainer = Trainer(g)
    trainer.set_data(x, y)
    history = trainer.fit(block=True, epochs=3, learning_rate=3e-3, strategy="model_parallel")
    out["chosen"] = {"loss": history.history["loss"], "specs": specs(g),
                     "status": trainer.status["device"],
                     "state": trainer.status["state"],
                     "predict": bool(np.isfinite(g.model.predict(x[:4], verbose=0)).all())}
    # a DataParallel object: every weight replicated on both devices
    history = trainer.fit(block=True, epochs=1, strategy=keras.distribution.DataParallel())
    out["data"] = {"loss": history.history["loss"], "specs": specs(g),
                   "devices": len(g.keras_layer("dense").kernel.value.sharding.device_set)}
    print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def jax_run() -> dict:
    """One JAX interpreter with two logical CPU devices runs every distributed check (about
    15 s), whatever the suite's backend; once per suite pass that can import JAX (the PyTorch
    pass skips it: the same checks ran in the others)."""
    pytest.importorskip("jax")
    if keras.backend.backend() == "torch":
        pytest.skip("run in the TensorFlow and JAX passes of the suite")
    env = {**os.environ, "KERAS_BACKEND": "jax", "TF_CPP_MIN_LOG_LEVEL": "3",
           "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(JAX_RUN)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _falls(loss: list[float]) -> bool:
    return all(np.isfinite(loss)) and loss[-1] < loss[0]


def test_a_model_parallel_object_lays_out_the_live_variables(jax_run):
    given = jax_run["given"]
    assert _falls(given["loss"]) and given["changed"]
    assert given["specs"]["dense/kernel"] == [None, "model"]  # the layout map's entry
    assert given["specs"]["head/kernel"] == [None, None]  # replicated: in no entry
    assert given["devices"] == 2
    assert given["optimizer"] == [[None, "model"]]  # the optimizer's slots follow
    assert given["status"].startswith("ModelParallel on a mesh (batch: 1, model: 2) over 2 "
                                      "devices (cpu:0, cpu:1)")
    assert given["mesh"] == {"devices": ["cpu:0", "cpu:1"], "axes": {"batch": 1, "model": 2},
                             "batch_axis": "batch"}
    assert given["layouts"]["dense"] == {"kernel": "sharded on model (dim 1 of 2)",
                                         "bias": "replicated"}
    assert given["status_layouts"] == given["layouts"]  # the training state says it too
    assert set(given["layouts"]) == {"dense", "head"}  # (the layers with weights)


def test_insights_are_recorded_on_the_mesh_and_stay_correct(jax_run):
    """The record program runs on the mesh (each statistic reduced where the shards lie): a
    model-parallel fit records its insights, and the sharded kernel's statistics equal those
    of the gathered array (issue 46)."""
    seen = jax_run["insights"]
    assert seen["warnings"] == [] and seen["epochs"] == [1, 3]
    kernel, full = seen["kernel"], seen["full"]
    for name in ("norm", "mean", "max", "min"):
        assert kernel[name] == pytest.approx(full[name], rel=1e-4, abs=1e-6), name
    assert seen["gradient"] > 0 and seen["units"] == 64


def test_a_distributed_run_undoes_saves_and_gathers_back(jax_run):
    assert jax_run["undo"]["back"] and jax_run["redo"] and jax_run["loaded"]
    assert jax_run["undo"]["specs"]["dense/kernel"] == [None, "model"]
    gathered = jax_run["gathered"]
    assert gathered["devices"] == 1 and gathered["layouts"] == {}


def test_a_layout_that_does_not_fit_is_refused_and_changes_nothing(jax_run):
    bad = jax_run["bad"]
    assert bad["refused"].startswith("TrainingError: The distribution's layout (None, None, "
                                     "'model') does not fit head/kernel (shape (64, 10)) on its "
                                     "mesh (batch: 1, model: 2)")
    assert bad["unlocked"] and bad["same"] and set(bad["devices"]) == {1}


def test_model_parallel_chooses_a_layout_for_the_drawing(jax_run):
    chosen = jax_run["chosen"]
    assert chosen["state"] == "finished" and _falls(chosen["loss"])
    assert chosen["specs"]["dense/kernel"] == [None, "model"]  # 64 units over 2 devices
    assert chosen["specs"]["head/kernel"] == [None, "model"]  # 10 units: split too
    assert chosen["specs"]["dense/bias"] == [None]
    assert chosen["status"].startswith("ModelParallel on a mesh (batch: 1, model: 2)")
    assert chosen["predict"]


def test_a_data_parallel_object_replicates_every_weight(jax_run):
    data = jax_run["data"]
    assert all(np.isfinite(data["loss"]))
    assert data["devices"] == 2
    assert all(all(a is None for a in spec) for spec in data["specs"].values())


def test_the_training_code_writes_the_distribution(jax_run):
    code = jax_run["code"]
    assert "keras.distribution.DeviceMesh(shape=(1, 2), axis_names=('batch', 'model'))" in code
    assert "layout_map['dense/kernel'] = (None, 'model')" in code
    assert "keras.distribution.set_distribution(" in code
    assert code.index("set_distribution(") < code.index("keras.Input(")  # before any variable
    compile(code, "training code", "exec")  # Python as written
    assert "keras.distribution" not in jax_run["gathered"]["code"]


# ----- refusals, under any backend ------------------------------------------------------------------

class _Scoped:
    def scope(self):  # a scope alone is not a distribution
        raise AssertionError("never entered")


def test_what_is_not_a_distribution_is_refused_by_name():
    for wrong in (_Scoped(), 3, object()):
        with pytest.raises(TypeError, match=rf"got a {type(wrong).__name__}"):
            devices.choose_engine(wrong)
    with pytest.raises(ValueError, match="'model_parallel'"):
        devices.choose_engine("model parallel")


def dense_trainer(x, y):
    """x (4 features) -> Dense(2) "dense", and a Trainer of it holding (x, y)."""
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2)
    g.connect("x", "dense")
    trainer = Trainer(g)
    trainer.set_data(x, y)
    return g, trainer


def test_fit_refuses_a_strategy_and_changes_nothing():
    g, trainer = dense_trainer(np.zeros((8, 4), "float32"), np.zeros((8,), "int32"))
    before = g.keras_layer("dense").get_weights()[0].copy()
    with pytest.raises(TypeError, match="a keras.distribution object"):
        trainer.fit(strategy=_Scoped())
    if keras.backend.backend() != "jax":
        with pytest.raises(TrainingError, match="'model_parallel'.*needs the JAX backend"):
            trainer.fit(strategy="model_parallel")
    elif len(devices.visible_devices()) < 2:
        with pytest.raises(TrainingError, match="'model_parallel' splits weights over several "
                                                "devices; jax sees one"):
            trainer.fit(strategy="model_parallel")
    assert np.array_equal(before, g.keras_layer("dense").get_weights()[0])
    assert g.lock_reason is None and not trainer.running and g.last_training is None


def test_a_keras_distribution_needs_jax():
    if keras.backend.backend() == "jax":
        pytest.skip("the JAX subprocess trains with one")

    class LooksLikeOne:  # what Keras's fit uses of a keras.distribution object
        device_mesh = None

        def scope(self): ...
        def get_variable_layout(self, variable): ...
        def get_data_layout(self, shape): ...

    with pytest.raises(TrainingError, match=r"keras.distribution LooksLikeOne needs the JAX "
                                            rf"backend.*this one is {keras.backend.backend()}"):
        devices.choose_engine(LooksLikeOne())


def test_largest_kernels_are_split_where_the_model_axis_divides():
    g = kc.Graph()
    g.add_input((16,), name="x")
    g.add_layer("Dense", units=64, name="wide")
    g.add_layer("Dense", units=3, name="odd")  # 3 units: split on its input dimension
    g.add_layer("Dense", units=1, name="tiny")  # 1 % of the largest: left replicated
    g.connect("x", "wide"); g.connect("wide", "odd"); g.connect("odd", "tiny")

    class Mesh:  # what largest_kernels reads of a DeviceMesh
        axis_names, shape = ("batch", "model"), (1, 2)

    layout_map = layouts.largest_kernels(g.model, Mesh())
    assert {k: tuple(v.axes) for k, v in layout_map.items()} == {
        "wide/kernel": (None, "model"), "odd/kernel": ("model", None)}


def test_a_tf_distribute_strategy_object_trains_under_tensorflow():
    if keras.backend.backend() != "tensorflow":
        pytest.skip("a tf.distribute.Strategy is TensorFlow's")
    import tensorflow as tf

    g, trainer = dense_trainer(np.ones((16, 4), "float32"), np.zeros((16,), "int32"))
    before = g.keras_layer("dense").get_weights()[0].copy()
    history = trainer.fit(epochs=1, strategy=tf.distribute.OneDeviceStrategy("/cpu:0"),
                          block=True)
    assert trainer.status["state"] == "finished"
    assert trainer.status["device"].startswith("OneDeviceStrategy; ")
    assert history.model is not g.model  # a clone made in its scope, its weights copied back
    assert not np.array_equal(before, g.keras_layer("dense").get_weights()[0])
    assert trainer.status["mesh"] is None and trainer.status["layouts"] == {}


def test_a_kerashub_backbone_brings_its_own_layout():
    keras_hub = pytest.importorskip("keras_hub")
    backbone = keras_hub.models.GemmaBackbone(
        vocabulary_size=50, num_layers=1, hidden_dim=8, intermediate_dim=16, num_query_heads=2,
        num_key_value_heads=2, head_dim=4)
    g = kc.Graph.from_model(backbone, trust_custom=True)  # drawn as its layers
    mesh = keras.distribution.DeviceMesh((1, 1), ("batch", "model"), ["cpu:0"])  # (any backend)
    layout_map = layouts.backbone_layout(g.model, mesh)
    assert tuple(layout_map["decoder_block_0/attention/query/kernel"].axes) == (
        "model", "batch", None)  # GemmaBackbone.get_layout_map's
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2)
    g.connect("x", "dense")
    assert layouts.backbone_layout(g.model, mesh) is None


def test_model_parallel_refuses_a_model_with_nothing_to_split():
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Conv2D", filters=4, kernel_size=3)
    g.connect("image", "conv2d")
    with pytest.raises(TrainingError, match="found nothing to split over 2 devices"):
        layouts.model_parallel(g.model, ["cpu:0", "cpu:1"])
