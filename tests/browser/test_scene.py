"""Keyed rendering and listener clean-up in a real Chromium (issue 11): the drawing keeps its
elements across edits and drags, and a destroyed view leaves no listener behind."""

import json

import pytest

import kerascanvas as kc
from kerascanvas.kinds import kinds

from .conftest import box, open_notebook, screenshot, static_site

pytestmark = pytest.mark.browser

GRAPH = """import kerascanvas as kc
g = kc.Graph()
g.add_input((8,), name="vec")
g.add_layer("Dense", units=4, name="first")
g.add_layer("Dense", units=3, name="second")
g.connect("vec", "first")
g.connect("first", "second")
g.arrange()
canvas = kc.Canvas(g)
canvas"""

MARK = """([name, mark]) => {
  const el = document.querySelector(`.kc-svg [data-name="${name}"]`);
  el.kcMark = mark;
  const form = document.querySelector('.kc-inspector [aria-label="layer name"]');
  if (form) form.kcMark = mark;
}"""
SAME = """([name, mark]) => {
  const el = document.querySelector(`.kc-svg [data-name="${name}"]`);
  const form = document.querySelector('.kc-inspector [aria-label="layer name"]');
  return {box: !!el && el.kcMark === mark && el.isConnected, form: !!form && form.kcMark === mark};
}"""


def test_edits_and_drags_keep_the_drawn_elements(lab, page):
    kernel = open_notebook(page, lab, "keyed.ipynb", [GRAPH])
    box(page, "second").wait_for(timeout=30_000)
    box(page, "first").click()  # selected: its form is in the inspector
    page.locator('.kc-inspector [aria-label="layer name"]').wait_for()
    page.evaluate(MARK, ["first", 1])
    page.evaluate("name => { document.querySelector(`.kc-svg [data-name=\"${name}\"]`).kcMark = 2; }", "vec")

    # kernel edits elsewhere: another box moves, a layer is added
    x, y = kernel.value("canvas.graph.positions['second']")
    kernel.run(f"canvas.graph.move('second', {x + 200}, {y + 40})")
    page.wait_for_function(
        f"""() => document.querySelector('.kc-svg [data-name="second"]').getAttribute('transform')
            .replace(/\\s/g, '') === 'translate({x + 200:g},{y + 40:g})'""", timeout=20_000)
    kernel.run("canvas.graph.add_layer('Dropout', rate=0.5, name='extra')")
    box(page, "extra").wait_for(timeout=20_000)
    page.wait_for_timeout(400)  # past any animation frame
    assert page.evaluate(SAME, ["first", 1]) == {"box": True, "form": True}
    assert page.evaluate(SAME, ["vec", 2])["box"]

    # a drag of the marked box: the element under the pointer is the marked one all along
    before = kernel.value("canvas.graph.positions['first']")
    b = box(page, "first").bounding_box()
    page.mouse.move(b["x"] + 30, b["y"] + 20)
    page.mouse.down()
    under = []
    for i in range(1, 8):
        page.mouse.move(b["x"] + 30 + 15 * i, b["y"] + 20 + 10 * i)
        under.append(page.evaluate(f"""() => {{
            const hit = document.elementFromPoint({b["x"] + 30 + 15 * i}, {b["y"] + 20 + 10 * i});
            const g = hit && hit.closest('[data-name]');
            return !!g && g.kcMark === 1;
        }}"""))
    page.mouse.up()
    assert all(under), under
    for _ in range(50):  # the move reaches the kernel
        if kernel.value("canvas.graph.positions['first']") != before:
            break
        page.wait_for_timeout(100)
    assert kernel.value("canvas.graph.positions['first']") != before
    page.wait_for_timeout(400)
    assert page.evaluate(SAME, ["first", 1]) == {"box": True, "form": True}
    screenshot(page, "scene-keyed-after-drag")


# A plain page with a stand-in anywidget model: every listener the widget's module registers is
# wrapped to count its runs, so a listener of a destroyed view that still runs is seen.
PAGE = """<!doctype html><html><body><div id="host"></div><script type="module">
window.runs = 0;
const add = EventTarget.prototype.addEventListener;
EventTarget.prototype.addEventListener = function (type, listener, options) {
  // only the widget's own listeners (Playwright injects some of its own)
  if (typeof listener !== "function" || !new Error().stack.includes("widget.js")) return add.call(this, type, listener, options);
  const where = (this.className?.baseVal ?? this.className ?? this.constructor.name) + " " + type;
  const wrapped = listener.kcWrapped ??= function (...args) { window.runs++; (window.ran ??= []).push(where); return listener.apply(this, args); };
  return add.call(this, type, wrapped, options);
};
const remove = EventTarget.prototype.removeEventListener;
EventTarget.prototype.removeEventListener = function (type, listener, options) {
  return remove.call(this, type, listener?.kcWrapped ?? listener, options);
};
import("./widget.js").then(async ({ default: widget }) => {
  const data = await (await fetch("./data.json")).json();
  const handlers = {};
  const model = { get: (k) => data[k], set: (k, v) => { data[k] = v; }, on: (e, cb) => { handlers[e] = cb; },
    off: () => {}, send: () => {}, save_changes: () => {} };
  const host = document.getElementById("host");
  window.destroy = widget.render({ model, el: host });
  window.ready = true;
});
</script></body></html>"""

POKE = """() => {
  const svg = document.querySelector('.kc-svg');
  const r = svg.getBoundingClientRect();
  const at = {clientX: r.left + 200, clientY: r.top + 200, bubbles: true, cancelable: true, button: 0};
  svg.dispatchEvent(new PointerEvent('pointerdown', at));
  window.dispatchEvent(new PointerEvent('pointermove', at));
  window.dispatchEvent(new PointerEvent('pointerup', at));
  document.dispatchEvent(new PointerEvent('pointerdown', at));
  svg.dispatchEvent(new WheelEvent('wheel', {...at, deltaY: 40}));
  svg.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
  svg.dispatchEvent(new MouseEvent('contextmenu', at));
  document.querySelector('.kc-inspector').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
}"""


@pytest.fixture
def plain_page(browser):
    g = kc.Graph()
    g.add_input((8,), name="vec")
    g.add_layer("Dense", units=4, name="first")
    g.connect("vec", "first")
    data = json.dumps({"state": g.state(), "palette": kinds.palette(), "height": 400})
    with static_site({"index.html": PAGE, "data.json": data}) as (_, url):
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(f"{url}/index.html")
        page.wait_for_function("() => window.ready === true", timeout=30_000)
        yield page
        page.close()


def test_no_listener_of_a_destroyed_view_runs(plain_page):
    page = plain_page
    page.evaluate(POKE)
    assert page.evaluate("window.runs") > 0  # the view listens while it is shown
    page.evaluate("() => { window.destroy(); window.runs = 0; window.ran = []; }")
    page.evaluate(POKE)  # the old elements are still there: nothing of the view may answer
    assert page.evaluate("window.runs") == 0, page.evaluate("window.ran")


# A stand-in model whose state a test replaces, as the store does when a diff arrives.
CHANGING = """<!doctype html><html><body><div id="host"></div><script type="module">
import widget from "./widget.js";
const data = await (await fetch("./data.json")).json();
const handlers = {};
const model = { get: (k) => data[k], set: (k, v) => { data[k] = v; }, on: (e, cb) => { handlers[e] = cb; },
  off: () => {}, send: () => {}, save_changes: () => {} };
widget.render({ model, el: document.getElementById("host") });
window.change = (state) => { data.state = state; handlers["change:state"](); };
window.ready = true;
</script></body></html>"""

# For each drawn box: whether it is on the stage, and whether its text shows the depth it has.
DEPTHS = """(depths) => {
  const stage = document.querySelector('.kc-stage').getBoundingClientRect();
  return [...document.querySelectorAll('.kc-svg .kc-box[data-name]')].map((g) => {
    const r = g.getBoundingClientRect();
    const seen = r.bottom > stage.top && r.top < stage.bottom && r.right > stage.left && r.left < stage.right;
    return [g.getAttribute('data-name'), seen, g.textContent.includes(`depth ${depths[g.getAttribute('data-name')]}`)];
  });
}"""


def test_a_change_of_every_box_redraws_those_on_screen_at_once_and_the_rest_soon(browser):
    # an edge drawn at the end of a chain changes every box's depth text; the boxes on screen
    # show it in the same task, the ones off screen once the page is idle
    g = kc.Graph()
    g.add_input((8,), name="x")
    last = "x"
    for i in range(60):
        g.add_layer("Dense", units=4, name=f"d{i}")
        g.connect(last, f"d{i}")
        last = f"d{i}"
    g.add_layer("Dense", units=2, name="tail")
    before = g.state()
    g.connect(last, "tail")
    after = g.state()
    depths = {layer["name"]: layer["depth"] for layer in after["layers"]}
    assert depths["x"] != {layer["name"]: layer["depth"] for layer in before["layers"]}["x"]
    data = json.dumps({"state": before, "palette": kinds.palette(), "height": 400})
    with static_site({"index.html": CHANGING, "data.json": data}) as (_, url):
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(f"{url}/index.html")
        page.wait_for_function("() => window.ready === true", timeout=30_000)
        page.wait_for_timeout(300)
        now = page.evaluate(f"([state, depths]) => {{ window.change(state); return ({DEPTHS})(depths); }}",
                            [after, depths])
        on_screen = [name for name, seen, _ in now if seen]
        assert on_screen and all(ok for _, seen, ok in now if seen), now
        assert len(on_screen) < len(now)  # the test means something: some boxes are off screen
        page.wait_for_function(f"(depths) => ({DEPTHS})(depths).every(([, , ok]) => ok)", arg=depths, timeout=5_000)
        page.close()
