"""Comparing two 2,000-layer drawings (issue 44: within a second in the kernel).

    .venv/bin/python benchmarks/bench_compare.py [--rounds 5] [--layers 2000]

A chain of Dense layers (an Input, then Dense layers) drawn with kc.Graph in one batch; a copy of
it (a second Graph drawn the same way) is then edited in known ways: one layer renamed, one
reconfigured, one frozen, one removed (its neighbours joined), one added, one layer's weights
changed. Timed: kc.compare of the two live Graphs (weights read off the live layers), and of a
snapshot of the first against the second (g.snapshot(): weights already copied); the time to take
that snapshot too. The comparison is checked to report exactly the known changes first. Medians
of `rounds` after a warm-up, garbage collector paused.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from common import machine

import kerascanvas as kc


def chain(layers: int) -> kc.Graph:
    """Drawn from the same seed each time: two chains start with the same weights."""
    import keras

    keras.utils.set_random_seed(44)
    g = kc.Graph(name=f"chain{layers}")
    with g.batch():
        g.add_input((8,), name="x")
        prev = "x"
        for i in range(layers - 1):
            name = g.add_layer("Dense", units=8, name=f"d{i}")
            g.connect(prev, name)
            prev = name
    return g


def edit(g: kc.Graph, layers: int) -> None:
    """The known changes, near the end of the chain (a short rebuild below each)."""
    last = layers - 2
    g.rename(f"d{last - 10}", "renamed")
    g.configure(f"d{last - 20}", activation="relu")
    g.set_trainable(f"d{last - 30}", False)
    g.remove(f"d{last - 40}")
    g.connect(f"d{last - 41}", f"d{last - 39}")
    g.add_layer("Dense", units=3, name="extra")
    g.connect(f"d{last}", "extra")
    layer = g.keras_layer(f"d{last - 50}")
    layer.set_weights([w + 1.0 for w in layer.get_weights()])


def check(c, layers: int) -> None:
    last = layers - 2
    assert c.added == ["extra"], c.added
    assert c.removed == [f"d{last - 40}"], c.removed
    assert c.renamed == [(f"d{last - 10}", "renamed")], c.renamed
    assert set(c.changed) == {f"d{last - 20}", f"d{last - 30}"}, c.changed
    assert len(c.rewired.only_in_a) == 2 and len(c.rewired.only_in_b) == 2, c.rewired
    trained = {n for n, v in c.weights.items() if v > 0}
    assert trained == {f"d{last - 50}"}, sorted(trained)[:5]


def median_time(fn, rounds: int) -> tuple[float, float]:
    """Median wall and CPU seconds (the CPU time of this process: what the wall time would be on
    a machine nobody else is using)."""
    fn()  # warm-up
    walls, cpus = [], []
    for _ in range(rounds):
        gc.disable()
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        gc.enable()
    return statistics.median(walls), statistics.median(cpus)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--layers", type=int, default=2000)
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * args.layers))
    print(machine())
    start = time.perf_counter()
    a, b = chain(args.layers), chain(args.layers)
    edit(b, args.layers)
    print(f"two {args.layers}-layer chains drawn and one edited in {time.perf_counter() - start:.1f} s")
    check(kc.compare(a, b), args.layers)
    snap = a.snapshot()
    check(kc.compare(snap, b), args.layers)
    check_structure = kc.compare(a, b, weights=False)
    assert check_structure.weights == {} and check_structure.renamed == [(f"d{args.layers - 12}",
                                                                           "renamed")]
    figures = [("kc.compare(graph, graph)", lambda: kc.compare(a, b)),
               ("kc.compare(snapshot, graph)", lambda: kc.compare(snap, b)),
               ("kc.compare(graph, graph, weights=False)", lambda: kc.compare(a, b, weights=False)),
               ("g.snapshot()", lambda: a.snapshot())]
    for label, fn in figures:
        wall, cpu = median_time(fn, args.rounds)
        print(f"{label}, {args.layers} layers: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU "
              f"(target < 1 s)")
    print(f"a snapshot keeps {snap.weight_bytes / 1e6:.2f} MB of weights")
    print(kc.compare(a, b))


if __name__ == "__main__":
    main()
