"""The first hour (issue 43) in a real JupyterLab: an empty canvas says how to begin (never red)
and starts from an example; boxes a cell adds land in view; once data is set the palette offers
an Input shaped like it; a drawing made with the mouse comes back after a kernel restart; Ctrl+Z
stops once before the cell's own edits. Each asserted in the kernel; screenshots in
test-artifacts/."""

import pytest

from .conftest import (
    CHAIN,
    box,
    click_blank,
    drag_edge,
    drop,
    inside,
    open_canvas,
    open_notebook,
    screenshot,
    stage_box,
    wait_edges,
)

pytestmark = pytest.mark.browser

EMPTY = "import kerascanvas as kc\nfrom kerascanvas.datasets import digits\ncanvas = kc.Canvas()\ncanvas"


def in_stage(page, name):
    return inside(box(page, name).bounding_box(), stage_box(page), slack=2)


def test_an_empty_canvas_leads_and_an_example_and_a_cells_boxes_land_in_view(lab, page):
    kernel = open_notebook(page, lab, "empty.ipynb", [EMPTY])
    start = page.locator(".kc-start")
    start.wait_for(timeout=30_000)
    assert "Drag an Input" in start.text_content()
    assert page.locator(".kc-problems li").count() == 0  # no red line on an empty canvas
    assert page.locator(".kc-error").count() == 0
    screenshot(page, "first-hour-empty")
    page.locator(".kc-start-example").click()
    box(page, "dense").wait_for(timeout=30_000)
    assert start.is_hidden()
    assert kernel.value("[l.name for l in canvas.graph.model.layers]") == [
        "image", "conv2d", "max_pooling2d", "flatten", "dense"]
    page.wait_for_timeout(600)  # the view glides to the new boxes
    for name in ("image", "conv2d", "dense"):
        assert in_stage(page, name), name
    screenshot(page, "first-hour-example")
    # a cell adds a box: it lands in view, wired to no Input, left out with a note (not red)
    kernel.run("canvas.graph.add_layer('Dropout', rate=0.2, name='later')")
    box(page, "later").wait_for(timeout=20_000)
    page.wait_for_timeout(600)
    assert in_stage(page, "later")
    assert "left out of the model: later" in page.locator(".kc-notes").text_content()
    assert kernel.value("canvas.graph.model is not None") is True
    kernel.close()


def test_a_mouse_made_drawing_on_the_datas_input_survives_a_kernel_restart(lab, page):
    kernel = open_notebook(page, lab, "restart.ipynb", [EMPTY])
    page.locator(".kc-start").wait_for(timeout=30_000)
    kernel.run("said = canvas.set_data(*digits())")
    entry = page.locator('.kc-palette [aria-label="Input 8x8x1 (your data)"]')
    entry.wait_for(timeout=20_000)
    drop(page, "Input 8x8x1 (your data)", 300, 60)
    box(page, "input_layer").wait_for(timeout=20_000)
    assert kernel.value("canvas.graph.layers['input_layer']['config']['batch_shape']") == [
        None, 8, 8, 1]
    drop(page, "Flatten", 300, 200)
    box(page, "flatten").wait_for(timeout=20_000)
    drag_edge(page, "input_layer out 0.0", "flatten in 0.0")
    wait_edges(page, 1)
    screenshot(page, "first-hour-before-restart")
    page.wait_for_timeout(1000)  # kept after the edit has been drawn
    # Kernel > Restart Kernel..., then the cell runs again
    page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
    page.locator(".lm-Menu-itemLabel", has_text="Restart Kernel…").first.click()
    page.locator(".jp-Dialog button.jp-mod-accept").click()
    page.wait_for_function("() => [...document.querySelectorAll('#jp-main-statusbar *')]"
                           ".some(e => /Idle$/.test(e.textContent.trim()))", timeout=60_000)
    page.wait_for_timeout(1000)
    page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    box(page, "flatten").wait_for(timeout=60_000)
    wait_edges(page, 1)
    kernel.reconnect()
    assert kernel.value("sorted(canvas.graph.layers)") == ["flatten", "input_layer"]
    assert kernel.value("canvas.graph.model.output.shape[1]") == 64
    assert "Restored from" in page.locator(".kc-notes").text_content()
    screenshot(page, "first-hour-after-restart")
    kernel.close()


def test_ctrl_z_stops_once_before_the_cells_own_edits(lab, page):
    kernel = open_canvas(page, lab, "undo-stop.ipynb", CHAIN, "dense")
    drop(page, "Dropout", 420, 420)
    box(page, "dropout").wait_for(timeout=20_000)
    click_blank(page)
    page.keyboard.press("Control+z")  # the canvas's own edit: undone
    box(page, "dropout").wait_for(state="detached", timeout=20_000)
    click_blank(page)
    page.keyboard.press("Control+z")  # the cell's: stopped, said
    toast = page.locator(".kc-toast.kc-show")
    toast.wait_for(timeout=20_000)
    assert "Undo stopped" in toast.text_content()
    assert kernel.value("len(canvas.graph.edges)") == 3
    screenshot(page, "first-hour-undo-stopped")
    click_blank(page)
    page.keyboard.press("Control+z")  # the next one goes on
    wait_edges(page, 2)
    assert kernel.value("len(canvas.graph.edges)") == 2
    kernel.close()


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_the_quickstart_as_published_draws_trains_and_exports(lab, page, app):
    """notebooks/quickstart.ipynb run top to bottom, in JupyterLab and in Notebook 7: the canvas
    shows the example on the digits, the panel says what data it has and how the run ended, and a
    press of Train runs again from the page."""
    import shutil
    from pathlib import Path

    source = lab.root / f"quickstart-{app}.ipynb"  # (one kernel session per app)
    shutil.copy(Path(__file__).parents[2] / "notebooks" / "quickstart.ipynb", source)
    kernel = open_notebook(page, lab, source, app=app)
    box(page, "dense").wait_for(timeout=60_000)
    page.wait_for_timeout(600)
    for name in ("image", "conv2d", "dense"):
        assert in_stage(page, name), name
    training = page.locator(".kc-training").first  # (the API part shows a second canvas)
    training.locator("summary").first.click()
    assert "Data: 1,797 samples · x (8, 8, 1) float32" in training.text_content()
    page.wait_for_function("() => (document.querySelector('.kc-training [aria-label=\"final "
                           "metrics\"]') || {}).textContent?.startsWith('Final: loss')",
                           timeout=60_000)
    training.locator('[aria-label="Train"]').click()
    page.wait_for_function("() => document.querySelectorAll('.kc-run-mark').length === 2",
                           timeout=240_000)
    assert [r["number"] for r in kernel.value("canvas.training['runs']")] == [1]
    screenshot(page, f"first-hour-quickstart-{app}")
    kernel.close()
