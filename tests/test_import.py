"""Import: any Functional or Sequential model of catalog layers becomes a drawing, weights included."""

import json

import keras
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from support import history, ok
from test_codegen import STEPS, random_graph, ruff

import kerascanvas as kc


def same_weights(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a.get_weights(), b.get_weights()))


def test_shared_layers_multi_outputs_and_outside_calls():
    left, right = keras.Input((5, 3), name="left"), keras.Input((5, 3), name="right")
    lstm = keras.layers.LSTM(4, return_state=True, name="lstm")
    lstm(keras.Input((5, 3)))  # a call outside the model: its node is not the model's
    out_l, h_l, _ = lstm(left)
    _, _, c_r = lstm(right)
    added = keras.layers.Add(name="add")([h_l, c_r])
    model = keras.Model([left, right], [out_l, added], name="twins")
    g = ok(kc.Graph.from_model(model))
    assert g.name == "twins" and g.calls("lstm") == 2  # renumbered: the model's nodes 0 and 1
    assert history(g, "add", 0, 0) == ("lstm", 0, 1) and history(g, "add", 0, 1) == ("lstm", 1, 2)
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model)
    x = np.random.rand(2, 5, 3).astype("float32")
    for a, b in zip(g.model.predict([x, x], verbose=0), model.predict([x, x], verbose=0)):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_sequential_imports_and_undo_takes_it_back_at_once():
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name="d1"),
                              keras.layers.Dropout(0.2, name="drop"), keras.layers.Dense(2, name="d2")])
    g = ok(kc.Graph.from_model(model))
    assert list(g.layers)[1:] == ["d1", "drop", "d2"]
    assert same_weights(g.model, model) and g.model.count_params() == model.count_params()
    g.undo()
    assert dict(g.layers) == {}


class Custom(keras.layers.Layer):
    def call(self, x):
        return x


@pytest.mark.parametrize("layer,message", [
    (keras.layers.Lambda(lambda t: t * 2, name="double"), "'double' is a Lambda"),
    (Custom(name="mine"), "'mine' is a .*Custom"),
])
def test_layers_outside_the_catalog_are_refused_by_name(layer, message):
    x = keras.Input((3,))
    model = keras.Model(x, keras.layers.Dense(2)(layer(x)))
    with pytest.raises(kc.EditError, match=message):
        kc.Graph.from_model(model)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_random_models_round_trip_through_a_drawing(steps):
    model = random_graph(steps).model
    g = ok(kc.Graph.from_model(model))
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model) and g.model.count_params() == model.count_params()


def nested_models():
    """A two-input, three-output Functional used as a layer, and a Sequential called twice."""
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    d = keras.layers.Dense(2, name="d")
    inner = keras.Model([a, b], [d(a), d(b), keras.layers.Add(name="s")([a, b])], name="inner")
    seq = keras.Sequential([keras.Input((3,), name="sin"), keras.layers.Dense(3, name="sd")], name="seq")
    x, y = keras.Input((3,), name="x"), keras.Input((3,), name="y")
    o1, o2, o3 = inner([x, y])
    both = keras.layers.Concatenate(name="cat")([seq(o3), seq(x)])
    return keras.Model([x, y], [o1, o2, both], name="outer")


def test_nested_models_import_as_boxes_with_their_weights():
    model = nested_models()
    g = ok(kc.Graph.from_model(model))
    assert list(g.layers) == ["x", "y", "inner", "seq", "cat"]
    assert g.layers["inner"]["class_name"] == "Functional" and g.calls("seq") == 2
    spec = g.specs["inner"]
    assert (spec.slots.kind, spec.slots.names, spec.n_outputs) == ("list", ("a", "b"), 3)
    assert history(g, "cat", 0, 0) == ("seq", 0, 0) and history(g, "seq", 0, 0) == ("inner", 0, 2)
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model) and g.model.count_params() == model.count_params()
    x = np.random.rand(2, 3).astype("float32")
    for p, q in zip(g.model.predict([x, x], verbose=0), model.predict([x, x], verbose=0)):
        np.testing.assert_allclose(p, q, rtol=1e-5)


def test_a_transfer_learning_classifier_keeps_its_bases_name_with_dots_on_every_backend(tmp_path):
    """keras.applications name a base "mobilenetv2_0.35_32": a nested functional model's weights
    are named by its own layers, so even under torch (no '.' in a weight's name) its box keeps
    that name, trains, saves and exports; a layer that owns its weights may not take a '.' there."""
    base = keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(32, 32, 3),
                                          pooling="avg", alpha=0.35)
    base.trainable = False
    image = keras.Input((32, 32, 3), name="image")
    classifier = keras.Model(image, keras.layers.Dense(10, name="head")(base(image)))
    g = ok(kc.Graph.from_model(classifier))
    assert list(g.layers) == ["image", "mobilenetv2_0.35_32", "head"]
    assert g.model.get_config() == classifier.get_config() and same_weights(g.model, classifier)
    g.rename("mobilenetv2_0.35_32", "base.v2")
    trainer = kc.Canvas(g).trainer
    trainer.set_data(np.random.rand(8, 32, 32, 3).astype("float32"), np.arange(8))
    trainer.fit(epochs=1, batch_size=4, block=True)
    g.save(tmp_path / "tl.kcanvas")
    assert list(kc.Graph.load(tmp_path / "tl.kcanvas").layers) == ["image", "base.v2", "head"]
    space = {}
    exec(g.to_code(), space)  # noqa: S102 - the export, run as a user runs it
    assert "base.v2" in [layer.name for layer in space["model"].layers]
    if keras.backend.backend() == "torch":
        for name_it in (lambda: g.rename("head", "head.x"),
                        lambda: g.add_layer("Dense", units=2, name="d.x")):
            with pytest.raises(kc.EditError, match="may not contain '.'.*torch"):
                name_it()
        assert list(g.layers) == ["image", "base.v2", "head"]


def test_models_nested_in_nested_models():
    p = keras.Input((4,), name="p")
    leaf = keras.Model(p, {"q": keras.layers.Dense(2, name="q")(p),
                           "r": keras.layers.Dense(3, name="r")(p)}, name="leaf")
    m = keras.Input((4,), name="m")
    out = leaf(m)
    mid = keras.Model(m, [keras.layers.Concatenate(name="c")([out["q"], out["r"]])], name="mid")
    mid.trainable = False
    unbuilt = keras.Sequential([keras.layers.Dense(4, name="sd")], name="plain")  # built by its call
    x = keras.Input((4,), name="x")
    model = keras.Model(x, mid(unbuilt(x))[0], name="outer")
    g = ok(kc.Graph.from_model(model))
    assert g.model.get_config() == model.get_config() and same_weights(g.model, model)
    assert g.keras_layer("mid").trainable is False


def test_layers_inside_nested_models_are_checked_too():
    x = keras.Input((3,))
    inner = keras.Model(x, keras.layers.Lambda(lambda t: t * 2, name="double")(x), name="inner")
    y = keras.Input((3,))
    with pytest.raises(kc.EditError, match="'double' is a Lambda"):
        kc.Graph.from_model(keras.Model(y, inner(y)))

    class Mine(keras.Model):
        def call(self, t):
            return t

    with pytest.raises(kc.EditError, match="Mine"):
        kc.Graph.from_model(keras.Model(y, Mine(name="mine")(y)))


def test_call_arguments_that_are_no_tensors_are_kept_as_settings_not_dropped():
    x = keras.Input((3,))
    model = keras.Model(x, keras.layers.Dropout(0.5, name="drop")(x, training=True))
    g = ok(kc.Graph.from_model(model))
    assert g.call_settings("drop") == {"training": True}
    assert g.keras_layer("drop")._inbound_nodes[0].arguments.kwargs == {"training": True}


def test_keyword_tensors_go_to_their_named_slots():
    q, v, k = (keras.Input((4, 8), name=n) for n in ("q", "v", "k"))
    out = keras.layers.MultiHeadAttention(2, 4, name="mha")(query=q, value=v, key=k)
    g = ok(kc.Graph.from_model(keras.Model([q, v, k], out)))
    assert [history(g, "mha", 0, s) for s in range(3)] == [("q", 0, 0), ("v", 0, 0), ("k", 0, 0)]


def test_the_nested_kind_checks_every_layer_in_a_config():
    from kerascanvas.kinds import kinds

    model = nested_models()
    config = model.get_layer("inner").get_config()
    kind = kinds.get("Functional")
    assert kind.group == "models" and kind.n_outputs(config) == 3
    assert kind.slots_for(config).names == ("a", "b")
    assert kinds.get("Sequential").slots_for(model.get_layer("seq").get_config()).kind == "single"
    entry = config["layers"][2]
    entry["module"] = "os"  # pinned back to keras.layers: a config names classes, not modules
    assert kind.create(config).get_layer("d").__class__ is keras.layers.Dense
    entry["class_name"] = "Lambda"
    with pytest.raises(kc.EditError, match="'d' of nested model 'inner' is a 'Lambda'"):
        kind.create(config)
    entry["class_name"] = "keras.src.layers.Dense"
    with pytest.raises(kc.EditError, match="does not offer"):
        kind.create(config)


def test_load_keras_file(tmp_path):
    x = keras.Input((4,), name="x")
    model = keras.Model(x, keras.layers.Dense(3, name="head")(x))
    path = tmp_path / "m.keras"
    model.save(path)
    g = kc.Graph.load_keras(path)
    assert same_weights(g.model, model)
    with pytest.raises(kc.EditError, match="no file"):
        kc.Graph.load_keras(tmp_path / "missing.keras")
    (tmp_path / "bad.keras").write_bytes(b"not a zip")
    with pytest.raises(kc.EditError, match="could not load"):
        kc.Graph.load_keras(tmp_path / "bad.keras")


@pytest.mark.parametrize("name", ["ResNet50", "MobileNetV2", "DenseNet121", "InceptionV3",
                                  "EfficientNetB0", "NASNetMobile"])
def test_applications_import_export_and_rebuild_identical(name, tmp_path):
    if name == "NASNetMobile" and keras.backend.backend() == "torch":
        pytest.skip("Keras itself refuses NASNetMobile under the torch backend")
    model = getattr(keras.applications, name)(weights=None)
    g = kc.Graph.from_model(model)
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model)
    code = g.to_code()
    for args in (["check"], ["format", "--check", "--diff"]):
        result = ruff(code, tmp_path, *args)
        assert result.returncode == 0, result.stdout[-2000:]
    namespace = {}
    exec(code, namespace)  # noqa: S102 - the test runs the export
    again = namespace["model"]
    assert again.get_config() == model.get_config()
    assert again.count_params() == model.count_params()


def test_a_nested_model_box_expands_into_its_inner_graph_and_back():
    from kerascanvas.mirror.state import graph_state

    g = ok(kc.Graph.from_model(nested_models()))
    folded = {layer["name"]: layer for layer in graph_state(g)["layers"]}
    assert folded["inner"]["inner_layers"] == 2 and folded["seq"]["inner_layers"] == 1
    assert not folded["inner"]["expanded"] and folded["cat"]["inner_layers"] is None
    before = g.positions
    g.expand("inner")
    assert g.expanded == {"inner"}
    state = {layer["name"]: layer for layer in graph_state(g)["layers"]}
    inside = state["inner"]["inner"]
    assert state["inner"]["expanded"]
    assert [(b["name"], b["class_name"], b["output"], b["shape"]) for b in inside["layers"]] == [
        ("a", "InputLayer", False, [None, 3]), ("b", "InputLayer", False, [None, 3]),
        ("d", "Dense", True, [None, 2]), ("s", "Add", True, [None, 3])]
    assert sorted(map(tuple, inside["edges"])) == [("a", "d"), ("a", "s"), ("b", "d"), ("b", "s")]
    rows = {b["name"]: b["y"] for b in inside["layers"]}
    assert rows["a"] == rows["b"] < rows["d"] == rows["s"]  # inputs above, by the inner depth map
    for b in inside["layers"]:  # inside the outer box
        assert 0 <= b["x"] and b["x"] + b["w"] <= inside["width"]
        assert 0 < b["y"] and b["y"] + b["h"] <= inside["height"]
    # the rows below the grown box move down to make room for it
    pos = g.positions
    assert pos["seq"][1] >= pos["inner"][1] + inside["height"] > before["seq"][1]
    g.expand("inner", open=False)
    assert g.expanded == frozenset() and g.positions == before
    g.undo()
    assert g.expanded == {"inner"}  # a view change is an undo step, as a move is
    g.rename("inner", "encoder")
    assert g.expanded == {"encoder"}
    g.remove("encoder")
    assert g.expanded == frozenset()


def test_only_nested_models_expand():
    g = ok(kc.Graph.from_model(nested_models()))
    with pytest.raises(kc.EditError, match=r"'cat' \(Concatenate\) is not a nested model"):
        g.expand("cat")
    with pytest.raises(kc.EditError, match="nowhere"):
        g.expand("nowhere")
    assert g.expanded == frozenset() and not g.can_redo


def test_the_inside_of_a_model_nested_in_a_nested_model_shows_it_as_a_model():
    from kerascanvas.io.inner import inner_view

    p = keras.Input((4,), name="p")
    leaf = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, name="q")], name="leaf")
    mid = keras.Model(p, leaf(p), name="mid")
    x = keras.Input((4,), name="x")
    g = ok(kc.Graph.from_model(keras.Model(x, mid(x))))
    g.expand("mid")
    view = inner_view(g.keras_layer("mid"))
    assert [(b["name"], b["class_name"], b["nested"]) for b in view["layers"]] == [
        ("p", "InputLayer", False), ("leaf", "Sequential", True)]


def test_a_nested_model_is_made_once_on_import(monkeypatch):
    from kerascanvas.kinds import nested

    made = []
    create = nested.ModelKind.create
    monkeypatch.setattr(nested.ModelKind, "create", lambda self, c: made.append(c["name"]) or create(self, c))
    g = ok(kc.Graph.from_model(nested_models()))
    assert sorted(made) == ["inner", "seq"]  # checked and then called: the same object
    assert g.keras_layer("inner")._inbound_nodes[0].operation is g.keras_layer("inner")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS, STEPS)
def test_random_models_nested_in_random_models_round_trip(tmp_path_factory, inner_steps, outer_steps):
    """Random models used as layers, one of them called twice (shared weights): model -> drawing
    -> model, -> code, and -> file -> drawing."""
    inner = random_graph(inner_steps, name="inner").model
    outer = random_graph(outer_steps, name="outer").model
    x = keras.Input((4,), name="top")
    outputs = [*keras.tree.flatten(inner(x)), *keras.tree.flatten(outer(x)), *keras.tree.flatten(inner(x))]
    model = keras.Model(x, outputs, name="top_model")
    g = ok(kc.Graph.from_model(model))
    assert g.calls("inner") == 2
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model) and g.model.count_params() == model.count_params()
    namespace = {}
    exec(g.to_code(), namespace)  # noqa: S102 - the test runs the export
    assert namespace["model"].get_config() == model.get_config()
    path = tmp_path_factory.mktemp("nested") / "n.kcanvas"
    g.save(path)
    again = ok(kc.Graph.load(path))
    # as JSON: the file holds a nested model's config as JSON, so its tuples come back as lists
    assert json.dumps(again.model.get_config()) == json.dumps(model.get_config())
    assert same_weights(again.model, model)


def test_a_nested_model_is_configured_duplicated_and_undone_like_any_box():
    g = ok(kc.Graph.from_model(nested_models()))
    weights = [w.copy() for w in g.keras_layer("inner").get_weights()]
    g.configure("inner", trainable=False)  # two inputs: its slots come from its own config
    assert g.keras_layer("inner").trainable is False and g.model.get_layer("inner").trainable is False
    assert all(np.array_equal(a, b) for a, b in zip(g.keras_layer("inner").get_weights(), weights))
    copy = g.duplicate(["inner"])["inner"]
    assert g.specs[copy].slots.names == ("a", "b") and g.keras_layer(copy).trainable is False
    g.undo()
    g.undo()
    assert g.keras_layer("inner").trainable is True
    assert all(np.array_equal(a, b) for a, b in zip(g.keras_layer("inner").get_weights(), weights))
    ok(g)


def test_a_call_that_feeds_a_layer_drawn_before_it_imports():
    x = keras.Input((4,), name="x")
    d, e = keras.layers.Dense(4, name="d"), keras.layers.Dense(4, name="e")
    d(x), e(x)  # d and e each called twice, interleaved: e's call 1 takes d's call 1
    model = keras.Model(x, [d(x), e(d(e(x)))])
    g = ok(kc.Graph.from_model(model))
    assert g.model.get_config() == model.get_config()


def test_weights_shared_across_nested_models_are_drawn_as_one_box_not_split():
    a, b, x = keras.Input((3,), name="a"), keras.Input((3,), name="b"), keras.Input((3,), name="x")
    shared = keras.layers.Dense(3, name="shared")
    inner, other = keras.Model(a, shared(a), name="inner"), keras.Model(b, shared(b), name="other")
    for outputs in ([inner(x), shared(x)], [inner(x), other(x)]):
        model = keras.Model(x, keras.layers.Add()(outputs))
        g = ok(kc.Graph.from_model(model))  # the nested models drawn as their layers
        assert "inner" not in g.layers and g.calls("shared") == 2
        assert g.keras_layer("shared").kernel is not shared.kernel  # a copy of the weights
        batch = np.random.rand(2, 3).astype("float32")
        np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(batch)),
                                   keras.ops.convert_to_numpy(model(batch)), atol=1e-6)


def test_freezing_a_nested_model_freezes_its_layers_as_keras_does():
    g = ok(kc.Graph.from_model(nested_models()))
    g.configure("inner", trainable=False)
    expected = nested_models()
    expected.get_layer("inner").trainable = False
    assert len(g.model.trainable_weights) == len(expected.trainable_weights)
    assert g.keras_layer("inner").get_layer("d").trainable is False
    namespace = {}
    exec(g.to_code(), namespace)  # noqa: S102 - the export keeps it frozen
    assert len(namespace["model"].trainable_weights) == len(expected.trainable_weights)
    g.configure("inner", trainable=True)
    assert g.keras_layer("inner").get_layer("d").trainable is True


def test_a_sequential_ending_in_a_multi_output_layer_has_its_ports():
    seq = keras.Sequential([keras.Input((5, 3)), keras.layers.LSTM(4, return_state=True, name="l")],
                           name="seq")
    x = keras.Input((5, 3), name="x")
    model = keras.Model(x, seq(x))
    g = ok(kc.Graph.from_model(model))
    assert g.specs["seq"].n_outputs == 3 and len(g.model.outputs) == 3


def test_a_deep_chain_inside_a_nested_model_imports():
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(30_000)  # plain Keras needs it to build the chain in the first place
    try:
        a = keras.Input((2,), name="a")
        t = a
        for _ in range(1200):
            t = keras.layers.ReLU()(t)
        x = keras.Input((2,), name="x")
        model = keras.Model(x, keras.Model(a, t, name="deep")(x))
    finally:
        sys.setrecursionlimit(limit)
    g = ok(kc.Graph.from_model(model))  # kerascanvas raises the limit itself where Keras recurses
    assert g.layers["deep"]["class_name"] == "Functional"


def hostile_configs():
    """A nested model's config with something Keras would deserialize besides catalog layers."""
    def tweak(change):
        config = json.loads(json.dumps(nested_models().get_layer("inner").get_config()))
        change(config)
        return config

    boom = {"module": "x", "class_name": "Boom", "registered_name": "user>Boom", "config": {}}
    return [
        tweak(lambda c: c["layers"][2]["inbound_nodes"][0]["kwargs"].update(training=boom)),
        tweak(lambda c: c["layers"][2]["inbound_nodes"][0].update(args=[boom])),
        tweak(lambda c: c["layers"][2].update(compile_config={"optimizer": boom, "loss": "mse"})),
        tweak(lambda c: c["layers"][2]["config"].update(kernel_initializer=boom)),
        tweak(lambda c: c["layers"][0]["config"].update(dtype=boom)),
        tweak(lambda c: c["layers"][2].update(build_config={"input_shape": boom})),
    ]


@pytest.mark.parametrize("config", hostile_configs(), ids=range(6))
def test_a_nested_config_holds_only_catalog_layers_and_tensors(config):
    from kerascanvas.kinds import nested

    made = []

    @keras.saving.register_keras_serializable(package="user")
    class Boom:
        def __init__(self, **kwargs):
            made.append(kwargs)

        def get_config(self):
            return {}

    g = ok(kc.Graph.from_model(nested_models()))
    before = g.layers["inner"]
    try:  # refused, or (compile_config) left out of what Keras sees
        nested.kind("Functional").create(config)
        g.configure("inner", **{k: v for k, v in config.items() if k != "name"})
    except kc.EditError as e:
        assert "Boom" in str(e) and g.layers["inner"] == before
    assert made == []
    assert "compile_config" not in json.dumps(g.specs["inner"].config)
