"""Issue 19 in a real JupyterLab: what is drawn with the mouse reaches the notebook's saved
picture (and its nbconvert HTML), while the live view stays the same view the whole time."""

import base64
import re
import time
import xml.etree.ElementTree as ET

import nbformat
import pytest

from .conftest import box, open_notebook, screenshot, tool, wait_edges
from .test_canvas import drag_edge, drop

pytestmark = pytest.mark.browser

SVG = "{http://www.w3.org/2000/svg}"
PICTURE = '.jp-OutputArea-child:has(img[src*="kerascanvas-picture"])'


def _texts(svg: str) -> set[str]:
    return {t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")}


def _read(path):
    """The notebook file as saved, waiting out a save under way (JupyterLab writes the file in
    place: read mid-write it is empty or cut short)."""
    deadline = time.time() + 30
    while True:
        try:
            return nbformat.read(path, as_version=4)
        except (nbformat.reader.NotJSONError, ValueError):
            assert time.time() < deadline, f"{path} never held a whole notebook"
            time.sleep(0.2)


def _saved_picture(path) -> str:
    """The picture in the notebook file as last saved ("" before the first save with it)."""
    outputs = _read(path).cells[0].outputs
    return outputs[1].data["image/svg+xml"] if len(outputs) == 2 else "<svg/>"


def test_drawn_with_the_mouse_saved_and_converted_the_picture_shows_it(lab, page, tmp_path):
    kernel = open_notebook(page, lab, "picture.ipynb",
                           ["import kerascanvas as kc\ncanvas = kc.Canvas()\ncanvas"])
    page.wait_for_selector(".kc-root", timeout=30_000)
    # the picture output is there, after the live view, and hidden while the live view shows
    picture = page.locator(PICTURE)
    picture.wait_for(state="attached", timeout=20_000)
    assert not picture.is_visible()
    page.evaluate("() => { document.querySelector('.kc-root').dataset.first = 'yes'; }")
    drop(page, "Input 28x28x1", 200, 40)
    box(page, "input_layer").wait_for(timeout=20_000)
    drop(page, "Flatten", 200, 170)
    box(page, "flatten").wait_for(timeout=20_000)
    drag_edge(page, "input_layer out 0.0", "flatten in 0.0")
    wait_edges(page, 1)
    assert kernel.value("[list(e[0]) for e in canvas.graph.edges]") == [["input_layer", 0, 0]]
    world = page.locator(".kc-world").get_attribute("transform")
    # the picture in the page follows (debounced) ...
    page.wait_for_function("""() => {
        const img = document.querySelector('img[src*="kerascanvas-picture"]');
        return img && decodeURIComponent(img.src).includes('flatten')
            && decodeURIComponent(img.src).split('class="wire"').length === 2;
    }""", timeout=20_000)
    # ... without the live view being made again: same element, same pan and zoom, one canvas
    assert page.locator(".kc-root").count() == 1
    assert page.locator(".kc-root").get_attribute("data-first") == "yes"
    assert page.locator(".kc-world").get_attribute("transform") == world
    assert not picture.is_visible()
    screenshot(page, "picture-live-view")
    # saved from JupyterLab with the widget state (Settings > Save Widget State Automatically),
    # in command mode with Ctrl+S: the file holds the drawing as it is now
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Save Widget State Automatically").click()
    page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    path = lab.root / "picture.ipynb"
    deadline = time.time() + 30
    while "flatten" not in _texts(_saved_picture(path)):
        assert time.time() < deadline, "the saved notebook's picture never showed the drawing"
        time.sleep(0.3)
    saved = _saved_picture(path)
    widgets = _read(path).metadata["widgets"]
    model_id = _read(path).cells[0].outputs[0].data[
        "application/vnd.jupyter.widget-view+json"]["model_id"]
    assert model_id in widgets["application/vnd.jupyter.widget-state+json"]["state"]
    assert {"input_layer", "flatten"} <= _texts(saved)
    assert len(ET.fromstring(saved).findall(f"{SVG}path")) == 1  # the edge drawn with the mouse
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(_read(path))
    assert f'"model_id": "{model_id}"' in html  # the live view, for a page that can load it
    pictures = [base64.b64decode(b).decode() for b in
                re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)]
    drawn = [p for p in pictures if "kerascanvas-picture" in p]
    assert len(drawn) == 1
    assert {"input_layer", "flatten"} <= _texts(drawn[0])
    # Export HTML saves the standalone read-only view of the drawing as it is
    with page.expect_download(timeout=30_000) as download:
        tool(page, "Export HTML")  # (on the bar, or in More where the canvas is narrow)
    assert download.value.suggested_filename.endswith(".html")
    exported = tmp_path / "exported.html"
    download.value.save_as(exported)
    view = page.context.new_page()
    view.goto(exported.resolve().as_uri())
    view.locator('.kc-svg [data-name="flatten"]').wait_for(timeout=30_000)
    assert view.locator(".kc-svg .kc-edge").count() == 1
    view.close()
    kernel.close()
