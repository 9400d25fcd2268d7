"""Code export and import figures: `to_code` of a 1,000-layer graph (target: under 0.5 s), and
importing ResNet50 against `keras.Model.from_config` of its config, side by side (target: ratio
at most 1.3; the import includes copying the weights and building `g.model`). Figures are
recorded in benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_codegen.py [--rounds 7]
"""

import gc
import statistics
import time

from common import import_times, machine, residual


def main(rounds: int = 5):
    g = residual(500, activation="relu")  # 1,000 layers
    g.to_code()  # warm-up (class defaults are cached)
    times = []
    for _ in range(rounds):
        g.forget()  # depth map and model computed again, as after an edit
        gc.disable()
        start = time.perf_counter()
        code = g.to_code()
        times.append(time.perf_counter() - start)
        gc.enable()
    print(f"to_code of a {len(g.layers) - 1}-layer graph: {statistics.median(times) * 1e3:.0f} ms median "
          f"(model rebuilt each round), {len(code.splitlines())} lines (target < 500 ms)")


def resnet50():
    import keras

    return "ResNet50", keras.applications.ResNet50(weights=None)


def nested_base():
    """Transfer learning's shape: a MobileNetV2 base used as one layer under a new head."""
    import keras

    base = keras.applications.MobileNetV2(include_top=False, weights=None, input_shape=(96, 96, 3),
                                          pooling="avg")
    image = keras.Input((96, 96, 3))
    return "a model with a nested MobileNetV2 base", keras.Model(image, keras.layers.Dense(10)(base(image)))


def bench_import(rounds: int = 5, make=resnet50):
    name, model = make()
    p, d = import_times(model, rounds)
    print(f"import {name}: keras.Model.from_config {p * 1e3:.0f} ms, kc.Graph.from_model "
          f"(+ weights, + g.model) {d * 1e3:.0f} ms, ratio {d / p:.2f} (target <= 1.3)")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    print(machine())
    bench_import(rounds)
    bench_import(rounds, nested_base)
    main(rounds)
