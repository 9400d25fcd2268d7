"""Issue 10's corpus: real models nobody here wrote import, keep their outputs, export and save.

For each model: from_model -> the invariants hold -> g.model gives exactly the original's outputs on
a random batch (weights carried) -> to_code() runs and rebuilds the same operation count,
parameter count and output shapes -> save/load gives the same outputs.

The default run covers every keras.applications family once (FAMILIES; under JAX and torch the
lighter ones, LIGHT_FAMILIES) and the hand-written models; `KERASCANVAS_SLOW_CORPUS=1 pytest -m slow_corpus tests/test_corpus.py` sweeps every
keras.applications constructor (results in benchmarks/RESULTS.md).
"""

import os
import warnings

import corpus_models
import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc
from kerascanvas.kinds import custom

FAMILIES = ["ConvNeXtTiny", "DenseNet121", "EfficientNetB0", "EfficientNetV2B0",
            "InceptionResNetV2", "InceptionV3", "MobileNet", "MobileNetV2", "MobileNetV3Small",
            "NASNetMobile", "ResNet50", "ResNet50V2", "VGG16", "Xception"]
SIZES = {"InceptionV3": 75, "InceptionResNetV2": 75, "Xception": 71}  # their smallest inputs
APPLICATIONS = sorted(n for n in dir(keras.applications) if n[0].isupper()
                      and callable(getattr(keras.applications, n)))


def application(name):
    if name.startswith("NASNet") and keras.backend.backend() == "torch":
        pytest.skip("Keras itself refuses NASNet models under the torch backend")
    size = SIZES.get(name, 32)
    return getattr(keras.applications, name)(weights=None, input_shape=(size, size, 3), classes=10)


def batch_for(model, seed=0):
    """A random batch (2 samples) for each of the model's inputs, in model.inputs order."""
    rng = np.random.default_rng(seed)
    values = []
    for t in model.inputs:
        shape = (2,) + tuple(d or 4 for d in t.shape[1:])
        if "int" in str(t.dtype):
            values.append(rng.integers(0, 10, shape).astype(t.dtype))
        else:
            values.append(rng.random(shape).astype("float32"))
    return values


def outputs(model, values):
    """The model's outputs, flattened, on inputs given in model.inputs order."""
    struct = getattr(model, "_inputs_struct", None)  # a Sequential: its one input
    struct = keras.tree.pack_sequence_as(model.inputs[0] if struct is None else struct, values)
    return [keras.ops.convert_to_numpy(y) for y in keras.tree.flatten(model(struct, training=False))]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)


def round_trip(model, tmp_path, trust_custom=False):
    g = ok(kc.Graph.from_model(model, trust_custom=trust_custom))
    values = batch_for(model)
    expected = outputs(model, values)
    assert_same(outputs(g.model, values), expected)  # weights carried
    namespace = {}
    exec(compile(g.to_code(), "<kerascanvas>", "exec"), namespace)  # noqa: S102 - the export runs
    rebuilt = namespace["model"]
    assert len(rebuilt.operations) == len(g.model.operations)
    assert rebuilt.count_params() == g.model.count_params() == model.count_params()
    assert [tuple(t.shape) for t in rebuilt.outputs] == [tuple(t.shape) for t in g.model.outputs]
    path = tmp_path / "model.kc"
    g.save(path)
    loaded = ok(kc.Graph.load(path))
    assert_same(outputs(loaded.model, values), expected)
    return g


LIGHT_FAMILIES = ["MobileNet", "MobileNetV2", "ResNet50", "ResNet50V2", "VGG16", "Xception"]
"""The families the JAX and torch passes round trip by default. Importing and exporting is the
backend's business only where weights and outputs are compared; running the deep families op by
op costs those passes minutes each (InceptionResNetV2 about 100 s under JAX), so the rest run
there in the sweep (KERASCANVAS_SLOW_CORPUS=1), and always under TensorFlow."""


def family_params():
    heavy = keras.backend.backend() != "tensorflow"
    sweep = pytest.mark.skipif(not os.environ.get("KERASCANVAS_SLOW_CORPUS"),
                               reason="a deep family under JAX or torch: in the sweep, "
                                      "KERASCANVAS_SLOW_CORPUS=1")
    return [pytest.param(n, marks=[pytest.mark.slow_corpus, sweep])
            if heavy and n not in LIGHT_FAMILIES else n for n in FAMILIES]


@pytest.mark.parametrize("name", family_params())
def test_every_application_family_round_trips(name, tmp_path):
    round_trip(application(name), tmp_path)


@pytest.mark.slow_corpus
@pytest.mark.skipif(not os.environ.get("KERASCANVAS_SLOW_CORPUS"),
                    reason="the full keras.applications sweep: KERASCANVAS_SLOW_CORPUS=1")
@pytest.mark.parametrize("name", [n for n in APPLICATIONS if n not in FAMILIES])
def test_every_application_round_trips(name, tmp_path):
    round_trip(application(name), tmp_path)


@pytest.mark.slow_corpus
@pytest.mark.skipif(not os.environ.get("KERASCANVAS_SLOW_CORPUS"),
                    reason="the full keras.applications sweep: KERASCANVAS_SLOW_CORPUS=1")
@pytest.mark.parametrize("name", APPLICATIONS)
def test_every_application_trains_with_insights_on_every_layer(name):
    """Issue 21 on models nobody here wrote: 2 epochs with insights, every layer with weights
    recorded each epoch, every trainable weight with a gradient, every output summarized, and
    no insights warning (results in benchmarks/RESULTS-training.md)."""
    g = ok(kc.Graph.from_model(application(name)))
    size = SIZES.get(name, 32)
    rng = np.random.default_rng(0)
    canvas = kc.Canvas(g)
    canvas.set_data(rng.normal(size=(32, size, size, 3)).astype("float32"),
                    rng.integers(0, 10, 32))
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            canvas.fit(epochs=2, batch_size=16, block=True)
        assert canvas.trainer.status["state"] == "finished", canvas.trainer.status["message"]
        assert not [w for w in said if "insights" in str(w.message).lower()]
        records = canvas.insights
        for layer in g.model.layers:
            if isinstance(layer, keras.layers.InputLayer):
                continue
            assert len(records[layer.name]) == 2, layer.name
            last = records[layer.name][-1]
            assert last["activations"] is not None, layer.name
            for weight in layer.trainable_weights:
                gradient = last["gradients"][weight.path.removeprefix(layer.name + "/")]
                assert gradient["norm"] is not None, (layer.name, weight.path)
    finally:
        canvas.close()


@pytest.mark.parametrize("make", corpus_models.HAND_WRITTEN, ids=lambda f: f.__name__)
def test_hand_written_models_round_trip(make, tmp_path):
    model = make()
    # a Lambda comes in only as the very object its user trusts (what the user would do)
    trusted = [kc.register(layer) for layer in model.layers if isinstance(layer, keras.layers.Lambda)]
    try:
        round_trip(model, tmp_path, trust_custom=True)
    finally:
        for name in trusted:
            custom.unregister(name)


def test_corpus_is_as_large_as_the_issue_asks():
    assert len(corpus_models.HAND_WRITTEN) >= 15
    assert set(FAMILIES) <= set(APPLICATIONS)
