"""Live-network figures, as ratios against plain Keras run side by side (issue: live network).

    .venv/bin/python benchmarks/bench_graph.py [--rounds 5] [--chain 5000]

(a) a 200-layer residual graph built through kc.Graph vs the same model in plain Keras;
(b) edits on it (append after the last layer, reconfigure the last, reconfigure one ~100 layers
    from the end) as a fraction of its full build through kc.Graph;
(c) a 5,000-layer chain: it builds, and the time of its depth map;
(d) a 3,000-layer chain of Dense layers drawn edit by edit (an undo step per edit) vs the same
    chain in plain Keras (issue 22: the cost of an edit must not grow with the drawing);
    --chain-class Identity draws layers without weights (Keras's own cost per layer is smallest
    there, so kerascanvas's per-edit cost weighs most).
Layers are named alike in both builds, one warm-up round runs first, the garbage collector is
paused while timing (--gc leaves it on, as in a notebook), and medians are reported (DESIGN.md:
TensorFlow caches ops by name). (a) also counts the objects the garbage collector tracks that
each build keeps alive (what makes its full collections slower and more frequent).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

import keras

import kerascanvas as kc

WIDTH = 32
BLOCKS = 100  # Dense + Add per block: 200 layers


COLLECTOR_ON = False  # --gc: time with the garbage collector running


def timed(fn):
    if not COLLECTOR_ON:
        gc.disable()
    try:
        start = time.perf_counter()
        result = fn()
        return time.perf_counter() - start, result
    finally:
        gc.enable()


def tracked_objects(fn) -> int:
    """Objects the garbage collector tracks that what `fn()` returns keeps alive."""
    gc.collect()
    before = len(gc.get_objects())
    kept = fn()
    gc.collect()
    count = len(gc.get_objects()) - before
    del kept
    return count


def interleaved(builds, rounds):
    """Median seconds of each build over `rounds` interleaved rounds, after one warm-up each, so
    drift on a busy machine hits every build alike."""
    for fn in builds.values():
        fn()  # warm-up
    times = {label: [] for label in builds}
    for _ in range(rounds):
        for label, fn in builds.items():
            times[label].append(timed(fn)[0])
    return {label: statistics.median(t) for label, t in times.items()}


def plain_residual(blocks=BLOCKS):
    x = keras.Input((WIDTH,), name="x")
    h = x
    for i in range(blocks):
        d = keras.layers.Dense(WIDTH, activation="relu", name=f"dense_{i}")(h)
        h = keras.layers.Add(name=f"add_{i}")([h, d])
    return keras.Model(x, h, name="model")


def draw_residual(g, blocks=BLOCKS):
    g.add_input((WIDTH,), name="x")
    h = "x"
    for i in range(blocks):
        d = g.add_layer("Dense", name=f"dense_{i}", units=WIDTH, activation="relu")
        g.connect(h, d)
        a = g.add_layer("Add", name=f"add_{i}")
        g.connect(h, a)
        g.connect(d, a)
        h = a


def graph_residual(blocks=BLOCKS):
    """Edit by edit, as a person drawing it: every edit is a transaction with its own undo step."""
    g = kc.Graph()
    draw_residual(g, blocks)
    assert g.model is not None
    return g


def graph_residual_batch(blocks=BLOCKS):
    """The same edits in one g.batch(): one rebuild (how import and paste build)."""
    g = kc.Graph()
    with g.batch():
        draw_residual(g, blocks)
    assert g.model is not None
    return g


def median_time(fn, rounds):
    fn()  # warm-up
    return statistics.median(timed(fn)[0] for _ in range(rounds))


def bench_build(rounds):
    """Medians of interleaved rounds, so drift on a busy machine hits all three alike."""
    builds = {"plain": plain_residual, "graph": graph_residual, "batch": graph_residual_batch}
    return interleaved(builds, rounds)


def bench_edits(rounds, full):
    def run(edit, undo):
        g = graph_residual()
        edit(g)  # warm-up
        undo(g)
        times = []
        for _ in range(rounds):
            t, _ = timed(lambda: (edit(g), g.model))
            times.append(t)
            undo(g)
        return statistics.median(times)

    def append(g):
        g.add_layer("Dense", name="tail", units=4)
        g.connect(f"add_{BLOCKS - 1}", "tail")

    def undo_append(g):
        g.undo()
        g.undo()

    flip = {"relu": "tanh", "tanh": "relu"}

    def last_config(g):
        name = f"dense_{BLOCKS - 1}"
        g.configure(name, activation=flip[g.layers[name]["config"]["activation"]])

    def middle_config(g):  # 50 blocks = 100 layers downstream
        name = f"dense_{BLOCKS // 2}"
        g.configure(name, activation=flip[g.layers[name]["config"]["activation"]])

    results = {}
    for label, edit, undo in [("append a layer after the last", append, undo_append),
                              ("configure the last Dense", last_config, lambda g: g.undo()),
                              ("configure a Dense ~100 layers from the end", middle_config,
                               lambda g: g.undo())]:
        t = run(edit, undo)
        results[label] = (t, t / full)
    return results


def bench_chain(n):
    g = kc.Graph()
    start = time.perf_counter()
    with g.batch():
        g.add_input((4,), name="x")
        prev = "x"
        for i in range(n):
            name = g.add_layer("Identity", name=f"identity_{i}")
            g.connect(prev, name)
            prev = name
    build = time.perf_counter() - start
    t_model, model = timed(lambda: g.model)
    g.forget()
    t_depth, depth = timed(lambda: g.depth)
    return build, t_model, t_depth, model is not None, max(depth.nodes_by_depth)


CHAIN_LAYERS = {"Dense": {"units": WIDTH}, "Identity": {}}


def plain_chain(n, class_name="Dense"):
    x = keras.Input((WIDTH,), name="x")
    h = x
    cls, config = getattr(keras.layers, class_name), CHAIN_LAYERS[class_name]
    for i in range(n):
        h = cls(name=f"layer_{i}", **config)(h)
    limit = sys.getrecursionlimit()  # as kc.Graph does: Keras's map_graph recurses per node
    sys.setrecursionlimit(max(limit, 20 * n + 2000))
    try:
        return keras.Model(x, h, name="model")
    finally:
        sys.setrecursionlimit(limit)


def graph_chain(n, class_name="Dense"):
    """Edit by edit: add a layer, connect it (2n undoable edits), then the model."""
    g = kc.Graph()
    g.add_input((WIDTH,), name="x")
    prev = "x"
    for i in range(n):
        name = g.add_layer(class_name, name=f"layer_{i}", **CHAIN_LAYERS[class_name])
        g.connect(prev, name)
        prev = name
    assert g.model is not None
    return g


def bench_chain_edits(n, rounds, class_name="Dense"):
    """Medians of interleaved rounds of plain Keras and kc.Graph edit by edit."""
    builds = {"plain": lambda: plain_chain(n, class_name), "graph": lambda: graph_chain(n, class_name)}
    return interleaved(builds, rounds)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chain", type=int, default=5000)
    parser.add_argument("--edit-chain", type=int, default=3000)
    parser.add_argument("--chain-class", choices=sorted(CHAIN_LAYERS), default="Dense")
    parser.add_argument("--only", choices=["a", "d"], help="run only (a)+(b)+(c) or only (d)")
    parser.add_argument("--gc", action="store_true", help="leave the garbage collector on")
    args = parser.parse_args(argv)
    global COLLECTOR_ON
    COLLECTOR_ON = args.gc
    print(f"keras {keras.__version__}, backend {keras.backend.backend()}, python {sys.version.split()[0]}"
          f", garbage collector {'on' if args.gc else 'paused'} while timing")
    if args.only != "d":
        bench_residual(args)
    if args.only != "a":
        t = bench_chain_edits(args.edit_chain, args.rounds, args.chain_class)
        print(f"(d) {args.edit_chain}-layer {args.chain_class} chain edit by edit ({2 * args.edit_chain} undoable "
              f"edits): plain Keras {t['plain']:.2f} s, kc.Graph {t['graph']:.2f} s, ratio "
              f"{t['graph'] / t['plain']:.2f} (target <= 1.2)")


def bench_residual(args):
    t = bench_build(args.rounds)
    print(f"(a) 200-layer residual build: plain Keras {t['plain'] * 1e3:.0f} ms; kc.Graph in one "
          f"batch {t['batch'] * 1e3:.0f} ms, ratio {t['batch'] / t['plain']:.2f} (target <= 1.2); "
          f"kc.Graph edit by edit ({1 + 5 * BLOCKS} undoable edits) {t['graph'] * 1e3:.0f} ms, "
          f"ratio {t['graph'] / t['plain']:.2f} (target <= 1.15)")
    print(f"(a) objects the garbage collector tracks, kept alive by one build: plain Keras "
          f"{tracked_objects(plain_residual):,}; kc.Graph edit by edit "
          f"{tracked_objects(graph_residual):,}")
    for label, (seconds, frac) in bench_edits(args.rounds, t["batch"]).items():
        print(f"(b) {label}: {seconds * 1e3:.1f} ms = {frac * 100:.1f}% of the full build")
    build, t_model, t_depth, ok, depth = bench_chain(args.chain)
    print(f"(c) {args.chain}-layer chain: drawn (one batch) in {build:.1f} s, keras.Model {t_model * 1e3:.0f} ms "
          f"(built: {ok}), depth map {t_depth * 1e3:.1f} ms (max depth {depth}; target < 100 ms)")


if __name__ == "__main__":
    main()
