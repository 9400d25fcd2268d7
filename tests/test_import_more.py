"""Issue 10's last gaps: one trusted Lambda object, op names kept by code export, layers and
models with several outputs (dict outputs too), the palette following registration."""

import json
import zipfile

import corpus_models
import keras
import numpy as np
import pytest
from support import fingerprint, ok

import kerascanvas as kc
from kerascanvas.kinds import custom


def run(code):
    namespace = {}
    exec(compile(code, "<kerascanvas>", "exec"), namespace)  # noqa: S102 - the export runs
    return namespace["model"]


def same_outputs(a, b, batch):
    flat = [keras.ops.convert_to_numpy(y) for y in keras.tree.flatten(a(batch))]
    for p, q in zip(flat, [keras.ops.convert_to_numpy(y) for y in keras.tree.flatten(b(batch))],
                    strict=True):
        np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)


@pytest.fixture
def trusted():
    """The corpus's Lambda model with its Lambda trusted; forgotten afterwards."""
    model = corpus_models.trusted_lambda()
    name = kc.register(model.get_layer("halve"))
    yield model, name
    custom.unregister(name)


def test_a_trusted_lambda_object_imports_runs_exports_and_saves(trusted, tmp_path):
    model, name = trusted
    assert name == "Lambda_halve"
    g = ok(kc.Graph.from_model(model))
    assert g.layers["halve"]["class_name"] == "Lambda_halve"
    assert "function" not in g.layers["halve"]["config"]  # the box holds no code
    batch = np.random.rand(3, 6).astype("float32")
    same_outputs(g.model, model, batch)
    code = g.to_code()
    assert "from corpus_models import halve" in code
    assert 'layers.Lambda(halve, name="halve")' in code
    rebuilt = run(code)  # fresh weights: same structure and parameter count
    assert rebuilt.count_params() == model.count_params()
    assert [type(op).__name__ for op in rebuilt.operations] == [
        type(op).__name__ for op in model.operations]
    g.save(tmp_path / "l.kc")  # the file names the trusted kind, never a function
    with zipfile.ZipFile(tmp_path / "l.kc") as z:
        assert "halve" not in json.dumps(json.loads(z.read("kerascanvas.json"))["layers"][2]
                                         ["config"]).replace('"halve"', "")
    same_outputs(ok(kc.Graph.load(tmp_path / "l.kc")).model, model, batch)


def test_another_lambda_is_still_refused_naming_the_layer_and_how_to_trust(trusted):
    del trusted  # (the trusted object is the corpus model's, not this one)
    x = keras.Input((6,), name="x")
    other = keras.Model(x, keras.layers.Lambda(corpus_models.halve, name="halve")(x))
    with pytest.raises(kc.EditError, match=r"'halve' is a Lambda.*kc.register\(model.get_layer"):
        kc.Graph.from_model(other)  # same function, same name, another object


def test_files_and_the_browser_cannot_name_a_lambda(trusted, tmp_path):
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("relu")
    g.connect("x", "relu")
    path = tmp_path / "g.kc"
    g.save(path)
    with zipfile.ZipFile(path) as z:
        doc, weights = json.loads(z.read("kerascanvas.json")), z.read("weights.npz")
    doc["layers"][1].update(class_name="Lambda", config={"name": "relu", "function": {
        "class_name": "__lambda__", "config": {"code": "4wEAAAAAAAAA"}}})
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", json.dumps(doc))
        z.writestr("weights.npz", weights)
    with pytest.raises(ValueError, match=r"'Lambda' is not a layer.*kc.register\(model.get_layer"):
        kc.Graph.load(path)
    canvas = kc.Canvas()
    sent = []
    canvas.send = lambda content, buffers=None: sent.append(content)
    before = fingerprint(canvas.graph)
    canvas.receive({"kind": "add_layer", "id": 1, "class_name": "Lambda"})
    assert "not a layer the canvas offers" in sent[-1]["error"]
    assert fingerprint(canvas.graph) == before


def test_a_trusted_lambda_box_sets_only_its_name_and_flags(trusted):
    g = ok(kc.Graph.from_model(trusted[0]))
    with pytest.raises(kc.EditError, match="function and arguments come from that object"):
        g.configure("halve", function="os.system")
    g.configure("halve", trainable=False)
    assert g.layers["halve"]["config"]["trainable"] is False


def test_a_lambda_expression_cannot_be_exported_and_says_why():
    x = keras.Input((3,), name="x")
    model = keras.Model(x, keras.layers.Lambda(lambda t: t * 2.0, name="twice")(x))
    name = kc.register(model.get_layer("twice"))
    try:
        g = ok(kc.Graph.from_model(model))
        np.testing.assert_allclose(g.model(np.ones((1, 3), "float32")), 2.0)
        with pytest.raises(kc.EditError, match="'twice' is a Lambda whose function is .*<lambda>"
                                               ".*cannot write"):
            g.to_code()
    finally:
        custom.unregister(name)


def ruff(code, tmp_path, *args):
    import subprocess
    import sys

    path = tmp_path / "exported.py"
    path.write_text(code)
    return subprocess.run([sys.executable, "-m", "ruff", *args, "--isolated", str(path)],
                          check=False, capture_output=True, text=True)


def test_exported_ops_keep_their_box_names(tmp_path):
    from keras.src.ops.numpy import Add

    x = keras.Input((3, 4), name="x")
    y = keras.Input((3, 4), name="y")
    shared = Add(name="shared_add")  # one operation called twice: one box, two calls
    z = keras.ops.expand_dims(shared(x, y) * 2.0, axis=1)
    z = keras.ops.mean(keras.ops.concatenate([z, z], axis=1), axis=(1, 2))
    model = keras.Model([x, y], [1.0 - keras.ops.softmax(z), shared(y, y)])
    g = kc.Graph.from_model(model)
    g.rename("expand_dims" if "expand_dims" in g.layers else next(
        n for n in g.layers if n.startswith("expand_dims")), "unsqueeze")
    g.rename(next(n for n in g.layers if n.startswith("mean")), "a_rather_long_name_for_an_average_"
             "that_makes_the_line_too_long")
    ok(g)
    code = g.to_code(op_names=True)
    assert 'keras.src.ops.numpy.ExpandDims(axis=1, name="unsqueeze")' in code
    for args in (["check"], ["format", "--check", "--diff"]):
        result = ruff(code, tmp_path, *args)
        assert result.returncode == 0, result.stdout
    again = ok(kc.Graph.from_model(run(code)))
    assert list(again.layers) == list(g.layers)
    assert again.edges == g.edges and again.calls("shared_add") == 2
    assert {n: s["class_name"] for n, s in again.layers.items()} == {
        n: s["class_name"] for n, s in g.layers.items()}
    batch = [np.random.rand(2, 3, 4).astype("float32") for _ in range(2)]
    same_outputs(again.model, model, batch)


def test_layers_with_several_outputs_and_dict_outputs_round_trip(tmp_path):
    model = corpus_models.several_outputs()
    try:
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        assert g.specs["halves"].n_outputs == 2 and g.specs["stats"].n_outputs == 2
        assert g.output_keys == ("low", "right", "score")
        batch = np.random.rand(3, 8).astype("float32")
        assert set(g.model(batch)) == {"low", "right", "score"}  # a dict, as the original's
        same_outputs(g.model, model, batch)
        code = g.to_code()
        assert "keras.tree.flatten(halves(" in code and '"score": ' in code
        rebuilt = run(code)
        assert isinstance(rebuilt.output, dict) and rebuilt.count_params() == model.count_params()
        for key in ("low", "right", "score"):
            assert rebuilt.output[key].shape == model.output[key].shape
        g.save(tmp_path / "s.kc")
        loaded = ok(kc.Graph.load(tmp_path / "s.kc"))
        assert loaded.output_keys == g.output_keys
        same_outputs(loaded.model, model, batch)
        g.remove("score")  # an output's box goes: its key goes with it
        assert g.output_keys == ("low", "right") and set(g.model(batch)) == {"low", "right"}
        g.undo()
        assert g.output_keys == ("low", "right", "score")
    finally:
        custom.unregister("SplitHalves")
        custom.unregister("MinMax")


def test_a_drawn_layer_giving_more_tensors_than_ports_says_how_to_register():
    kc.register(corpus_models.SplitHalves)
    try:
        g = kc.Graph()
        g.add_input((4,), name="x")
        g.add_layer("SplitHalves", name="halves")
        with pytest.raises(kc.EditError, match=r"gives 2 tensors.*outputs=2"):
            g.connect("x", "halves")
        g.remove("halves")
        kc.register(corpus_models.SplitHalves, outputs=2)
        g.add_layer("SplitHalves", name="halves_2")
        g.connect("x", "halves_2")
        assert g.specs["halves_2"].n_outputs == 2 and len(ok(g).model.outputs) == 2
    finally:
        custom.unregister("SplitHalves")


def test_the_palette_follows_registration_after_the_canvas_was_made():
    class Later(keras.layers.Layer):
        def call(self, x):
            return x

    canvas = kc.Canvas()
    assert not any(e["class_name"] == "Later" for e in canvas.palette)
    try:
        kc.register(Later)
        entry = next(e for e in canvas.palette if e["class_name"] == "Later")
        assert entry["group"] == "custom"
        sent = []
        canvas.send = lambda content, buffers=None: sent.append(content)
        canvas.receive({"kind": "add_layer", "id": 1, "class_name": "Later"})
        assert sent[-1]["result"] == "later"
    finally:
        custom.unregister("Later")
    assert not any(e["class_name"] == "Later" for e in canvas.palette)
    canvas.close()
    kc.register(Later)  # a closed canvas is left alone
    custom.unregister("Later")


def test_a_trusted_lambda_inside_a_nested_model_is_refused_saying_why():
    i = keras.Input((6,), name="i")
    lam = keras.layers.Lambda(corpus_models.halve, name="h")
    inner = keras.Model(i, lam(i), name="inner")
    x = keras.Input((6,), name="x")
    name = kc.register(lam)
    try:
        with pytest.raises(kc.EditError, match="'h' of nested model 'inner' is a 'Lambda': inside"):
            kc.Graph.from_model(keras.Model(x, inner(x)))
    finally:
        custom.unregister(name)


def test_a_keras_file_holding_a_lambda_is_refused_naming_it_and_how_to_trust(tmp_path, trusted):
    model, name = trusted
    model.save(tmp_path / "m.keras")
    with pytest.raises(kc.EditError, match=r"Lambda layer\(s\) 'halve'.*safe_mode=False.*"
                                           r"kc.register\(model.get_layer\('halve'\)\)"):
        kc.Graph.load_keras(tmp_path / "m.keras")  # even while an equal object is trusted
    g = ok(kc.Graph.from_model(model))
    g.save(tmp_path / "l.kc")
    custom.unregister(name)  # as in a new session
    with pytest.raises(ValueError, match="'Lambda_halve'.*trust that Lambda layer object again"):
        kc.Graph.load(tmp_path / "l.kc")
