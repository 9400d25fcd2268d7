"""g.to_html: one self-contained file whose embedded data cannot break out of its <script>."""

import json
import re

import kerascanvas as kc
from kerascanvas.io import standalone


def _graph():
    g = kc.Graph()
    g.add_input((8,), name="x")
    prev = "x"
    for i in range(3):  # three copies of one block: a run of repeated blocks
        d = g.add_layer("Dense", units=8, name=f"d{i}")
        r = g.add_layer("Dropout", rate=0.5, name=f"r{i}")
        g.connect(prev, d)
        g.connect(d, r)
        prev = r
    g.add_layer("Dense", units=2, name="head")
    g.connect(prev, "head")
    return g


def _embedded(text: str) -> dict:
    found = re.search(r'<script type="application/json" id="kc-data">(.*?)</script>', text, re.DOTALL)
    return json.loads(found.group(1))


def test_the_file_holds_everything_and_no_reference_out(tmp_path):
    g = _graph()
    path = g.to_html(tmp_path / "model.html")
    text = path.read_text(encoding="utf-8")
    assert text.count("<script") == 2 and text.count("</script") == 2  # the data, the viewer
    assert not re.search(r'<script[^>]+src=|<link|@import|https?://[^"\s]*\.js', text)
    assert "default-src 'none'" in text  # the page may load nothing
    data = _embedded(text)
    assert [layer["name"] for layer in data["state"]["layers"]] == list(g.layers)
    assert set(data["explain"]) == set(g.layers)
    assert data["explain"]["head"]["nodes"] == [json.loads(json.dumps(g.explain_node("head", 0).data))]
    assert len(data["edges"]) == len(g.edges) and all(v is not None for v in data["edges"].values())
    assert data["code"]["code"] == g.to_code()


def test_a_run_unfolds_offline_where_the_layout_would_put_it(tmp_path):
    g = _graph()
    assert g.repeats, "the test needs a run of repeated blocks"
    head = g.repeats[0].blocks[0][0]
    data_open = standalone.viewer_data(g)
    g.fold(head)
    data = standalone.viewer_data(g)
    run = data["runs"][head]
    assert run["info"]["copies"] == len(g.repeats[0].blocks)
    # the members' places from the run's first box are those of the unfolded drawing
    assert run["members"] == data_open["runs"][head]["members"]
    assert run["members"][head] == [0, 0]
    assert max(dy for _, dy in run["members"].values()) > 0


def test_embedded_json_cannot_close_its_script():
    text = standalone.script_json({"name": "</script><script>alert(1)</script>", "b": "a & b > c\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>", "b": "a & b > c\u2028"}


def test_a_name_that_looks_like_markup_stays_data(tmp_path):
    g = kc.Graph()
    g.add_input((3,), name="<script>alert(1)<b>")
    text = g.to_html(tmp_path / "m.html").read_text()
    assert "<script>alert(1)" not in text
    assert _embedded(text)["state"]["layers"][0]["name"] == "<script>alert(1)<b>"


def test_the_export_html_intent_answers_the_same_file():
    canvas = kc.Canvas(_graph())
    undo = canvas.graph.can_undo
    sent = []
    canvas.send = sent.append
    canvas.receive({"kind": "export_html", "id": 3})
    reply = sent[-1]
    assert reply["id"] == 3 and reply["ok"] is True
    assert reply["result"]["name"] == canvas.graph.name
    data = _embedded(reply["result"]["html"])
    assert [layer["name"] for layer in data["state"]["layers"]] == list(canvas.graph.layers)
    assert canvas.graph.can_undo == undo  # a read: no edit was made
