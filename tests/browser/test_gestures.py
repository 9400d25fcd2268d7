"""Issue 18 in a real JupyterLab, pressed and typed as a person does: Esc during a wire drag
cancels it; a click on empty canvas gives it the keyboard (Tab, Shift+A open quick-add and
JupyterLab inserts no cell); "Add" + Enter adds the Add layer; a click on a wire picks the wire
drawn nearest; folding a run keeps its box in view; a refused inspector value shows the layer's
real value again. Each asserted in the kernel. Screenshots in test-artifacts/."""

import pytest

from .conftest import (
    box,
    canvas_cell,
    centre,
    click_blank,
    edge,
    edges,
    inside,
    open_canvas,
    open_chain,
    port,
    screenshot,
    stage_box,
    wait_edges,
    wait_still,
)

pytestmark = pytest.mark.browser

# a residual block: two wires run into the Add side by side
RESIDUAL = canvas_cell("""g = kc.Graph()
g.add_input((16,), name="x")
g.add_layer("Dense", units=16, name="a"); g.add_layer("Dense", units=16, name="b")
g.add_layer("Add", name="add")
g.connect("x", "a"); g.connect("a", "b"); g.connect("b", "add"); g.connect("x", "add")""")

# a tall chain of 10 repeated Dense-Dropout blocks (one run)
RUN = canvas_cell("""g = kc.Graph()
g.add_input((8,), name="x")
prev = "x"
for i in range(10):
    d = g.add_layer("Dense", units=8, name=f"d{i}"); g.connect(prev, d)
    r = g.add_layer("Dropout", rate=0.1, name=f"r{i}"); g.connect(d, r)
    prev = r
g.add_layer("Dense", units=2, name="head"); g.connect(prev, "head")""")

def cells(page):
    return page.locator(".jp-Notebook .jp-Cell").count()


def test_esc_during_a_wire_drag_cancels_it_and_the_release_does_nothing(lab, page):
    kernel = open_chain(page, lab, "esc.ipynb")
    before = edges(kernel)
    a = port(page, "dense out 0.0").bounding_box()
    s = stage_box(page)
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(s["x"] + s["width"] - 60, s["y"] + s["height"] - 60, steps=10)  # into empty space
    page.locator(".kc-svg.kc-wiring").wait_for(timeout=5_000)
    assert page.locator(".kc-temp-edge").get_attribute("d") != ""
    page.keyboard.press("Escape")
    # the wire being drawn is gone at once, before the button is let go
    page.wait_for_function("() => document.querySelector('.kc-temp-edge').getAttribute('d') === ''", timeout=5_000)
    assert page.locator(".kc-svg.kc-wiring").count() == 0
    page.mouse.up()
    page.wait_for_timeout(500)
    assert page.locator(".kc-quickadd.kc-show").count() == 0  # the release opened no quick-add
    assert edges(kernel) == before
    screenshot(page, "gestures-esc-wire-drag")
    # the same drag again, released without Esc, does open quick-add: the gesture still works
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(s["x"] + s["width"] - 60, s["y"] + s["height"] - 60, steps=10)
    page.mouse.up()
    page.locator(".kc-quickadd.kc-show").wait_for(timeout=10_000)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('.kc-quickadd.kc-show')", timeout=5_000)
    # and a box dragged then let go with Esc goes back where it was; the kernel never moved it
    at = kernel.value("canvas.graph.positions['flatten']")
    b = centre(box(page, "flatten"))
    page.mouse.move(*b)
    page.mouse.down()
    page.mouse.move(b[0] + 120, b[1] + 40, steps=8)
    page.keyboard.press("Escape")
    page.mouse.up()
    page.wait_for_timeout(400)
    assert abs(centre(box(page, "flatten"))[0] - b[0]) < 2
    assert kernel.value("canvas.graph.positions['flatten']") == at
    # a palette entry dragged in and let go after Esc adds nothing
    page.locator('.kc-palette [aria-label="Dense"]').hover()  # scrolled into the palette's view
    page.mouse.down()
    page.mouse.move(s["x"] + 120, s["y"] + 120, steps=8)
    page.locator(".kc-ghost").wait_for(timeout=5_000)
    page.keyboard.press("Escape")
    assert page.locator(".kc-ghost").count() == 0
    page.mouse.up()
    page.wait_for_timeout(500)
    assert len(kernel.value("list(canvas.graph.layers)")) == 4
    kernel.close()


def test_a_click_on_empty_canvas_gives_it_the_keyboard(lab, page):
    kernel = open_chain(page, lab, "keys.ipynb")
    n = cells(page)
    click_blank(page)
    assert page.evaluate("() => document.activeElement.classList.contains('kc-root')")
    page.keyboard.press("Tab")
    quick = page.locator(".kc-quickadd.kc-show")
    quick.wait_for(timeout=10_000)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('.kc-quickadd.kc-show')", timeout=5_000)
    click_blank(page)
    page.keyboard.press("Shift+A")
    quick.wait_for(timeout=10_000)
    page.keyboard.press("Escape")
    # keys JupyterLab's command mode uses on cells (A inserts above, B below, D D deletes, X cuts)
    # do nothing to the notebook while the canvas has the focus
    click_blank(page)
    for key in ["a", "b", "x", "d", "d", "Enter"]:
        page.keyboard.press(key)
    page.wait_for_timeout(500)
    assert cells(page) == n
    assert page.locator(".jp-Notebook.jp-mod-editMode").count() == 0
    # Ctrl+Z is the canvas's undo: a box deleted with Delete comes back
    box(page, "dense").click()
    page.keyboard.press("Delete")
    page.wait_for_function("() => !document.querySelector('.kc-svg [data-name=\"dense\"]')", timeout=20_000)
    click_blank(page)
    page.keyboard.press("Control+z")
    box(page, "dense").wait_for(timeout=20_000)
    assert "dense" in kernel.value("list(canvas.graph.layers)")
    assert cells(page) == n
    # Esc: the canvas's own modes first (the selection), then the host's (command mode)
    box(page, "dense").click()
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('.kc-svg .kc-selected')", timeout=5_000)
    screenshot(page, "gestures-keyboard")
    kernel.close()


def test_add_and_enter_adds_the_add_layer_and_entries_say_what_they_are(lab, page):
    kernel = open_chain(page, lab, "quickadd.ipynb")
    click_blank(page)
    page.keyboard.press("Tab")
    quick = page.locator(".kc-quickadd.kc-show")
    quick.wait_for(timeout=10_000)
    page.keyboard.type("Add")
    page.wait_for_timeout(200)
    first = quick.locator(".kc-quickadd-item").first
    assert first.locator(".kc-quickadd-name").text_content() == "Add"
    assert first.locator(".kc-quickadd-kind").text_content() == "layer · merging"
    kinds = quick.locator(".kc-quickadd-item .kc-quickadd-kind").all_text_contents()
    assert "function · keras.ops" in kinds  # ops.add is offered too, after the layer
    screenshot(page, "gestures-quick-add-add")
    page.keyboard.press("Enter")
    box(page, "add").wait_for(timeout=20_000)
    assert kernel.value("canvas.graph.layers['add']['class_name']") == "Add"
    kernel.close()


def test_insert_layer_here_offers_only_what_accepts_the_wire(lab, page):
    kernel = open_chain(page, lab, "insert.ipynb")
    x, y = centre(edge(page, "flatten", "dense").locator(".kc-edge-line"))
    page.mouse.click(x, y, button="right")
    page.get_by_role("menuitem", name="Insert layer here…").click()
    quick = page.locator(".kc-quickadd.kc-show")
    quick.wait_for(timeout=10_000)
    page.wait_for_function("() => /layers accept/.test(document.querySelector('.kc-quickadd-note').textContent)", timeout=30_000)
    page.keyboard.type("conv2d")
    page.wait_for_timeout(200)
    names = quick.locator(".kc-quickadd-name").all_text_contents()
    assert "Conv2D" not in names  # a (None, 2704) tensor: no Conv2D takes it
    page.locator('[aria-label="quick add search"]').fill("")
    page.wait_for_timeout(200)
    kinds = quick.locator(".kc-quickadd-kind").all_text_contents()
    assert kinds and kinds[0].startswith("layer")  # layers first
    page.locator('[aria-label="quick add search"]').fill("Dense")
    page.wait_for_timeout(200)
    page.keyboard.press("Enter")
    box(page, "dense_1").wait_for(timeout=20_000)
    assert ["flatten", 0, 0] in [e[0] for e in edges(kernel) if e[1][0] == "dense_1"]
    kernel.close()


NEAREST = """() => {
  // a point nearer one wire's line than any other, inside the hit area of a wire drawn later
  // (on top of it), away from the ports: a click there must pick the nearer wire
  const svg = document.querySelector('.kc-svg');
  const lines = [...svg.querySelectorAll('[data-edge] .kc-edge-line')];
  const pts = lines.map((l) => { const m = l.getScreenCTM(); const n = Math.floor(l.getTotalLength()); const out = [];
    for (let s = 0; s <= n; s += 1) { const p = l.getPointAtLength(s); out.push({ x: p.x * m.a + m.e, y: p.y * m.d + m.f }); }
    return out; });
  const ports = [...svg.querySelectorAll('[data-port]')].map((e) => { const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
  const dist = (p, ps) => Math.min(...ps.map((q) => Math.hypot(p.x - q.x, p.y - q.y)));
  for (let i = 0; i < lines.length; i++) for (const on of pts[i]) for (let dx = -3; dx <= 3; dx++) for (let dy = -3; dy <= 3; dy++) {
    const p = { x: on.x + dx, y: on.y + dy };
    const mine = dist(p, pts[i]);
    if (dist(p, ports) < 20) continue;
    const top = document.elementFromPoint(p.x, p.y)?.closest('[data-edge]');
    const j = lines.findIndex((l) => l.closest('[data-edge]') === top);
    if (j < 0 || j === i) continue;
    if (mine + 1.5 < dist(p, pts[j]) && pts.every((o, k) => k === i || mine < dist(p, o)))
      return { x: p.x, y: p.y, want: lines[i].closest('[data-edge]').getAttribute('data-edge-key'), over: top.getAttribute('data-edge-key') };
  }
  return null;
}"""


# two skip wires around the same boxes, in lanes side by side: their hit areas overlap (the
# wires out of one port no longer do: they fan out)
SKIPS = canvas_cell("""g = kc.Graph()
g.add_input((16,), name="x")
for name in ("d1", "d2", "d3"):
    g.add_layer("Dense", units=16, name=name)
g.add_layer("Concatenate", name="cat")
g.connect("x", "d1"); g.connect("d1", "d2"); g.connect("d2", "d3")
g.connect("d3", "cat"); g.connect("x", "cat"); g.connect("d1", "cat")""")


def test_a_click_on_a_wire_picks_the_wire_drawn_nearest(lab, page):
    kernel = open_canvas(page, lab, "wires.ipynb", SKIPS, "cat")
    wait_edges(page, 6)
    spot = page.evaluate(NEAREST)
    assert spot is not None, "no point where one wire's hit area covers a nearer wire"
    page.mouse.click(spot["x"], spot["y"])
    page.wait_for_function("(key) => document.querySelector(`.kc-svg [data-edge-key=\"${key}\"]`)?.classList.contains('kc-edge-selected')",
                           arg=spot["want"], timeout=10_000)
    assert page.locator(".kc-svg .kc-edge-selected").count() == 1
    screenshot(page, "gestures-nearest-wire")
    kernel.close()


# where each wire out of port x:0:0 is `along` px along its line, on the page
FANNED = """(along) => [...document.querySelectorAll('.kc-svg [data-edge-key^="x:0:0>"] .kc-edge-line')].map((l) => {
  const m = l.getScreenCTM(), p = l.getPointAtLength(along);
  return { key: l.closest('[data-edge]').getAttribute('data-edge-key'), x: p.x * m.a + m.e, y: p.y * m.d + m.f };
})"""


def test_wires_out_of_a_shared_port_fan_out_and_each_can_be_clicked(lab, page):
    kernel = open_canvas(page, lab, "fan.ipynb", RESIDUAL, "add")
    wait_edges(page, 4)
    x, y = centre(port(page, "x out 0.0"))
    page.mouse.move(x, y)
    for _ in range(3):  # closer, as a person would to tell the wires apart
        page.mouse.wheel(0, -200)
    page.wait_for_timeout(400)
    screenshot(page, "gestures-shared-port-fan")
    spots = page.evaluate(FANNED, 16)
    assert sorted(s["key"] for s in spots) == ["x:0:0>a:0:0", "x:0:0>add:0:1"]
    a, b = spots
    assert ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5 >= 6, spots  # apart, not one thick wire
    for spot in spots:  # a click on each one's own stretch of the fan selects that wire
        page.mouse.click(spot["x"], spot["y"])
        page.wait_for_function("(key) => document.querySelector(`.kc-svg [data-edge-key=\"${key}\"]`)"
                               "?.classList.contains('kc-edge-selected')", arg=spot["key"], timeout=10_000)
    assert kernel.value("len(canvas.graph.edges)") == 4
    kernel.close()


def test_folding_a_run_keeps_its_box_in_view_and_the_minimap_holds_its_viewport(lab, page):
    kernel = open_canvas(page, lab, "fold.ipynb", RUN, "x")
    # go to the bottom of the chain (Find), then fold the run from one of its last boxes
    click_blank(page)
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("r9")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_still(page, "r9")
    assert inside(box(page, "r9").bounding_box(), stage_box(page))
    x, y = centre(box(page, "r8"))
    page.mouse.click(x, y, button="right")
    page.locator(".kc-menu.kc-show").wait_for(timeout=10_000)
    page.get_by_role("menuitem", name="Fold repeated blocks into one box").click()
    page.wait_for_function("() => document.querySelector('.kc-svg .kc-folded')", timeout=20_000)
    head = kernel.value("sorted(canvas.graph.folded)")  # once drawn: the kernel's diff came first
    folded = page.locator(".kc-svg .kc-folded").first
    name = folded.get_attribute("data-name")
    assert [name] == head
    page.wait_for_timeout(800)  # the boxes and the view glide
    assert inside(folded.bounding_box(), stage_box(page)), (folded.bounding_box(), stage_box(page))
    mini = page.locator(".kc-minimap")
    if mini.is_visible():
        assert inside(mini.locator(".kc-mini-view").bounding_box(), mini.bounding_box(), slack=2)
    screenshot(page, "gestures-fold-in-view")
    # unfolding from its "+" keeps the run's first box in view too
    folded.locator("[data-toggle]").click()
    box(page, "r9").wait_for(timeout=20_000)
    wait_still(page, name)
    page.wait_for_timeout(500)
    assert inside(box(page, name).bounding_box(), stage_box(page))
    kernel.close()


def test_the_minimap_of_a_tall_model_is_not_a_thin_strip(lab, page):
    kernel = open_canvas(page, lab, "tall.ipynb", RUN, "x")
    mini = page.locator(".kc-minimap")
    mini.wait_for(timeout=10_000)
    m = mini.bounding_box()
    drawn = mini.locator(".kc-mini-box").bounding_box()
    assert drawn["width"] >= 12 and m["height"] > 100, (m, drawn)  # taller than the usual 100 px
    assert inside(mini.locator(".kc-mini-view").bounding_box(), m, slack=2)
    kernel.close()


def test_a_refused_value_in_the_inspector_shows_the_layers_real_value(lab, page):
    kernel = open_chain(page, lab, "refused.ipynb")
    box(page, "dense").click()
    units = page.locator('.kc-inspector [aria-label="units"]')
    units.wait_for(timeout=10_000)
    for attempt in range(2):  # the same refusal twice
        units.fill("-1")
        units.press("Enter")
        page.locator(".kc-toast.kc-show").wait_for(timeout=20_000)
        page.wait_for_function("() => document.querySelector('.kc-inspector [aria-label=\"units\"]').value === '10'", timeout=10_000)
        assert kernel.value("canvas.graph.layers['dense']['config']['units']") == 10, attempt
    screenshot(page, "gestures-refused-inspector")
    # the refusal's Details are shown whole, inside the stage, for a box near the bottom too
    details = page.locator(".kc-toast.kc-show [aria-label='Show details']")
    if details.count():
        details.click()
        page.wait_for_timeout(200)
        assert inside(page.locator(".kc-toast.kc-show").bounding_box(), stage_box(page))
    # text refused before it is sent ("abc" for a whole number): the field shows 10 again,
    # the message says so, and the next accepted value takes the message away
    units = page.locator('.kc-inspector [aria-label="units"]')
    units.fill("abc")
    units.press("Enter")
    error = page.locator(".kc-inspector .kc-error")
    error.wait_for(timeout=10_000)
    assert "it stays 10" in error.text_content() and units.input_value() == "10"
    units.fill("12")
    units.press("Enter")
    page.wait_for_function("() => !document.querySelector('.kc-inspector .kc-error')", timeout=20_000)
    assert kernel.value("canvas.graph.layers['dense']['config']['units']") == 12
    kernel.close()
