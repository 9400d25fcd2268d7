"""The inside of an expanded nested model: a keras.applications base under a head opens with its
runs of repeated blocks folded, as the same model imported alone does (kerascanvas/io/inner.py),
and says where each run's layers go when the browser unfolds it."""

from __future__ import annotations

import keras
import pytest

import kerascanvas as kc
from kerascanvas.io.inner import BOX, FOLDED, inner_view
from kerascanvas.mirror import shape


@pytest.fixture(scope="module")
def based():
    base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3))
    inputs = keras.Input((32, 32, 3))
    x = keras.layers.GlobalAveragePooling2D()(base(inputs))
    model = keras.Model(inputs, keras.layers.Dense(10)(x))
    return base, model


def test_the_inside_of_a_base_comes_with_its_runs_folded(based):
    base, _ = based
    view = inner_view(base)
    layers = {b["name"]: b for b in view["layers"]}
    assert set(layers) == {op.name for op in base.operations}  # every layer is listed
    drawn = [b for b in view["layers"] if not b["hidden"]]
    assert len(drawn) < len(layers) * 0.6  # the runs fold: far fewer boxes drawn than layers
    alone = kc.Graph.from_model(base)
    # the same runs as the model imported alone finds
    assert [r["head"] for r in view["runs"]] == [r.blocks[0][0] for r in alone.repeats]
    assert len(view["runs"]) == 4
    for run in view["runs"]:
        head = layers[run["head"]]
        assert head["fold"]["copies"] >= 2 and (head["w"], head["h"]) == FOLDED
        assert run["members"][0] == run["head"] and run["offsets"][0] == [0.0, 0.0]
        assert len(run["offsets"]) == len(run["members"]) == head["fold"]["members"]
        for name in run["members"][1:]:
            assert layers[name]["hidden"] == run["head"]
            assert (layers[name]["x"], layers[name]["y"]) == (head["x"], head["y"])  # at its run's box
        assert run["grow"] > 0
    # a layer outside every run is a plain box; the edges join drawn boxes only
    assert layers["block_13_expand"]["hidden"] is None and (layers["block_13_expand"]["w"], layers["block_13_expand"]["h"]) == BOX
    shown = {b["name"] for b in drawn}
    assert all(a in shown and b in shown for a, b in view["edges"])
    assert {tuple(link) for link in view["links"]} >= {("block_4_expand", "block_4_expand_BN")}


def test_sizes_are_sane_and_no_two_drawn_boxes_overlap(based):
    base, _ = based
    view = inner_view(base)
    drawn = [b for b in view["layers"] if not b["hidden"]]
    for b in drawn:
        assert 0 <= b["x"] and b["x"] + b["w"] <= view["width"]
        assert 0 <= b["y"] and b["y"] + b["h"] <= view["height"]
    for i, a in enumerate(drawn):
        for b in drawn[i + 1:]:
            assert (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"]
                    or a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]), (a["name"], b["name"])
    unfolded_height = (len(view["layers"]) - 1) * (BOX[1] + 22)  # one column, every layer
    assert view["height"] < 0.75 * unfolded_height
    assert view["width"] < 400


def test_the_expanded_base_in_the_canvas_state(based):
    base, model = based
    g = kc.Graph.from_model(model)
    name = base.name
    collapsed = next(layer for layer in g.state()["layers"] if layer["name"] == name)
    assert collapsed["inner_layers"] == 153 and not collapsed["expanded"]
    # Find reaches inner layers while collapsed: their names are sent with the box
    assert "block_13_expand" in {b["name"] for b in collapsed["inner"]["layers"]}
    g.expand(name)
    state = g.state()
    shape.check_state(state)
    box = next(layer for layer in state["layers"] if layer["name"] == name)
    assert box["expanded"] and box["h"] >= box["inner"]["height"] and box["h"] < 8000
