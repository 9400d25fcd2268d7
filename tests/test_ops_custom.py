"""keras.ops operations as boxes and registered custom layers: drawing, network, code, files,
random round trips (Hypothesis)."""


import keras
import numpy as np
import pytest
from corpus_models import Scale
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import call_again, grow, history, ok, rebuild

import kerascanvas as kc
from kerascanvas.kinds import custom, kinds, ops


def test_an_op_box_is_a_keras_node_with_its_constant_in_the_config():
    g = kc.Graph()
    g.add_input((4,), name="x")
    assert g.add_layer("add") == "add"
    assert ops.get("add").slots.names == ("x1", "x2")
    g.configure("add", x2=3.0)  # x + 3.0: the second argument becomes a constant
    assert g.layers["add"]["config"]["x2"] == 3.0
    g.connect("x", "add")
    ok(g)
    node = g.keras_layer("add")._inbound_nodes[0]
    assert node.arguments.args[1] == 3.0 and history(g, "add", 0, 0) == ("x", 0, 0)
    assert "x_1 = x + 3.0" in g.to_code()
    np.testing.assert_allclose(g.model(np.ones((1, 4), "float32")), 4.0)


def test_ops_import_draw_export_and_save(tmp_path):
    x = keras.Input((3, 4), name="x")
    y = keras.ops.expand_dims(x * 2.0, axis=1)
    z = keras.ops.mean(keras.ops.concatenate([y, y], axis=1), axis=(1, 2))
    model = keras.Model(x, 1.0 - keras.ops.softmax(z))
    g = ok(kc.Graph.from_model(model))
    assert [g.layers[n]["class_name"] for n in g.layers][1:] == [
        "multiply", "expand_dims", "concatenate", "mean", "softmax", "subtract"]
    code = g.to_code()  # the natural form; op names: test_import_more.py
    assert "keras.ops.expand_dims(x_1, axis=1)" in code and "= 1.0 - x_" in code
    assert "keras.ops.concatenate([x_2, x_2], axis=1)" in code
    batch = np.random.rand(2, 3, 4).astype("float32")
    np.testing.assert_allclose(rebuild(code)(batch), model(batch), rtol=1e-6)
    g.save(tmp_path / "ops.kc")
    np.testing.assert_allclose(ok(kc.Graph.load(tmp_path / "ops.kc")).model(batch), model(batch))


def test_editing_an_op_box_rebuilds_downstream_and_undo_restores():
    g = kc.Graph()
    g.add_input((2, 5), name="x")
    g.add_layer("sum", axis=1)
    g.add_layer("Dense", units=3)
    g.connect("x", "sum")
    g.connect("sum", "dense")
    assert tuple(ok(g).model.output.shape) == (None, 3)
    g.configure("sum", axis=2)
    assert tuple(ok(g).keras_layer("sum")._inbound_nodes[0].output_tensors[0].shape) == (None, 2)
    with pytest.raises(kc.EditError):
        g.configure("sum", axis=7)  # Keras refuses: nothing changes
    g.undo()
    assert tuple(ok(g).keras_layer("sum")._inbound_nodes[0].output_tensors[0].shape) == (None, 5)


def test_op_configs_hold_only_settings_and_plain_constants():
    g = kc.Graph()
    with pytest.raises(kc.EditError, match="takes no argument"):
        g.add_layer("add", function="os.system")
    with pytest.raises(kc.EditError, match="must be a number"):
        g.add_layer("add", x2={"class_name": "Lambda", "config": {}})
    with pytest.raises(kc.EditError, match="at least one tensor"):
        g.add_layer("add", x1=1.0, x2=2.0)
    assert g.layers == {}


def test_ops_outside_the_palette_import_but_are_not_offered():
    """Issue 24: the allow-list decides what the palette offers, not what an import holds."""
    from kerascanvas.kinds import kinds

    x = keras.Input((4, 3), name="x")
    model = keras.Model(x, keras.ops.stop_gradient(x[:, 1:, None, ::2]))  # GetItem, StopGradient
    g = kc.Graph.from_model(model)
    assert [g.layers[n]["class_name"] for n in g.layers if n != "x"] == ["get_item",
                                                                         "stop_gradient"]
    value = np.random.default_rng(0).random((2, 4, 3)).astype("float32")
    np.testing.assert_allclose(*(keras.ops.convert_to_numpy(m(value)) for m in (g.model, model)))
    assert "x[1:, None, ::2]" not in g.to_code() and "x[:, 1:, None, ::2]" in g.to_code()
    assert "stop_gradient" not in ops.names() and not kinds.offered("stop_gradient")
    assert "stop_gradient" in ops.every_name()
    with pytest.raises(ValueError, match="not a layer the canvas offers"):
        kc.Graph().add_layer("einsum")  # import-only: the palette does not offer it


def test_the_allow_list_is_read_from_keras_signatures():
    assert {"add", "matmul", "concatenate", "reshape", "transpose", "expand_dims", "squeeze",
            "mean", "sum", "relu", "sigmoid", "softmax", "subtract", "multiply",
            "divide"} <= set(ops.names())
    kind = ops.get("expand_dims")
    assert kind.cls is keras.src.ops.numpy.ExpandDims
    assert [p.name for p in kind.init] == ["axis"] and [p.name for p in kind.call_params] == ["x"]
    entry = next(e for e in kinds.palette() if e["class_name"] == "expand_dims")
    assert entry["group"] == "ops" and entry["schema"][0]["name"] == "axis"


def test_keras_own_layers_are_trusted_and_export_by_import_name(tmp_path):
    from keras.src.applications.convnext import LayerScale

    x = keras.Input((4, 8), name="x")
    model = keras.Model(x, LayerScale(0.5, 8, name="ls")(x))
    g = ok(kc.Graph.from_model(model))
    assert g.layers["ls"]["class_name"] == "LayerScale"
    assert "from keras.src.applications.convnext import LayerScale" in g.to_code()
    g.save(tmp_path / "ls.kc")
    assert ok(kc.Graph.load(tmp_path / "ls.kc")).model.count_params() == model.count_params()


def test_custom_layers_need_registering(tmp_path):
    class Doubler(keras.layers.Layer):
        def call(self, x):
            return x * 2.0

    x = keras.Input((3,), name="x")
    model = keras.Model(x, Doubler(name="twice")(x))
    with pytest.raises(kc.EditError, match=r"kc.register\(Doubler\)"):
        kc.Graph.from_model(model)
    with pytest.raises(ValueError, match="is not a layer the canvas offers"):
        kc.Graph().add_layer("Doubler")
    try:
        assert kc.register(Doubler) == "Doubler"
        g = ok(kc.Graph.from_model(model))
        assert g.layers["twice"]["class_name"] == "Doubler"
        assert any(e["class_name"] == "Doubler" and e["group"] == "custom"
                   for e in kinds.palette())
        g.save(tmp_path / "d.kc")
    finally:
        custom.unregister("Doubler")
    with pytest.raises(ValueError, match=r"'Doubler'.*kc.register\(TheClass\)"):
        kc.Graph.load(tmp_path / "d.kc")


def test_registering_refuses_what_it_cannot_trust():
    with pytest.raises(TypeError, match="Lambda"):
        kc.register(keras.layers.Lambda)
    with pytest.raises(TypeError, match="model"):
        kc.register(keras.Model)
    with pytest.raises(TypeError):
        kc.register("os.system")

    class Dense(keras.layers.Layer):
        pass

    with pytest.raises(kc.EditError, match="already used"):
        kc.register(Dense)


def test_lambda_is_refused_in_one_sentence():
    x = keras.Input((3,), name="x")
    model = keras.Model(x, keras.layers.Lambda(lambda t: t * 2, name="twice")(x))
    with pytest.raises(kc.EditError, match="'twice' is a Lambda, which runs code"):
        kc.Graph.from_model(model)


def test_a_registered_layer_draws_from_the_palette_and_exports():
    kc.register(Scale)
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Scale", factor=3.0)
    g.connect("x", "scale")
    ok(g)
    code = g.to_code()
    assert "from corpus_models import Scale" in code and "Scale(factor=3.0" in code
    assert rebuild(code).count_params() == g.model.count_params() == 4


OP_STEPS = st.lists(st.tuples(
    st.sampled_from(["Dense", "add", "multiply", "relu", "add_const", "Scale", "concat", "Shared"]),
    st.integers(0, 99), st.integers(0, 99)), min_size=1, max_size=8)


def random_op_graph(steps):
    """Dense layers, keras.ops boxes (tensor + tensor, tensor + constant, list slots), a
    registered custom layer and shared calls; an edit Keras refuses is taken back."""
    kc.register(Scale)
    g = kc.Graph(name="ops_random")
    g.add_input((4,), name="x")
    outputs = [("x", 0, 0)]
    for kind, i, j in steps:
        a, b = outputs[i % len(outputs)], outputs[j % len(outputs)]
        shared = [n for n in g.layers if n.startswith(("dense", "scale"))]
        if kind == "Shared" and shared:
            call_again(g, shared[i % len(shared)], a, outputs)
            continue
        config = {"Dense": {"units": 4}, "add_const": {"x2": float(j % 5)},
                  "Scale": {"factor": 0.5}, "concat": {"axis": -1}}.get(kind, {})
        cls = {"add_const": "add", "concat": "concatenate", "Shared": "relu"}.get(kind, kind)
        grow(g, cls, config, [a, b] if kind in ("add", "multiply", "concat") else [a], outputs)
    return g


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OP_STEPS)
def test_random_op_and_custom_graphs_round_trip(tmp_path_factory, steps):
    g = ok(random_op_graph(steps))
    model = g.model
    assert model is not None, g.problems
    batch = np.random.rand(2, 4).astype("float32")
    expected = [keras.ops.convert_to_numpy(y) for y in keras.tree.flatten(model(batch))]

    def same(m):
        for p, q in zip([keras.ops.convert_to_numpy(y) for y in keras.tree.flatten(m(batch))], expected,
                        strict=True):
            np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)

    again = ok(kc.Graph.from_model(model))  # model -> drawing
    assert again.model.get_config() == model.get_config()
    same(again.model)
    rebuilt = rebuild(g.to_code())  # drawing -> code
    assert len(rebuilt.operations) == len(model.operations)
    assert rebuilt.count_params() == model.count_params()
    path = tmp_path_factory.mktemp("ops") / "g.kc"  # drawing -> file -> drawing
    g.save(path)
    same(ok(kc.Graph.load(path)).model)
