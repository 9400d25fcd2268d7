"""Issue 20's long run of the stateful edit fuzz (tests/test_graph_stateful.py), with what its
hostile steps met.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_stateful.py [--examples 200] [--fits 2]

Runs LongEditSequences (60 steps a sequence: edits, undo/redo, save/load, files whose fold
lists repeat names up to 20,000 times, weights archives holding a 1-4 MB compression bomb,
Trainer.fit interrupted at a random line), invariants after every step, and prints the time,
RSS before and after, and how often each hostile step loaded, was refused or ran.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--fits", type=int, default=2)
    args = parser.parse_args()
    os.environ["KERASCANVAS_FUZZ_FITS"] = str(args.fits)
    os.environ["KERASCANVAS_LONG_FUZZ_EXAMPLES"] = str(args.examples)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    root = Path(__file__).resolve().parents[1]
    sys.path[:0] = [str(root / "tests"), str(Path(__file__).resolve().parent)]
    import test_graph_stateful as fuzz
    from common import machine
    from hypothesis.stateful import run_state_machine_as_test

    print(machine())
    before, began = rss_mb(), time.perf_counter()
    run_state_machine_as_test(fuzz.LongEditSequences,
                              settings=fuzz.LongEditSequences.TestCase.settings)
    took = time.perf_counter() - began
    print(f"{args.examples} sequences of up to 60 steps in {took:.0f} s; RSS {before:.0f} -> "
          f"{rss_mb():.0f} MB")
    for what, count in sorted(fuzz.SEEN.items()):
        print(f"  {what}: {count}")


if __name__ == "__main__":
    main()
