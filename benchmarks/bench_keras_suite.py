"""Issue 24: the corpus rebuilt from Keras's own tests (tests/keras_suite_models.py): how many pass
every check of tests/test_keras_suite.py, and the import time beside Keras's own from_config.

    PYTHONPATH=. python benchmarks/bench_keras_suite.py [rounds]

Per model: the median of `rounds` interleaved rounds (garbage collector paused, one warm-up) of
`keras.Model.from_config(model.get_config())` (Sequential.from_config for a Sequential; custom
classes in scope) and of `kc.Graph.from_model(model, trust_custom=True).model` (weights copied,
model built). The totals are the sums of those medians.
"""

from __future__ import annotations

import copy
import gc
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import keras  # noqa: E402
import keras_suite_models as suite  # noqa: E402
import test_keras_suite  # noqa: E402
from common import machine  # noqa: E402

import kerascanvas as kc  # noqa: E402

CUSTOM = {c.__name__: c for c in (suite.TrainingLayer, suite.OptionalInputLayer,
                                  suite.OptionalDenseLayer, suite.MyDense, suite.CustomDense,
                                  suite.FactorLayer, suite.ScaledTanh, suite.SubclassFunctional)}


def passes(make) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            test_keras_suite.round_trip(make(), Path(tmp))
            return "pass"
        except Exception as e:  # noqa: BLE001 - the failure is the result
            return f"FAIL {type(e).__name__}: {str(e)[:80]}"


def times(model, rounds: int) -> tuple[float, float]:
    config = model.get_config()
    cls = keras.Sequential if isinstance(model, keras.Sequential) else keras.Model
    copies = [copy.deepcopy(config) for _ in range(rounds + 1)]

    def plain():
        with keras.saving.custom_object_scope(CUSTOM):
            return cls.from_config(copies.pop())

    def drawn():
        return kc.Graph.from_model(model, trust_custom=True).model

    plain(), drawn()
    found = {"plain": [], "drawn": []}
    for _ in range(rounds):
        for label, fn in (("plain", plain), ("drawn", drawn)):
            gc.disable()
            start = time.perf_counter()
            fn()
            found[label].append(time.perf_counter() - start)
            gc.enable()
    return statistics.median(found["plain"]), statistics.median(found["drawn"])


def main(rounds: int = 3) -> None:
    warnings.simplefilter("ignore")
    print(machine())
    results, plain_total, drawn_total, timed = [], 0.0, 0.0, 0
    for make in suite.MODELS:
        verdict = passes(make)
        results.append(verdict == "pass")
        line = f"{make.__name__}: {verdict}"
        if verdict == "pass":
            try:
                plain, drawn = times(make(), rounds)
                plain_total, drawn_total, timed = plain_total + plain, drawn_total + drawn, timed + 1
                line += f"  from_config {plain * 1e3:.1f} ms, import {drawn * 1e3:.1f} ms"
            except Exception as e:  # noqa: BLE001 - Keras's from_config may refuse its own config
                line += f"  (from_config: {type(e).__name__})"
        print(line)
    refused = 0
    for make, why in suite.REFUSED:
        try:
            kc.Graph.from_model(make(), trust_custom=True)
        except kc.EditError:
            refused += 1
    print(f"pass {sum(results)}/{len(results)}; refused by design {refused}/{len(suite.REFUSED)}")
    print(f"timed {timed}: from_config {plain_total * 1e3:.0f} ms, import {drawn_total * 1e3:.0f} "
          f"ms, ratio {drawn_total / plain_total:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
