"""LoRA (issue 41): g.enable_lora on a box or a layer inside a nested model by path; one undo step
(undo puts the layer without LoRA back, redo the one with it); saved in the file and kept by an
import; counts equal Keras's own; shown in the state; the intent; refusals change nothing; a fit
trains the LoRA matrices and leaves the kernel bit-identical. Backend-neutral."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from support import fingerprint, keras_counts, ok, same_counts, steps_kept

import kerascanvas as kc


def values(layer) -> dict:
    return {v.path.split("/")[-1]: keras.ops.convert_to_numpy(v) for v in layer.weights}


def entries(g) -> dict:
    return {entry["name"]: entry for entry in g.state()["layers"]}


def drawn() -> kc.Graph:
    g = kc.Graph()
    g.add_input((6,), name="x")
    g.add_layer("Dense", units=5, name="hidden")
    g.add_layer("Dropout", rate=0.1, name="drop")
    g.add_layer("Dense", units=3, name="head")
    g.connect("x", "hidden")
    g.connect("hidden", "drop")
    g.connect("drop", "head")
    return ok(g)


def plain_keras(rank: int | None):
    """The same model written in Keras, LoRA enabled on `hidden` as Keras does it."""
    inp = keras.Input((6,))
    hidden = keras.layers.Dense(5, name="hidden")
    out = keras.layers.Dense(3, name="head")(keras.layers.Dropout(0.1)(hidden(inp)))
    if rank:
        hidden.enable_lora(rank)
    return keras.Model(inp, out)


def test_lora_on_a_drawn_dense_is_one_step_with_keras_counts():
    g = drawn()
    before = g.keras_layer("hidden")
    kernel = values(before)["kernel"]
    counts = same_counts(g)
    assert counts == keras_counts(plain_keras(None))
    steps = steps_kept(g)
    g.enable_lora("hidden", 2)
    after = g.keras_layer("hidden")
    assert after is not before and after.lora_enabled and after.lora_rank == 2
    assert not before.lora_enabled  # the old layer is kept as it was, for undo
    np.testing.assert_array_equal(values(after)["kernel"], kernel)
    assert g.layers["hidden"]["config"]["lora_rank"] == 2
    assert g.layers["hidden"]["config"]["lora_alpha"] == 2
    assert same_counts(g) == keras_counts(plain_keras(2))
    assert steps_kept(g) == steps + 1
    ok(g)
    x = np.random.default_rng(0).normal(size=(4, 6)).astype("float32")
    expected = keras.ops.convert_to_numpy(g.model(x))  # lora_kernel_b starts at zero
    g.undo()
    assert g.keras_layer("hidden") is before and "lora_rank" not in g.layers["hidden"]["config"]
    assert same_counts(g) == counts
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(x)), expected, atol=1e-6)
    ok(g)
    g.redo()
    assert g.keras_layer("hidden") is after and same_counts(g) == keras_counts(plain_keras(2))
    ok(g)


def test_the_state_says_the_rank_and_which_boxes_can_take_it():
    g = drawn()
    layers = {entry["name"]: entry for entry in g.state()["layers"]}
    assert layers["hidden"]["lora_ready"] and layers["head"]["lora_ready"]
    assert not layers["drop"]["lora_ready"] and not layers["x"]["lora_ready"]
    assert layers["hidden"]["lora_rank"] is None
    g.enable_lora("hidden", 4)
    layers = {entry["name"]: entry for entry in g.state()["layers"]}
    assert layers["hidden"]["lora_rank"] == 4 and not layers["hidden"]["lora_ready"]
    assert layers["hidden"]["trainable_params"] == 6 * 4 + 4 * 5 + 5  # a, b and the bias
    g.undo()
    layers = {entry["name"]: entry for entry in g.state()["layers"]}
    assert layers["hidden"]["lora_rank"] is None and layers["hidden"]["lora_ready"]


def test_a_pending_box_gets_lora_when_keras_builds_it():
    g = kc.Graph()
    g.add_input((6,), name="x")
    g.add_layer("Dense", units=5, name="d")
    g.enable_lora("d", 3)
    assert g.layers["d"]["config"]["lora_rank"] == 3
    g.connect("x", "d")
    assert g.keras_layer("d").lora_enabled and g.keras_layer("d").lora_rank == 3
    ok(g)


def test_saved_and_loaded_and_kept_by_import(tmp_path):
    g = drawn()
    g.enable_lora("hidden", 2)
    live = g.keras_layer("hidden")
    live.lora_kernel_b.assign(np.full((2, 5), 0.25, dtype="float32"))  # as if trained
    g.save(tmp_path / "lora.kc")
    loaded = ok(kc.Graph.load(tmp_path / "lora.kc"))
    layer = loaded.keras_layer("hidden")
    assert layer.lora_enabled and layer.lora_rank == 2
    for key, value in values(live).items():
        np.testing.assert_array_equal(values(layer)[key], value)
    assert same_counts(loaded) == same_counts(g)
    # a Keras model with LoRA on comes in with it
    model = plain_keras(3)
    imported = ok(kc.Graph.from_model(model))
    assert imported.layers["hidden"]["config"]["lora_rank"] == 3
    assert imported.keras_layer("hidden").lora_enabled
    assert same_counts(imported) == keras_counts(model)


def test_lora_on_a_layer_inside_a_nested_model_by_path():
    inner = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, name="proj"),
                              keras.layers.Dense(4, name="out")], name="inner")
    inp = keras.Input((6,))
    model = keras.Model(inp, keras.layers.Dense(2, name="head")(inner(inp)))
    g = ok(kc.Graph.from_model(model))
    kernel = values(g.keras_layer("inner").get_layer("proj"))["kernel"]
    g.enable_lora("inner/proj", 2)
    proj = g.keras_layer("inner").get_layer("proj")
    assert proj.lora_enabled and not g.keras_layer("inner").get_layer("out").lora_enabled
    np.testing.assert_array_equal(values(proj)["kernel"], kernel)
    entry = next(e for e in g.layers["inner"]["config"]["layers"]
                 if e["config"].get("name") == "proj")
    assert entry["config"]["lora_rank"] == 2
    inner.get_layer("proj").enable_lora(2)  # Keras's own, on the original
    assert same_counts(g) == keras_counts(model)
    ok(g)
    g.undo()
    assert not g.keras_layer("inner").get_layer("proj").lora_enabled
    ok(g)


def test_refusals_name_what_was_wrong_and_change_nothing():
    g = drawn()
    g.enable_lora("head", 2)
    before, steps = fingerprint(g), steps_kept(g)
    for name, rank, match in [
        ("nope", 2, "no layer named 'nope'"),
        ("hidden/inner", 2, "no layer 'inner' inside"),
        ("hidden", 0, "whole number from 1"),
        ("hidden", -3, "whole number from 1"),
        ("hidden", 2.0, "whole number from 1"),
        ("hidden", True, "whole number from 1"),
        ("hidden", "4", "whole number from 1"),
        ("drop", 2, "Dropout, which has no enable_lora"),
        ("x", 2, "Input"),
        ("head", 4, "LoRA already"),
        ("", 2, "not a layer path"),
    ]:
        with pytest.raises(kc.EditError, match=match):
            g.enable_lora(name, rank)
    with g.locked("Training runs on these layers."), \
            pytest.raises(kc.EditError, match="Training runs"):
        g.enable_lora("hidden", 2)
    assert fingerprint(g) == before and steps_kept(g) == steps


def test_a_fit_trains_lora_and_leaves_the_kernel_bit_identical():
    keras.utils.set_random_seed(3)
    g = drawn()
    g.enable_lora("hidden", 2)
    hidden = g.keras_layer("hidden")
    start = values(hidden)
    model = g.model
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    rng = np.random.default_rng(1)
    model.fit(rng.normal(size=(32, 6)).astype("float32"),
              rng.normal(size=(32, 3)).astype("float32"), epochs=2, batch_size=8, verbose=0)
    end = values(hidden)
    np.testing.assert_array_equal(end["kernel"], start["kernel"])  # frozen by LoRA
    assert not np.array_equal(end["lora_kernel_b"], start["lora_kernel_b"])
    assert not np.array_equal(end["lora_kernel_a"], start["lora_kernel_a"])


def test_the_intent():
    g = drawn()
    canvas = kc.Canvas(g)
    answers = []
    canvas.send = answers.append
    canvas.receive({"kind": "enable_lora", "id": 1, "name": "hidden", "rank": 4})
    canvas.receive({"kind": "enable_lora", "id": 2, "name": "drop", "rank": 4})
    canvas.receive({"kind": "enable_lora", "id": 3, "name": "head", "rank": "4"})
    canvas.receive({"kind": "enable_lora", "id": 4, "name": "head", "rank": 0})
    by_id = {a.get("id"): a for a in answers if "id" in a}
    assert by_id[1].get("ok"), by_id
    assert "no enable_lora" in by_id[2]["error"]
    assert "rank" in by_id[3]["error"] and "rank" in by_id[4]["error"]
    assert g.keras_layer("hidden").lora_rank == 4 and not g.keras_layer("head").lora_enabled


keras_hub = pytest.importorskip("keras_hub")
SMALL = {"vocabulary_size": 50, "num_layers": 2, "hidden_dim": 8, "intermediate_dim": 16}


def gpt2():
    return keras_hub.models.GPT2Backbone(num_heads=2, max_sequence_length=12, **SMALL)


def test_a_keras_hub_backbone_drawn_flat_and_as_a_box(tmp_path):
    backbone = gpt2()
    g = ok(kc.Graph.from_model(backbone, trust_custom=True))  # drawn as its layers
    g.enable_lora("token_embedding", 2)  # a ReversibleEmbedding: an Embedding
    backbone.get_layer("token_embedding").enable_lora(2)
    assert same_counts(g) == keras_counts(backbone)
    # a TransformerDecoder box: its attention's query and value, made in its build (no config
    # says them), as KerasHub's Backbone.enable_lora targets them; by path, any layer in it
    assert g.enable_lora("transformer_layer_0", 2) == [
        "transformer_layer_0/self_attention/query", "transformer_layer_0/self_attention/value"]
    assert g.enable_lora("transformer_layer_1/feedforward_output_dense", 3) == [
        "transformer_layer_1/feedforward_output_dense"]
    decoder = backbone.get_layer("transformer_layer_0")
    for name in ("query", "value"):
        next(x for x in decoder._flatten_layers() if x.name == name).enable_lora(2)
    next(x for x in backbone.get_layer("transformer_layer_1")._flatten_layers()
         if x.name == "feedforward_output_dense").enable_lora(3)
    assert same_counts(g) == keras_counts(backbone)
    assert entries(g)["transformer_layer_0"]["lora_rank"] == 2
    x = tokens()
    same_outputs(g.model, backbone, x)
    g.save(tmp_path / "gpt2.kc")
    loaded = ok(kc.Graph.load(tmp_path / "gpt2.kc"))
    assert loaded.keras_layer("token_embedding").lora_rank == 2
    assert same_counts(loaded) == same_counts(g)
    same_outputs(loaded.model, backbone, x)
    g.undo()
    g.undo()
    assert not any(getattr(v, "lora_enabled", False)
                   for v in g.keras_layer("transformer_layer_0")._flatten_layers())
    g.redo()
    g.redo()
    assert same_counts(g) == keras_counts(backbone)

    # the backbone as one box in a model: LoRA on a layer inside it, by path
    inner = gpt2()
    inputs = {k: keras.Input((None,), dtype="int32", name=k) for k in ("token_ids", "padding_mask")}
    model = keras.Model(inputs, keras.layers.Dense(3, name="head")(inner(inputs)))
    h = ok(kc.Graph.from_model(model, trust_custom=True))
    box = next(n for n, v in h.layers.items() if v["class_name"] == "Functional")
    assert h.enable_lora(box, 2) == [  # the query and value of each decoder inside it
        f"{box}/transformer_layer_{i}/self_attention/{n}" for i in (0, 1)
        for n in ("query", "value")]
    h.enable_lora(f"{box}/token_embedding", 2)  # its config says this one
    inner.get_layer("token_embedding").enable_lora(2)
    for i in (0, 1):
        for x in inner.get_layer(f"transformer_layer_{i}")._flatten_layers():
            if x.name in ("query", "value"):
                x.enable_lora(2)
    assert same_counts(h) == keras_counts(model)
    h.save(tmp_path / "boxed.kc")
    assert same_counts(ok(kc.Graph.load(tmp_path / "boxed.kc"))) == keras_counts(model)
    ok(h)
    h.undo()
    assert not h.keras_layer(box).get_layer("token_embedding").lora_enabled
    with pytest.raises(kc.EditError, match="query has LoRA already"):
        h.enable_lora(f"{box}/transformer_layer_0/self_attention/query", 4)
    with pytest.raises(kc.EditError, match=r"Inside it these can: .*/self_attention/key"):
        h.enable_lora(f"{box}/transformer_layer_0", 4)  # its targets have it: the others named


def tokens() -> dict:
    rng = np.random.default_rng(0)
    return {"token_ids": rng.integers(0, 50, size=(2, 6)).astype("int32"),
            "padding_mask": np.ones((2, 6), "int32")}


def same_outputs(model, reference, x) -> None:
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model(x)),
                               keras.ops.convert_to_numpy(reference(x)), atol=1e-6)


def trained_paths(model) -> list[str]:
    return sorted(v.path for v in model.trainable_weights)


def test_the_whole_drawing_as_backbone_enable_lora_does(tmp_path):
    """g.enable_lora(None, rank) on a backbone drawn flat = KerasHub's backbone.enable_lora:
    LoRA on every query and value, everything else frozen; one step; file, code and import
    agree; a fit trains only LoRA's matrices and the biases of the layers it unfroze."""
    backbone = gpt2()
    g = ok(kc.Graph.from_model(backbone, trust_custom=True))
    before, steps = same_counts(g), steps_kept(g)
    got = g.enable_lora(None, 2)
    assert len(got) == 4 and all(p.endswith(("/query", "/value")) for p in got)
    backbone.enable_lora(2)
    assert same_counts(g) == keras_counts(backbone)
    assert trained_paths(g.model) == trained_paths(backbone)
    assert steps_kept(g) == steps + 1
    assert entries(g)["token_embedding"]["trainable"] == "no"
    assert entries(g)["transformer_layer_0"]["trainable"] == "partly"
    x = tokens()
    same_outputs(g.model, backbone, x)

    g.save(tmp_path / "lora.kc")  # the file, the code and an import say the same
    loaded = ok(kc.Graph.load(tmp_path / "lora.kc"))
    assert trained_paths(loaded.model) == trained_paths(backbone)
    same_outputs(loaded.model, backbone, x)
    made = {}
    exec(g.to_code(), made)  # noqa: S102 - the export runs
    assert keras_counts(made["model"]) == keras_counts(backbone)
    imported = ok(kc.Graph.from_model(backbone, trust_custom=True))
    assert same_counts(imported) == keras_counts(backbone)
    assert trained_paths(imported.model) == trained_paths(backbone)

    frozen = {v.path: keras.ops.convert_to_numpy(v) for v in g.model.non_trainable_weights}
    g.model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    g.model.fit(x, np.ones((2, 6, 8), "float32"), epochs=2, verbose=0)
    for v in g.model.non_trainable_weights:
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(v), frozen[v.path])
    lora_b = [v for v in g.model.trainable_weights if v.path.endswith("lora_kernel_b")]
    assert lora_b and all(np.abs(keras.ops.convert_to_numpy(v)).max() > 0 for v in lora_b)

    g.undo()
    assert same_counts(g) == before
    with pytest.raises(kc.EditError, match="No layer of the drawing is one KerasHub"):
        drawn().enable_lora(None, 2)


def test_a_bad_inside_entry_in_a_file_is_refused_unread(tmp_path):
    import json
    import zipfile

    g = ok(kc.Graph.from_model(gpt2(), trust_custom=True))
    g.enable_lora("transformer_layer_0", 2)
    g.save(tmp_path / "good.kc")
    for entry, match in [(["nope/query", "lora", 2], "no layer 'nope/query' inside"),
                         (["self_attention/query", "lora", 0], "'inside' entry"),
                         (["self_attention/query", "trainable", "yes"], "'inside' entry"),
                         (["", "lora", 2], "'inside' entry"), ("query", "'inside' entry")]:
        with zipfile.ZipFile(tmp_path / "good.kc") as z:
            parts = {n: z.read(n) for n in z.namelist()}
        doc = json.loads(parts["kerascanvas.json"])
        layer = next(e for e in doc["layers"] if e["name"] == "transformer_layer_0")
        layer["inside"] = [entry]
        parts["kerascanvas.json"] = json.dumps(doc).encode()
        with zipfile.ZipFile(tmp_path / "bad.kc", "w") as z:
            for n, data in parts.items():
                z.writestr(n, data)
        with pytest.raises(kc.EditError, match=match):
            kc.Graph.load(tmp_path / "bad.kc")


def test_a_frozen_keras_hub_block_stays_frozen_when_made_again(tmp_path):
    """Keras sets a layer's trainable flag on the layers inside it when the flag is set, not on
    those its build makes later: a TransformerDecoder made from a config saying
    trainable=False would train. Made again (a file, a config edit), the box stays frozen."""
    g = ok(kc.Graph.from_model(gpt2(), trust_custom=True))
    g.set_trainable("transformer_layer_0", False)
    frozen = same_counts(g)
    g.save(tmp_path / "frozen.kc")
    assert same_counts(ok(kc.Graph.load(tmp_path / "frozen.kc"))) == frozen
    g.configure("transformer_layer_0", dropout=0.2)  # made again from its new config
    assert same_counts(g) == frozen
    assert not any(v.trainable for v in g.keras_layer("transformer_layer_0").weights)
