"""Real-browser harness: a JupyterLab on loopback, Debian's Chromium driven by Playwright, and a
client on the notebook's own kernel so tests assert on the Python side.

One server and one browser per session (each start costs seconds). The server runs with a
temporary HOME and root dir so nothing of the user's is read or written. CHROMIUM overrides the
browser path (default /usr/bin/chromium).
"""

from __future__ import annotations

import contextlib
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
CHROMIUM_FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    def __init__(self, url: str, root: Path, runtime: Path):
        self.url, self.root, self.runtime = url, root, runtime

    def api(self, path: str):
        with urllib.request.urlopen(f"{self.url}{path}", timeout=5) as r:
            return json.loads(r.read())


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
    settings = home / ".jupyter/lab/user-settings/@jupyterlab/apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
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
                raise RuntimeError("JupyterLab did not start: " + (home / "server.log").read_text()[-2000:])
            time.sleep(0.3)
    try:
        yield Lab(url, root, runtime)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    path = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()


class Kernel:
    """A second client on the notebook's kernel: run code there and read values back."""

    def __init__(self, connection_file: Path):
        from jupyter_client import BlockingKernelClient

        self.client = BlockingKernelClient(connection_file=str(connection_file))
        self.client.load_connection_file()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=30)

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
        return json.loads(self.run(f"import json as _j; print(_j.dumps({expression}))"))

    def close(self):
        self.client.stop_channels()


def open_notebook(page, lab: Lab, name: str, cells: list[str], app: str = "lab") -> Kernel:
    """Write a notebook, open it in JupyterLab (app="lab") or Notebook 7 (app="notebook"), run
    its cells in order; returns its kernel."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab.root / name)
    if app == "lab":
        page.goto(f"{lab.url}/lab/tree/{name}?reset")  # not the last test's restored tabs
    else:
        page.goto(f"{lab.url}/notebooks/{name}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    kernel_id = _wait(lambda: next((s["kernel"]["id"] for s in lab.api("/api/sessions")
                                    if s["path"].endswith(name)), None), f"a kernel for {name}")
    _wait(lambda: lab.api(f"/api/kernels/{kernel_id}")["execution_state"] == "idle", "kernel idle")
    if app == "lab":  # the page has seen it too: runs before this are dropped
        page.wait_for_function(
            "() => [...document.querySelectorAll('#jp-main-statusbar *')]"
            ".some(e => e.textContent.trim().endsWith('Idle'))", timeout=60_000)
    else:
        page.wait_for_timeout(2000)
    page.locator(".jp-NotebookPanel:visible .jp-Cell .jp-InputArea-editor").first.click()
    for _ in cells:
        page.keyboard.press("Shift+Enter")
        page.wait_for_timeout(300)
    _wait(lambda: lab.api(f"/api/kernels/{kernel_id}")["execution_state"] == "idle", "cells run")
    return Kernel(lab.runtime / f"kernel-{kernel_id}.json")


def _wait(probe, what: str, timeout: float = 60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.25)
    raise TimeoutError(f"waited {timeout:.0f} s for {what}")


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
