"""Issue 20: the undo history's memory under many moves on a big drawing stays within its cap.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_history.py [--layers 2000] [--moves 10000]
                                                              [--cap-mb 16 64]

Draws a chain of `--layers` Identity layers (one all-or-nothing batch), then moves one box at a
time `--moves` times, each move one undo step (holding the point it replaced). For each cap
it prints the memory Python holds after the moves minus before (tracemalloc, the history's
share: the drawing itself does not grow), the steps kept, the steps dropped and growth / cap.
The cap holds when growth stays within the cap plus 10%.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
import warnings
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=2000)
    parser.add_argument("--moves", type=int, default=10_000)
    parser.add_argument("--cap-mb", type=float, nargs="+", default=[16.0, 64.0])
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from common import machine

    import kerascanvas as kc
    from kerascanvas import limits

    print(machine())
    for cap_mb in args.cap_mb:
        cap = int(cap_mb * (1 << 20))
        g = kc.Graph()
        prev = g.add_input((4,), name="x")
        with g.batch(all_or_nothing=True):
            for i in range(args.layers):
                g.add_layer("Identity", name=f"i{i}")
                g.connect(prev, f"i{i}")
                prev = f"i{i}"
        g.move_many({n: (0.0, float(k)) for k, n in enumerate(g.layers)})
        g.reset_history()
        gc.collect()
        with limits.allow(history_bytes=cap), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            tracemalloc.start()
            start = tracemalloc.get_traced_memory()[0]
            began = time.perf_counter()
            for k in range(args.moves):
                g.move(f"i{k % args.layers}", float(k), 1.0)
            took = time.perf_counter() - began
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - start
            tracemalloc.stop()
        print(f"layers {args.layers}, moves {args.moves}, cap {cap:,} B: grown {grown:,} B "
              f"({grown / cap:.2f} x cap), steps kept {len(g._undo)}, dropped "
              f"{g.history_dropped}, {took / args.moves * 1e3:.2f} ms per move "
              f"(tracemalloc on)")
        assert grown <= cap * 1.1, "the cap did not hold"


if __name__ == "__main__":
    main()
