"""Canvas figures in headless Chromium, recorded in benchmarks/RESULTS.md (not timed tests).

    .venv/bin/python benchmarks/bench_canvas.py            # all figures (starts a JupyterLab)
    .venv/bin/python benchmarks/bench_canvas.py --no-lab   # only the figures without a kernel
    .venv/bin/python benchmarks/bench_canvas.py --lab-only # only the edits through a kernel
    .venv/bin/python benchmarks/bench_canvas.py --no-lab --right  # the drawing flowing left to right

(1) first render of a 2,000-layer graph, (2) p95 frame time while zooming and panning it (target:
16 ms at most), fitted to the view and zoomed in to 1:1 where box texts are drawn, and (3) the
redraw after a state change of it: the built widget.js in a plain page with a stand-in anywidget
model holding the real Graph.state() of a 2,000-layer drawing (drawing needs no kernel);
(4) mouse-up to updated shapes on screen for an edit on a 200-layer graph: a real JupyterLab and
kernel (the harness of tests/browser), an edge dragged into a new layer, timed until its output
shape is drawn. CHROMIUM overrides the browser path.
"""

from __future__ import annotations

import copy
import http.server
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common import residual

from kerascanvas.kinds import kinds

# A stand-in anywidget model: `get` reads data.json, `window.setState` plays a kernel update.
PAGE = """<!doctype html><html><body><div id="host"></div><script type="module">
import widget from "./widget.js";
const data = await (await fetch("./data.json")).json();
const handlers = {};
const model = { get: (k) => data[k], on: (e, cb) => { handlers[e] = cb; }, off: () => {}, send: () => {} };
window.setState = async (state) => {
  data.state = state;
  const t0 = performance.now();
  handlers["change:state"]();
  await new Promise(requestAnimationFrame);
  await new Promise(requestAnimationFrame);
  return performance.now() - t0;
};
await new Promise(requestAnimationFrame);
const t0 = performance.now();
widget.render({ model, el: document.getElementById("host") });
await new Promise(requestAnimationFrame);
await new Promise(requestAnimationFrame);
window.firstRender = performance.now() - t0;
</script></body></html>"""

WHEEL = """(i, svg, r) => svg.dispatchEvent(new WheelEvent('wheel', {deltaY: i % 40 < 20 ? -40 : 40,
    clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true}))"""
PAN = """(i, svg, r) => {
    const x = r.left + 300 + (i % 60) * 5, y = r.top + 300;
    if (i === 0) svg.dispatchEvent(new PointerEvent('pointerdown', {clientX: x, clientY: y, button: 0, bubbles: true}));
    window.dispatchEvent(new PointerEvent('pointermove', {clientX: x, clientY: y, bubbles: true}));
}"""
# A box near the middle of the view pressed, then dragged (each frame: one pointer move).
DRAG = """(i, svg, r) => {
    if (i === 0) {
        const mid = {x: r.left + r.width / 2, y: r.top + r.height / 2};
        const d = (b) => { const q = b.getBoundingClientRect(); return Math.hypot(q.x + q.width / 2 - mid.x, q.y + q.height / 2 - mid.y); };
        const boxes = [...document.querySelectorAll('.kc-svg .kc-box')].filter((b) => !b.closest('.kc-inner'));
        const b = boxes.sort((p, q) => d(p) - d(q))[0];
        const q = b.getBoundingClientRect();
        window.dragFrom = {x: q.x + 20, y: q.y + 20};
        b.dispatchEvent(new PointerEvent('pointerdown', {clientX: dragFrom.x, clientY: dragFrom.y, button: 0, bubbles: true}));
    }
    const x = dragFrom.x + 10 + (i % 60) * 4, y = dragFrom.y + 10 + (i % 30) * 2;
    window.dispatchEvent(new PointerEvent('pointermove', {clientX: x, clientY: y, bubbles: true}));
}"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path):
    def handler(*a):
        return QuietHandler(*a, directory=str(folder))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def frame_times(page, action: str, frames: int = 150) -> list[float]:
    """Run `action(i)` (JS) once per animation frame; the frame-to-frame times, warm-up dropped."""
    return page.evaluate(f"""async () => {{
        const svg = document.querySelector('.kc-svg');
        const r = svg.getBoundingClientRect();
        const times = []; let last = performance.now();
        for (let i = 0; i < {frames}; i++) {{
            ({action})(i, svg, r);
            await new Promise(requestAnimationFrame);
            const now = performance.now(); times.push(now - last); last = now;
        }}
        window.dispatchEvent(new PointerEvent('pointerup', {{bubbles: true}}));
        return times;
    }}""")[10:]


def p95(values):
    return sorted(values)[round(0.95 * (len(values) - 1))]


def bench_static(browser) -> dict:
    g = residual(1000)
    if "--right" in sys.argv:  # the drawing laid out left to right (g.set_direction)
        g.set_direction("right")
    state = g.state()
    folder = Path(tempfile.mkdtemp())
    bundle = Path(os.environ.get("WIDGET_JS", ROOT / "kerascanvas/static/widget.js"))  # A/B runs
    (folder / "widget.js").write_text(bundle.read_text())
    (folder / "index.html").write_text(PAGE)
    (folder / "data.json").write_text(json.dumps({"state": state, "palette": kinds.palette(),
                                                  "height": 700}))
    server = serve(folder)
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    renders = []
    for _ in range(5):
        page.goto(f"http://127.0.0.1:{server.server_port}/index.html")
        page.wait_for_function("() => window.firstRender !== undefined", timeout=120_000)
        renders.append(page.evaluate("window.firstRender"))
    figures = {"layers": len(state["layers"]), "boxes": page.locator(".kc-box").count(),
               "first_render": statistics.median(renders), "renders": renders}
    figures["zoom_fit"] = frame_times(page, WHEEL)
    figures["pan_fit"] = frame_times(page, PAN)
    # zoom in to about 1:1 around the middle: boxes with their texts, ports and edge labels
    page.evaluate(f"""async () => {{ const svg = document.querySelector('.kc-svg');
        const r = svg.getBoundingClientRect();
        for (let i = 0; i < 25; i++) {{ ({WHEEL.replace("i % 40 < 20 ? -40 : 40", "-100")})(i, svg, r);
            await new Promise(requestAnimationFrame); }} }}""")
    page.wait_for_timeout(400)
    figures["boxes_1to1"] = page.locator(".kc-box .kc-name").count()
    figures["pan_1to1"] = frame_times(page, PAN)
    figures["zoom_1to1"] = frame_times(page, WHEEL)
    # a kernel update of the whole state (one configure's worth of change)
    changed = copy.deepcopy(state)
    changed["layers"][-2]["config"]["units"] = 17
    redraws = [page.evaluate("s => window.setState(s)", s)
               for s in [changed, state, changed, state, changed]]
    figures["redraw"] = statistics.median(redraws)
    # dragging a box, from a fresh page at the first view (fitted from the inputs, texts drawn)
    page.goto(f"http://127.0.0.1:{server.server_port}/index.html")
    page.wait_for_function("() => window.firstRender !== undefined", timeout=120_000)
    figures["drag"] = frame_times(page, DRAG)
    page.close()
    server.shutdown()
    return figures


def performance_origin(page) -> float:
    return page.evaluate("() => performance.timeOrigin")


def bench_edit(browser, blocks: int = 100) -> list[list]:
    """Per round, in ms: [mouse-up to shapes drawn, mouse-up to the intent sent, the intent sent
    to the kernel's diff reaching the view (kernel and transport), that arrival to shapes drawn].
    Both ends are taken in the page: mouse-up by a capturing listener, shapes drawn by a
    MutationObserver the moment the tail box's text shows the new shape."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser import conftest as harness

    with harness.running_lab() as lab:
        context = browser.new_context(viewport={"width": 1500, "height": 1000})
        page = context.new_page()
        cells = ["""import kerascanvas as kc
import sys; sys.path.insert(0, {!r})
from bench_canvas import residual
g = residual({})
g.add_layer("Dense", name="tail", units=3)
canvas = kc.Canvas(g, height=700)
import time as _t
_trace, _handle, _send = {{}}, canvas.handle, canvas.send
def _traced_handle(message):  # when an intent reaches the kernel's handler (epoch ms)
    _trace.setdefault(message.get("kind"), _t.time() * 1000)
    return _handle(message)
def _traced_send(content, buffers=None):  # when the first diff after it leaves
    if isinstance(content, dict) and "diff" in content:
        _trace.setdefault("diff", _t.time() * 1000)
    return _send(content, buffers)
canvas.handle, canvas.send = _traced_handle, _traced_send
canvas""".format(str(ROOT / "benchmarks"), blocks)]
        kernel = harness.open_notebook(page, lab, "bench.ipynb", cells)
        tail = page.locator('.kc-svg [data-name="tail"]')
        tail.wait_for(timeout=60_000)
        last = f"add_{blocks - 1}"
        x, y = kernel.value(f"canvas.graph.positions['{last}']")
        kernel.run(f"canvas.graph.move('tail', {x + 60}, {y + 120})")
        page.wait_for_timeout(1000)  # the move reached the view and its glide ended: Find goes there
        shown = ("() => document.querySelector('.kc-svg [data-name=\"tail\"]')"
                 ".textContent.includes('(None, 3)')")
        page.evaluate("""() => {
            window.addEventListener('pointerup', () => { window.t0 = performance.now(); },
                                    {capture: true});
            const svg = document.querySelector('.kc-svg');
            new MutationObserver(() => {
                const tail = svg.querySelector('[data-name="tail"]');
                if (window.t1 === null && tail && tail.textContent.includes('(None, 3)'))
                    window.t1 = performance.now();
            }).observe(svg, {subtree: true, childList: true, characterData: true});
        }""")
        seen = "() => window.t1 !== null"
        # the view centred on the tail (Ctrl+F), the end of the graph: both ports on screen
        page.locator(".kc-root").first.focus()
        page.keyboard.press("Control+f")
        page.locator('.kc-find [aria-label="find layer"]').fill("tail")
        page.keyboard.press("Enter")
        page.keyboard.press("Escape")
        page.wait_for_timeout(500)
        page.screenshot(path=str(ROOT / "test-artifacts" / f"bench-edit-{blocks}-found.png"))
        times = []
        for _ in range(7):
            try:
                a = page.locator(f'.kc-svg [aria-label="{last} out 0.0"]').bounding_box(timeout=10_000)
            except Exception:
                page.screenshot(path=str(ROOT / "test-artifacts" / f"bench-edit-{blocks}-round{len(times)}.png"))
                raise
            b = page.locator('.kc-svg [aria-label="tail in 0.0"]').bounding_box()
            page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
            page.mouse.down()
            page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)
            kernel.run("_trace.clear()")
            page.evaluate("() => { window.t1 = null; }")
            page.mouse.up()
            try:
                page.wait_for_function(seen, timeout=30_000, polling=5)
            except Exception:
                page.screenshot(path=str(ROOT / "test-artifacts" / f"bench-edit-{blocks}.png"))
                raise
            times.append(page.evaluate("""() => {
                const at = (name) => {
                    const mark = performance.getEntriesByName(name).pop();
                    return mark && mark.startTime > window.t0 ? mark.startTime : null;
                };
                const sent = at('kerascanvas:intent:connect'), came = at('kerascanvas:state');
                return [window.t1 - window.t0, sent && sent - window.t0,
                        sent && came && came - sent, came && window.t1 - came,
                        sent && performance.timeOrigin + sent, at('kerascanvas:diff'),
                        came && performance.timeOrigin + came];
            }"""))
            trace = kernel.value("_trace")
            sent_at, got, came_at = times[-1][4:7]
            arrived = got and performance_origin(page) + got  # the diff in the page (epoch ms)
            times[-1][4:7] = [sent_at and trace.get("connect") and trace["connect"] - sent_at,
                              trace.get("connect") and trace.get("diff") and trace["diff"] - trace["connect"],
                              arrived and trace.get("diff") and arrived - trace["diff"],
                              arrived and came_at and came_at - arrived]
            kernel.run("canvas.graph.undo()")
            page.wait_for_function(f"() => !({shown})()", timeout=30_000)
        kernel.close()
        context.close()
    return times


def main():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), headless=True,
            args=["--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-quic",
                  # frames as fast as they can be made: a frame's time is then its cost, not
                  # the 60 Hz tick
                  "--disable-frame-rate-limit", "--disable-gpu-vsync"])
        f = {} if "--lab-only" in sys.argv else bench_static(browser)
        if f:
            print(f"(1) first render of a {f['layers']:,}-layer graph ({f['boxes']} boxes drawn): "
                  f"{f['first_render']:.0f} ms median of 5 ({', '.join(f'{t:.0f}' for t in f['renders'])})")
            for view in ("fit", "1to1"):
                z, pn = f[f"zoom_{view}"], f[f"pan_{view}"]
                where = "fitted to the view" if view == "fit" else \
                    f"zoomed in to ~1:1 ({f['boxes_1to1']} boxes with text)"
                print(f"(2) {where}: p95 frame zooming {p95(z):.1f} ms (median {statistics.median(z):.1f}), "
                      f"panning {p95(pn):.1f} ms (median {statistics.median(pn):.1f}); target <= 16 ms")
            print(f"(3) redraw after a state change of the 2,000-layer graph: {f['redraw']:.0f} ms median")
            d = f["drag"]
            print(f"(5) dragging a box on the 2,000-layer graph: p95 frame {p95(d):.1f} ms "
                  f"(median {statistics.median(d):.1f}); target <= 16 ms")
        if "--no-lab" not in sys.argv:
            sizes = (100,) if "--small" in sys.argv else (1000,) if "--big" in sys.argv else (100, 1000)
            for blocks in sizes:
                rounds = bench_edit(browser, blocks)
                times = [r[0] for r in rounds]
                print(f"(4) mouse-up to updated shapes, edge drawn at the end of a {2 * blocks + 2:,}-layer "
                      f"graph: {statistics.median(times):.0f} ms median ({', '.join(f'{t:.0f}' for t in times)})")
                for i, part in ((1, "mouse-up to the intent sent"),
                                (2, "intent sent to the diff in the view (kernel and transport)"),
                                (4, "  of which the intent's way to the kernel's handler"),
                                (5, "  of which the kernel, until the diff is sent"),
                                (6, "  of which the diff's way to the page"),
                                (7, "  of which the page's store, until the view has the state"),
                                (3, "the diff's arrival in the view to the shapes drawn")):
                    values = [r[i] for r in rounds[1:] if r[i] is not None]  # the first warms up
                    if values:
                        print(f"    {part}: {statistics.median(values):.0f} ms median "
                              f"({', '.join(f'{v:.0f}' for v in values)})")
        browser.close()


if __name__ == "__main__":
    main()
