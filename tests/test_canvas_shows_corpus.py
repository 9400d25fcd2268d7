"""Issue 40: nothing the canvas shows ever raises or prints. Every model of the project's corpus
(the hand-written keras.io-style models, Keras's own test models, KerasHub backbones and task
models, keras.applications bases under a head) is shown as a Canvas (its state and diffs), as its
picture (what a notebook without the widget shows), in the code panel (to_code) and in the
inspector's "Keras internals" (explain_layer), with warnings turned into errors and nothing
written to stdout or stderr. Every keras.applications model is shown under KERASCANVAS_SLOW_CORPUS.
"""

import os
import warnings

import corpus_models
import keras
import keras_suite_models as suite
import pytest

import kerascanvas as kc
from kerascanvas.kinds import custom

SLOW = os.environ.get("KERASCANVAS_SLOW_CORPUS") == "1"


def under_a_head(base):
    """A keras.applications base as people use one: a nested model under a new head."""
    x = keras.Input(base.input_shape[1:], name="image")
    y = keras.layers.GlobalAveragePooling2D()(base(x))
    return keras.Model(x, keras.layers.Dense(3, name="head")(y), name=f"{base.name}_tuned")


def mobilenet_under_a_head():
    return under_a_head(keras.applications.MobileNetV2(weights=None, include_top=False,
                                                       input_shape=(32, 32, 3)))


def resnet50():
    return keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=10)


def efficientnet_under_a_head():
    return under_a_head(keras.applications.EfficientNetB0(weights=None, include_top=False,
                                                          input_shape=(32, 32, 3)))


def keras_hub_models():
    try:
        import test_keras_hub as hub
    except pytest.skip.Exception:  # keras-hub is not installed
        return []
    return [hub.bert, hub.gpt2, hub.gemma, hub.llama, hub.bert_classifier, hub.gpt2_causal_lm,
            hub.gemma_causal_lm]


def applications():
    if not SLOW:
        return []
    import test_corpus

    return [pytest.param(lambda n=n: test_corpus.application(n), id=n)
            for n in test_corpus.APPLICATIONS]


MODELS = [*corpus_models.HAND_WRITTEN, *suite.MODELS, *keras_hub_models(),
          mobilenet_under_a_head, resnet50, efficientnet_under_a_head]


def show(g):
    """Everything the canvas and a notebook show of a drawing, as a user meets it."""
    canvas = kc.Canvas(g)
    try:
        state = canvas.graph.state()
        bundle, _ = canvas._repr_mimebundle_()
        picture = bundle["image/svg+xml"]
        assert picture.startswith("<svg") and picture.endswith("</svg>")
        try:  # the code panel shows the code, or why there is none, as text
            assert g.to_code()
        except kc.EditError as e:
            assert "which code cannot write" in str(e)
        for layer in state["layers"]:
            g.explain_layer(layer["name"])
        nested = [layer["name"] for layer in state["layers"] if layer["class_name"] in
                  ("Functional", "Sequential")]
        for name in nested:  # an expanded base shows its inside
            g.expand(name)
            assert next(la for la in g.state()["layers"] if la["name"] == name)["inner"]
    finally:
        canvas.close()


@pytest.mark.parametrize("make", [*MODELS, *applications()],
                         ids=lambda f: getattr(f, "__name__", None))
def test_every_corpus_model_shows_on_the_canvas_without_a_word_printed(make, capfd):
    before = {*custom.registered(), *custom.trusted()}
    model = make()
    for layer in model.layers:  # a Lambda comes in as the very object its user trusts
        if isinstance(layer, keras.layers.Lambda):
            kc.register(layer)
    capfd.readouterr()  # what making the model printed is Keras's, not the canvas's
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            # (a DeprecationWarning from library code is not shown in a notebook: NumPy's about
            # torch tensors' __array__ under the torch backend)
            warnings.simplefilter("ignore", DeprecationWarning)
            g = kc.Graph.from_model(model, trust_custom=True)
            show(g)
    finally:  # each model as in a session of its own (KerasHub has a TransformerEncoder too)
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)
    out, err = capfd.readouterr()
    assert (out, err) == ("", ""), f"printed while shown: {out}{err}"
