"""The widget fuzz (tests/test_widget_fuzz.py) as a long run: steps/s and memory growth.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_fuzz.py [--steps 50000]

Runs the same state machine as the test suite (random valid and hostile intents through
the widget's comm, invariants after every step, undo to an empty drawing at the end of
each run of 50 steps), after a 500-step warm-up, and prints steps, steps/s, RSS before and after
and its growth per 10,000 steps. A failure raises, with hypothesis's shrunk example.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import gc

    import keras
    import test_widget_fuzz as fuzz
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    counted = [0]
    started: list[float] = []
    check = fuzz.WidgetIntents.network_matches_drawing

    def counting(self):
        counted[0] += 1
        if counted[0] % 5000 == 0 and started:  # progress, so that a cut-off run still tells
            print(f"  {counted[0]} steps, {time.perf_counter() - started[0]:.0f} s, "
                  f"RSS {rss_mb():.0f} MB", flush=True)
        check(self)

    fuzz.WidgetIntents.network_matches_drawing = fuzz.invariant()(counting)

    def run(steps: int) -> None:
        run_state_machine_as_test(fuzz.WidgetIntents, settings=settings(
            max_examples=max(1, steps // fuzz.STEPS_PER_RUN),
            stateful_step_count=fuzz.STEPS_PER_RUN, deadline=None, database=None,
            suppress_health_check=list(HealthCheck), derandomize=False))

    run(500)  # warm-up: imports, TensorFlow's first calls
    gc.collect()
    counted[0] = 0
    before = rss_mb()
    start = time.perf_counter()
    started.append(start)
    print(f"after warm-up: RSS {before:.0f} MB", flush=True)
    while counted[0] < args.steps:  # a run of 50 may end early: go on until enough steps ran
        run(min(10_000, 2 * (args.steps - counted[0]) + 100))
    elapsed = time.perf_counter() - start
    gc.collect()
    after = rss_mb()
    steps = counted[0]
    print(f"keras {keras.__version__}, backend {keras.backend.backend()}, python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    print(f"{steps} steps (invariant checks) in {elapsed:.0f} s: {steps / elapsed:.1f} steps/s")
    print(f"RSS {before:.0f} MB -> {after:.0f} MB: {after - before:+.0f} MB, "
          f"{(after - before) / max(steps, 1) * 10_000:+.1f} MB per 10,000 steps")


if __name__ == "__main__":
    main()
