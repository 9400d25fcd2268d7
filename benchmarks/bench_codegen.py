"""Code export figure: `to_code` of a 1,000-layer graph (target: under 0.5 s).

    .venv/bin/python benchmarks/bench_codegen.py
"""

import gc
import statistics
import time

import kerascanvas as kc


def residual(blocks: int) -> kc.Graph:
    g = kc.Graph()
    with g.batch():
        g.add_input((16,), name="x")
        h = "x"
        for i in range(blocks):
            d = g.add_layer("Dense", name=f"dense_{i}", units=16, activation="relu")
            g.connect(h, d)
            a = g.add_layer("Add", name=f"add_{i}")
            g.connect(h, a)
            g.connect(d, a)
            h = a
    return g


def main():
    g = residual(500)  # 1,000 layers
    g.to_code()  # warm-up (class defaults are cached)
    times = []
    for _ in range(5):
        g._forget()  # depth map and model computed again, as after an edit
        gc.disable()
        start = time.perf_counter()
        code = g.to_code()
        times.append(time.perf_counter() - start)
        gc.enable()
    print(f"to_code of a {len(g.layers) - 1}-layer graph: {statistics.median(times) * 1e3:.0f} ms median "
          f"(model rebuilt each round), {len(code.splitlines())} lines (target < 500 ms)")


if __name__ == "__main__":
    main()
