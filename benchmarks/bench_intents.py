"""Kernel time of canvas edits on a big drawing, through `Canvas.handle` as the browser's intents
arrive (recorded in benchmarks/RESULTS.md; not a timed test).

    .venv/bin/python benchmarks/bench_intents.py [--layers 2000] [--rounds 3]

A chain of Dense layers; each round drops a Dense, connects the chain's end to it and moves it.
Printed with Python's garbage collector on and off (to tell its pauses apart; in a kernel the
canvas holds it while an intent is answered). Outside a kernel the canvas checks the model with
Keras at once, so "connect" includes that; "until its diff is sent" is what the browser waits for.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_edits import build  # the same chain: Input -> Dense x n

import kerascanvas as kc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    g = build(args.layers)
    end = f"d{args.layers - 1}"
    canvas = kc.Canvas(g)
    first_diff = []  # when the edit's first diff left (nothing listens: only the kernel's time)
    canvas.send = lambda content, buffers=None: first_diff.append(time.perf_counter()) \
        if "diff" in content and not first_diff else None
    _ = canvas.state
    for collector in ("on", "off"):
        if collector == "off":
            gc.collect()
            gc.disable()
        for _ in range(args.rounds):
            times = {}
            t = time.perf_counter()
            canvas.handle({"kind": "add_layer", "class_name": "Dense", "config": {"units": 4},
                           "x": 0, "y": 0})
            times["add_layer"] = time.perf_counter() - t
            new = list(g.layers)[-1]
            first_diff.clear()
            t = time.perf_counter()
            canvas.handle({"kind": "connect", "src": [end, 0, 0], "dst": [new, 0, None]})
            times["connect"] = time.perf_counter() - t
            times["connect until its diff is sent"] = first_diff[0] - t
            t = time.perf_counter()
            canvas.handle({"kind": "move", "name": new, "x": 5, "y": 7})
            times["move"] = time.perf_counter() - t
            print(f"collector {collector}: " + ", ".join(f"{k} {v * 1000:.0f} ms"
                                                      for k, v in times.items()))
    gc.enable()
    canvas.close()


if __name__ == "__main__":
    main()
