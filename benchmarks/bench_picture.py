"""Issue 19 figures: the notebook picture and the standalone HTML of ResNet50 (as the canvas opens
it, its repeated blocks folded) and of a 1,000-layer chain: the picture's size (the old picture
was one 5,500 px strip of all 177 boxes) and the time to draw it and to write `g.to_html`.
Figures are recorded in benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_picture.py [--rounds 5]
"""

import argparse
import gc
import re
import statistics
import time

import keras
from common import machine

import kerascanvas as kc
from kerascanvas.io import picture, standalone


def timed(work, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        gc.disable()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
        gc.enable()
    return statistics.median(times) * 1e3


def chain(n: int) -> kc.Graph:
    g = kc.Graph()
    prev = g.add_input((8,), name="x")
    with g.batch():
        for i in range(n):
            g.add_layer("Dense", units=8, name=f"d{i}")
            g.connect(prev, f"d{i}")
            prev = f"d{i}"
    return g


def main(rounds: int):
    print(machine())
    for label, g in [("ResNet50", kc.Graph.from_model(keras.applications.ResNet50(weights=None))),
                     ("1,000-layer chain", chain(1000))]:
        state = g.state()
        svg = picture.svg(state)
        w, h = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
        boxes = len(re.findall(r'font-weight="bold" fill="#222">', svg))
        html = standalone.html(g)
        print(f"{label}: picture {w:.0f} x {h:.0f} px, {boxes} boxes drawn of {len(g.layers)} layers, "
              f"{len(svg) / 1024:.0f} KB, drawn in {timed(lambda s=state: picture.svg(s), rounds):.1f} ms "
              f"(state {timed(g.state, rounds):.0f} ms); to_html {len(html) / 1024:.0f} KB in "
              f"{timed(lambda g=g: standalone.html(g), rounds):.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    main(parser.parse_args().rounds)
