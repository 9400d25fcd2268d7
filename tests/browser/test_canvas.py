"""The canvas in a real JupyterLab and Chromium: gestures become kernel edits, asserted in Python."""

import re
from pathlib import Path

import pytest

from .conftest import (
    box,
    canvas_cell,
    dark_theme,
    drag_edge,
    drop,
    open_canvas,
    open_notebook,
    port,
    screenshot,
    tool,
    wait_edges,
)

pytestmark = pytest.mark.browser


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


PREBUILT = canvas_cell("""g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Conv2D", filters=4, kernel_size=3, name="conv")
g.add_layer("Dense", units=3, name="head")
g.arrange()""")


def test_refused_edge_undo_and_names_rendered_as_text(lab, page):
    kernel = open_canvas(page, lab, "refuse.ipynb", PREBUILT, "conv")
    drag_edge(page, "vec out 0.0", "conv in 0.0")  # (None, 8) into Conv2D: Keras refuses
    toast = page.locator(".kc-toast.kc-show")
    toast.wait_for(timeout=20_000)
    assert "Keras refused" in toast.text_content() and "conv" in toast.text_content()
    assert kernel.value("[list(map(list, e)) for e in canvas.graph.edges]") == []
    # next to the spot: the message sits by the slot the edge was dropped on
    slot, shown = port(page, "conv in 0.0").bounding_box(), toast.bounding_box()
    assert abs(shown["x"] - slot["x"]) < 40 and abs(shown["y"] - slot["y"]) < 40
    assert page.locator(".kc-edge").count() == 0
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
    box(page, "head").click()  # renamed in the inspector: the name travels browser -> kernel
    name_field = page.locator('.kc-inspector [aria-label="layer name"]')
    name_field.fill(hostile)
    name_field.press("Enter")
    box(page, hostile).wait_for(timeout=20_000)
    assert hostile in kernel.value("list(canvas.graph.layers)")
    assert page.locator(".kc-root img").count() == 0
    assert box(page, hostile).locator(".kc-name").text_content() == hostile
    page.wait_for_timeout(500)
    assert page.dialogs == []
    screenshot(page, "canvas-hostile-name")
    kernel.close()


def test_keyboard_edge_and_inspector_shows_keras_message(lab, page):
    kernel = open_canvas(page, lab, "keys.ipynb", PREBUILT, "head")
    port(page, "vec out 0.0").focus()
    page.keyboard.press("Enter")
    # the canvas kept the key: the port is armed and focused, the notebook did not start editing
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "vec out 0.0"
    assert page.locator(".kc-armed").count() == 1
    assert page.locator(".jp-Notebook.jp-mod-editMode").count() == 0
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


SHARED = canvas_cell("""g = kc.Graph()
g.add_input((4,), name="left")
g.add_input((4,), name="right")
g.add_layer("Dense", units=3, name="shared")
g.connect("left", "shared")
g.connect("right", "shared", call=1)""")


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
        tool(page, "Export SVG")
    picture = Path(svg_download.value.path()).read_text(encoding="utf-8")
    assert picture.startswith("<svg") and ">shared<" in picture and "node 1 → (None, 3)" in picture
    with page.expect_download() as png_download:
        tool(page, "Export PNG")
    assert Path(png_download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kernel.close()


def test_the_canvas_works_in_notebook_7(lab, page):
    kernel = open_canvas(page, lab, "nb7.ipynb", PREBUILT, "head", app="notebook")
    drag_edge(page, "vec out 0.0", "head in 0.0")
    wait_edges(page, 1)
    assert kernel.value("len(canvas.graph.edges)") == 1
    screenshot(page, "notebook7-canvas")
    kernel.close()


TRAINABLE = canvas_cell("""g = kc.Graph(name="digits")
g.add_input((8, 8, 1), name="image")
g.add_layer("Flatten")
g.add_layer("Dense", units=10, activation="softmax", name="head")
g.connect("image", "flatten")
g.connect("flatten", "head")""", head="import kerascanvas as kc\nfrom kerascanvas.datasets import digits",
                        then="x, y = digits()\ncanvas.set_data(x, y)")


def test_train_button_draws_curves_and_the_run_finishes_in_the_kernel(lab, page):
    kernel = open_canvas(page, lab, "train.ipynb", TRAINABLE, "head")
    page.locator(".kc-training summary").click()
    # before a run the panel says what the chosen engine would run on
    mesh = page.locator(".kc-training .kc-mesh")
    assert mesh.text_content() == "will run on one device"  # "auto" on this CPU
    page.get_by_label("devices", exact=True).select_option("none")
    assert mesh.text_content() == "runs on one device"
    page.locator('.kc-training [aria-label="epochs"]').fill("4")
    # each field is named by the label it shows (a screen reader said "learning_rate")
    page.get_by_label("learning rate", exact=True).fill("0.002")
    page.locator('.kc-training [aria-label="Train"]').click()
    page.locator(".kc-chart canvas").first.wait_for(timeout=60_000)
    page.wait_for_function("() => document.querySelector('.kc-training [role=status]')"
                           ".textContent.startsWith('finished')", timeout=120_000)
    history = kernel.value("canvas.history")
    assert len(history["loss"]) == 4 and history["loss"][-1] < history["loss"][0]
    assert "val_loss" in history and "accuracy" in history
    assert kernel.value("float(canvas.trainer.graph.model.optimizer.learning_rate)") == \
        pytest.approx(0.002)
    assert "CPU" in page.locator(".kc-training .kc-device").text_content()
    assert kernel.value("canvas.graph.lock_reason") is None  # edits allowed again
    screenshot(page, "canvas-training")
    # the chart is drawn on a canvas: after a theme switch it is drawn again in the theme's ink
    chart = page.locator(".kc-chart canvas").first
    chart.scroll_into_view_if_needed()
    before = chart.screenshot()
    with dark_theme(page):
        page.wait_for_timeout(500)
        assert page.locator(".kc-chart canvas").first.screenshot() != before
        screenshot(page, "canvas-training-dark")
    kernel.close()


def test_stop_pressed_right_after_train_stops_the_run_in_its_first_epoch(lab, page):
    """Train then Stop at once: the stop reaches the kernel before Keras's fit has begun (it
    resets the model's stop flag as it begins); the run still stops in its first epoch, keeps
    its weights, and the canvas can be edited again."""
    kernel = open_canvas(page, lab, "train-stop.ipynb", TRAINABLE, "head")
    page.locator(".kc-training summary").click()
    page.locator('.kc-training [aria-label="epochs"]').fill("50")
    page.locator('.kc-training [aria-label="Train"]').click()
    page.locator('.kc-training [aria-label="Stop"]').click()
    page.wait_for_function("() => document.querySelector('.kc-training [role=status]')"
                           ".textContent.startsWith('stopped')", timeout=120_000)
    status = kernel.value("canvas.trainer.status")
    assert status["state"] == "stopped" and status["epoch"] == 1, status
    assert len(kernel.value("canvas.history").get("loss", [])) <= 1
    assert kernel.value("canvas.graph.lock_reason") is None
    kernel.run('canvas.graph.configure("head", units=12)')  # editing works again
    assert kernel.value("canvas.graph.keras_layer('head').units") == 12
    screenshot(page, "canvas-training-stopped")
    kernel.close()


def test_clicking_an_edge_shows_its_keras_tensor_and_producer(lab, page):
    kernel = open_canvas(page, lab, "edge.ipynb", SHARED, "shared")
    page.locator('.kc-svg [aria-label="edge right.0.0 to shared.1.0"]').focus()
    page.keyboard.press("Enter")
    info = page.locator('.kc-inspector .kc-node')
    info.wait_for(timeout=20_000)
    text = info.text_content()
    assert "shape:[null,4]" in text.replace(" ", "")
    assert "tensor_index=0" in text and "node 0 of right" in text and "dtype: float32" in text
    assert page.locator('.kc-svg .kc-highlight[data-name="right"]').count() == 1
    kernel.close()


def test_selection_copy_paste_delete_shared_call_and_problems(lab, page):
    kernel = open_canvas(page, lab, "select.ipynb", SHARED, "shared")
    # a problem is marked on its box and listed in words under the drawing
    kernel.run("canvas.graph.add_input((2,), name='spare')")
    box(page, "spare").locator(".kc-badge").wait_for(timeout=20_000)
    assert "spare" in page.locator(".kc-problems").text_content()
    # each edge names its (layer, node_index, tensor_index) on hover
    edge = page.locator('.kc-svg [aria-label="edge right.0.0 to shared.1.0"]')
    assert "node_index=0" in edge.locator("title").text_content()

    box(page, "left").click()
    box(page, "spare").click(modifiers=["Shift"])
    assert page.locator(".kc-svg .kc-selected").count() == 2
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    page.wait_for_function("() => document.querySelectorAll('.kc-box').length === 6", timeout=20_000)
    assert kernel.value("list(canvas.graph.layers)") == [
        "left", "right", "shared", "spare", "left_1", "spare_1"]
    # the copies lie off screen: select them with the keyboard (the view follows focus)
    box(page, "left_1").focus()
    page.keyboard.press("Enter")
    box(page, "spare_1").focus()
    page.keyboard.press("Shift+Enter")
    assert page.locator(".kc-svg .kc-selected").count() == 2
    page.keyboard.press("Delete")
    page.wait_for_function("() => document.querySelectorAll('.kc-box').length === 4", timeout=20_000)
    assert kernel.value("list(canvas.graph.layers)") == ["left", "right", "shared", "spare"]
    assert page.locator(".jp-Notebook .jp-Cell").count() == 1  # the notebook's own keys stayed off

    # a third call of the shared layer, from its context menu: pending until fed
    tool(page, "Fit")  # the view had followed the focus
    box(page, "shared").click(button="right")
    page.get_by_role("menuitem", name="Call again (shared weights)").click()
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"shared\"]')"
                           ".textContent.includes('call 2: pending')", timeout=20_000)
    assert kernel.value("canvas.graph.calls('shared')") == 3
    assert "kc-pending" in box(page, "shared").get_attribute("class")
    drag_edge(page, "spare out 0.0", "shared in 2.0")  # (None, 2) into a Dense built for 4
    page.locator(".kc-toast.kc-show").wait_for(timeout=20_000)
    assert kernel.value("canvas.graph.is_built('shared', 2)") is False
    drag_edge(page, "left out 0.0", "shared in 2.0")
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"shared\"]')"
                           ".textContent.includes('node 2 → (None, 3)')", timeout=20_000)
    assert kernel.value("[n.input_tensors[0]._keras_history[0].name for n in "
                        "canvas.graph.keras_layer('shared')._inbound_nodes]") == ["left", "right", "left"]
    screenshot(page, "canvas-shared-third-call")
    kernel.close()


def brightness(css_colour: str) -> float:
    """The mean of the red, green and blue of "rgb(r, g, b)" or "rgba(r, g, b, a)"."""
    r, g, b = (float(v) for v in re.findall(r"[\d.]+", css_colour)[:3])
    return (r + g + b) / 3


def test_the_canvas_follows_the_dark_theme(lab, page):
    kernel = open_canvas(page, lab, "dark.ipynb", PREBUILT, "head")
    fill = "getComputedStyle(document.querySelector('.kc-box rect')).fill"
    light = page.evaluate(fill)
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel").get_by_text("JupyterLab Dark", exact=True).click()
    page.wait_for_function(f"() => {fill} !== {light!r}", timeout=30_000)
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=30_000)
    assert brightness(page.evaluate(fill)) < 100  # a dark box, from --jp-layout-color1
    text = page.evaluate("getComputedStyle(document.querySelector('.kc-box .kc-name')).fill")
    assert brightness(text) > 150  # light text on it, from --jp-ui-font-color1
    screenshot(page, "canvas-dark-theme")
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel").get_by_text("JupyterLab Light", exact=True).click()
    kernel.close()


NESTED = canvas_cell("""a = keras.Input((3,), name="a")
inner = keras.Model(a, [keras.layers.Dense(2, name="d")(a), keras.layers.Dense(4, name="e")(a)], name="inner")
x = keras.Input((3,), name="x")
p, q = inner(x)
g = kc.Graph.from_model(keras.Model(x, keras.layers.Concatenate(name="cat")([p, q])))""",
                     head="import keras\nimport kerascanvas as kc", canvas="kc.Canvas(g, height=500)")


def test_a_nested_model_is_one_box_that_folds_out_into_its_inner_graph(lab, page):
    kernel = open_notebook(page, lab, "nested.ipynb", [NESTED])
    outer = box(page, "inner")
    outer.wait_for(timeout=30_000)
    assert "Functional · 2 layers" in outer.text_content()
    assert page.locator('.kc-svg [data-inner="d"]').count() == 0
    size = ("() => { const r = document.querySelector('.kc-svg [data-name=\"inner\"] > rect');"
            " return [Number(r.getAttribute('width')), Number(r.getAttribute('height'))]; }")
    folded = page.evaluate(size)
    view = "() => document.querySelector('.kc-world').getAttribute('transform')"
    fitted = page.evaluate(view)  # the drawing was fitted to the view when it got a size
    page.locator('.kc-svg [aria-label="expand inner"]').click()
    inside = page.locator('.kc-svg [aria-label="d (Dense) in inner"]')
    inside.wait_for(timeout=20_000)
    assert page.evaluate(view) == fitted  # the box grows in place: the view does not jump
    assert "Dense → (None, 4)" in page.locator('.kc-svg [data-inner="e"]').text_content()
    assert kernel.value("sorted(canvas.graph.expanded)") == ["inner"]
    assert page.locator('.kc-svg [data-name="inner"] .kc-inner').count() == 3  # a, d, e
    grown = page.evaluate(size)
    assert grown[0] > folded[0] and grown[1] > folded[1]
    # the two output ports of the box follow its new width, and the edges into cat stay drawn
    assert page.locator(".kc-edge").count() == 3
    right = ("() => { const r = document.querySelector('.kc-svg [data-name=\"inner\"] > rect')"
             ".getBoundingClientRect(); const p = document.querySelector("
             "'.kc-svg [aria-label=\"inner out 0.1\"]').getBoundingClientRect();"
             " return p.x > r.x + r.width / 2; }")
    assert page.evaluate(right)
    screenshot(page, "canvas-nested-expanded")
    toggle = page.locator('.kc-svg [aria-label="collapse inner"]')
    toggle.focus()
    page.keyboard.press("Enter")  # the keyboard folds it back
    page.locator('.kc-svg [aria-label="expand inner"]').wait_for(timeout=20_000)
    assert page.locator('.kc-svg [data-inner="d"]').count() == 0
    assert kernel.value("sorted(canvas.graph.expanded)") == []
    outer.dblclick()  # a double click on the box folds it out too
    page.locator('.kc-svg [aria-label="collapse inner"]').wait_for(timeout=20_000)
    assert kernel.value("sorted(canvas.graph.expanded)") == ["inner"]
    kernel.close()
