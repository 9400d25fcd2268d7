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


def _run(tmp_path, sources: list[str], store_widget_state: bool):
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            store_widget_state=store_widget_state,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)  # saved and read back, as a viewer gets it
    return nbformat.read(path, as_version=4)


def _html_pictures(nb) -> list[str]:
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(nb)
    pictures = [base64.b64decode(b).decode() for b in
                re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)]
    return [p for p in pictures if "kerascanvas drawing" in p]


FIRST_CELL = ("import kerascanvas as kc\n"
              "g = kc.Graph()\n"
              "g.add_input((8,), name='features')\n"
              "g.add_layer('Dense', units=4, name='hidden_layer')\n"
              "g.connect('features', 'hidden_layer')\n"
              "kc.Canvas(g)")
LATER_CELLS = ["g.add_layer('Dense', units=3, name='added_later')\ng.connect('hidden_layer', 'added_later')",
               "g.rename('hidden_layer', 'renamed_later')\ng.configure('added_later', units=7)"]


def test_nbconvert_html_of_a_saved_notebook_shows_the_drawing(tmp_path):
    """A notebook run and saved without widget state (JupyterLab's default) converts to HTML
    with the drawing in it, layer names included."""
    nb = _run(tmp_path, [FIRST_CELL], store_widget_state=False)
    drawings = _html_pictures(nb)
    assert len(drawings) == 1
    assert {"features", "hidden_layer"} <= set(_texts(drawings[0]))


def test_the_saved_picture_follows_edits_made_in_later_cells(tmp_path):
    """The canvas's output is the live view, then the picture; cells after it edit the drawing
    from Python, and the saved notebook (and its HTML) shows the drawing as they left it."""
    nb = _run(tmp_path, [FIRST_CELL, *LATER_CELLS], store_widget_state=False)
    outputs = nb.cells[0].outputs
    assert [sorted(o.data) for o in outputs] == [
        ["application/vnd.jupyter.widget-view+json", "text/plain"], ["image/svg+xml", "text/plain"]]
    assert "3 layers" in outputs[1].data["text/plain"]
    texts = set(_texts(outputs[1].data["image/svg+xml"]))
    assert {"features", "renamed_later", "added_later"} <= texts
    assert "hidden_layer" not in texts
    assert any("(None, 7)" in t for t in texts)  # the configure of the last cell
    assert all(not c.outputs for c in nb.cells[1:])  # the edits print nothing
    drawings = _html_pictures(nb)
    assert len(drawings) == 1
    assert {"renamed_later", "added_later"} <= set(_texts(drawings[0]))


def test_with_widget_state_saved_the_html_still_shows_the_picture(tmp_path):
    """Saved with the widget state (JupyterLab's "Save Widget State Automatically"), nbconvert
    renders the widget's output as a widget that needs the network; the picture, an output of
    its own, still shows offline, in its last state."""
    nb = _run(tmp_path, [FIRST_CELL, *LATER_CELLS], store_widget_state=True)
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    model_id = nb.cells[0].outputs[0].data["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert model_id in state  # so nbconvert picks the widget view for that output
    drawings = _html_pictures(nb)
    assert len(drawings) == 1
    assert {"features", "renamed_later", "added_later"} <= set(_texts(drawings[0]))


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
