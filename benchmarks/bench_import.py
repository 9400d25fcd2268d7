"""Issue 23: `kc.Graph.from_model(model)` against Keras's own
`keras.Model.from_config(model.get_config())`, timed in the same run on keras.applications
models (weights=None, the corpus's small inputs, classes=10): medians of interleaved rounds after
a warm-up, garbage collector paused. Goal: median ratio <= 1.2, max <= 1.5. Unlike
bench_applications.py, Keras's side here includes its get_config(), as the issue states it.

    .venv/bin/python benchmarks/bench_import.py [--rounds 3] [--all] [Name ...]
"""

import gc
import statistics
import time

import keras
from bench_applications import application
from common import machine

import kerascanvas as kc

# the eleven of the measurement: one or two of each family, small to large
ELEVEN = ["ConvNeXtTiny", "DenseNet121", "EfficientNetB0", "InceptionResNetV2", "InceptionV3",
          "MobileNet", "MobileNetV2", "MobileNetV3Small", "ResNet50", "VGG16", "Xception"]


def times(model, rounds: int) -> tuple[float, float]:
    def plain():
        return keras.Model.from_config(model.get_config())

    def drawn():
        return kc.Graph.from_model(model).model

    plain(), drawn()  # warm-up
    found = {plain: [], drawn: []}
    for _ in range(rounds):
        for fn in (plain, drawn):  # interleaved, so that load changes hit both
            gc.disable()
            start = time.perf_counter()
            fn()
            found[fn].append(time.perf_counter() - start)
            gc.enable()
    return statistics.median(found[plain]), statistics.median(found[drawn])


def main(rounds: int, names: list[str]) -> None:
    ratios = {}
    for name in names:
        p, d = times(application(name), rounds)
        ratios[name] = d / p
        print(f"| {name} | {p * 1e3:.0f} | {d * 1e3:.0f} | {d / p:.2f} |", flush=True)
        keras.backend.clear_session()
    worst = max(ratios, key=ratios.get)
    print(f"{len(ratios)} models: median ratio {statistics.median(ratios.values()):.2f} "
          f"(goal <= 1.2), max {ratios[worst]:.2f} ({worst}; goal <= 1.5)")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="every keras.applications model")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    print(machine())
    chosen = args.names or (sorted(n for n in dir(keras.applications) if n[0].isupper())
                            if args.all else ELEVEN)
    main(args.rounds, chosen)
