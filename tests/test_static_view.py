"""The static picture in the widget's output: what GitHub, nbviewer and nbconvert show."""

import base64
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

import kerascanvas as kc
from kerascanvas.io import picture

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


def test_the_saved_picture_follows_edits_made_in_later_cells(tmp_path):
    """The canvas's output is the live view, then the picture; cells after it edit the drawing
    from Python, and the saved notebook, and its HTML (saved without widget state, JupyterLab's
    default), show the drawing as they left it."""
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


def _boxes(svg: str) -> dict[str, ET.Element]:
    """Each drawn box's <g> by the name it shows (its first, bold text)."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        texts = g.findall(f"{SVG}text")
        if texts and texts[0].get("font-weight") == "bold" and g.find(f"{SVG}rect") is not None:
            out.setdefault(texts[0].text, g)
    return out


def test_the_picture_draws_what_the_canvas_draws_folds_colours_and_sizes():
    keras = pytest.importorskip("keras")
    g = kc.Graph.from_model(keras.applications.ResNet50(weights=None))
    assert g.folded  # the canvas opens ResNet50 with its repeated blocks folded
    state = g.state()
    svg = picture.svg(state)
    drawn = _boxes(svg)
    hidden = set(g.folded_layers)
    assert hidden and not hidden & set(drawn)  # the layers a folded run hides are not drawn
    assert {n for n in g.layers if n not in hidden} <= set(drawn)
    head = "conv2_block2_1_conv"
    assert "×2" in [t.text for t in drawn[head].iter(f"{SVG}text")]  # the folded run's count
    assert any("blocks of" in (t.text or "") for t in drawn[head].iter(f"{SVG}text"))
    # the box's size is the kernel's (boxes.py via the state), its band its family's colour
    layer = next(x for x in state["layers"] if x["name"] == "conv1_conv")
    rect = drawn["conv1_conv"].find(f"{SVG}rect")
    assert (float(rect.get("width")), float(rect.get("height"))) == (layer["w"], layer["h"])
    band = drawn["conv1_conv"].find(f"{SVG}path").get("fill")
    assert band == f"hsl({picture.family_hue(layer)},62%,52%)" == "hsl(25,62%,52%)"
    assert any("node 0 → (None, 112, 112, 64)" == t for t in _texts(svg))  # shapes as on the canvas
    # bounded: readable at a page's width (at most PAGE_WIDTH wide, at full scale), columns
    # instead of one 5,500 px strip
    view = [float(v) for v in ET.fromstring(svg).get("viewBox").split()]
    assert view[2] <= picture.PAGE_WIDTH and float(ET.fromstring(svg).get("width")) == view[2]
    assert view[3] < 3000
    assert any(t.startswith("↓ to ") for t in _texts(svg))  # a wire to the next column


def test_family_colours_agree_with_the_canvas():
    source = (Path(picture.__file__).parents[2] / "js" / "src" / "scene" / "families.ts").read_text()
    found = [(tuple(re.findall(r'"(\w+)"', groups)), int(hue)) for groups, hue in
             re.findall(r"groups: \[([^\]]*)\], hue: (\d+)", source)]
    assert found == picture.FAMILIES


def test_an_expanded_nested_model_shows_its_inside():
    keras = pytest.importorskip("keras")
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="inner_dense")],
                             name="block")
    x = keras.Input((4,), name="x")
    g = kc.Graph.from_model(keras.Model(x, inner(x)))
    assert "inner_dense" not in _texts(picture.svg(g.state()))
    g.expand("block")
    svg = picture.svg(g.state())
    assert "inner_dense" in _texts(svg)
    layer = next(x for x in g.state()["layers"] if x["name"] == "block")
    rect = _boxes(svg)["block"].find(f"{SVG}rect")
    assert (float(rect.get("width")), float(rect.get("height"))) == (layer["w"], layer["h"])


def test_ports_are_where_the_kernel_lays_them_out():
    g = kc.Graph()
    g.add_input((4,), name="a")
    g.add_input((4,), name="b")
    g.add_layer("Add", name="sum")
    g.connect("a", "sum")
    g.connect("b", "sum")
    state = g.state()
    layer = next(x for x in state["layers"] if x["name"] == "sum")
    ins, _outs = picture.ports(layer, {("sum", 0): 2})
    assert len(ins) == 3  # two filled slots and a free one to append to (boxes.in_ports)
    w = layer["w"]
    assert [round(x - layer["x"], 3) for x, _ in ins.values()] == [round(w * i / 4, 3) for i in (1, 2, 3)]
    circles = {(round(float(c.get("cx")), 1), round(float(c.get("cy")), 1))
               for c in ET.fromstring(picture.svg(state)).iter(f"{SVG}circle")}
    assert len(circles) == 3 + 1 + 2  # sum's three slots and output, a's and b's outputs


def test_a_very_long_drawing_is_cut_to_a_bounded_size_and_says_so():
    g = kc.Graph()
    g.add_input((4,), name="x")
    prev = "x"
    for i in range(150):
        name = g.add_layer("Dense", units=4, name=f"d{i}")
        g.connect(prev, name)
        prev = name
    svg = picture.svg(g.state())
    view = [float(v) for v in ET.fromstring(svg).get("viewBox").split()]
    assert view[2] <= picture.PAGE_WIDTH
    assert view[3] <= picture.MAX_HEIGHT + 200
    note = [t for t in _texts(svg) if "more box" in t]
    shown = [n for n in _boxes(svg) if n.startswith("d")]
    assert note and f"… and {150 - len(shown)} more boxes below" in note[0]
    assert shown == [f"d{i}" for i in range(len(shown))]  # from the top, in order
