"""Light and dark wherever the widget runs, in Chromium: a plain page hosts the widget's ES module
with the kernel's real traits and dresses itself as each host does (VS Code's body classes and
--vscode-* variables, Colab's html[theme], marimo's .dark, the system's prefers-color-scheme)."""

import json

import pytest

import kerascanvas as kc

from .conftest import screenshot, static_site

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html {html}><head><style>{css}</style></head><body {body}>
<div id="out"></div>
<script type="module">
import widget from "./widget.js";
const traits = {traits};
const model = {{
  get: (name) => traits[name],
  set: () => {{}}, save_changes: () => {{}}, send: () => {{}}, on: () => {{}}, off: () => {{}},
}};
widget.render({{ model, el: document.getElementById("out") }});
window.rendered = true;
</script></body></html>"""

HOSTS = {  # name: (<html> attributes, <body> attributes, page CSS, colour scheme, dark?)
    "vscode-dark": ("", 'class="vscode-dark"', ("body { --vscode-editor-background: #1e1e1e; "
                    "--vscode-editor-foreground: #d4d4d4; }"), "light", True),
    "vscode-light": ("", 'class="vscode-light"', "body { --vscode-editor-background: #fffffe; }",
                     "dark", False),
    "colab-dark": ('theme="dark"', "", "", "light", True),
    "marimo-dark": ('class="dark"', 'data-marimo="1"', "", "light", True),
    "plain-dark": ("", "", "", "dark", True),
    "plain-light": ("", "", "", "light", False),
}


@pytest.fixture(scope="module")
def site():
    """A loopback HTTP server over a temporary folder holding the built widget.js."""
    with static_site(prefix="kc-themes-") as served:
        yield served


def _traits() -> str:
    g = kc.Graph()
    g.add_input((8,), name="features")
    g.add_layer("Dense", units=4, name="hidden")
    g.connect("features", "hidden")
    canvas = kc.Canvas(g)
    names = ["state", "palette", "height", "path", "training", "train_choices"]
    return json.dumps({n: getattr(canvas, n) for n in names}).replace("</", "<\\/")


def _luminance(rgb: str) -> float:
    r, g, b = (int(v) for v in rgb[rgb.index("(") + 1: rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("host", list(HOSTS))
def test_the_widget_follows_each_hosts_theme(browser, site, host):
    html, body, css, scheme, dark = HOSTS[host]
    root, url = site
    (root / f"{host}.html").write_text(PAGE.format(html=html, body=body, css=css, traits=_traits()))
    context = browser.new_context(viewport={"width": 1100, "height": 700}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(f"{url}/{host}.html")
        page.wait_for_selector('.kc-svg [data-name="hidden"]', timeout=20_000)
        look = page.evaluate("""() => {
            const r = document.querySelector('.kc-root');
            const name = document.querySelector('.kc-name');
            return {bg: getComputedStyle(r).backgroundColor, fg: getComputedStyle(r).color,
                    text: getComputedStyle(name).fill,
                    host: document.getElementById('out').dataset.kcHost,
                    theme: document.getElementById('out').dataset.kcTheme};
        }""")
        screenshot(page, f"theme-{host}")
        assert look["theme"] == ("dark" if dark else "light")
        assert look["host"] == host.split("-")[0]
        if dark:
            assert _luminance(look["bg"]) < 60 and _luminance(look["text"]) > 150, look
        else:
            assert _luminance(look["bg"]) > 200 and _luminance(look["text"]) < 100, look
        if host == "vscode-dark":  # VS Code's own colours, not the fallback palette
            assert look["bg"] == "rgb(30, 30, 30)" and look["fg"] == "rgb(212, 212, 212)"
    finally:
        context.close()
