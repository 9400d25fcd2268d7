"""Teaching views in a real JupyterLab and Chromium (issue 25): Keras's walk played beside the
drawing with the keyboard, values on the edges, outputs marked on the canvas, the node view and the
inspector's Keras-internals tab; what they show is checked against the kernel's Keras objects."""

import pytest
from support import shared_lstm_states, shared_then_chain

from .conftest import box, canvas_cell, centre, graph_cell, open_canvas, screenshot, tool
from .test_labels import measured

pytestmark = pytest.mark.browser

# the teaching graphs of the Python tests (tests/support.py), built in the notebook's kernel
SHARED_CHAIN = graph_cell(shared_then_chain, name="shared")
SHARED_LSTM = graph_cell(shared_lstm_states, name="states")


def player(page):
    return page.locator(".kc-teach-side .kc-player")


def test_keras_walk_beside_the_canvas_steps_with_the_keyboard(lab, page):
    kernel = open_canvas(page, lab, "walk.ipynb", SHARED_CHAIN, "C")
    tool(page, "Keras's walk")
    p = player(page)
    p.wait_for(timeout=20_000)
    assert p.locator(".kc-player-title").text_content() == "How keras.Model finds each node's depth"
    stage, side = page.locator(".kc-stage").bounding_box(), p.bounding_box()
    assert side["x"] >= stage["x"] + stage["width"] - 1  # beside the drawing, not under it
    assert side["y"] < stage["y"] + stage["height"] and side["y"] + 80 < 1000  # on screen
    step = p.locator(".kc-step")
    assert step.text_content() == "Start from output 0: A node 1, tensor 0"
    expect = kernel.value("canvas.graph.outputs")
    assert expect[0] == ["A", 1, 0]  # the walk starts where the model's outputs do
    p.focus()
    page.keyboard.press("ArrowRight")  # enter A node 1
    assert p.locator(".kc-step-count").text_content().startswith("Step 2 of")
    assert "Enter A node 1" in step.text_content()
    assert page.locator('.kc-teach [data-walk="A"].kc-walk-progress').count() == 1
    assert p.locator(".kc-walk-stack-item").all_text_contents() == ["A node 1"]
    page.keyboard.press("ArrowRight")  # enter inp2: two calls on the stack
    assert p.locator(".kc-walk-stack-item").all_text_contents() == ["A node 1", "inp2 node 0"]
    page.keyboard.press("ArrowLeft")
    assert p.locator(".kc-walk-stack-item").all_text_contents() == ["A node 1"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # A node 1 finished
    assert page.locator('.kc-teach [data-walk="A"].kc-walk-finished').count() == 1
    screenshot(page, "teaching-walk-in-progress")
    page.keyboard.press("End")
    reasons = p.locator(".kc-walk-depth").all_text_contents()
    keras = kernel.value("{f'{n.operation.name}:{n.operation._inbound_nodes.index(n)}': d "
                         "for d, ns in canvas.graph.model._nodes_by_depth.items() for n in ns}")
    shown = {r.split(": ")[0].replace(" node ", ":"): int(r.split("depth ")[1].split(" ")[0]) for r in reasons}
    assert shown == keras
    a1 = next(r for r in reasons if r.startswith("A node 1"))
    assert "depth of layer A so far = 2 (a shared layer's node is raised to its layer's depth)" in a1
    badges = dict(page.locator(".kc-teach .kc-walk-badge").evaluate_all(
        "els => els.map(e => [e.dataset.badge, e.querySelector('text').textContent])"))
    assert {k: int(v.split()[1]) for k, v in badges.items()} == keras  # each call's depth on its row
    screenshot(page, "teaching-walk-depths")
    measured(page, "Keras's walk, depths shown")  # badges, call rows and shape labels apart
    page.keyboard.press("Home")
    page.keyboard.press(" ")  # play
    page.wait_for_function("() => document.querySelector('.kc-player [aria-label=Pause]') !== null")
    page.wait_for_function("() => document.querySelector('.kc-step-count').textContent.startsWith('Step 3')",
                           timeout=10_000)
    page.keyboard.press(" ")  # pause
    page.wait_for_function("() => document.querySelector('.kc-player [aria-label=Play]') !== null")
    paused = p.locator(".kc-step-count").text_content()
    page.wait_for_timeout(1500)
    assert p.locator(".kc-step-count").text_content() == paused
    page.keyboard.press("Escape")
    p.wait_for(state="detached", timeout=5_000)
    kernel.close()


def test_forward_pass_shows_every_tensor_on_its_edge(lab, page):
    kernel = open_canvas(page, lab, "forward.ipynb", SHARED_LSTM, "add")
    tool(page, "Forward pass")
    p = player(page)
    p.wait_for(timeout=30_000)
    p.focus()
    page.keyboard.press("End")
    values = page.locator(".kc-teach .kc-value")
    # both cell states on their edges into the Add, the outputs nothing consumes by their ports
    keys = set(values.evaluate_all("els => els.map(e => e.dataset.value)"))
    assert {"lstm:0:2", "lstm:1:2", "lstm:0:0", "lstm:0:1", "lstm:1:0", "lstm:1:1", "add:0:0"} <= keys
    means = {k: float(page.locator(f'.kc-teach .kc-value[data-value="{k}"] title').text_content()
                      .split("mean ")[1].split(" ")[0]) for k in ("lstm:0:2", "lstm:1:2", "add:0:0")}
    assert means["add:0:0"] == pytest.approx(means["lstm:0:2"] + means["lstm:1:2"], rel=1e-4)
    # the player says what the Add was called on: both cell states, slot by slot
    inputs = p.locator(".kc-forward-input").all_text_contents()
    assert [i.split(":")[0] for i in inputs] == ["slot 0 ← (lstm, 0, 2)", "slot 1 ← (lstm, 1, 2)"]
    screenshot(page, "teaching-forward-values")
    measured(page, "shared LSTM, forward pass")  # values, badges, shape labels and slot names apart
    kernel.close()


IMAGES = canvas_cell("""g = kc.Graph(name="digits")
g.add_input((8, 8, 1), name="image")
g.add_layer("Conv2D", filters=2, kernel_size=3, name="conv")
g.add_layer("Flatten", name="flat")
g.add_layer("Dense", units=3, name="head")
g.connect("image", "conv")
g.connect("conv", "flat")
g.connect("flat", "head")""")


def test_forward_pass_draws_image_tensors_as_small_pictures(lab, page):
    kernel = open_canvas(page, lab, "pictures.ipynb", IMAGES, "head")
    tool(page, "Forward pass")
    p = player(page)
    p.wait_for(timeout=30_000)
    assert "image (an Input): an image 8x8x1: a bright disc on a ramp → (1, 8, 8, 1)" in p.locator(".kc-step").text_content()
    p.focus()
    page.keyboard.press("ArrowRight")
    assert "conv node 0 → (1, 6, 6, 2)" in p.locator(".kc-step").text_content()
    assert p.locator("canvas.kc-picture").count() == 1  # conv's output, an image
    for tensor in ("image:0:0", "conv:0:0"):  # on the edges they feed
        picture = page.locator(f'.kc-teach .kc-value[data-value="{tensor}"] image')
        assert picture.count() == 1 and picture.get_attribute("href").startswith("data:image/png")
    assert page.locator('.kc-teach .kc-value[data-value="flat:0:0"]').count() == 0  # not run yet
    page.keyboard.press("End")
    assert page.locator('.kc-teach .kc-value[data-value="flat:0:0"] image').count() == 0  # (1, 72): no picture
    screenshot(page, "teaching-forward-pictures")
    kernel.close()


# the marked outputs' badges on the canvas, and the port names ("call 0", "call 1": only A has
# two calls) they cover
BADGES_OVER_NAMES = """() => {
  const names = [...document.querySelectorAll('.kc-svg .kc-port-label')]
    .filter((t) => /^call /.test(t.textContent)).map((t) => [t.textContent, t.getBoundingClientRect()]);
  const badges = [...document.querySelectorAll('.kc-teach .kc-out-marked rect')].map((r) => r.getBoundingClientRect());
  const over = badges.flatMap((b) => names.filter(([, n]) => b.left < n.right && n.left < b.right && b.top < n.bottom
    && n.top < b.bottom).map(([text]) => text));
  return { names: names.length, badges: badges.length, over };
}"""


def test_outputs_marked_and_reordered_on_the_canvas_start_the_walk(lab, page):
    kernel = open_canvas(page, lab, "outputs.ipynb", SHARED_CHAIN, "C")
    tool(page, "Outputs")
    panel = page.locator(".kc-teach-side .kc-outputs")
    panel.wait_for(timeout=20_000)
    items = panel.locator(".kc-output-item")
    items.first.wait_for(timeout=20_000)  # as the kernel says
    assert items.all_text_contents()[0].startswith("A node 1 tensor 0")
    page.locator('.kc-teach .kc-out-marker[data-output="B:0:0"]').click()  # mark a consumed port too
    page.wait_for_function("() => document.querySelectorAll('.kc-output-item').length === 3", timeout=20_000)
    assert kernel.value("canvas.graph.outputs") == [["A", 1, 0], ["C", 0, 0], ["B", 0, 0]]
    # each output's badge sits clear of the port names written there ("call 0", "call 1" under
    # A), close up where the names are written
    x, y = centre(box(page, "A"))
    page.mouse.move(x, y)
    for _ in range(3):
        page.mouse.wheel(0, -200)
    page.wait_for_function("() => document.querySelectorAll('.kc-svg .kc-port-label').length > 0", timeout=10_000)
    page.wait_for_timeout(300)
    seen = page.evaluate(BADGES_OVER_NAMES)
    assert seen["names"] >= 2 and seen["badges"] == 3 and seen["over"] == [], seen
    screenshot(page, "teaching-output-badges")
    panel.locator('[aria-label="move output 2 up"]').click()
    page.wait_for_function("() => document.querySelectorAll('.kc-output-item')[1].textContent.startsWith('B')",
                           timeout=20_000)
    assert kernel.value("canvas.graph.outputs") == [["A", 1, 0], ["B", 0, 0], ["C", 0, 0]]
    assert kernel.value("[t._keras_history[0].name for t in canvas.graph.model.outputs]") == ["A", "B", "C"]
    page.locator('.kc-teach .kc-out-marker[data-output="A:1:0"]').click()  # unmark
    page.wait_for_function("() => document.querySelectorAll('.kc-output-item').length === 2", timeout=20_000)
    assert kernel.value("canvas.graph.outputs") == [["B", 0, 0], ["C", 0, 0]]
    screenshot(page, "teaching-outputs")
    panel.locator('[aria-label="Walk from these outputs"]').click()
    step = player(page).locator(".kc-step")
    step.wait_for(timeout=20_000)
    assert step.text_content() == "Start from output 0: B node 0, tensor 0"
    player(page).locator('[aria-label="Close player"]').click()
    tool(page, "Undo")  # one undo step per change
    page.wait_for_function("() => document.querySelectorAll('.kc-output-item').length === 3", timeout=20_000)
    assert kernel.value("canvas.graph.outputs") == [["A", 1, 0], ["B", 0, 0], ["C", 0, 0]]
    kernel.close()


def test_node_view_and_keras_internals_are_linked(lab, page):
    kernel = open_canvas(page, lab, "nodes.ipynb", SHARED_LSTM, "add")
    tool(page, "Node view")
    view = page.locator(".kc-nodeview")
    view.locator('[data-node="lstm:1"]').wait_for(timeout=20_000)
    keras_nodes = kernel.value("sorted(f'{l.name}:{k}' for l in canvas.graph.model.layers "
                               "for k in range(len(l._inbound_nodes)))")
    assert sorted(view.locator(".kc-nv-node").evaluate_all("els => els.map(e => e.dataset.node)")) == keras_nodes
    labels = view.locator(".kc-nv-label").all_text_contents()
    assert sorted(labels) == ["(lstm, 0, 2)", "(lstm, 1, 2)", "(s1, 0, 0)", "(s2, 0, 0)"]
    assert not page.locator(".kc-svg").is_visible()
    screenshot(page, "teaching-node-view")
    view.locator('[data-node="lstm:1"]').click()  # selects the layer, opens its internals on node 1
    tab = page.locator(".kc-inspector .kc-internals")
    tab.locator('[data-row="node 1"].kc-row-shown').wait_for(timeout=20_000)
    assert view.locator('[data-node="lstm:1"].kc-nv-selected').count() == 1
    assert page.locator(".kc-side").bounding_box()["width"] >= 420  # wide enough to read
    row = tab.locator('[data-row="node 1"]').text_content()
    assert "_keras_history = (s2, 0, 0)" in row and "_keras_history = (lstm, 1, 2)" in row
    assert "parent_nodes: s2 node 0" in row
    outbound = tab.locator(".kc-outbound").all_text_contents()
    assert outbound == ["[0] add node 0 input 0 reads tensor 2 of lstm node 0",
                        "[1] add node 0 input 1 reads tensor 2 of lstm node 1"]
    assert "_operations_by_depth" in tab.locator(".kc-renamed").text_content()
    tab.locator('[aria-label="producer lstm node 0"]').click()  # the producer's row, its port
    tab.locator('[data-row="node 0"].kc-row-shown').wait_for(timeout=5_000)
    assert view.locator('.kc-nv-edge.kc-nv-shown[data-tensor="lstm:0:2"]').count() == 1
    screenshot(page, "teaching-internals")
    # Keras's walk, drawn on the nodes it walks: each call finished, each with its depth
    tool(page, "Keras's walk")
    player(page).wait_for(timeout=20_000)
    player(page).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # the walk entered lstm node 0 from the first output
    assert view.locator('[data-node="lstm:0"].kc-nv-progress').count() == 1
    page.keyboard.press("End")
    depths = dict(view.locator(".kc-walk-badge").evaluate_all(
        "els => els.map(e => [e.dataset.badge, Number(e.querySelector('text').textContent.split(' ')[1])])"))
    assert depths == kernel.value("{f'{n.operation.name}:{n.operation._inbound_nodes.index(n)}': d "
                                  "for d, ns in canvas.graph.model._nodes_by_depth.items() for n in ns}")
    screenshot(page, "teaching-node-view-walk")
    page.keyboard.press("Escape")
    tool(page, "Node view")  # back to the layer view
    assert page.locator(".kc-svg").is_visible()
    page.locator('.kc-teach circle.kc-port-shown[data-shown="out:lstm:0:2"]').wait_for(timeout=5_000)
    assert box(page, "lstm").get_attribute("class").find("kc-selected") >= 0
    kernel.close()
