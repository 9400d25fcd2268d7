"""Issue 12 in a real JupyterLab, the gestures test_handles.py does not cover: an edge's end
re-wired to another layer or unplugged, delete keeping the chain joined, the minimap's viewport
dragged, Arrange animating. Each asserted in the kernel where the kernel knows (the view is the
browser's own). Screenshots in test-artifacts/."""

import pytest

from .conftest import (
    box,
    centre,
    dark_theme,
    drag,
    edges,
    open_notebook,
    port,
    screenshot,
    tool,
    wait_edges,
)

pytestmark = pytest.mark.browser


TWO_HEADS = """import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Dense", units=4, name="left")
g.add_layer("Dense", units=3, name="right")
g.connect("vec", "left")
g.move("left", 40, 160); g.move("right", 320, 160)
canvas = kc.Canvas(g)
canvas"""


def test_an_edge_end_dragged_to_another_slot_rewires_it_in_one_undo_step(lab, page):
    kernel = open_notebook(page, lab, "rewire.ipynb", [TWO_HEADS])
    box(page, "right").wait_for(timeout=30_000)
    assert edges(kernel) == [[["vec", 0, 0], ["left", 0, 0]]]
    drag(page, centre(port(page, "left in 0.0")), centre(port(page, "right in 0.0")))
    page.wait_for_selector('.kc-svg [aria-label="edge vec.0.0 to right.0.0"]', timeout=20_000)
    assert edges(kernel) == [[["vec", 0, 0], ["right", 0, 0]]]
    assert kernel.value("canvas.graph.keras_layer('right')._inbound_nodes[0].input_tensors[0]"
                        "._keras_history[0].name") == "vec"
    assert kernel.value("len(canvas.graph.keras_layer('left')._inbound_nodes)") == 0
    screenshot(page, "editor-rewired")
    page.keyboard.press("Control+z")  # one step: the edge is back where it was
    page.wait_for_selector('.kc-svg [aria-label="edge vec.0.0 to left.0.0"]', timeout=20_000)
    assert edges(kernel) == [[["vec", 0, 0], ["left", 0, 0]]]
    page.keyboard.press("Control+Shift+z")
    page.wait_for_selector('.kc-svg [aria-label="edge vec.0.0 to right.0.0"]', timeout=20_000)
    assert edges(kernel) == [[["vec", 0, 0], ["right", 0, 0]]]
    kernel.close()


def test_an_edge_end_dragged_to_empty_space_unplugs_it_in_one_undo_step(lab, page):
    kernel = open_notebook(page, lab, "unplug.ipynb", [TWO_HEADS])
    box(page, "right").wait_for(timeout=30_000)
    x, y = centre(port(page, "left in 0.0"))
    s = page.locator(".kc-stage").bounding_box()
    drag(page, (x, y), (s["x"] + s["width"] - 60, s["y"] + s["height"] - 40))
    wait_edges(page, 0)
    assert edges(kernel) == []
    assert kernel.value("canvas.graph.model is None") is True  # vec is unused now
    screenshot(page, "editor-unplugged")
    page.keyboard.press("Control+z")
    wait_edges(page, 1)
    assert edges(kernel) == [[["vec", 0, 0], ["left", 0, 0]]]
    kernel.close()


CHAIN = """import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Dense", units=16, name="hidden")
g.add_layer("Dropout", rate=0.5, name="drop")
g.add_layer("Dense", units=4, name="head")
g.connect("vec", "hidden"); g.connect("hidden", "drop"); g.connect("drop", "head")
canvas = kc.Canvas(g)
canvas"""


def test_deleting_a_middle_box_keeps_the_chain_joined_and_the_weights(lab, page):
    kernel = open_notebook(page, lab, "bridge.ipynb", [CHAIN])
    box(page, "head").wait_for(timeout=30_000)
    kernel.run("h0 = canvas.graph.keras_layer('head'); k0 = h0.kernel.numpy().copy()")
    joined = [[["vec", 0, 0], ["hidden", 0, 0]], [["hidden", 0, 0], ["head", 0, 0]]]
    # the modifier: Shift+Delete on the selected box
    box(page, "drop").click()
    page.keyboard.press("Shift+Delete")
    wait_edges(page, 2)
    assert edges(kernel) == joined
    assert kernel.value("canvas.graph.keras_layer('head') is h0 and "
                        "bool((h0.kernel.numpy() == k0).all())") is True
    assert kernel.value("[l.name for l in canvas.graph.model.layers]") == ["vec", "hidden", "head"]
    screenshot(page, "editor-bridged")
    page.keyboard.press("Control+z")  # one undo step: the box and both its edges are back
    box(page, "drop").wait_for(timeout=20_000)
    wait_edges(page, 3)
    assert edges(kernel) == [[["vec", 0, 0], ["hidden", 0, 0]], [["hidden", 0, 0], ["drop", 0, 0]],
                             [["drop", 0, 0], ["head", 0, 0]]]
    # the menu entry does the same
    box(page, "drop").click(button="right")
    page.get_by_role("menuitem", name="Delete, keep the chain joined (Shift+Del)").click()
    wait_edges(page, 2)
    assert edges(kernel) == joined
    assert kernel.value("canvas.graph.keras_layer('head') is h0") is True
    with dark_theme(page):
        screenshot(page, "editor-bridged-dark")
    kernel.close()


def test_bridging_where_shapes_do_not_allow_is_refused_and_changes_nothing(lab, page):
    kernel = open_notebook(page, lab, "bridge_refused.ipynb", ["""import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Reshape", target_shape=(2, 4), name="steps")
g.add_layer("LSTM", units=3, name="head")
g.connect("vec", "steps"); g.connect("steps", "head")
canvas = kc.Canvas(g)
canvas"""])
    box(page, "head").wait_for(timeout=30_000)
    before = edges(kernel)
    box(page, "steps").click()
    page.keyboard.press("Shift+Delete")
    toast = page.locator(".kc-toast.kc-show")
    toast.wait_for(timeout=20_000)
    assert toast.text_content().startswith("steps cannot be deleted keeping the chain joined")
    assert edges(kernel) == before and "steps" in kernel.value("list(canvas.graph.layers)")
    assert kernel.value("canvas.graph.model is not None") is True
    screenshot(page, "editor-bridge-refused")
    kernel.close()


LONG = """import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
prev = "vec"
for i in range(40):
    prev_new = g.add_layer("Dense", units=8, name=f"d{i}")
    g.connect(prev, prev_new); prev = prev_new
canvas = kc.Canvas(g)
canvas"""

VIEW = "() => document.querySelector('.kc-world').getAttribute('transform')"


def test_the_minimap_viewport_drags_and_the_view_follows(lab, page):
    kernel = open_notebook(page, lab, "minimap.ipynb", [LONG])
    box(page, "vec").wait_for(timeout=60_000)
    viewport = page.locator(".kc-minimap .kc-mini-view")
    viewport.wait_for(timeout=20_000)
    assert page.locator(".kc-minimap").is_visible()
    before = page.evaluate(VIEW)
    assert box(page, "d39").bounding_box() is None or not _on_stage(page, box(page, "d39"))
    m = page.locator(".kc-minimap").bounding_box()
    start = centre(viewport)
    drag(page, start, (start[0], m["y"] + m["height"] - 4), steps=12)  # to the bottom of the map
    page.wait_for_timeout(300)
    assert page.evaluate(VIEW) != before
    # the last layer is on screen now, and the viewport rectangle went down with the pointer
    assert _on_stage(page, box(page, "d39"))
    assert centre(viewport)[1] > start[1]
    screenshot(page, "editor-minimap-dragged")
    # taken by its edge, the viewport moves with the pointer: no jump to centre it there
    v = viewport.bounding_box()
    grab = (v["x"] + v["width"] / 2, v["y"] + 2)
    page.mouse.move(*grab)
    page.mouse.down()
    page.mouse.move(grab[0], grab[1] - 30, steps=6)
    page.wait_for_timeout(200)
    moved = viewport.bounding_box()
    page.mouse.up()
    assert abs(moved["y"] - (v["y"] - 30)) <= 2, (v, moved)
    # and the keys go to the canvas afterwards, not to the notebook
    assert page.evaluate("() => document.activeElement.classList.contains('kc-root')")
    # the view is the browser's: the drawing in the kernel did not move
    assert kernel.value("sorted(canvas.graph.positions)") == sorted(["vec"] + [f"d{i}" for i in range(40)])
    with dark_theme(page):
        screenshot(page, "editor-minimap-dark")
    kernel.close()


def _on_stage(page, locator) -> bool:
    b, s = locator.bounding_box(), page.locator(".kc-stage").bounding_box()
    return (b is not None and s["x"] <= b["x"] and b["x"] + b["width"] <= s["x"] + s["width"] + 1
            and s["y"] <= b["y"] and b["y"] + b["height"] <= s["y"] + s["height"] + 1)


MESSY = """import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Dense", units=16, name="hidden")
g.add_layer("Dense", units=4, name="head")
g.connect("vec", "hidden"); g.connect("hidden", "head")
g.move("vec", 600, 500); g.move("hidden", 20, 20); g.move("head", 900, 40)
canvas = kc.Canvas(g)
canvas"""

# Sample where the box `hidden` is drawn on every animation frame for a while.
TRACK = """(ms) => new Promise((done) => {
  const seen = [], t0 = performance.now();
  const step = () => {
    const g = document.querySelector('.kc-svg [data-name="hidden"]');
    if (g) seen.push(g.getAttribute('transform'));
    if (performance.now() - t0 < ms) requestAnimationFrame(step); else done(seen);
  };
  requestAnimationFrame(step);
})"""


def test_arrange_animates_then_fits_the_view(lab, page):
    kernel = open_notebook(page, lab, "arrange.ipynb", [MESSY])
    box(page, "head").wait_for(timeout=30_000)
    page.wait_for_timeout(300)
    page.mouse.move(*centre(page.locator(".kc-stage")))
    for _ in range(4):  # zoomed in, so that fitting afterwards shows
        page.mouse.wheel(0, -300)
    page.wait_for_timeout(200)
    zoomed = page.evaluate(VIEW)
    old = box(page, "hidden").get_attribute("transform")
    tool(page, "Arrange")
    frames = page.evaluate(TRACK, 1500)
    positions = kernel.value("{n: list(p) for n, p in canvas.graph.positions.items()}")
    final = f"translate({positions['hidden'][0]:g},{positions['hidden'][1]:g})"
    distinct = list(dict.fromkeys(frames))
    assert distinct[-1] == final, (distinct, final)
    between = [f for f in distinct if f not in (old, final)]
    assert len(between) >= 3, distinct  # glided through positions in between
    # then the view fits: every box on screen, and the view is not the zoomed one any more
    assert page.evaluate(VIEW) != zoomed
    for name in ("vec", "hidden", "head"):
        assert _on_stage(page, box(page, name)), name
    screenshot(page, "editor-arranged")
    kernel.close()


RESIDUAL = """import kerascanvas as kc
g = kc.Graph()
g.add_input((16,), name="x")
g.add_layer("Dense", units=16, name="d1")
g.add_layer("Dense", units=16, name="d2")
g.add_layer("Add", name="add")
g.add_layer("Dense", units=4, name="back")
g.connect("x", "d1"); g.connect("d1", "d2"); g.connect("d2", "add"); g.connect("x", "add")
g.connect("add", "back")
g.move("back", g.positions["d1"][0] + 40, g.positions["x"][1])  # above its source: an edge going up
canvas = kc.Canvas(g)
canvas"""

# For every edge: the points of its drawn path (world coordinates) that lie inside a box, other
# than the stubs into its own ports.
BEHIND = """() => {
  const boxes = [...document.querySelectorAll('.kc-svg .kc-box')].map((g) => {
    const m = /translate\\(([-\\d.]+),([-\\d.]+)\\)/.exec(g.getAttribute('transform'));
    const r = g.querySelector('rect');
    return { name: g.dataset.name, x: +m[1], y: +m[2], w: +r.getAttribute('width'), h: +r.getAttribute('height') };
  });
  const found = [];
  for (const e of document.querySelectorAll('.kc-svg .kc-edge')) {
    const [src, dst] = e.getAttribute('aria-label').replace('edge ', '').split(' to ').map((s) => s.split('.')[0]);
    const path = e.querySelector('.kc-edge-line');
    const n = path.getTotalLength();
    for (let l = 12; l < n - 12; l += 3) {
      const p = path.getPointAtLength(l);
      for (const b of boxes) {
        if (p.x > b.x + 1 && p.x < b.x + b.w - 1 && p.y > b.y + 1 && p.y < b.y + b.h - 1) found.push(`${src}->${dst} behind ${b.name}`);
      }
    }
  }
  return [...new Set(found)];
}"""


def test_skip_connections_and_edges_going_up_run_around_boxes(lab, page):
    kernel = open_notebook(page, lab, "routes.ipynb", [RESIDUAL])
    box(page, "back").wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    assert len(edges(kernel)) == 5
    assert page.evaluate(BEHIND) == []
    # the back edge leaves add downward and comes into back from above
    screenshot(page, "editor-routes")
    with dark_theme(page):
        screenshot(page, "editor-routes-dark")
    kernel.close()
