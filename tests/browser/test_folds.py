"""Issue 12, "repeated blocks collapse", in a real JupyterLab: ResNet50 opens with each stage's
identity blocks folded into one stacked box ("×N"); edges attach to that box; the "+" button
unfolds it, the box menu folds it again, Find unfolds a folded layer; each asserted in the
kernel. Screenshots in test-artifacts/ (light and dark)."""

import pytest

from .conftest import ARTIFACTS, box, canvas_cell, dark_theme, open_canvas, screenshot

pytestmark = pytest.mark.browser

RESNET = canvas_cell("g = kc.Graph.from_model(keras.applications.ResNet50(weights=None))",
                     head="import keras, kerascanvas as kc")
HEAD = "conv2_block2_1_conv"  # the first layer of stage 2's identity blocks (blocks 2 and 3)
MEMBER = "conv2_block3_2_conv"


def close_up(page, locator, name):
    """The area around a box, at twice the page's scale, as test-artifacts/<name>.png."""
    b = locator.bounding_box()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), scale="device",
                    clip={"x": b["x"] - 60, "y": b["y"] - 50, "width": b["width"] + 120, "height": b["height"] + 100})


def edge_key(page, key):
    return page.locator(f'.kc-svg [data-edge-key="{key}"]')


def test_resnet50_opens_folded_and_a_run_unfolds_and_folds_again(lab, page):
    kernel = open_canvas(page, lab, "folds.ipynb", RESNET, "input_layer", timeout=120_000)
    assert kernel.value("sorted(canvas.graph.folded)") == [
        "conv2_block2_1_conv", "conv3_block2_1_conv", "conv4_block2_1_conv", "conv5_block2_1_conv"]
    model_id = kernel.value("id(canvas.graph.model)")

    # typing a folded layer's name in Find shows its run's box
    box(page, "input_layer").click()
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill(HEAD)
    folded = box(page, HEAD)
    folded.wait_for(timeout=20_000)
    page.keyboard.press("Escape")
    assert "kc-folded" in folded.get_attribute("class")
    assert "×2" in folded.text_content() and "conv2_block3_out" in folded.text_content()
    assert box(page, MEMBER).count() == 0  # hidden layers are not drawn
    # the wire into the run goes to its box; the run's output leaves from it; none inside it
    edge_key(page, f"conv2_block1_out:0:0>{HEAD}:0:0").wait_for(timeout=10_000)
    edge_key(page, f"{HEAD}:0:0>conv3_block1_1_conv:0:0").wait_for(timeout=10_000)
    assert page.locator(f'.kc-svg [data-edge-key*=">{MEMBER}:"]').count() == 0
    screenshot(page, "folds-resnet-folded")
    page.keyboard.press("Escape")  # nothing selected: the box as it looks at rest, up close
    page.wait_for_function(f"() => !document.querySelector('.kc-svg [data-name=\"{HEAD}\"]').classList.contains('kc-selected')", timeout=10_000)
    close_up(page, folded, "folds-box")
    with dark_theme(page):
        screenshot(page, "folds-resnet-folded-dark")
        close_up(page, folded, "folds-box-dark")

    # "+" unfolds: the layers of the run are drawn again, the kernel's model is the same object
    folded.locator("[data-toggle]").click()
    box(page, MEMBER).wait_for(timeout=20_000)
    assert kernel.value("sorted(canvas.graph.folded)") == [
        "conv3_block2_1_conv", "conv4_block2_1_conv", "conv5_block2_1_conv"]
    assert kernel.value("id(canvas.graph.model)") == model_id
    assert "kc-folded" not in box(page, HEAD).get_attribute("class")
    page.wait_for_timeout(600)  # the boxes glide to their places
    screenshot(page, "folds-resnet-unfolded")

    # the menu of a box in the run folds it again
    box(page, HEAD).click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="Fold repeated blocks").click()
    page.wait_for_function(f"() => !document.querySelector('.kc-svg [data-name=\"{MEMBER}\"]')", timeout=20_000)
    assert "conv2_block2_1_conv" in kernel.value("sorted(canvas.graph.folded)")
    assert "kc-folded" in box(page, HEAD).get_attribute("class")

    # Enter in Find on a layer inside a folded run unfolds it and goes to the layer
    box(page, HEAD).click()
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("conv4_block3_2_conv")
    page.keyboard.press("Enter")
    target = box(page, "conv4_block3_2_conv")
    target.wait_for(timeout=20_000)
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"conv4_block3_2_conv\"]')"
                           ".classList.contains('kc-selected')", timeout=10_000)
    assert "conv4_block2_1_conv" not in kernel.value("sorted(canvas.graph.folded)")
    # undo folds it again (a view step like any other)
    kernel.run("canvas.graph.undo()")
    page.wait_for_function("() => !document.querySelector('.kc-svg [data-name=\"conv4_block3_2_conv\"]')", timeout=20_000)

    # the drawing's menu (right click on empty space) unfolds every run at once
    page.locator('[aria-label="find layer"]').press("Escape")
    page.locator(".kc-stage").click(button="right", position={"x": 20, "y": 300})
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="Unfold all repeated blocks").click()
    box(page, "conv5_block3_out").wait_for(state="attached", timeout=20_000)
    assert kernel.value("sorted(canvas.graph.folded)") == []
    kernel.close()
