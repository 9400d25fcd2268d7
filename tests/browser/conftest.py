"""Real-browser harness: a JupyterLab on loopback, Debian's Chromium driven by Playwright, and a
client on the notebook's own kernel so tests assert on the Python side.

Fixtures: `lab` (session: the server, `lab.url`, `lab.root`), `browser` (session: Chromium),
`page` (per test: a fresh browser context; shuts the test's kernels down afterwards).
Helpers: `open_notebook(page, lab, notebook, cells=None, app="lab") -> Kernel`,
`Kernel.run(code) -> str`, `Kernel.value(expression)`, `output_text(page, cell)`,
`screenshot(page, name) -> Path` (PNG under test-artifacts/); for the canvas:
`canvas_cell(build)` (a cell showing a Canvas on the Graph `g` that `build` makes),
`open_canvas(page, lab, notebook, cell, shows) -> Kernel` (opened once box `shows` is drawn),
`box(page, name)`, `port(page, label)`, `wait_edges(page, n)`, `centre(locator)`,
`drag(page, start, end)`, `set_theme(page, name)`, `with dark_theme(page): ...`; `static_site(files)`
(a loopback server over the built widget.js, for pages outside JupyterLab).
Drawings and gestures several test files share: `CHAIN` (image -> conv2d -> flatten -> dense) and
`open_chain(page, lab, notebook)`, `graph_cell(build, ...)` (a cell building a graph of
tests/support.py from its own source: the teaching graphs), `edge(page, src, dst)`,
`edges(kernel)`, `stage_box(page)`, `inside(inner, outer)`, `click_blank(page)`,
`drop(page, class_name, x, y)`, `drag_edge(page, out_label, in_label)`.

One server and one browser per session (each start costs seconds). The server runs with a
temporary HOME and root dir so nothing of the user's is read or written. CHROMIUM overrides the
browser path (default /usr/bin/chromium).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Keep Chromium off the (closed) network; Playwright adds --no-sandbox itself.
CHROMIUM_FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]
# Shown once per fresh HOME and covering the page: "get notified about Jupyter news?"
NEWS_SETTINGS = ("@jupyterlab/apputils-extension/notification.jupyterlab-settings",
                 {"fetchNews": "false", "checkForUpdates": False})


def pytest_collection_modifyitems(items):
    """Every test in this folder is a real-browser test (`-m "not browser"` leaves them out)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running JupyterLab: `url`, `root` (the dir it serves), `runtime` (connection files)."""

    def __init__(self, url: str, root: Path, runtime: Path):
        self.url, self.root, self.runtime = url, root, runtime
        self.kernels: list[Kernel] = []  # clients opened by open_notebook, closed per test

    def api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(f"{self.url}{path}", method=method)
        with urllib.request.urlopen(request, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shut_down_kernels(self):
        """Close our clients and end every session, so kernels do not pile up across tests."""
        for kernel in self.kernels:
            kernel.close()
        self.kernels.clear()
        for session in self.api("/api/sessions"):
            self.api(f"/api/sessions/{session['id']}", method="DELETE")


@pytest.fixture(scope="session")
def lab():
    with running_lab() as server:
        yield server


@contextlib.contextmanager
def running_lab():
    """A JupyterLab on a free loopback port, with a temporary HOME and root dir."""
    home = Path(tempfile.mkdtemp(prefix="kc-home-"))
    root = Path(tempfile.mkdtemp(prefix="kc-root-"))
    runtime = home / "runtime"
    settings = home / ".jupyter/lab/user-settings" / NEWS_SETTINGS[0]
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(NEWS_SETTINGS[1]))
    port = _free_port()
    env = {**os.environ, "HOME": str(home), "JUPYTER_RUNTIME_DIR": str(runtime),
           "TF_CPP_MIN_LOG_LEVEL": "2"}
    log = open(home / "server.log", "w")  # noqa: SIM115 - lives as long as the server
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=",
         "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}",
         "--LabApp.news_url=None"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                tail = (home / "server.log").read_text()[-2000:]
                raise RuntimeError(f"JupyterLab did not answer on {url}: {tail}") from None
            time.sleep(0.3)
    try:
        yield Lab(url, root, runtime)
    finally:
        server.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    path = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not Path(path).exists():
        raise FileNotFoundError(f"no Chromium at {path!r}: run `bash .ci/setup` or set CHROMIUM")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_FLAGS)
        yield b
        b.close()


# What the front end says on the console when it sends an intent that kerascanvas/canvas/intents.json
# refuses (js/src/mirror/protocol.ts): a test that made one fails, whatever else it asserts.
MISTYPED_INTENT = "kerascanvas: an intent the description"


@pytest.fixture
def page(browser, lab):
    """A fresh page (own cookies, storage, downloads); `page.dialogs` collects alert texts.
    Every intent the canvas sends during the test must agree with the intents' description."""
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    mistyped = []
    page.on("console", lambda m: m.text.startswith(MISTYPED_INTENT) and mistyped.append(m.text))
    yield page
    context.close()
    lab.shut_down_kernels()
    assert not mistyped, mistyped


class Kernel:
    """A second client on the notebook's kernel: run code there and read values back."""

    def __init__(self, connection_file: Path):
        self.connection_file = connection_file
        self.client = self._connect(30)

    def _connect(self, timeout: float):
        from jupyter_client import BlockingKernelClient

        client = BlockingKernelClient(connection_file=str(self.connection_file))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=timeout)
        return client

    def reconnect(self):
        """A new client on the kernel after it restarted: the old one's channels can miss the
        new process's output (a value read just after a restart once waited 60 s for it)."""
        self.close()
        self.client = self._connect(60)

    def run(self, code: str) -> str:
        """Execute code; returns its stdout; raises with the traceback if it failed."""
        out: list[str] = []
        errors: list[str] = []

        def hook(msg):
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                errors.append("\n".join(content["traceback"]))

        self.client.execute_interactive(code, output_hook=hook, timeout=60)
        if errors:
            raise AssertionError(f"kernel error running {code!r}:\n{errors[0]}")
        return "".join(out)

    def value(self, expression: str):
        """The value of a Python expression in the kernel, sent back as JSON."""
        return json.loads(self.run(f"import json as _j; print(_j.dumps({expression}))"))

    def execution_count(self) -> int:
        """The number the kernel gives its next stored execution (1 in a fresh kernel)."""
        reply = self.client.execute_interactive(
            "", silent=True, store_history=False, timeout=60, output_hook=lambda msg: None,
            user_expressions={"n": "get_ipython().execution_count"})
        return int(reply["content"]["user_expressions"]["n"]["data"]["text/plain"])

    def close(self):
        if self.client.channels_running:
            self.client.stop_channels()


def open_notebook(page, lab: Lab, notebook: str | Path, cells: list[str] | None = None,
                  app: str = "lab") -> Kernel:
    """Open a notebook in JupyterLab (app="lab") or Notebook 7 (app="notebook"), wait for its
    kernel, run all its cells and wait until they ran; returns a client on its kernel.

    With `cells`, `notebook` is a file name in lab.root, written with those code cells. Without,
    it is an existing .ipynb: copied into lab.root unless it is already there.
    """
    if cells is not None:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, lab.root / notebook)
        name = str(notebook)
    else:
        source = Path(notebook).resolve()
        if not source.is_file():
            raise FileNotFoundError(f"no notebook at {str(notebook)!r}")
        if lab.root.resolve() not in source.parents:
            shutil.copy(source, lab.root / source.name)
            source = lab.root / source.name
        name = source.resolve().relative_to(lab.root.resolve()).as_posix()
    cells_in_file = nbformat.read(lab.root / name, as_version=4).cells
    to_run = sum(c.cell_type == "code" and bool(c.source.strip()) for c in cells_in_file)

    if app == "lab":
        page.goto(f"{lab.url}/lab/tree/{name}?reset")  # not the last test's restored tabs
    elif app == "notebook":
        page.goto(f"{lab.url}/notebooks/{name}")
    else:
        raise ValueError(f"app must be 'lab' or 'notebook', got {app!r}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    kernel_id = _wait(lambda: _session_kernel(page, lab, name), f"a kernel for {name}")
    _wait(lambda: _kernel_state(lab, kernel_id) == "idle", "kernel idle")
    # The page must have seen the kernel too: runs asked for before that are silently dropped.
    page.wait_for_function(KERNEL_IDLE_ON_PAGE, timeout=60_000)
    kernel = Kernel(lab.runtime / f"kernel-{kernel_id}.json")
    lab.kernels.append(kernel)
    first = kernel.execution_count()
    _press_through_cells(page, len(cells_in_file))
    # The kernel runs requests in order, so once its count has moved past every code cell, all
    # of them ran. If the count stays put while the kernel stays idle, either the page dropped
    # the runs (asked too early: press again, once) or a cell raised and the kernel dropped the
    # rest (fail with what the page shows on stderr).
    stalled = {"count": first, "idle_since": None, "retried": False}

    def all_ran():
        count = kernel.execution_count()
        if count >= first + to_run:
            return True
        if count != stalled["count"] or _kernel_state(lab, kernel_id) != "idle":
            stalled.update(count=count, idle_since=None)
        elif stalled["idle_since"] is None:
            stalled["idle_since"] = time.time()
        elif time.time() - stalled["idle_since"] > 3:
            if count == first and not stalled["retried"]:
                stalled.update(retried=True, idle_since=None)
                _press_through_cells(page, len(cells_in_file))
                return False
            shown = page.locator("[data-mime-type='application/vnd.jupyter.stderr']")
            raise AssertionError(f"only {count - first} of the {to_run} code cells of {name} ran:"
                                 f"\n{shown.all_inner_texts()}")
        return False

    _wait(all_ran, f"the {to_run} code cells of {name} to run", timeout=180)
    return kernel


# JupyterLab's status bar says "Python 3 (ipykernel) | Idle"; Notebook 7 shows the kernel's state
# on its toolbar's execution indicator.
KERNEL_IDLE_ON_PAGE = """() =>
  [...document.querySelectorAll('#jp-main-statusbar *')].some(e => /Idle$/.test(e.textContent.trim()))
  || document.querySelector('.jp-Notebook-ExecutionIndicator[data-status="idle"]') !== null"""


def _press_through_cells(page, n_cells: int):
    """Shift+Enter down the notebook, Control+Enter on the last cell (Shift+Enter there would add
    a cell). Command mode, so markdown cells are rendered and passed too."""
    notebook = page.locator(".jp-NotebookPanel:visible .jp-Notebook").first
    notebook.locator(".jp-Cell").first.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    for i in range(n_cells):
        page.keyboard.press("Control+Enter" if i == n_cells - 1 else "Shift+Enter")
        page.wait_for_timeout(100)


def output_text(page, cell: int) -> str:
    """The text the page shows as outputs of the notebook's cell number `cell` (from 0, markdown
    cells counted), without the `[n]:` prompts; one line per output."""
    cells = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")
    return "\n".join(cells.nth(cell).locator(".jp-OutputArea-output").all_inner_texts())


def _session_kernel(page, lab: Lab, name: str) -> str | None:
    """The id of the kernel serving notebook `name`, or None while there is none yet. A notebook
    without kernelspec metadata makes the page ask which kernel: take the one it proposes."""
    choose = page.locator(".jp-Dialog .jp-mod-accept")
    if choose.count():
        choose.first.click()
    sessions = lab.api("/api/sessions")
    return next((s["kernel"]["id"] for s in sessions if s["path"] == name), None)


def _kernel_state(lab: Lab, kernel_id: str) -> str:
    return lab.api(f"/api/kernels/{kernel_id}")["execution_state"]


def _wait(probe, what: str, timeout: float = 60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.25)
    raise TimeoutError(f"waited {timeout:.0f} s for {what}")


def screenshot(page, name: str) -> Path:
    """Save what the page shows as test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def canvas_cell(build: str, head: str = "import kerascanvas as kc", canvas: str = "kc.Canvas(g)",
                then: str = "") -> str:
    """A notebook cell: `head` (imports), `build` (makes the Graph `g`), `canvas = <canvas>`,
    `then` (more lines), and the canvas shown as the cell's output."""
    return "\n".join(part for part in (head, build, f"canvas = {canvas}", then, "canvas") if part)


def tool(page, label):
    """Click the toolbar's button `label`; in a narrow canvas it may be in the More menu."""
    button = page.locator(f'.kc-toolbar [aria-label="{label}"]')
    if not button.is_visible() and page.locator(".kc-toolbar-more").is_visible():
        page.locator(".kc-toolbar-more").click()
    button.click()


def box(page, name):
    """The box of layer `name` on the canvas."""
    return page.locator(f'.kc-svg [data-name="{name}"]')


def wait_still(page, name):
    """Until the box of layer `name` stands still (boxes glide for a quarter second to a new
    state's places: a box shown by unfolding comes out of its folded box)."""
    page.wait_for_function("""(name) => {
        const b = document.querySelector(`.kc-svg [data-name="${CSS.escape(name)}"]`);
        if (!b) return false;
        const r = b.getBoundingClientRect(), now = `${r.x},${r.y},${r.width}`;
        const still = window.__kcStill === now;
        window.__kcStill = now;
        return still;
    }""", arg=name, polling=100, timeout=10_000)


def port(page, label):
    """The port (or slot) of a box with the accessible name `label`, e.g. "dense in 0.0"."""
    return page.locator(f'.kc-svg [aria-label="{label}"]')


def wait_edges(page, n):
    """Wait until the canvas draws `n` edges."""
    page.wait_for_function(f"() => document.querySelectorAll('.kc-edge').length === {n}", timeout=20_000)


def centre(locator):
    """The centre of an element on the page; boxes redraw while they glide to a new layout, so
    the element is looked up again until it stays."""
    for _ in range(20):
        b = locator.bounding_box()
        if b is not None:
            return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        locator.page.wait_for_timeout(100)
    raise AssertionError(f"{locator} has no box on the page")


def drag(page, start, end, steps=10):
    """Press at `start`, move to `end` in `steps` steps, release (page coordinates)."""
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


@contextlib.contextmanager
def static_site(files: dict[str, str] | None = None, prefix: str = "kc-site-"):
    """A quiet loopback HTTP server over a temporary folder holding the built widget.js and
    `files` ({name: text}); yields (folder, url)."""
    import functools
    import http.server
    import threading

    import kerascanvas as kc

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    root = Path(tempfile.mkdtemp(prefix=prefix))
    shutil.copy(Path(kc.__file__).parent / "static" / "widget.js", root / "widget.js")
    for name, text in (files or {}).items():
        (root / name).write_text(text)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def open_canvas(page, lab: Lab, notebook: str, cell: str, shows: str, timeout: float = 30_000,
                app: str = "lab") -> Kernel:
    """open_notebook with one cell, then wait until the canvas draws the box of layer `shows`."""
    kernel = open_notebook(page, lab, notebook, [cell], app=app)
    box(page, shows).wait_for(timeout=timeout)
    return kernel


def set_theme(page, name):
    """Choose JupyterLab's theme `name` from the Settings menu and wait until it applies."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel").get_by_text(name, exact=True).click()
    page.wait_for_function(f"() => document.body.dataset.jpThemeName === {name!r}", timeout=30_000)
    page.wait_for_timeout(500)


@contextlib.contextmanager
def dark_theme(page):
    """JupyterLab Dark inside the block, JupyterLab Light again after it."""
    set_theme(page, "JupyterLab Dark")
    yield
    set_theme(page, "JupyterLab Light")


# ----- drawings and gestures several test files share ------------------------------------------

CHAIN = canvas_cell("""g = kc.Graph()
g.add_input((28, 28, 1), name="image")
g.add_layer("Conv2D", filters=4, kernel_size=3, activation="relu")
g.add_layer("Flatten")
g.add_layer("Dense", units=10, activation="softmax")
g.connect("image", "conv2d"); g.connect("conv2d", "flatten"); g.connect("flatten", "dense")""")


def open_chain(page, lab: Lab, notebook: str) -> Kernel:
    """A notebook showing the CHAIN drawing, opened once its last box is drawn."""
    return open_canvas(page, lab, notebook, CHAIN, "dense")


def graph_cell(build, **kwargs) -> str:
    """A canvas cell whose Graph `g` is `build(**kwargs)`, a function of tests/support.py sent
    to the kernel as its own source: the Python tests and the browser tests draw the same graph."""
    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    return canvas_cell(f"{inspect.getsource(build)}\ng = {build.__name__}({args})")


def edge(page, src, dst):
    """The drawn edge from layer `src`'s first output to layer `dst`'s first slot."""
    return page.locator(f'.kc-svg [aria-label="edge {src}.0.0 to {dst}.0.0"]')


def edges(kernel):
    """The kernel's edges, as lists: [[src layer, node, tensor], [dst layer, call, slot]]."""
    return kernel.value("[list(map(list, e)) for e in canvas.graph.edges]")


def stage_box(page):
    """The stage's rectangle on the page (x, y, width, height)."""
    x, y, w, h = page.evaluate("() => { const r = document.querySelector('.kc-stage')"
                               ".getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }")
    return {"x": x, "y": y, "width": w, "height": h}


def inside(inner, outer, slack=1):
    """Whether rectangle `inner` lies inside `outer` (page rectangles), give or take `slack` px."""
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def click_blank(page):
    """A click on empty canvas (top right corner of the stage, away from the boxes)."""
    s = stage_box(page)
    page.mouse.click(s["x"] + s["width"] - 40, s["y"] + 30)


def drop(page, class_name, x, y):
    """Drag a palette entry onto the drawing at (x, y) from the drawing's top-left corner."""
    entry = page.locator(f'.kc-palette [aria-label="{class_name}"]')
    entry.hover()
    page.mouse.down()
    area = page.locator(".kc-svg").bounding_box()
    page.mouse.move(area["x"] + x, area["y"] + y, steps=8)
    page.mouse.up()


def drag_edge(page, out_label, in_label):
    """Draw a wire from port `out_label` to slot `in_label` with the mouse."""
    # both ends on screen first, as a person would scroll the notebook to them (focusing boxes
    # with the keyboard scrolls it; a press outside the window lands on JupyterLab instead)
    port(page, in_label).scroll_into_view_if_needed()
    port(page, out_label).scroll_into_view_if_needed()
    a = port(page, out_label).bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(a["x"] + a["width"] / 2 + 4, a["y"] + a["height"] / 2 + 4)
    b = port(page, in_label).bounding_box()  # aimed once the press is in, as a person does
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=10)
    page.mouse.up()
