"""The canvas's "Compare with..." (issue 44): canvas.compare_with and the browser's intents, the
comparison the browser gets (marks, ghosts, rewired edges, summary), kept up to date after
edits; bad arguments and bad browser messages refused with nothing changed; g.as_saved after save
and load; the standalone HTML view carries the comparison."""

from __future__ import annotations

import json

import pytest
from test_compare import chain  # (the same four-layer chain the comparison tests edit)

import kerascanvas as kc
from kerascanvas.errors import EditError


def canvas(g: kc.Graph) -> kc.Canvas:
    c = kc.Canvas(g, keep=False)
    c.sent = []
    c.send = lambda content, buffers=None: c.sent.append(content)
    return c


def ask(c: kc.Canvas, **intent) -> dict:
    c.receive({"id": 7, **intent})
    return c.sent[-1]


def edited(g: kc.Graph) -> None:
    g.rename("mid", "middle")
    g.configure("head", units=2)
    g.remove("drop")
    g.connect("hidden", "middle")
    g.add_layer("Dense", units=7, name="side")
    g.connect("hidden", "side")


def test_compare_with_a_snapshot_marks_every_change_for_the_browser():
    g = chain()
    g.snapshot("before")
    edited(g)
    c = canvas(g)
    result = c.compare_with("before")
    assert result is c.compared and result.added == ["side"]
    view = c.comparison
    assert view["against"] == "snapshot 'before'"
    assert view["summary"].startswith("1 added, 1 removed, 1 renamed, 1 changed")
    marks = view["marks"]
    assert marks["side"]["kind"] == "added"
    assert marks["middle"] == {"kind": "renamed", "was": "mid", "differences": [],
                               "weights": None}
    assert marks["head"]["kind"] == "changed"
    assert ["units", "3", "2"] in marks["head"]["differences"]
    assert set(marks) == {"side", "middle", "head"}  # nothing else is marked
    [ghost] = view["ghosts"]
    assert ghost["name"] == "drop" and ghost["class_name"] == "Dropout"
    assert set(ghost["near"]) == {"hidden", "middle"}
    right = max(x + w for x, w in ((p[0], g.box_sizes[n][0]) for n, p in g.positions.items()))
    assert ghost["x"] > right  # beside the drawing, never on a box
    assert "hidden:0:0>middle:0:0" in view["rewired"]
    assert "drop:0:0>mid:0:0" in view["removed_edges"]
    json.dumps(view)  # what crosses the wire


def test_the_comparison_follows_edits_and_ends():
    g = chain()
    c = canvas(g)
    c.compare_with(g.snapshot())
    assert c.comparison["summary"] == "no differences" and c.comparison["marks"] == {}
    g.configure("mid", units=9)
    assert c.comparison["marks"]["mid"]["kind"] == "changed"
    g.undo()
    assert c.comparison["summary"] == "no differences"
    assert c.compare_with(None) is None
    assert c.comparison == {} and c.compared is None
    g.configure("mid", units=9)
    assert c.comparison == {}


def test_compare_with_imported_saved_another_graph_a_model_and_a_file(tmp_path):
    keras = pytest.importorskip("keras")
    inputs = keras.Input((4,), name="x")
    model = keras.Model(inputs, keras.layers.Dense(3, name="d")(inputs))
    g = kc.Graph.from_model(model)
    c = canvas(g)
    g.rename("d", "dense_head")
    assert c.compare_with("imported").renamed == [("d", "dense_head")]
    assert c.comparison["against"] == "the drawing as imported"
    with pytest.raises(EditError, match="not been saved"):
        c.compare_with("saved")
    assert c.comparison["against"] == "the drawing as imported"  # the refusal changed nothing
    path = tmp_path / "m.kc"
    c.save(path)
    assert g.as_saved is not None and c.compare_with("saved").same
    g.configure("dense_head", units=5)
    assert list(c.comparison["marks"]) == ["dense_head"]
    c.save()  # compared with the new save from now on
    assert c.comparison["summary"] == "no differences"
    by_model = c.compare_with(model)  # (units 3 -> 5: not the same layer renamed)
    assert (by_model.removed, by_model.added) == (["d"], ["dense_head"])
    assert c.comparison["ghosts"][0]["name"] == "d"
    assert c.compare_with(str(path)).same  # the file as saved just now
    other = kc.Graph.from_model(model)
    assert c.compare_with(canvas(other)).removed == ["d"]
    assert c.comparison["against"] == "the drawing 'model'" or "drawing" in c.comparison["against"]
    loaded = kc.Graph.load(path)
    assert loaded.as_saved is loaded.as_imported is not None
    assert kc.compare(loaded.as_saved, loaded).same


def test_a_kept_drawing_is_not_the_drawing_as_saved(tmp_path):
    g = chain()
    g.save(tmp_path / "a.kc")
    first = g.as_saved
    assert kc.compare(first, g).same
    g.configure("mid", units=8)
    g.save(tmp_path / "b.kc")
    assert g.as_saved is not first and kc.compare(g.as_saved, g).same


@pytest.mark.parametrize("bad, error", [
    (42, TypeError), (None, None), (["before"], TypeError), ("no such thing", EditError),
    ("imported", EditError),  # a drawing begun here was not imported
])
def test_bad_compare_with_arguments_are_refused_and_change_nothing(bad, error):
    g = chain()
    g.snapshot("before")
    c = canvas(g)
    c.compare_with("before")
    shown = c.comparison
    if error is None:  # None ends it: not an error
        c.compare_with(None)
        assert c.comparison == {}
        return
    with pytest.raises(error):
        c.compare_with(bad)
    assert c.comparison == shown
    with pytest.raises(EditError, match="itself"):
        c.compare_with(g)


def test_the_browser_compares_with_what_the_kernel_offers():
    g = chain()
    g.snapshot("before")
    g.configure("mid", units=8)
    c = canvas(g)
    answer = ask(c, kind="compare_choices")
    assert answer["result"] == {"imported": False, "saved": False, "snapshots": ["before"],
                                "active": None}
    answer = ask(c, kind="compare", against="snapshot", snapshot="before")
    assert answer["ok"] and answer["result"]["summary"].startswith("1 changed")
    assert ask(c, kind="compare_choices")["result"]["active"] == "snapshot 'before'"
    assert ask(c, kind="compare", against="none")["ok"]
    assert c.comparison == {}


@pytest.mark.parametrize("intent, says", [
    ({"against": "file", "snapshot": None}, "compares with"),
    ({"against": "../etc/passwd"}, "compares with"),
    ({"against": "snapshot", "snapshot": "/tmp/model.kc"}, "no snapshot named"),
    ({"against": "snapshot"}, "no snapshot named"),
    ({"against": "imported"}, "not imported"),
    ({"against": "saved", "snapshot": "before"}, "goes with"),
    ({"against": 3}, "'against' must be"),
    ({"snapshot": "before"}, "needs 'against'"),
    ({"against": "snapshot", "snapshot": ["before"]}, "'snapshot' must be"),
])
def test_bad_browser_messages_are_refused_and_change_nothing(intent, says):
    g = chain()
    g.snapshot("before")
    c = canvas(g)
    c.compare_with("before")
    shown, revision = c.comparison, c.revision
    answer = ask(c, kind="compare", **intent)
    assert says in answer["error"] and "ok" not in answer
    assert c.comparison == shown and c.revision == revision


def test_the_browser_cannot_set_the_comparison():
    g = chain()
    c = canvas(g)
    c.set_state({"comparison": {"against": "x", "marks": {"<img>": {}}}})
    assert c.comparison == {}


def test_the_standalone_view_carries_the_comparison(tmp_path):
    from kerascanvas.io.standalone import viewer_data

    g = chain()
    g.snapshot("before")
    edited(g)
    c = canvas(g)
    assert "comparison" not in viewer_data(g) or not viewer_data(g)["comparison"]
    c.compare_with("before")
    answer = ask(c, kind="export_html")
    assert answer["ok"]
    html = answer["result"]["html"]
    assert "1 added, 1 removed" in html and '"was":"mid"' in html
    assert kc.compare(g.snapshot(), g).same  # exporting changed nothing


def test_g_to_html_marks_the_changes_from_what_it_is_given(tmp_path):
    g = chain()
    before = g.snapshot("before")
    edited(g)
    text = g.to_html(tmp_path / "v.html", compare_with=before).read_text(encoding="utf-8")
    assert "snapshot 'before'" in text and '"ghosts":[{"name":"drop"' in text
    assert '"comparison":{}' in g.to_html(tmp_path / "w.html").read_text(encoding="utf-8")


def test_a_new_drawing_on_the_canvas_ends_the_comparison(tmp_path):
    g = chain()
    c = canvas(g)
    c.compare_with(g.snapshot())
    c.graph = chain()
    assert c.comparison == {} and c.compared is None
