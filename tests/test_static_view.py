"""The static picture in the widget's output: what GitHub, nbviewer and nbconvert show."""

import base64
import re
import xml.etree.ElementTree as ET

import nbformat
import pytest

import kerascanvas as kc
from kerascanvas import picture

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_the_picture_shows_every_box_and_edge_and_escapes_names():
    g = kc.Graph()
    g.add_input((8,), name="features")
    g.add_layer("Dense", units=4, name="<b onclick=x>&amp;")
    g.add_layer("Dense", units=2, name="head")
    g.connect("features", "<b onclick=x>&amp;")
    g.connect("<b onclick=x>&amp;", "head")
    svg = picture.svg(g.state())
    root = ET.fromstring(svg)  # well-formed: the name went in as text, not markup
    assert "<b onclick" not in svg
    texts = _texts(svg)
    assert {"features", "<b onclick=x>&amp;", "head"} <= set(texts)
    assert len(root.findall(f"{SVG}path")) == 2  # one curve per edge
    assert any("(None, 2)" in t for t in texts)  # the shape each call makes


def test_a_pending_call_and_an_empty_drawing_still_draw():
    g = kc.Graph()
    assert "empty drawing" in picture.svg(g.state())
    g.add_layer("Dense", units=4)
    assert "pending" in " ".join(_texts(picture.svg(g.state())))


def test_the_canvas_output_carries_the_picture_beside_the_live_view():
    g = kc.Graph()
    g.add_input((3,), name="x")
    data, _ = kc.Canvas(g)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "x" in _texts(data["image/svg+xml"])


def test_nbconvert_html_of_a_saved_notebook_shows_the_drawing(tmp_path):
    """A notebook run and saved without widget state (JupyterLab's default) converts to HTML
    with the drawing in it, layer names included."""
    nbclient = pytest.importorskip("nbclient")
    from nbconvert import HTMLExporter

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import kerascanvas as kc\n"
        "g = kc.Graph()\n"
        "g.add_input((8,), name='features')\n"
        "g.add_layer('Dense', units=4, name='hidden_layer')\n"
        "g.connect('features', 'hidden_layer')\n"
        "kc.Canvas(g)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    html, _ = HTMLExporter().from_notebook_node(nb)
    pictures = [base64.b64decode(b).decode() for b in
                re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)]
    drawings = [p for p in pictures if "kerascanvas drawing" in p]
    assert len(drawings) == 1
    assert {"features", "hidden_layer"} <= set(_texts(drawings[0]))


def test_a_skip_connection_goes_round_the_boxes_it_skips():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=4, name="a")
    g.add_layer("Dense", units=4, name="b")
    g.add_layer("Add", name="sum")
    g.connect("x", "a")
    g.connect("a", "b")
    g.connect("a", "sum")
    g.connect("b", "sum")
    state = g.state()
    right = max(layer["x"] + picture.box_size(layer)[0] for layer in state["layers"])
    paths = [p.get("d") for p in ET.fromstring(picture.svg(state)).iter(f"{SVG}path")]
    xs = [[float(v.split(",")[0]) for v in re.findall(r"-?[\d.]+,-?[\d.]+", d)] for d in paths]
    assert sum(1 for row in xs if max(row) > right) == 1  # only the skip a -> sum detours
