"""Issue 41 in a real JupyterLab: a MobileNetV2 base under a head is frozen from its box's menu
(Freeze), and from the inspector's "trainable" checkbox unfrozen again; the footer shows the
trainable and non-trainable counts, the box looks frozen and says so to a screen reader, and the
kernel holds the flags. Screenshots in test-artifacts/trainable-*.png."""

import time

import pytest

from .conftest import box, canvas_cell, open_canvas, screenshot

pytestmark = pytest.mark.browser

BASED = canvas_cell("""\
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3), name="base")
inputs = keras.Input((32, 32, 3), name="image")
x = keras.layers.GlobalAveragePooling2D(name="pool")(base(inputs))
g = kc.Graph.from_model(keras.Model(inputs, keras.layers.Dense(10, name="head")(x)))""",
                    head="import keras, kerascanvas as kc")


def test_freeze_the_base_from_its_menu_and_unfreeze_it_from_the_inspector(lab, page):
    kernel = open_canvas(page, lab, "trainable.ipynb", BASED, "base", timeout=120_000)
    status = page.locator(".kc-status")
    assert "non-trainable" in status.text_content()  # BatchNormalization statistics
    box(page, "base").click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="Freeze (trainable = False)").click()
    page.wait_for_function("() => document.querySelector('.kc-status').textContent"
                           ".includes('12.8k trainable, 2.26M non-trainable')", timeout=30_000)
    assert kernel.value("canvas.graph.keras_layer('base').trainable") is False
    assert kernel.value("canvas.graph.param_counts()") == {
        "total": 2_270_794, "trainable": 12_810, "non_trainable": 2_257_984}
    base = box(page, "base")
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"base\"]')"
                           ".classList.contains('kc-frozen')", timeout=10_000)
    assert base.get_attribute("aria-label") == "base, frozen"
    assert "frozen" in base.text_content()
    screenshot(page, "trainable-frozen")

    # the inspector's trainable checkbox: one click unfreezes it again
    base.click()
    checkbox = page.locator('.kc-inspector input[aria-label="trainable"]')
    checkbox.wait_for(timeout=20_000)
    assert not checkbox.is_checked()
    checkbox.click()
    page.wait_for_function("() => !document.querySelector('.kc-status').textContent"
                           ".includes('12.8k trainable')", timeout=30_000)
    assert kernel.value("canvas.graph.keras_layer('base').trainable") is True
    assert kernel.value("canvas.graph.param_counts()['trainable']") == 2_236_682
    assert box(page, "base").get_attribute("aria-label") == "base"
    screenshot(page, "trainable-unfrozen")


DENSE = canvas_cell("""\
inputs = keras.Input((16,), name="x")
hidden = keras.layers.Dense(32, activation="relu", name="hidden")(inputs)
g = kc.Graph.from_model(keras.Model(inputs, keras.layers.Dense(4, name="head")(hidden)))""",
                    head="import keras, kerascanvas as kc")


def test_lora_from_the_box_menu_with_a_rank(lab, page):
    kernel = open_canvas(page, lab, "lora.ipynb", DENSE, "hidden")
    box(page, "hidden").click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="LoRA…").click()
    form = page.locator(".kc-lora-form")
    field = form.locator("input")
    field.fill("0")  # refused in the form, nothing sent
    form.locator("button", has_text="Enable LoRA").click()
    page.wait_for_function("() => document.querySelector('.kc-lora-why').textContent"
                           ".includes('whole number')", timeout=10_000)
    assert kernel.value("canvas.graph.layers['hidden']['config'].get('lora_rank')") is None
    field.fill("4")
    field.press("Enter")  # Enter sends it
    page.wait_for_function("() => (document.querySelector('.kc-svg [data-name=\"hidden\"]')"
                           ".getAttribute('aria-label') || '').includes('LoRA r=4')",
                           timeout=30_000)
    assert page.locator(".kc-lora-form").count() == 0
    assert kernel.value("canvas.graph.layers['hidden']['config']['lora_rank']") == 4
    counts = kernel.value("canvas.graph.param_counts()")
    # the 16x32 kernel stops training; 16x4 + 4x32 LoRA matrices train beside it
    assert counts == {"total": 544 + 132 + 192, "trainable": 32 + 132 + 192,
                      "non_trainable": 512}
    page.wait_for_function("() => document.querySelector('.kc-status').textContent"
                           ".includes('512 non-trainable')", timeout=30_000)
    screenshot(page, "lora-on")


GPT2 = canvas_cell("""\
import keras_hub
backbone = keras_hub.models.GPT2Backbone(num_heads=2, max_sequence_length=12, vocabulary_size=50,
                                         num_layers=2, hidden_dim=8, intermediate_dim=16)
g = kc.Graph.from_model(backbone, trust_custom=True)""", head="import keras, kerascanvas as kc")


def test_lora_on_a_keras_hub_decoder_block_from_its_menu(lab, page):
    """A KerasHub GPT-2 drawn flat: "LoRA…" on a TransformerDecoder box gives its attention's
    query and value LoRA, as KerasHub's Backbone.enable_lora targets them."""
    pytest.importorskip("keras_hub")
    kernel = open_canvas(page, lab, "lora-hub.ipynb", GPT2, "transformer_layer_0", timeout=120_000)
    box(page, "transformer_layer_0").click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="LoRA…").click()
    field = page.locator(".kc-lora-form input")
    field.fill("4")
    field.press("Enter")
    page.wait_for_function("() => (document.querySelector('.kc-svg [data-name=\"transformer_layer_0\"]')"
                           ".getAttribute('aria-label') || '').includes('LoRA r=4')", timeout=30_000)
    ranks = kernel.value("sorted((x.name, x.lora_rank) for x in g.keras_layer('transformer_layer_0')"
                         "._flatten_layers() if getattr(x, 'lora_enabled', False))")
    assert ranks == [["query", 4], ["value", 4]]
    assert kernel.value("g.specs['transformer_layer_0'].inside") == [
        ["self_attention/query", "lora", 4], ["self_attention/value", "lora", 4]]
    counts = kernel.value("g.param_counts()")
    page.wait_for_function("(n) => document.querySelector('.kc-status').textContent"
                           ".includes(n + ' non-trainable')", arg=str(counts["non_trainable"]),
                           timeout=30_000)
    # the weights' memory, as Keras's model.summary writes it, follows too
    memory = kernel.value("__import__('keras.src.utils.summary_utils', fromlist=['_'])"
                          ".readable_memory_size(g.weight_bytes())")
    assert f"· {memory} ·" in page.locator(".kc-status").text_content()
    assert kernel.value("len(g.keras_layer('transformer_layer_1')._flatten_layers()) and not any("
                        "getattr(x, 'lora_enabled', False) for x in "
                        "g.keras_layer('transformer_layer_1')._flatten_layers())") is True
    screenshot(page, "lora-keras-hub-block")


BOXED_GPT2 = canvas_cell("""\
import keras_hub
backbone = keras_hub.models.GPT2Backbone(num_heads=2, max_sequence_length=12, vocabulary_size=50,
                                         num_layers=2, hidden_dim=8, intermediate_dim=16, name="gpt2")
inputs = {k: keras.Input((None,), dtype="int32", name=k) for k in ("token_ids", "padding_mask")}
model = keras.Model(inputs, keras.layers.Dense(3, name="head")(backbone(inputs)))
g = kc.Graph.from_model(model, trust_custom=True)""", head="import keras, kerascanvas as kc")


def test_lora_on_a_layer_inside_an_expanded_backbone_from_its_menu(lab, page):
    """The backbone as one box, expanded: an inner TransformerDecoder's menu offers "LoRA…"
    (the kernel says it takes it), an inner LayerNormalization's does not."""
    pytest.importorskip("keras_hub")
    kernel = open_canvas(page, lab, "lora-inner.ipynb", BOXED_GPT2, "gpt2", timeout=120_000)
    page.locator('.kc-svg [data-toggle="gpt2"]').click()
    norm = page.locator('.kc-svg [data-inner-path="gpt2/layer_norm"]')
    norm.wait_for(timeout=30_000)
    page.wait_for_timeout(900)  # the camera glides to the inside
    norm.click(button="right")
    menu = page.locator(".kc-menu.kc-show")
    menu.wait_for(timeout=10_000)
    assert "Freeze (trainable = False)" in menu.text_content()
    assert "LoRA" not in menu.text_content()
    page.keyboard.press("Escape")
    page.locator('.kc-svg [data-inner-path="gpt2/transformer_layer_1"]').click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="LoRA…").click()
    field = page.locator(".kc-lora-form input")
    field.fill("2")
    field.press("Enter")
    deadline = time.monotonic() + 30
    query = ("sorted((x.name, x.lora_rank) for x in g.keras_layer('gpt2')"
             ".get_layer('transformer_layer_1')._flatten_layers() if getattr(x, 'lora_enabled', False))")
    while kernel.value(query) != [["query", 2], ["value", 2]]:
        assert time.monotonic() < deadline, page.locator(".kc-toast").all_text_contents()
        time.sleep(0.3)
    assert kernel.value("g.specs['gpt2'].inside") == [
        ["transformer_layer_1/self_attention/query", "lora", 2],
        ["transformer_layer_1/self_attention/value", "lora", 2]]
    page.wait_for_function("() => (document.querySelector('.kc-svg [data-name=\"gpt2\"]')"
                           ".getAttribute('aria-label') || '').includes('LoRA r=2')", timeout=30_000)
    screenshot(page, "lora-inner-block")
