"""A drawing that flows left to right (issue 40): `g.set_direction("right")` lays the depth map's
rows out as columns, inputs on the left; ports go down the boxes' left and right edges; the
choice is one undo step, saved with the drawing, sent in the state, set from the browser, and
drawn so by the picture."""

from __future__ import annotations

import itertools
import re

import pytest
from support import ask, recorded_canvas, residual_stack, sent

import kerascanvas as kc
from kerascanvas.errors import EditError
from kerascanvas.io import picture


def chain(n: int = 3) -> kc.Graph:
    g = kc.Graph()
    g.add_input((8,), name="x")
    prev = "x"
    for i in range(n):
        g.add_layer("Dense", units=4, name=f"d{i}")
        g.connect(prev, f"d{i}")
        prev = f"d{i}"
    return g


def blocks(n: int = 3) -> kc.Graph:
    """x -> stem -> `n` residual blocks (a run that folds) -> head."""
    return residual_stack(n)


def flows_right(g: kc.Graph) -> bool:
    """Every wire runs from a box to one wholly right of it."""
    pos, size = g.positions, g.box_sizes
    return all(pos[src[0]][0] + size[src[0]][0] < pos[dst[0]][0] for src, dst in g.edges)


def test_right_lays_rows_out_as_columns_and_down_puts_them_back():
    g = blocks()
    down = dict(g.positions)
    g.set_direction("right")
    assert g.direction == "right"
    assert flows_right(g)
    # the same rows, turned: boxes that shared a row now share a column
    same_row = {}
    for name, (_x, y) in down.items():
        same_row.setdefault(y, set()).add(name)
    for names in same_row.values():
        assert len({g.positions[n][0] for n in names}) == 1
    g.set_direction("down")
    assert g.positions == down


def test_ports_go_down_the_left_and_right_edges():
    g = blocks()
    g.set_direction("right")
    for layer in g.state()["layers"]:
        w, h = layer["w"], layer["h"]
        assert all(x == 0 and 0 < y < h for *_, x, y in layer["ports"]["in"])
        assert all(x == w and 0 < y < h for *_, x, y in layer["ports"]["out"])


def test_a_box_with_many_slots_grows_taller_not_wider():
    g = kc.Graph()
    for i in range(8):
        g.add_input((4,), name=f"x{i}")
    g.add_layer("Concatenate", name="cat")
    for i in range(8):
        g.connect(f"x{i}", "cat")
    wide = g.box_sizes["cat"]
    g.set_direction("right")
    w, h = g.box_sizes["cat"]
    assert w < wide[0] and h > wide[1]
    ys = sorted(y for *_, y in next(l for l in g.state()["layers"] if l["name"] == "cat")["ports"]["in"])
    assert min(b - a for a, b in itertools.pairwise(ys)) >= 18  # each slot easy to hit


def test_one_undo_step_that_unpins_and_comes_back():
    g = chain()
    g.move("d1", 700, 700)
    g.set_direction("right")
    assert g.pinned == frozenset() and flows_right(g)
    g.undo()
    assert g.direction == "down" and g.positions["d1"] == (700.0, 700.0)
    g.redo()
    assert g.direction == "right" and g.pinned == frozenset()
    # asking for the direction it already has turns nothing: the pin stays, no undo step
    g.move("d1", 900, 40)
    g.set_direction("right")
    assert g.pinned == frozenset({"d1"}) and g.positions["d1"] == (900.0, 40.0)
    g.undo()  # undoes the move, not a turn
    assert g.direction == "right" and g.pinned == frozenset()


@pytest.mark.parametrize("bad", ["up", "Right", "", None, 1, ["right"]])
def test_a_bad_direction_is_refused_and_changes_nothing(bad):
    g = chain()
    g.move("d1", 700, 700)
    with pytest.raises(EditError, match="direction must be 'down' or 'right'"):
        g.set_direction(bad)
    assert g.direction == "down" and g.positions["d1"] == (700.0, 700.0) and not g.can_redo


def test_saved_with_the_drawing_and_kept_by_the_pins_after_it(tmp_path):
    g = chain()
    g.set_direction("right")
    g.move("d2", 1000, 300)
    g.save(tmp_path / "m.kc")
    h = kc.Graph.load(tmp_path / "m.kc")
    assert h.direction == "right" and h.positions == g.positions
    # an older file (no "direction") flows down
    g.set_direction("down")
    g.save(tmp_path / "down.kc")
    assert kc.Graph.load(tmp_path / "down.kc").direction == "down"


def test_a_file_naming_another_direction_is_refused(tmp_path):
    import json
    import zipfile

    g = chain()
    g.save(tmp_path / "m.kc")
    with zipfile.ZipFile(tmp_path / "m.kc") as z:
        parts = {n: z.read(n) for n in z.namelist()}
    doc = json.loads(parts["kerascanvas.json"])
    doc["direction"] = "sideways"
    parts["kerascanvas.json"] = json.dumps(doc).encode()
    with zipfile.ZipFile(tmp_path / "bad.kc", "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    with pytest.raises(EditError, match="'direction' must be 'down' or 'right'"):
        kc.Graph.load(tmp_path / "bad.kc")


def test_the_browser_turns_it_and_a_bad_value_is_answered():
    c = recorded_canvas(chain())
    assert ask(c, {"kind": "set_direction", "id": 1, "direction": "right"}).get("error") is None
    assert c.graph.direction == "right"
    assert any(m.get("diff", {}).get("direction") == "right" for m in sent(c)), sent(c)[-2:]
    for i, bad in enumerate(["../etc", 3, None], start=2):
        answer = ask(c, {"kind": "set_direction", "id": i, "direction": bad})
        assert answer["error"], bad
    assert c.graph.direction == "right"


def test_folding_a_run_with_pinned_boxes_makes_room_along_the_flow():
    g = blocks()
    head = g.repeats[0].blocks[0][0]
    g.set_direction("right")
    g.move_many({n: p for n, p in g.positions.items()})  # as the canvas pins what it shows
    before = dict(g.positions)
    right_of = [n for n, (x, _) in before.items() if x > before[head][0] + 600]
    g.fold(head)
    moved = [n for n in right_of if n not in g.folded_layers]
    assert moved and all(g.positions[n][0] < before[n][0] for n in moved)  # left, not up
    assert all(g.positions[n][1] == before[n][1] for n in moved)


def _points(svg: str, cls: str = "wire") -> list[list[tuple[float, float]]]:
    paths = re.findall(rf'<path class="{cls}" (?:transform="translate\(([-\d.]+),([-\d.]+)\)" )?d="([^"]+)"', svg)
    out = []
    for dx, dy, d in paths:
        pts = [(float(x) + float(dx or 0), float(y) + float(dy or 0))
               for x, y in re.findall(r"(-?[\d.]+),(-?[\d.]+)", d)]
        out.append(pts)
    return out


def test_the_picture_draws_wires_left_to_right():
    g = chain()
    g.set_direction("right")
    svg = picture.svg(g.state())
    wires = _points(svg)
    assert len(wires) == 3
    for pts in wires:
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        assert x1 > x0 + 50 and abs(y1 - y0) < 1  # level boxes: a level wire, drawn rightwards
        assert abs(pts[1][1] - y0) < 1  # it leaves its port sideways


def test_a_long_picture_is_cut_into_bands_a_page_wide():
    g = chain(12)
    g.set_direction("right")
    svg = picture.svg(g.state())
    width = float(re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).group(1))
    assert width <= picture.PAGE_WIDTH  # shown at full scale
    assert "→ to d" in svg and "from d" in svg  # wires between bands name their other end
    boxes = [(float(x), float(y)) for x, y in re.findall(r'<g transform="translate\(([-\d.]+),([-\d.]+)\)"', svg)]
    assert len(boxes) == 13 and len({y for _, y in boxes}) > 1


def test_a_box_dropped_on_a_wire_lands_right_of_its_source_and_the_boxes_after_make_room():
    c = recorded_canvas(chain())
    g = c.graph
    g.set_direction("right")
    x0, x1 = g.positions["d0"][0], g.positions["d1"][0]
    reply = ask(c, {"kind": "insert_layer", "id": 1, "class_name": "Dropout", "src": ["d0", 0, 0],
                    "dst": ["d1", 0, 0], "x": (x0 + x1) / 2, "y": g.positions["d0"][1]})
    assert reply["result"] == "dropout"
    pos, size = g.positions, g.box_sizes
    assert pos["dropout"][0] >= x0 + size["d0"][0] + 60  # right of its source, clear of it
    assert pos["d1"][0] >= pos["dropout"][0] + size["dropout"][0] + 60  # moved right, not down
    assert flows_right(g)
