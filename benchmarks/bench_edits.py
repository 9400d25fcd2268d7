"""Kernel time and bytes per edit on big graphs (issue 11), recorded in benchmarks/RESULTS.md.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_edits.py --sizes 200 2000 5000 --rounds 7

For each size, a chain Input -> Dense x n drawn in one batch, shown by a kc.Canvas whose messages
are captured instead of sent. Each figure is the kernel's whole answer to one edit, as the browser
would cause it: the Graph edit, reading what the state needs (g.model included), the diff and its
JSON. Medians of `rounds` after a warm-up, the garbage collector paused.

- view edit: move one box (the middle one) to a free spot, then back (each an undo step);
- structural edit at the end: add a Dense placed at (x, y) and connect the last layer into it
  (the front end's add_layer intent, then a connect intent), and configure the last layer;
- both compared with the full build: drawing the chain (one batch) plus its first full state.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kerascanvas as kc


def build(n: int) -> kc.Graph:
    g = kc.Graph()
    with g.batch():
        g.add_input((16,), name="x")
        prev = "x"
        for i in range(n):
            g.add_layer("Dense", units=16, name=f"d{i}")
            g.connect(prev, f"d{i}")
            prev = f"d{i}"
    return g


def timed(fn) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1000
    finally:
        gc.enable()


class Capture:
    """A Canvas whose custom messages and trait updates are kept (their JSON sizes counted)."""

    def __init__(self, g: kc.Graph):
        self.canvas = kc.Canvas(g)
        self.sent: list[dict] = []
        self.canvas.send = lambda content, buffers=None: self.sent.append(content)

    def intent(self, **message) -> dict:
        self.canvas.receive(message)
        return self.sent[-1]

    def bytes_since(self, mark: int) -> int:
        """Diff messages (the reply to the intent, a few dozen bytes, not counted)."""
        return sum(len(json.dumps(m)) for m in self.sent[mark:] if "diff" in m)


def measure(n: int, rounds: int) -> dict:
    c = Capture(build(n))  # also the warm-up of the full build
    full_build = timed(lambda: Capture(build(n)))  # draw + first model + first full state
    full_state = len(json.dumps(c.canvas.snapshot))
    g = c.canvas.graph
    last = f"d{n - 1}"

    def move():
        c.intent(kind="move", id=1, name=f"d{n // 2}", x=-5000.0, y=float(n * 50))
        c.intent(kind="move", id=2, name=f"d{n // 2}", x=-5000.0, y=float(n * 50 + 200))

    def append():
        c.intent(kind="add_layer", id=3, class_name="Dense", name="head", config={"units": 4},
                 x=-4000.0, y=float(n * 110))
        c.intent(kind="connect", id=4, src=[last, 0, 0], dst=["head", 0, None])

    def take_back():
        c.intent(kind="undo", id=5), c.intent(kind="undo", id=6)

    def configure(units):
        c.intent(kind="configure", id=7, name=last, config={"units": units})

    move(), append(), take_back(), configure(8), configure(16)  # warm-up
    moves, appends, configures, move_bytes, append_bytes, configure_bytes = [], [], [], [], [], []
    for r in range(rounds):
        mark = len(c.sent)
        moves.append(timed(move) / 2)
        move_bytes.append(c.bytes_since(mark) / 2)
        mark = len(c.sent)
        appends.append(timed(append))
        append_bytes.append(c.bytes_since(mark))
        take_back()
        mark = len(c.sent)
        units = 8 if r % 2 == 0 else 16
        configures.append(timed(lambda units=units: configure(units)))
        configure_bytes.append(c.bytes_since(mark))
    assert g.model is not None and c.sent[-1].get("ok"), c.sent[-1]
    med = statistics.median
    return {"n": n, "full_build_ms": full_build, "full_state_bytes": full_state,
            "move_ms": med(moves), "move_bytes": med(move_bytes),
            "append_ms": med(appends), "append_bytes": med(append_bytes),
            "configure_ms": med(configures), "configure_bytes": med(configure_bytes)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000, 5000])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import keras

    print(f"keras {keras.__version__}, backend {keras.backend.backend()}, python {sys.version.split()[0]}")
    for n in args.sizes:
        m = measure(n, args.rounds)
        print(f"{n} layers: full build + first state {m['full_build_ms']:.0f} ms "
              f"({m['full_state_bytes'] / 1e6:.2f} MB state); "
              f"move {m['move_ms']:.2f} ms, {m['move_bytes']:.0f} B; "
              f"append at the end (add_layer + connect) {m['append_ms']:.1f} ms "
              f"= {100 * m['append_ms'] / m['full_build_ms']:.1f}% of the build, {m['append_bytes']:.0f} B; "
              f"configure the last {m['configure_ms']:.1f} ms "
              f"= {100 * m['configure_ms'] / m['full_build_ms']:.1f}%, {m['configure_bytes']:.0f} B",
              flush=True)


if __name__ == "__main__":
    main()
