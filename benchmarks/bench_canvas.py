"""Canvas figures in headless Chromium (issue: the canvas). Run on demand:

    .venv/bin/python benchmarks/bench_canvas.py

(1) first render of a 2,000-layer graph, and (2) the p95 frame time while panning and zooming it:
the built widget.js in a plain page with a stand-in anywidget model holding the real Graph.state()
of a 2,000-layer drawing (the kernel is not needed to draw);
(3) mouse-up to updated shapes on screen for an edit on a 200-layer graph: a real JupyterLab and
kernel (the harness of tests/browser), an edge dragged into a new layer, timed until its output
shape is drawn.
"""

from __future__ import annotations

import http.server
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kerascanvas as kc
from kerascanvas import catalog

PAGE = """<!doctype html><html><body><div id="host"></div><script type="module">
import widget from "./widget.js";
const data = await (await fetch("./data.json")).json();
const handlers = {};
const model = { get: (k) => data[k], on: (e, cb) => { handlers[e] = cb; }, off: () => {}, send: () => {} };
await new Promise(requestAnimationFrame);
const t0 = performance.now();
widget.render({ model, el: document.getElementById("host") });
await new Promise(requestAnimationFrame);
await new Promise(requestAnimationFrame);
window.firstRender = performance.now() - t0;
</script></body></html>"""


def big_state(n_blocks: int = 1000) -> dict:
    """2 layers a block (Dense + Add, residual): 2,000 layers and one input."""
    g = kc.Graph()
    with g.batch():
        g.add_input((16,), name="x")
        h = "x"
        for i in range(n_blocks):
            d = g.add_layer("Dense", name=f"dense_{i}", units=16)
            g.connect(h, d)
            a = g.add_layer("Add", name=f"add_{i}")
            g.connect(h, a)
            g.connect(d, a)
            h = a
    return {"state": g.state(), "palette": catalog.palette(), "height": 700}


def serve(folder: Path):
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def frame_times(page, action: str, frames: int = 120) -> list[float]:
    """Run `action(i)` (JS) once per animation frame and collect the frame-to-frame times."""
    return page.evaluate(f"""async () => {{
        const svg = document.querySelector('.kc-svg');
        const r = svg.getBoundingClientRect();
        const times = []; let last = performance.now();
        for (let i = 0; i < {frames}; i++) {{
            ({action})(i, svg, r);
            await new Promise(requestAnimationFrame);
            const now = performance.now(); times.push(now - last); last = now;
        }}
        return times;
    }}""")


def p95(values):
    return sorted(values)[int(0.95 * (len(values) - 1))]


def bench_static(browser):
    folder = Path(tempfile.mkdtemp())
    (folder / "widget.js").write_text((ROOT / "kerascanvas/static/widget.js").read_text())
    (folder / "index.html").write_text(PAGE)
    (folder / "data.json").write_text(json.dumps(big_state()))
    server = serve(folder)
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    renders = []
    for _ in range(3):
        page.goto(f"http://127.0.0.1:{server.server_port}/index.html")
        page.wait_for_function("() => window.firstRender !== undefined", timeout=120_000)
        renders.append(page.evaluate("window.firstRender"))
    boxes = page.locator(".kc-box").count()
    wheel = """(i, svg, r) => svg.dispatchEvent(new WheelEvent('wheel', {deltaY: i % 40 < 20 ? -40 : 40,
        clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true}))"""
    pan = """(i, svg, r) => {
        const x = r.left + 300 + (i % 60) * 5, y = r.top + 300;
        if (i === 0) svg.dispatchEvent(new PointerEvent('pointerdown', {clientX: x, clientY: y, button: 0, bubbles: true}));
        window.dispatchEvent(new PointerEvent('pointermove', {clientX: x, clientY: y, bubbles: true}));
    }"""
    zoom_times = frame_times(page, wheel)[5:]
    pan_times = frame_times(page, pan)[5:]
    page.evaluate("() => window.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}))")
    page.close()
    server.shutdown()
    print(f"    frame times, median: zooming {statistics.median(zoom_times):.1f} ms, "
          f"panning {statistics.median(pan_times):.1f} ms")
    return statistics.median(renders), boxes, p95(zoom_times), p95(pan_times)


def bench_edit(browser):
    sys.path.insert(0, str(ROOT / "tests"))
    from browser import conftest as harness

    with harness.running_lab() as lab:
        return _edit_times(browser, harness, lab)


def _edit_times(browser, harness, lab):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    cells = ["""import kerascanvas as kc
g = kc.Graph()
with g.batch():
    g.add_input((16,), name="x")
    h = "x"
    for i in range(100):
        d = g.add_layer("Dense", name=f"dense_{i}", units=16)
        g.connect(h, d)
        a = g.add_layer("Add", name=f"add_{i}")
        g.connect(h, a)
        g.connect(d, a)
        h = a
    g.add_layer("Dense", name="tail", units=3)
canvas = kc.Canvas(g, height=700)
canvas"""]
    kernel = harness.open_notebook(page, lab, "bench.ipynb", cells)
    page.locator('.kc-svg [data-name="tail"]').wait_for(timeout=60_000)
    x, y = kernel.value("canvas.graph.positions['add_99']")
    kernel.run(f"canvas.graph.move('tail', {x + 60}, {y + 120})")
    times = []
    for _ in range(5):
        page.locator('.kc-svg [data-name="tail"]').focus()  # the view follows keyboard focus
        a = page.locator('.kc-svg [aria-label="add_99 out 0.0"]').bounding_box()
        b = page.locator('.kc-svg [aria-label="tail in 0.0"]').bounding_box()
        page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
        page.mouse.down()
        page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)
        page.evaluate("() => { window.t0 = performance.now(); }")
        page.mouse.up()
        page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"tail\"]')"
                               ".textContent.includes('(None, 3)')", timeout=30_000)
        times.append(page.evaluate("() => performance.now() - window.t0"))
        kernel.run("canvas.graph.undo()")
        page.wait_for_function("() => !document.querySelector('.kc-svg [data-name=\"tail\"]')"
                               ".textContent.includes('(None, 3)')", timeout=30_000)
    kernel.close()
    context.close()
    return statistics.median(times), times


def main():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--disable-gpu", "--disable-background-networking",
                                          "--disable-component-update", "--no-first-run",
                                          # frames as fast as they can be made: rAF deltas are
                                          # then the cost of a frame, not the 60 Hz tick
                                          "--disable-frame-rate-limit", "--disable-gpu-vsync"])
        render, boxes, zoom_p95, pan_p95 = bench_static(browser)
        print(f"(1) first render of a 2,000-layer graph ({boxes} boxes): {render:.0f} ms (median of 3)")
        print(f"(2) p95 frame time: zooming {zoom_p95:.1f} ms, panning {pan_p95:.1f} ms (target <= 16 ms)")
        if "--no-lab" in sys.argv:
            return
        edit, all_edits = bench_edit(browser)
        print(f"(3) mouse-up to updated shapes, edit on a 200-layer graph: {edit:.0f} ms median "
              f"({', '.join(f'{t:.0f}' for t in all_edits)})")
        browser.close()


if __name__ == "__main__":
    main()
