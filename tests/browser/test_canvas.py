"""The canvas in a real JupyterLab and Chromium: gestures become kernel edits, asserted in Python."""

from pathlib import Path

import pytest

from .conftest import open_notebook, screenshot

pytestmark = pytest.mark.browser


def box(page, name):
    return page.locator(f'.kc-svg [data-name="{name}"]')


def port(page, label):
    return page.locator(f'.kc-svg [aria-label="{label}"]')


def drop(page, class_name, x, y):
    """Drag a palette entry onto the drawing at (x, y) from the drawing's top-left corner."""
    entry = page.locator(f'.kc-palette [aria-label="{class_name}"]')
    entry.hover()
    page.mouse.down()
    area = page.locator(".kc-svg").bounding_box()
    page.mouse.move(area["x"] + x, area["y"] + y, steps=8)
    page.mouse.up()


def drag_edge(page, out_label, in_label):
    a = port(page, out_label).bounding_box()
    b = port(page, in_label).bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=10)
    page.mouse.up()


def wait_edges(page, n):
    page.wait_for_function(f"() => document.querySelectorAll('.kc-edge').length === {n}", timeout=20_000)


CANVAS = "import kerascanvas as kc\ncanvas = kc.Canvas()\ncanvas"


def test_build_conv_net_with_the_mouse_and_check_the_nodes_in_the_kernel(lab, page):
    kernel = open_notebook(page, lab, "draw.ipynb", [CANVAS])
    page.wait_for_selector(".kc-root", timeout=30_000)
    for class_name, name, (x, y) in [("Input 28x28x1", "input_layer", (200, 40)),
                                     ("Conv2D", "conv2d", (200, 150)),
                                     ("Flatten", "flatten", (200, 260)),
                                     ("Dense", "dense", (200, 370))]:
        drop(page, class_name, x, y)
        box(page, name).wait_for(timeout=20_000)
    for n, (src, dst) in enumerate([("input_layer", "conv2d"), ("conv2d", "flatten"),
                                    ("flatten", "dense")], start=1):
        drag_edge(page, f"{src} out 0.0", f"{dst} in 0.0")
        wait_edges(page, n)
    page.wait_for_function("() => document.querySelector('.kc-status').textContent.includes('inputs: input_layer')")
    screenshot(page, "canvas-conv-net")
    assert kernel.value("[l.name for l in canvas.graph.model.layers]") == [
        "input_layer", "conv2d", "flatten", "dense"]
    histories = kernel.value(
        "[[l.name, k, [[t._keras_history[0].name, t._keras_history[1], t._keras_history[2]]"
        " for t in n.input_tensors]] for l in canvas.graph.model.layers[1:]"
        " for k, n in enumerate(l._inbound_nodes)]")
    assert histories == [["conv2d", 0, [["input_layer", 0, 0]]], ["flatten", 0, [["conv2d", 0, 0]]],
                         ["dense", 0, [["flatten", 0, 0]]]]
    box_text = box(page, "conv2d").text_content()
    assert "Conv2D" in box_text and "node 0" in box_text and "(None, 26, 26, 16)" in box_text
    kernel.close()


PREBUILT = """import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Conv2D", filters=4, kernel_size=3, name="conv")
g.add_layer("Dense", units=3, name="head")
g.arrange()
canvas = kc.Canvas(g)
canvas"""


def test_refused_edge_undo_and_names_rendered_as_text(lab, page):
    kernel = open_notebook(page, lab, "refuse.ipynb", [PREBUILT])
    box(page, "conv").wait_for(timeout=30_000)
    drag_edge(page, "vec out 0.0", "conv in 0.0")  # (None, 8) into Conv2D: Keras refuses
    toast = page.locator(".kc-toast.kc-show")
    toast.wait_for(timeout=20_000)
    assert "Keras refused" in toast.text_content() and "conv" in toast.text_content()
    assert kernel.value("[list(map(list, e)) for e in canvas.graph.edges]") == []
    screenshot(page, "canvas-refused-edge")

    drag_edge(page, "vec out 0.0", "head in 0.0")
    wait_edges(page, 1)
    assert kernel.value("len(canvas.graph.edges)") == 1
    box(page, "head").click()
    page.keyboard.press("Control+z")
    wait_edges(page, 0)
    assert kernel.value("len(canvas.graph.edges)") == 0
    page.keyboard.press("Control+Shift+z")
    wait_edges(page, 1)

    hostile = "<img src=x onerror=alert(1)>"
    kernel.run(f"canvas.graph.rename('head', {hostile!r})")
    box(page, hostile).wait_for(timeout=20_000)
    assert page.locator(".kc-root img").count() == 0
    assert box(page, hostile).locator(".kc-name").text_content() == hostile
    page.wait_for_timeout(500)
    assert page.dialogs == []
    screenshot(page, "canvas-hostile-name")
    kernel.close()


def test_keyboard_edge_and_inspector_shows_keras_message(lab, page):
    kernel = open_notebook(page, lab, "keys.ipynb", [PREBUILT])
    box(page, "head").wait_for(timeout=30_000)
    port(page, "vec out 0.0").focus()
    page.keyboard.press("Enter")
    port(page, "head in 0.0").focus()
    page.keyboard.press("Enter")
    wait_edges(page, 1)
    assert kernel.value("canvas.graph.edges[0][1]") == ["head", 0, 0]
    box(page, "head").click()
    units = page.locator('.kc-inspector [aria-label="units"]')
    units.fill("-1")
    units.press("Tab")
    error = page.locator(".kc-inspector .kc-error")
    error.wait_for(timeout=20_000)
    assert "units" in error.text_content()
    assert kernel.value("canvas.graph.layers['head']['config']['units']") == 3
    kernel.close()


SHARED = """import kerascanvas as kc
g = kc.Graph()
g.add_input((4,), name="left")
g.add_input((4,), name="right")
g.add_layer("Dense", units=3, name="shared")
g.connect("left", "shared")
g.connect("right", "shared", call=1)
canvas = kc.Canvas(g)
canvas"""


def test_inspector_shows_the_second_node_of_a_shared_layer(lab, page):
    kernel = open_notebook(page, lab, "shared.ipynb", [SHARED])
    box(page, "shared").click()
    node = page.locator('.kc-inspector [aria-label="node 1 of shared"]')
    node.wait_for(timeout=20_000)
    text = node.text_content()
    assert "Node 1 of shared" in text and "node_index: 1" in text
    assert 'inbound_layers: ["right"]' in text and "True" in text
    box(page, "right").click()
    page.wait_for_function("() => (document.querySelector('.kc-inspector .kc-nodes') || {})"
                           ".textContent?.includes('_outbound_nodes[0]: node 1 of shared')",
                           timeout=20_000)
    assert "node 1 → (None, 3)" in box(page, "shared").text_content()
    screenshot(page, "canvas-shared-node")
    with page.expect_download() as svg_download:
        page.locator('.kc-toolbar [aria-label="Export SVG"]').click()
    picture = Path(svg_download.value.path()).read_text(encoding="utf-8")
    assert picture.startswith("<svg") and ">shared<" in picture and "node 1 → (None, 3)" in picture
    with page.expect_download() as png_download:
        page.locator('.kc-toolbar [aria-label="Export PNG"]').click()
    assert Path(png_download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kernel.close()


def test_the_canvas_works_in_notebook_7(lab, page):
    kernel = open_notebook(page, lab, "nb7.ipynb", [PREBUILT], app="notebook")
    box(page, "head").wait_for(timeout=30_000)
    drag_edge(page, "vec out 0.0", "head in 0.0")
    wait_edges(page, 1)
    assert kernel.value("len(canvas.graph.edges)") == 1
    screenshot(page, "notebook7-canvas")
    kernel.close()


TRAINABLE = """import kerascanvas as kc
from kerascanvas.datasets import digits
g = kc.Graph(name="digits")
g.add_input((8, 8, 1), name="image")
g.add_layer("Flatten")
g.add_layer("Dense", units=10, activation="softmax", name="head")
g.connect("image", "flatten")
g.connect("flatten", "head")
canvas = kc.Canvas(g)
x, y = digits()
canvas.set_data(x, y)
canvas"""


def test_train_button_draws_curves_and_the_run_finishes_in_the_kernel(lab, page):
    kernel = open_notebook(page, lab, "train.ipynb", [TRAINABLE])
    box(page, "head").wait_for(timeout=30_000)
    page.locator(".kc-training summary").click()
    page.locator('.kc-training [aria-label="epochs"]').fill("4")
    page.locator('.kc-training [aria-label="Train"]').click()
    page.locator(".kc-chart canvas").first.wait_for(timeout=60_000)
    page.wait_for_function("() => document.querySelector('.kc-training [role=status]')"
                           ".textContent.startsWith('finished')", timeout=120_000)
    history = kernel.value("canvas.history")
    assert len(history["loss"]) == 4 and history["loss"][-1] < history["loss"][0]
    assert "val_loss" in history and "accuracy" in history
    assert "CPU" in page.locator(".kc-training .kc-device").text_content()
    assert kernel.value("canvas.graph._edit_lock") is None  # edits allowed again
    screenshot(page, "canvas-training")
    kernel.close()


def test_depth_and_forward_pass_step_through(lab, page):
    kernel = open_notebook(page, lab, "teach.ipynb", [TRAINABLE])
    box(page, "head").wait_for(timeout=30_000)
    page.locator('.kc-toolbar [aria-label="Depth steps"]').click()
    step = page.locator('[aria-label="Depth (seed 000)"] .kc-step')
    step.wait_for(timeout=20_000)
    assert step.text_content().startswith("1/") and "enter head node 0" in step.text_content()
    assert page.locator('.kc-svg .kc-highlight[data-name="head"]').count() == 1
    while "layers_by_depth" not in step.text_content():
        page.locator('[aria-label="Next step"]').click()
    page.locator('[aria-label="Close"]').click()
    page.locator('.kc-toolbar [aria-label="Forward pass"]').click()
    step = page.locator('[aria-label="Forward pass"] .kc-step')
    step.wait_for(timeout=20_000)
    assert "flatten node 0 → (1, 64)" in step.text_content()  # the first digit, flattened
    page.locator('[aria-label="Next step"]').click()
    assert "head node 0 → (1, 10)" in step.text_content()
    screenshot(page, "canvas-forward-pass")
    kernel.close()


def test_clicking_an_edge_shows_its_keras_tensor_and_producer(lab, page):
    kernel = open_notebook(page, lab, "edge.ipynb", [SHARED])
    box(page, "shared").wait_for(timeout=30_000)
    page.locator('.kc-svg [aria-label="edge right.0.0 to shared.1.0"]').focus()
    page.keyboard.press("Enter")
    info = page.locator('.kc-inspector .kc-node')
    info.wait_for(timeout=20_000)
    text = info.text_content()
    assert "shape:[null,4]" in text.replace(" ", "")
    assert "tensor_index=0" in text and "node 0 of right" in text and "dtype: float32" in text
    assert page.locator('.kc-svg .kc-highlight[data-name="right"]').count() == 1
    kernel.close()
