"""The inspector in a real JupyterLab and Chromium (issue 40): a KerasHub TransformerDecoder's form
shows its config as the live layer has it, and an edit goes through configure to the kernel."""

import time

import pytest

from .conftest import box, canvas_cell, open_canvas

pytestmark = pytest.mark.browser

GPT2 = canvas_cell("""import keras_hub
m = keras_hub.models.GPT2Backbone(num_heads=2, max_sequence_length=12, vocabulary_size=50,
                                  num_layers=1, hidden_dim=8, intermediate_dim=16)
g = kc.Graph.from_model(m, trust_custom=True)""")

FIELDS = """() => Object.fromEntries([...document.querySelectorAll(
  '.kc-inspector .kc-fields [aria-label]')].map((f) => [f.getAttribute('aria-label'), {
    tag: f.tagName.toLowerCase(), disabled: f.disabled, title: f.getAttribute('title'),
    value: f.type === 'checkbox' ? f.checked
      : f.tagName === 'SELECT' ? f.options[f.selectedIndex].textContent : f.value}]))"""


def test_a_transformer_decoder_shows_its_live_config_and_takes_an_edit(lab, page):
    pytest.importorskip("keras_hub")
    kernel = open_canvas(page, lab, "inspector.ipynb", GPT2, shows="transformer_layer_0",
                         timeout=90_000)
    box(page, "transformer_layer_0").click()
    page.locator('.kc-inspector [aria-label="intermediate_dim"]').wait_for(timeout=20_000)
    fields = page.evaluate(FIELDS)
    config = kernel.value("list(g.keras_layer('transformer_layer_0').get_config())")
    assert set(fields) == set(config) - {"name"}  # the name has its own row (rename)
    assert fields["activation"]["value"] == "keras_hub>gelu_approximate"
    assert fields["intermediate_dim"]["value"] == "16" and not fields["intermediate_dim"]["disabled"]
    assert fields["dropout"]["value"] == "0.1"
    assert fields["kernel_initializer"]["disabled"] and "g.configure" in fields["kernel_initializer"]["title"]
    dropout = page.locator('.kc-inspector [aria-label="dropout"]')
    dropout.fill("0.25")
    dropout.press("Tab")
    deadline = time.monotonic() + 20
    while kernel.value("g.layers['transformer_layer_0']['config']['dropout']") != 0.25:
        error = page.locator(".kc-inspector .kc-error")
        assert time.monotonic() < deadline, error.all_text_contents()
        time.sleep(0.2)
    assert kernel.value("g.keras_layer('transformer_layer_0').get_config()['dropout']") == 0.25
    page.wait_for_function("() => document.querySelector('.kc-inspector [aria-label=\"dropout\"]')"
                           "?.value === '0.25' && !document.querySelector('.kc-inspector .kc-error')",
                           timeout=20_000)
    kernel.close()
