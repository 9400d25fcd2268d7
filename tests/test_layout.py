"""Layout from depth: inputs on top, few crossings, pinned boxes kept, no overlaps, fast."""

import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from kerascanvas.geometry.layout import count_crossings, layout
from kerascanvas.network.depth import depth_map

SIZE = (160.0, 60.0)


def graph_depths(parents):
    """layer_depth and layer edges of a graph of single-call layers; parents[name] = source names."""
    node_inputs = {(n, 0): [(p, 0, 0) for p in ps] for n, ps in parents.items()}
    consumed = {p for ps in parents.values() for p in ps}
    inputs = [(n, 0, 0) for n, ps in parents.items() if not ps]
    outputs = [(n, 0, 0) for n in parents if n not in consumed]
    edges = [(p, n) for n, ps in parents.items() for p in ps]
    return depth_map(inputs, outputs, node_inputs).layer_depth, edges


@st.composite
def dags(draw):
    """Random DAGs of up to 25 layers: the first 1-3 are inputs, every other layer has 1-3 sources."""
    n_inputs = draw(st.integers(1, 3))
    names = [f"l{i}" for i in range(draw(st.integers(n_inputs + 1, 25)))]
    parents = {}
    for i, name in enumerate(names):
        parents[name] = [] if i < n_inputs else draw(
            st.lists(st.sampled_from(names[:i]), min_size=1, max_size=3, unique=True))
    return parents


def overlapping(positions, skip=frozenset()):
    """Pairs of boxes that overlap, except pairs where both are in `skip`."""
    w, h = SIZE
    found = []
    items = sorted(positions.items(), key=lambda item: item[1])
    for i, (a, (xa, ya)) in enumerate(items):
        for b, (xb, yb) in items[i + 1:]:
            if xb >= xa + w:
                break
            if abs(ya - yb) < h and not (a in skip and b in skip):
                found.append((a, b))
    return found


def drawn_crossings(positions, edges):
    """Crossings of straight edges between adjacent rows, counted from coordinates alone."""
    segments = [(positions[a], positions[b]) for a, b in set(edges)]
    crossings = 0
    for i, ((ax, ay), (bx, by)) in enumerate(segments):
        for (cx, cy), (dx, dy) in segments[i + 1:]:
            same_rows = ay == cy and by == dy
            if same_rows and ax != cx and bx != dx and (ax < cx) != (bx < dx):
                crossings += 1
    return crossings


@settings(max_examples=60, deadline=None)
@given(dags())
def test_inputs_are_above_their_consumers_and_boxes_never_overlap(parents):
    layer_depth, edges = graph_depths(parents)
    positions = layout(layer_depth, edges, list(parents))
    assert set(positions) == set(parents)
    for a, b in edges:
        assert positions[a][1] < positions[b][1], (a, b, positions)
    assert overlapping(positions) == []
    assert min(y for _, y in positions.values()) == 0.0  # the inputs' row is the top row


def test_crossings_of_a_crafted_case_are_removed():
    # Created in the order that crosses every edge: a->z, b->y, c->x with z, y, x created last.
    parents = {"a": [], "b": [], "c": [], "x": ["c"], "y": ["b"], "z": ["a"]}
    layer_depth, edges = graph_depths(parents)
    assert count_crossings([["a", "b", "c"], ["x", "y", "z"]], edges) == 3
    positions = layout(layer_depth, edges, list(parents))
    assert drawn_crossings(positions, edges) == 0


def test_crossings_of_random_two_row_graphs_are_reduced():
    rng = random.Random(7)
    top, bottom = [f"t{i}" for i in range(12)], [f"b{i}" for i in range(12)]
    parents = {**{t: [] for t in top}, **{b: rng.sample(top, 2) for b in bottom}}
    layer_depth, edges = graph_depths(parents)
    before = count_crossings([top, bottom], edges)
    after = drawn_crossings(layout(layer_depth, edges, list(parents)), edges)
    assert after < before


def test_pinned_boxes_stay_exactly_where_they_were_put_and_others_move_aside():
    parents = {"in": [], "a": ["in"], "b": ["in"], "c": ["in"], "out": ["a", "b", "c"]}
    layer_depth, edges = graph_depths(parents)
    free = layout(layer_depth, edges, list(parents))
    pinned = {"a": (free["b"][0] + 7.5, free["b"][1] + 3.0), "out": (-500.0, 1234.5)}
    positions = layout(layer_depth, edges, list(parents), pinned)
    assert positions["a"] == (free["b"][0] + 7.5, free["b"][1] + 3.0)
    assert positions["out"] == (-500.0, 1234.5)
    assert overlapping(positions) == []


@settings(max_examples=40, deadline=None)
@given(dags(), st.data())
def test_random_pins_are_kept_and_not_overlapped(parents, data):
    layer_depth, edges = graph_depths(parents)
    names = list(parents)
    chosen = data.draw(st.lists(st.sampled_from(names), max_size=4, unique=True))
    point = st.tuples(st.integers(-2, 12).map(lambda i: i * 97.0), st.integers(-1, 8).map(lambda j: j * 53.0))
    pinned = {n: data.draw(point) for n in chosen}
    positions = layout(layer_depth, edges, names, pinned)
    assert {n: positions[n] for n in pinned} == pinned
    assert overlapping(positions, skip=frozenset(pinned)) == []


def overlapping_sized(positions, sizes):
    """Pairs of boxes whose rectangles overlap, each box its own size (SIZE unless given)."""
    rects = {n: (x, y, *sizes.get(n, SIZE)) for n, (x, y) in positions.items()}
    names = sorted(rects)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
            if rects[a][0] < rects[b][0] + rects[b][2] and rects[b][0] < rects[a][0] + rects[a][2]
            and rects[a][1] < rects[b][1] + rects[b][3] and rects[b][1] < rects[a][1] + rects[a][3]]


@settings(max_examples=40, deadline=None)
@given(dags(), st.data())
def test_big_boxes_get_room_and_pins_are_still_kept(parents, data):
    layer_depth, edges = graph_depths(parents)
    names = list(parents)
    big = data.draw(st.lists(st.sampled_from(names), max_size=3, unique=True))
    size = st.tuples(st.integers(160, 900).map(float), st.integers(60, 700).map(float))
    sizes = {n: data.draw(size) for n in big}
    chosen = data.draw(st.lists(st.sampled_from(names), max_size=2, unique=True))
    pinned = {n: (data.draw(st.integers(-5, 12)) * 97.0, data.draw(st.integers(-2, 8)) * 53.0) for n in chosen}
    positions = layout(layer_depth, edges, names, pinned, sizes=sizes)
    assert {n: positions[n] for n in pinned} == pinned
    free = {n: p for n, p in positions.items() if n not in pinned}
    assert overlapping_sized(free, sizes) == []
    clashes = overlapping_sized(positions, sizes)
    assert all(a in pinned and b in pinned for a, b in clashes)  # only pins the user overlapped
    for a, b in edges:  # sources still end above the rows of their consumers
        if layer_depth[a] > layer_depth[b]:
            assert positions[a][1] + sizes.get(a, SIZE)[1] <= positions[b][1] or a in pinned or b in pinned


def test_a_big_box_pushes_the_rows_below_it_down_and_its_row_neighbours_aside():
    parents = {"in": [], "big": ["in"], "side": ["in"], "out": ["big", "side"]}
    layer_depth, edges = graph_depths(parents)
    small = layout(layer_depth, edges, list(parents))
    grown = layout(layer_depth, edges, list(parents), sizes={"big": (500.0, 400.0)})
    assert grown["out"][1] - small["out"][1] == 400.0 - SIZE[1]
    assert grown["side"][0] - grown["big"][0] == 500.0 + 60.0  # its width plus the gap


def test_deterministic():
    rng = random.Random(3)
    parents = {f"l{i}": rng.sample([f"l{j}" for j in range(i)], min(i, 2)) for i in range(200)}
    layer_depth, edges = graph_depths(parents)
    first = layout(layer_depth, edges, list(parents), {"l5": (10.0, 10.0)})
    again = layout(dict(layer_depth), list(edges), list(parents), {"l5": (10.0, 10.0)})
    assert first == again and list(first) == list(again)


def test_layers_without_a_depth_go_below_their_sources_after_the_placed_ones():
    layer_depth = {"in": 1, "d": 0}  # a partial drawing: only in -> d is complete
    edges = [("in", "d"), ("in", "pending"), ("pending", "later"), ("later", "pending")]
    positions = layout(layer_depth, edges, ["in", "lonely", "pending", "d", "later"])
    assert set(positions) == {"in", "lonely", "pending", "d", "later"}
    assert positions["in"][1] == positions["lonely"][1] < positions["pending"][1] < positions["later"][1]
    assert positions["lonely"][0] > positions["in"][0]  # after the placed box of its row
    assert positions["pending"][1] == positions["d"][1] and positions["pending"][0] > positions["d"][0]
    assert overlapping(positions) == []


def test_edges_from_a_shared_layer_back_up_do_not_break_the_rows():
    # d1(d2(d1(x))): layer edges d1 -> d2 -> d1 form a loop although the calls do not.
    layer_depth = {"x": 3, "d1": 2, "d2": 1}
    positions = layout(layer_depth, [("x", "d1"), ("d1", "d2"), ("d2", "d1")], ["x", "d1", "d2"])
    assert positions["x"][1] < positions["d1"][1] < positions["d2"][1]


def test_empty():
    assert layout({}, [], []) == {}


def test_5000_layers_are_laid_out():  # timings are measured by benchmarks, not asserted here
    rng = random.Random(0)
    names = [f"l{i}" for i in range(5000)]
    chain = {n: ([names[i - 1]] if i else []) for i, n in enumerate(names)}
    wide = {n: (rng.sample(names[max(0, i - 150):i - 50], 2) if i >= 100 else []) for i, n in enumerate(names)}
    half_pinned = {n: (float(i % 70) * 220.0, float(i // 70) * 100.0) for i, n in enumerate(names[::2])}
    cases = (("chain", chain, {}), ("wide", wide, {}), ("wide, half pinned", wide, half_pinned))
    for label, parents, pinned in cases:
        layer_depth, edges = graph_depths(parents)
        start = time.perf_counter()
        positions = layout(layer_depth, edges, names, pinned)
        elapsed = time.perf_counter() - start
        print(f"\nlayout of 5,000 layers ({label}): {elapsed * 1000:.0f} ms")
        assert len(positions) == 5000
