"""kc.compare (issue 44): two drawings, a drawing and a keras.Model or a saved file; every change
an edit sequence makes is reported and nothing else; snapshots and the drawing as imported;
real models (MobileNetV2), fine-tuning and LoRA; bad input named. Backend-neutral."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kerascanvas as kc
from kerascanvas.errors import EditError


def chain() -> kc.Graph:
    g = kc.Graph(name="chain")
    g.add_input((6,), name="x")
    g.add_layer("Dense", units=5, name="hidden")
    g.add_layer("Dropout", rate=0.1, name="drop")
    g.add_layer("Dense", units=4, name="mid")
    g.add_layer("Dense", units=3, name="head")
    for src, dst in [("x", "hidden"), ("hidden", "drop"), ("drop", "mid"), ("mid", "head")]:
        g.connect(src, dst)
    return g


def nothing_but(c, **expected):
    """Every field of the comparison is what `expected` says, empty where it says nothing."""
    assert c.added == expected.get("added", [])
    assert c.removed == expected.get("removed", [])
    assert c.renamed == expected.get("renamed", [])
    assert c.changed == expected.get("changed", {})
    assert set(c.rewired.only_in_a) == set(expected.get("only_in_a", ()))
    assert set(c.rewired.only_in_b) == set(expected.get("only_in_b", ()))
    assert {n for n, v in c.weights.items() if v > 0} == set(expected.get("trained", ()))


def test_the_same_drawing_has_no_differences_and_says_so():
    g = chain()
    c = kc.compare(g, g.snapshot())
    assert c.same
    nothing_but(c)
    assert set(c.weights) == {"hidden", "mid", "head"}  # every layer with weights, all 0.0
    assert "no differences" in str(c)


def test_an_edit_sequence_is_reported_and_nothing_else():
    g = chain()
    before = g.snapshot("before")
    g.rename("mid", "middle")                       # renamed: same class, config, place
    g.configure("head", units=2)                    # changed (head's kernel shape changes too)
    g.set_trainable("hidden", False)                # changed: trainable
    g.remove("drop")                                # removed, its edges gone...
    g.connect("hidden", "middle")                   # ...and a new edge around it
    g.add_layer("Dense", units=7, name="side")      # added, fed by hidden
    g.connect("hidden", "side")
    hidden = g.keras_layer("hidden")
    hidden.set_weights([w + 0.5 for w in hidden.get_weights()])  # weights: 0.5 everywhere

    c = kc.compare(before, g)
    nothing_but(
        c, added=["side"], removed=["drop"], renamed=[("mid", "middle")],
        changed={"head": {"units": (3, 2)}, "hidden": {"trainable": (True, False)}},
        only_in_a=[(("hidden", 0, 0), ("drop", 0, 0)), (("drop", 0, 0), ("mid", 0, 0))],
        only_in_b=[(("hidden", 0, 0), ("middle", 0, 0)), (("hidden", 0, 0), ("side", 0, 0))],
        trained=["hidden"])
    assert c.weights["hidden"] == pytest.approx(0.5 * np.sqrt(6 * 5 + 5))
    assert "head" not in c.weights  # other shapes: not compared
    text = str(c)
    for line in ["+ added    side", "- removed  drop", "~ renamed  mid -> middle",
                 "units: 3 -> 2", "trainable: True -> False", "hidden[0][0] -> side call 0 slot 0"]:
        assert line in text
    assert text == c.to_text()


def test_renamed_neighbours_pair_one_after_another():
    g = chain()
    before = g.snapshot()
    g.rename("hidden", "first")
    g.rename("drop", "second")
    g.rename("mid", "third")
    nothing_but(kc.compare(before, g),
                renamed=[("hidden", "first"), ("drop", "second"), ("mid", "third")])


def test_a_snapshot_keeps_weights_apart_from_the_live_layers():
    g = chain()
    s = g.snapshot()
    kept = s.saved_weights("head")
    layer = g.keras_layer("head")
    layer.set_weights([w * 0 + 1 for w in layer.get_weights()])
    assert not np.allclose(kept[0], 1) and np.array_equal(s.saved_weights("head")[0], kept[0])
    assert s.weight_bytes == sum(w.nbytes for n in s.specs for w in s.saved_weights(n))
    assert kc.compare(s, g).weights["head"] > 0


def test_lora_and_dtype_policy_are_changes():
    g = chain()
    before = g.snapshot()
    g.enable_lora("hidden", 2)
    g.configure("head", dtype="float16")
    c = kc.compare(before, g)
    assert c.changed["hidden"]["lora_rank"] == (None, 2)
    assert set(c.changed) == {"hidden", "head"} and set(c.changed["head"]) == {"dtype"}
    assert "dtype: float32 -> float16" in str(c)
    assert "hidden" not in c.weights  # LoRA adds two arrays: not the same shapes
    assert not (c.added or c.removed or c.renamed or any(c.rewired))


def test_a_graph_against_a_model_and_a_file(tmp_path):
    g = chain()
    model = g.model
    assert kc.compare(g, model).same
    path = tmp_path / "chain.kc"
    g.save(path)
    g.configure("head", units=2)
    c = kc.compare(path, g)
    nothing_but(c, changed={"head": {"units": (3, 2)}})
    loaded = kc.Graph.load(path)
    assert loaded.as_imported is not None and kc.compare(loaded.as_imported, loaded).same
    keras_file = tmp_path / "chain.keras"
    g.model.save(keras_file)  # (the old model's nodes went with the edit)
    assert kc.compare(keras_file, g).same


def test_bad_input_is_named(tmp_path):
    g = chain()
    with pytest.raises(TypeError, match="second argument is int"):
        kc.compare(g, 3)
    with pytest.raises(EditError, match="no file"):
        kc.compare(g, tmp_path / "missing.kc")
    bad = tmp_path / "bad.kc"
    bad.write_bytes(b"not a zip")
    with pytest.raises(EditError, match="first model.*bad.kc.*not a readable"):
        kc.compare(bad, g)
    with pytest.raises(TypeError, match="snapshot's name"):
        g.snapshot(3)


def test_fine_tuning_changes_flags_and_exactly_the_trained_weights():
    inputs = keras.Input((6,), name="x")
    h = keras.layers.Dense(8, activation="relu", name="base")(inputs)
    h = keras.layers.Dropout(0.2, name="drop")(h)
    out = keras.layers.Dense(3, name="head")(h)
    g = kc.Graph.from_model(keras.Model(inputs, out))
    g.set_trainable("base", False)
    model = g.model
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    rng = np.random.default_rng(0)
    model.fit(rng.normal(size=(32, 6)), rng.normal(size=(32, 3)), epochs=1, verbose=0)
    c = kc.compare(g.as_imported, g)
    nothing_but(c, changed={"base": {"trainable": (True, False)}}, trained=["head"])
    assert c.weights["base"] == 0.0


def test_mobilenet_edited_in_known_ways():
    model = keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None,
                                           classes=4)
    g = kc.Graph.from_model(model)  # (one import: the slowest part under JAX)
    mobilenet = g.snapshot("MobileNetV2")
    g.configure("out_relu", max_value=5.0)
    g.rename("block_1_pad", "pad_one")
    g.remove("block_16_depthwise_relu")  # (late in the model: the rebuild below it is short)
    g.connect("block_16_depthwise_BN", "block_16_project")
    c = kc.compare(mobilenet, g)
    nothing_but(
        c, removed=["block_16_depthwise_relu"], renamed=[("block_1_pad", "pad_one")],
        changed={"out_relu": {"max_value": (6.0, 5.0)}},
        only_in_a=[(("block_16_depthwise_BN", 0, 0), ("block_16_depthwise_relu", 0, 0)),
                   (("block_16_depthwise_relu", 0, 0), ("block_16_project", 0, 0))],
        only_in_b=[(("block_16_depthwise_BN", 0, 0), ("block_16_project", 0, 0))])
    assert len(c.weights) > 50 and not any(c.weights.values())
    assert kc.compare(g.as_imported, mobilenet).same


def test_weights_left_out_when_asked_or_when_a_snapshot_kept_none(monkeypatch):
    from kerascanvas.io import snapshot

    g = chain()
    c = kc.compare(g, g.snapshot(), weights=False)
    assert c.same and c.weights == {} and not c.weights_kept
    assert "weights not compared" in str(c)
    monkeypatch.setattr(snapshot, "AS_IMPORTED_WEIGHT_BYTES", 10)  # (bytes: less than any)
    imported = kc.Graph.from_model(g.model)
    assert not imported.as_imported.weights_kept and "weights not kept" in repr(imported.as_imported)
    assert kc.compare(imported.as_imported, imported).weights == {}


def test_the_comparison_as_a_picture(tmp_path):
    import xml.etree.ElementTree as ET

    g = chain()
    before = g.snapshot()
    g.rename("mid", "<b>&mid")  # names are text, never markup
    g.configure("head", units=2)
    c = kc.compare(before, g)
    path = tmp_path / "changes.svg"
    picture = c.to_svg(path)
    assert path.read_text(encoding="utf-8") == picture
    texts = ["".join(t.itertext()) for t in ET.fromstring(picture).iter("{http://www.w3.org/2000/svg}text")]
    assert texts == str(c).split("\n")
    assert "~ renamed  mid -> <b>&mid" in texts


def test_lora_on_a_layer_made_inside_a_box():
    g = kc.Graph()
    g.add_input((4, 8), name="x")
    g.add_layer("MultiHeadAttention", num_heads=2, key_dim=4, name="mha")
    g.connect("x", "mha", slot=0)
    g.connect("x", "mha", slot=1)
    before = g.snapshot()
    g.enable_lora("mha/query", 2)
    c = kc.compare(before, g)
    assert c.changed == {"mha": {"query: lora_rank": (None, 2)}}
    assert "query: lora_rank: None -> 2" in str(c)


def test_operations_hold_no_weights_and_compare_like_layers():
    inputs = keras.Input((6,), name="x")
    h = keras.layers.Dense(4, name="hidden")(inputs)
    out = keras.layers.Dense(3, name="head")(keras.ops.add(h, 1.0))
    g = kc.Graph.from_model(keras.Model(inputs, out))  # an `add` box: an operation
    c = kc.compare(g.as_imported, g)
    assert c.same and set(c.weights) == {"hidden", "head"}


def test_a_kerashub_backbone_before_and_after_lora():
    """KerasHub's own recipe (Backbone.enable_lora: LoRA on every query and value, every other
    weight frozen) on an imported GPT-2 backbone, compared with the drawing as imported: each
    LoRA layer and each frozen box is a change, nothing else is."""
    keras_hub = pytest.importorskip("keras_hub")
    backbone = keras_hub.models.GPT2Backbone(vocabulary_size=50, num_layers=2, num_heads=2,
                                             hidden_dim=8, intermediate_dim=16,
                                             max_sequence_length=12)
    g = kc.Graph.from_model(backbone, trust_custom=True)
    paths = g.enable_lora(None, 4)
    c = kc.compare(g.as_imported, g)
    assert not (c.added or c.removed or c.renamed or any(c.rewired))
    for path in paths:  # "transformer_layer_0/self_attention/query"
        top, inner = path.split("/", 1)
        assert c.changed[top][f"{inner}: lora_rank"] == (None, 4)
    assert {p.split("/", 1)[0] for p in paths} == {"transformer_layer_0", "transformer_layer_1"}
    assert all(c.changed[n]["trainable"] == (True, False)
               for n in ("token_embedding", "position_embedding", "layer_norm"))
    assert set(c.changed) <= set(g.layers) - {"token_ids", "padding_mask"}


def test_two_keras_applications_models():
    """ResNet50 against ResNet50V2 (a teacher's contrast): each side's layers are the other's
    added or removed, paired only where class, config and wiring agree; the text says it."""
    a = kc.Graph.from_model(keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3),
                                                        classes=10))
    b = kc.Graph.from_model(keras.applications.ResNet50V2(weights=None, input_shape=(32, 32, 3),
                                                          classes=10))
    c = kc.compare(a, b, weights=False)
    assert not c.same
    paired = set(b.layers) - set(c.added) - {new for _, new in c.renamed}
    gone = set(a.layers) - set(c.removed) - {old for old, _ in c.renamed}
    assert len(paired) == len(gone)  # what is neither added nor removed is in both
    assert "post_bn" in c.added and "conv1_bn" in c.removed  # V2's pre-activation design
    assert all(name in b.layers for name in c.changed)
    # V2's convolutions take no bias (a batch norm before them) and pad before the 3x3
    assert c.changed["conv2_block1_1_conv"] == {"use_bias": (True, False)}
    assert c.changed["conv2_block1_2_conv"]["padding"] == ("same", "valid")
    assert str(c).startswith(
        f"Comparing 'resnet50' (a) with 'resnet50v2' (b): {len(c.added)} added, "
        f"{len(c.removed)} removed, {len(c.renamed)} renamed, {len(c.changed)} changed")
