"""The canvas in a marimo notebook (marimo from PyPI on loopback, Debian's Chromium): it renders
inside marimo's shadow DOM with its own styles, and gestures reach the kernel. The notebook's
Python writes the graph to a file after every edit, which is what the test asserts on; a second
cell that reads `canvas.graph` is run again by marimo after each edit made on the canvas."""

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import _free_port, box, port, screenshot
from .test_canvas import drag_edge, drop

pytestmark = pytest.mark.browser

NOTEBOOK = '''
import marimo

app = marimo.App()


@app.cell
def _():
    import json
    import os

    import marimo as mo

    import kerascanvas as kc
    from kerascanvas.datasets import digits

    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Dense", units=10, activation="softmax", name="head")

    def record(graph):
        with open(os.environ["KC_MARIMO_LOG"], "w") as f:
            json.dump({"layers": list(graph.layers),
                       "edges": [[list(e[0]), list(e[1])] for e in graph.edges],
                       "model": graph.model is not None}, f)

    def finished(change):
        if change["new"].get("status", {}).get("state") == "finished":
            with open(os.environ["KC_MARIMO_LOG"] + ".history", "w") as f:
                json.dump(canvas.history, f)

    g.observe(record)
    canvas = mo.ui.anywidget(kc.Canvas(g))  # reactive: cells that read it run after each edit
    canvas.set_data(*digits())
    canvas.observe(finished, names="training")
    canvas
    return (canvas, json, os)


@app.cell
def _(canvas, json, os):
    # reads the canvas's graph: marimo runs this again after each edit made on the canvas
    with open(os.environ["KC_MARIMO_LOG"] + ".reads", "a") as f:
        f.write(json.dumps(len(canvas.graph.edges)) + "\\n")
    return


if __name__ == "__main__":
    app.run()
'''


@contextlib.contextmanager
def running_marimo(tmp: Path):
    (tmp / "notebook.py").write_text(NOTEBOOK)
    port = _free_port()
    env = {**os.environ, "HOME": str(tmp), "KC_MARIMO_LOG": str(tmp / "graph.json"),
           "TF_CPP_MIN_LOG_LEVEL": "2"}
    log = open(tmp / "server.log", "w")  # noqa: SIM115 - lives as long as the server
    server = subprocess.Popen([sys.executable, "-m", "marimo", "run", str(tmp / "notebook.py"),
                               "--headless", "--no-token", "--host", "127.0.0.1", "--port", str(port)],
                              env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                raise RuntimeError(f"marimo did not answer: {(tmp / 'server.log').read_text()[-2000:]}") from None
            time.sleep(0.3)
    try:
        yield url
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _graph(tmp: Path, until, timeout: float = 30) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        with contextlib.suppress(OSError, ValueError):
            graph = json.loads((tmp / "graph.json").read_text())
            if until(graph):
                return graph
        time.sleep(0.2)
    raise AssertionError(f"the kernel's graph never got there: {(tmp / 'graph.json').read_text()}")


def _reads(tmp: Path, until, timeout: float = 30) -> list[int]:
    """The edge counts the reading cell wrote, each time it ran, once `until` holds of them."""
    end = time.time() + timeout
    seen: list[int] = []
    while time.time() < end:
        with contextlib.suppress(OSError, ValueError):
            seen = [json.loads(line) for line in (tmp / "graph.json.reads").read_text().split()]
            if seen and until(seen):
                return seen
        time.sleep(0.2)
    raise AssertionError(f"the cell that reads canvas.graph did not run again: it saw {seen}")


def test_the_canvas_draws_and_edits_in_a_marimo_notebook(browser):
    tmp = Path(tempfile.mkdtemp(prefix="kc-marimo-"))
    with running_marimo(tmp) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        try:
            page.goto(url)
            box(page, "image").wait_for(timeout=60_000)
            # the styles reached marimo's shadow root: the palette is a bordered scroll box
            assert page.locator(".kc-palette").evaluate("e => getComputedStyle(e).overflowY") == "auto"
            drop(page, "Flatten", 200, 440)  # free space below the two boxes
            box(page, "flatten").wait_for(timeout=20_000)
            drag_edge(page, "image out 0.0", "flatten in 0.0")
            _graph(tmp, lambda g: len(g["edges"]) == 1)
            _reads(tmp, lambda seen: seen[-1] == 1)  # the cell that reads the graph ran again
            port(page, "flatten out 0.0").wait_for(timeout=20_000)
            drag_edge(page, "flatten out 0.0", "head in 0.0")
            graph = _graph(tmp, lambda g: len(g["edges"]) == 2)
            assert _reads(tmp, lambda seen: seen[-1] == 2)[0] == 0  # first run: no edges
            assert graph["layers"] == ["image", "head", "flatten"] and graph["model"]
            assert graph["edges"] == [[["image", 0, 0], ["flatten", 0, 0]],
                                      [["flatten", 0, 0], ["head", 0, 0]]]
            page.locator(".kc-training summary").click()
            page.locator('.kc-training [aria-label="epochs"]').fill("3")
            page.locator('.kc-training [aria-label="Train"]').click()
            page.locator(".kc-chart canvas").first.wait_for(timeout=60_000)
            end = time.time() + 120
            while not (tmp / "graph.json.history").exists():
                assert time.time() < end, "training never finished"
                time.sleep(0.3)
            history = json.loads((tmp / "graph.json.history").read_text())
            assert len(history["loss"]) == 3 and history["loss"][-1] < history["loss"][0]
            screenshot(page, "marimo-canvas")
        finally:
            context.close()
