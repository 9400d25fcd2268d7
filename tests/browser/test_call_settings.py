"""Issue 23 in a real JupyterLab: a call's settings edited in the inspector reach Keras's node
through configure_call; a refused one leaves the kernel and the fields as they were."""

import pytest

from .conftest import box, canvas_cell, open_canvas, screenshot

pytestmark = pytest.mark.browser

ATTENTION = canvas_cell("""import keras
x = keras.Input((4, 8), name="x")
g = kc.Graph.from_model(keras.Model(x, keras.layers.MultiHeadAttention(2, 4, name="mha")(x, x)))""")

SETTINGS = "canvas.graph.call_settings('mha')"
KWARGS = "sorted(canvas.graph.keras_layer('mha')._inbound_nodes[0].arguments.kwargs)"


def test_a_call_setting_is_added_refused_and_cleared_from_the_inspector(lab, page):
    kernel = open_canvas(page, lab, "call_settings.ipynb", ATTENTION, "mha")
    box(page, "mha").click()
    add = page.locator('.kc-inspector [aria-label="add a setting to call 0"]')
    add.fill("use_causal_mask=True")
    add.press("Tab")
    mask = page.locator('.kc-inspector [aria-label="call 0 use_causal_mask"]')
    mask.wait_for(timeout=20_000)
    assert mask.is_checked()
    assert kernel.value(SETTINGS) == {"use_causal_mask": True}
    assert "use_causal_mask" in kernel.value(KWARGS)
    screenshot(page, "call-settings-set")
    # a setting the call does not take: refused, the kernel and the fields unchanged
    add = page.locator('.kc-inspector [aria-label="add a setting to call 0"]')
    add.fill("no_such_arg=1")
    add.press("Tab")
    error = page.locator(".kc-inspector .kc-error")
    error.wait_for(timeout=20_000)
    assert "no_such_arg" in error.text_content()
    assert kernel.value(SETTINGS) == {"use_causal_mask": True}
    assert page.locator('.kc-inspector [aria-label="call 0 use_causal_mask"]').is_checked()
    assert page.locator('.kc-inspector [aria-label="add a setting to call 0"]').input_value() == ""
    page.locator('.kc-inspector [aria-label="clear call 0 use_causal_mask"]').click()
    mask.wait_for(state="detached", timeout=20_000)
    assert kernel.value(SETTINGS) == {}
    assert "use_causal_mask" not in kernel.value(KWARGS)
    kernel.close()
