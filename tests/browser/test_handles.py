"""Issue 12 in a real JupyterLab: the gestures of node editors (React Flow, Blender, Node-RED,
Netron) on the canvas, each asserted in the kernel. Screenshots in test-artifacts/."""

import pytest

from .conftest import (
    CHAIN,
    box,
    canvas_cell,
    centre,
    click_blank,
    dark_theme,
    drag_edge,
    edge,
    edges,
    inside,
    open_canvas,
    open_chain,
    open_notebook,
    port,
    screenshot,
    stage_box,
    tool,
    wait_edges,
    wait_still,
)

pytestmark = pytest.mark.browser


def test_right_click_shows_only_the_canvas_menu_inside_the_view(lab, page):
    kernel = open_notebook(page, lab, "menu.ipynb", [CHAIN])
    assert kernel.value("__import__('kerascanvas').__file__").startswith(str(__import__("pathlib").Path(__file__).parents[2]))
    box(page, "dense").wait_for(timeout=30_000)
    box(page, "dense").click(button="right")
    menu = page.locator(".kc-menu.kc-show")
    menu.wait_for(timeout=10_000)
    page.wait_for_timeout(300)
    assert page.locator(".lm-Menu").count() == 0  # JupyterLab's own context menu did not open
    stage = stage_box(page)
    m = menu.bounding_box()
    assert stage["y"] <= m["y"] and m["y"] + m["height"] <= stage["y"] + stage["height"] + 1
    assert "Delete" in menu.text_content() and "Restart Kernel" not in page.content()
    screenshot(page, "handles-box-menu-light")
    page.keyboard.press("Escape")
    # an edge has its own menu; choosing "Show tensor" highlights the producer, and a click on
    # empty space clears that highlight again
    x, y = centre(edge(page, "flatten", "dense").locator(".kc-edge-line"))
    page.mouse.click(x, y, button="right")
    page.get_by_role("menuitem", name="Show tensor").click()
    page.locator('.kc-svg .kc-highlight[data-name="flatten"]').wait_for(timeout=10_000)
    click_blank(page)
    page.wait_for_function("() => !document.querySelector('.kc-svg .kc-highlight')", timeout=10_000)
    assert page.locator(".lm-Menu").count() == 0
    with dark_theme(page):
        box(page, "conv2d").click(button="right")
        page.locator(".kc-menu.kc-show").wait_for(timeout=10_000)
        screenshot(page, "handles-box-menu-dark")
        page.keyboard.press("Escape")
    kernel.close()


def test_select_an_edge_and_delete_removes_it_in_the_kernel(lab, page):
    kernel = open_chain(page, lab, "edge_delete.ipynb")
    x, y = centre(edge(page, "conv2d", "flatten").locator(".kc-edge-line"))
    page.mouse.click(x, y)
    page.locator(".kc-svg .kc-edge-selected").wait_for(timeout=10_000)
    screenshot(page, "handles-edge-selected")
    page.keyboard.press("Delete")
    wait_edges(page, 2)
    assert edges(kernel) == [
        [["image", 0, 0], ["conv2d", 0, 0]], [["flatten", 0, 0], ["dense", 0, 0]]]
    # the wire of a filled slot drags off: dropped in empty space it is unplugged (one undo step)
    a = port(page, "flatten in 0.0")  # now empty
    drag_edge(page, "conv2d out 0.0", "flatten in 0.0")
    wait_edges(page, 3)
    x, y = centre(port(page, "flatten in 0.0"))
    s = stage_box(page)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(s["x"] + 40, s["y"] + s["height"] - 40, steps=8)
    page.mouse.up()
    wait_edges(page, 2)
    assert kernel.value("len(canvas.graph.edges)") == 2
    page.keyboard.press("Control+z")
    wait_edges(page, 3)
    assert a.count() == 1
    kernel.close()


def test_dropping_dropout_on_a_wire_inserts_it_and_dense_keeps_its_weights(lab, page):
    kernel = open_chain(page, lab, "insert.ipynb")
    kernel.run("w0 = canvas.graph.keras_layer('dense'); k0 = w0.kernel.numpy().copy()")
    entry = page.locator('.kc-palette [aria-label="Dropout"]')
    entry.scroll_into_view_if_needed()
    entry.hover()
    page.mouse.down()
    x, y = centre(edge(page, "flatten", "dense").locator(".kc-edge-line"))
    page.mouse.move(x, y, steps=10)
    page.locator(".kc-svg .kc-edge-drop").wait_for(timeout=10_000)
    screenshot(page, "handles-drop-on-wire")
    page.mouse.up()
    box(page, "dropout").wait_for(timeout=20_000)
    wait_edges(page, 4)
    assert edges(kernel)[2:] == [
        [["flatten", 0, 0], ["dropout", 0, 0]], [["dropout", 0, 0], ["dense", 0, 0]]]
    assert kernel.value("canvas.graph.keras_layer('dense') is w0 and bool((w0.kernel.numpy() == k0).all())") is True
    assert "kc-selected" in box(page, "dropout").get_attribute("class")  # the new box is selected
    screenshot(page, "handles-inserted")
    page.keyboard.press("Control+z")  # one undo step takes it all back
    wait_edges(page, 3)
    assert kernel.value("'dropout' in canvas.graph.layers") is False
    kernel.close()


def test_a_wire_dropped_in_empty_space_opens_the_filtered_search(lab, page):
    kernel = open_chain(page, lab, "quick.ipynb")
    kernel.run("g.add_layer('Dense', units=3, name='spare'); g.add_layer('Conv2D', filters=2, kernel_size=3, name='conv_spare')")
    box(page, "conv_spare").wait_for(timeout=20_000)
    page.wait_for_timeout(400)  # the boxes glide to the new layout
    tool(page, "Fit")
    x, y = centre(port(page, "flatten out 0.0"))
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 260, y + 30, steps=10)
    page.wait_for_function("() => document.querySelector('.kc-port-ok[data-port=\"in:spare:0:0\"]') !== null"
                           " && document.querySelector('.kc-port-dim[data-port=\"in:conv_spare:0:0\"]') !== null", timeout=20_000)
    screenshot(page, "handles-wiring-hints")
    page.mouse.up()
    quick = page.locator(".kc-quickadd.kc-show")
    quick.wait_for(timeout=10_000)
    page.wait_for_function("() => /layers accept/.test(document.querySelector('.kc-quickadd-note').textContent)", timeout=30_000)
    page.keyboard.type("conv2d")
    page.wait_for_timeout(300)
    assert quick.locator('[data-class="Conv2D"]').count() == 0  # a flat (None, 2704) tensor: no Conv2D
    page.fill('[aria-label="quick add search"]', "dens")
    quick.locator('.kc-quickadd-item').first.wait_for()
    assert quick.locator(".kc-quickadd-item .kc-quickadd-name").first.text_content() == "Dense"
    screenshot(page, "handles-quick-add")
    page.keyboard.press("Enter")
    box(page, "dense_1").wait_for(timeout=20_000)
    assert [["flatten", 0, 0], ["dense_1", 0, 0]] in edges(kernel)
    # Tab at the pointer: the same search; "maxpool" ranks MaxPooling before AdaptiveMaxPooling
    box(page, "image").click()
    page.keyboard.press("Tab")
    quick.wait_for(timeout=10_000)
    page.keyboard.type("maxpool")
    page.wait_for_timeout(200)
    assert quick.locator(".kc-quickadd-item .kc-quickadd-name").first.text_content().startswith("MaxPooling")
    page.keyboard.press("Escape")
    kernel.close()


RESNET = canvas_cell("g = kc.Graph.from_model(keras.applications.ResNet50(weights=None))",
                     head="import keras, kerascanvas as kc")


def test_ctrl_f_finds_a_layer_in_resnet50_at_a_readable_scale(lab, page):
    kernel = open_canvas(page, lab, "resnet.ipynb", RESNET, "input_layer", timeout=120_000)
    scale = "() => Number(/scale\\(([\\d.]+)\\)/.exec(document.querySelector('.kc-world').getAttribute('transform'))[1])"
    assert page.evaluate(scale) >= 0.6  # never fitted to a hairline
    screenshot(page, "handles-resnet-opened")
    box(page, "input_layer").click()
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("conv4_block3_2_conv")
    page.keyboard.press("Enter")
    target = box(page, "conv4_block3_2_conv")
    target.wait_for(timeout=20_000)
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"conv4_block3_2_conv\"]').classList.contains('kc-selected')", timeout=10_000)
    wait_still(page, "conv4_block3_2_conv")  # it glides out of its run's folded box
    assert page.evaluate(scale) >= 0.6
    assert inside(target.bounding_box(), stage_box(page), slack=0)
    assert page.locator(".kc-minimap .kc-mini-view").count() == 1
    screenshot(page, "handles-resnet-found")
    with dark_theme(page):
        screenshot(page, "handles-resnet-found-dark")
    kernel.close()


def test_paste_places_the_copy_in_view_without_moving_other_boxes(lab, page):
    kernel = open_chain(page, lab, "paste.ipynb")
    before = kernel.value("{n: list(p) for n, p in canvas.graph.positions.items()}")
    box(page, "flatten").click()
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    copy = box(page, "flatten_1")
    copy.wait_for(timeout=20_000)
    after = kernel.value("{n: list(p) for n, p in canvas.graph.positions.items()}")
    assert all(after[n] == p for n, p in before.items())
    assert inside(copy.bounding_box(), stage_box(page))
    assert "kc-selected" in copy.get_attribute("class")
    screenshot(page, "handles-pasted")
    # dark theme: a selected edge, its producer highlighted, and the quick-add search open
    with dark_theme(page):
        x, y = centre(edge(page, "conv2d", "flatten").locator(".kc-edge-line"))
        page.mouse.click(x, y)
        page.locator(".kc-svg .kc-edge-selected").wait_for(timeout=10_000)
        s = stage_box(page)
        page.mouse.move(s["x"] + 120, s["y"] + 250)
        page.keyboard.press("Shift+A")
        page.locator(".kc-quickadd.kc-show").wait_for(timeout=10_000)
        page.keyboard.type("pool")
        screenshot(page, "handles-edge-and-quick-add-dark")
        page.keyboard.press("Escape")
    kernel.close()


def test_export_code_panel_shows_to_code_live(lab, page):
    kernel = open_chain(page, lab, "code.ipynb")
    page.locator(".kc-code summary").click()
    text = page.locator(".kc-code-text")
    page.wait_for_function("() => document.querySelector('.kc-code-text').textContent.length > 0", timeout=20_000)
    assert text.text_content() == kernel.value("canvas.graph.to_code()")
    kernel.run("canvas.graph.configure('dense', units=7)")
    page.wait_for_function("() => document.querySelector('.kc-code-text').textContent.includes('units=7')", timeout=20_000)
    assert text.text_content() == kernel.value("canvas.graph.to_code()")
    text.scroll_into_view_if_needed()
    screenshot(page, "handles-code-panel")
    with dark_theme(page):
        screenshot(page, "handles-code-panel-dark")
    with page.expect_download() as download:
        page.locator('[aria-label="Download .py"]').click()
    assert download.value.suggested_filename == "model.py"
    kernel.close()


ATTENTION = canvas_cell("""g = kc.Graph()
g.add_input((6, 8), name="q")
g.add_input((6, 8), name="v")
g.add_layer("MultiHeadAttention", num_heads=2, key_dim=4, name="mha")
g.add_layer("Dense", units=8, name="shared")
g.connect("q", "mha", slot=0); g.connect("v", "mha", slot=1)
g.connect("mha", "shared"); g.connect("q", "shared", call=1)""")


def test_slots_and_ports_carry_their_names(lab, page):
    open_canvas(page, lab, "names.ipynb", ATTENTION, "mha")
    titles = page.evaluate("() => [...document.querySelectorAll('.kc-port title')].map(t => t.textContent)")
    assert {"mha: query", "mha: value", "mha: key"} <= set(titles)
    assert "shared: inputs · call 1" in titles and "shared: output · call 1" in titles
    page.wait_for_function("() => [...document.querySelectorAll('.kc-port-label')].some(t => t.textContent === 'value')", timeout=10_000)
    box(page, "mha").click()
    s = page.locator(".kc-stage").bounding_box()
    x, y = centre(box(page, "mha"))
    page.mouse.move(x, y)
    for _ in range(3):
        page.mouse.wheel(0, -200)
    page.wait_for_timeout(300)
    screenshot(page, "handles-port-names")
    assert s is not None
