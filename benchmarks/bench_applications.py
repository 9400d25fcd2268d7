"""Import of every keras.applications model against `keras.Model.from_config` of its config (issue
10: median ratio <= 1.2, none above 1.4). The import includes copying the weights and building
`g.model`; both sides make layers with the same names (from the same config). Models are built
with weights=None at the corpus's small input size (tests/test_corpus.py), classes=10. Figures
are recorded in benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_applications.py [--rounds 3] [Name ...]
"""

import statistics

import keras
from common import import_times, machine

SIZES = {"InceptionV3": 75, "InceptionResNetV2": 75, "Xception": 71}


def application(name):
    size = SIZES.get(name, 32)
    return getattr(keras.applications, name)(weights=None, input_shape=(size, size, 3), classes=10)


def bench(name: str, rounds: int) -> tuple[float, float]:
    return import_times(application(name), rounds)


def main(rounds: int, names: list[str]):
    names = names or sorted(n for n in dir(keras.applications) if n[0].isupper())
    ratios = {}
    for name in names:
        p, d = bench(name, rounds)
        ratios[name] = d / p
        print(f"{name:20s} from_config {p * 1e3:6.0f} ms  from_model {d * 1e3:6.0f} ms  "
              f"ratio {d / p:.2f}", flush=True)
        keras.backend.clear_session()
    values = sorted(ratios.values())
    worst = max(ratios, key=ratios.get)
    print(f"{len(ratios)} models: median ratio {statistics.median(values):.2f} (target <= 1.2), "
          f"max {ratios[worst]:.2f} ({worst}; target <= 1.4)")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    print(machine())
    main(args.rounds, args.names)
