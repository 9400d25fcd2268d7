"""The front end's share of an edit, without JupyterLab: the kernel's real diffs replayed in a page.

    .venv/bin/python benchmarks/bench_frontend_edit.py                 # 200 and 2,000 layers
    .venv/bin/python benchmarks/bench_frontend_edit.py --blocks 100 --profile out.cpuprofile

A residual chain of `--blocks` blocks (2 layers each) and a "tail" Dense below its end, as in
bench_canvas.py (4); a kc.Canvas with its messages caught makes the diffs of 8 rounds of "connect
the end to the tail" and "undo". The built widget.js (WIDGET_JS overrides it, for A/B runs) is
loaded in a plain page with a stand-in anywidget model, the view centred on the tail with Ctrl+F,
and each diff is handed to the model's store as the kernel's message would be. Per diff: the
synchronous work (the store applies it, the view draws it: "sync"), the same from the view's
mark (kerascanvas:state), and the time until the frame after it was rendered ("to frame": style,
layout and paint included). Medians over the rounds, the first two left out (warm-up). With
--profile, a CPU profile of the replays and its costliest functions. CHROMIUM overrides the
browser path. Not a timed test: figures go to RESULTS.md.
"""

from __future__ import annotations

import argparse
import collections
import http.server
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common import residual

import kerascanvas as kc
from kerascanvas.kinds import kinds

PAGE = """<!doctype html><html><body><div id="host"></div><script type="module">
import widget from "./widget.js";
const data = await (await fetch("./data.json")).json();
const values = {snapshot: data.snapshot, revision: data.snapshot.revision, palette: data.palette, height: 700};
const handlers = {};
const model = { get: (k) => values[k], set: (k, v) => { values[k] = v; (handlers["change:" + k] || []).forEach((f) => f()); },
  on: (e, cb) => { (handlers[e] ??= []).push(cb); }, off: () => {}, send: () => {} };
widget.initialize({ model });
widget.render({ model, el: document.getElementById("host") });
window.play = async (i) => {
  const t0 = performance.now();
  handlers["msg:custom"].forEach((f) => f({ diff: data.diffs[i] }));
  const t1 = performance.now();
  const mark = performance.getEntriesByName("kerascanvas:state").pop();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));  // that frame rendered
  return [t1 - t0, t1 - mark.startTime, performance.now() - t0];
};
window.count = data.diffs.length;
window.ready = true;
</script></body></html>"""


def diffs(blocks: int, rounds: int = 8) -> tuple[dict, list[dict]]:
    g = residual(blocks)
    g.add_layer("Dense", name="tail", units=3)
    x, y = g.positions[f"add_{blocks - 1}"]
    g.move("tail", x + 60, y + 120)
    canvas = kc.Canvas(g, height=700)
    sent = []
    canvas.send = lambda msg, *a, **k: sent.append(msg)
    snapshot = canvas.snapshot
    out = []
    for _ in range(rounds):
        canvas.handle({"kind": "connect", "id": "c", "src": [f"add_{blocks - 1}", 0, 0], "dst": ["tail", 0, 0]})
        out.append(sent[-1]["diff"])
        canvas.handle({"kind": "undo", "id": "u"})
        out.append(sent[-1]["diff"])
    return snapshot, out


def top(profile: dict, n: int = 25) -> list[tuple[float, str]]:
    """Self time per function (ms), costliest first."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    spent = collections.Counter()
    for sample, dt in zip(profile["samples"], profile["timeDeltas"][1:] + [0]):
        frame = nodes[sample]["callFrame"]
        spent[f'{frame["functionName"] or "(anonymous)"}:{frame["lineNumber"]}'] += dt / 1000
    return [(ms, name) for name, ms in spent.most_common(n) if name != "(idle):-1"]


def run(browser, blocks: int, profile: str | None) -> dict:
    snapshot, replays = diffs(blocks)
    folder = Path(tempfile.mkdtemp())
    shutil.copy(os.environ.get("WIDGET_JS", ROOT / "kerascanvas/static/widget.js"), folder / "widget.js")
    (folder / "index.html").write_text(PAGE)
    (folder / "data.json").write_text(json.dumps({"snapshot": snapshot, "palette": kinds.palette(), "diffs": replays}))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a):
            super().__init__(*a, directory=str(folder))

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    page.goto(f"http://127.0.0.1:{server.server_port}/index.html")
    page.wait_for_function("() => window.ready === true", timeout=60_000)
    page.locator(".kc-root").first.focus()  # the view centred on the tail, as bench_canvas.py does
    page.keyboard.press("Control+f")
    page.locator('.kc-find [aria-label="find layer"]').fill("tail")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    page.wait_for_timeout(500)
    cdp = None
    if profile:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        cdp.send("Profiler.start")
    times = []
    for i in range(page.evaluate("window.count")):
        times.append(page.evaluate(f"window.play({i})"))
        page.wait_for_timeout(300)  # off-screen boxes redrawn while idle, before the next edit
    if cdp:
        data = cdp.send("Profiler.stop")["profile"]
        Path(profile).write_text(json.dumps(data))
        for ms, name in top(data):
            print(f"    {ms:8.1f} ms self  {name}")
    page.close()
    server.shutdown()
    shutil.rmtree(folder, ignore_errors=True)
    kept = times[2:]
    return {"layers": len(snapshot["layers"]), **{k: statistics.median(t[i] for t in kept)
                                                  for i, k in enumerate(("sync", "from_mark", "frame"))}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--profile", help="write a CPU profile of the replays here (one size)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), headless=True,
                                    args=["--disable-gpu", "--no-first-run", "--disable-background-networking",
                                          "--disable-frame-rate-limit", "--disable-gpu-vsync"])
        for blocks in args.blocks:
            f = run(browser, blocks, args.profile)
            print(f"edge drawn at the end of a {f['layers']:,}-layer graph, and undone (the kernel's diffs replayed): "
                  f"sync {f['sync']:.1f} ms median (from the view's mark {f['from_mark']:.1f}), "
                  f"to the frame rendered {f['frame']:.1f} ms")
        browser.close()


if __name__ == "__main__":
    main()
