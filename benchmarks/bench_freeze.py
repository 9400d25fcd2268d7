"""Freezing on a 150-layer base (issue 41), recorded in benchmarks/RESULTS.md.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_freeze.py --rounds 7

MobileNetV2(weights=None, include_top=False, alpha=0.35, 32x32x3: 154 layers) under a new head,
imported with kc.Graph.from_model and shown by a kc.Canvas whose messages are captured. Each figure
is the kernel's whole answer to the intent as the browser sends it (the edit, what the state needs,
the diff and its JSON), against plain Keras setting the same flags on its own model
(`base.trainable = False`; the loop of the fine-tuning guide), and against the full import. Freezing
is a flag on the live layers: nothing is made again, so it should cost a few milliseconds.

- freeze the base (set_trainable intent on the nested box), then unfreeze it;
- unfreeze one inner layer by path ("base/block_13_expand");
- "freeze everything before this box" on a 150-layer flat drawing (the same base imported alone,
  its layers as boxes), at the last layer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import keras

import kerascanvas as kc
from benchmarks.bench_edits import Capture, timed
from benchmarks.common import machine


def base_model() -> keras.Model:
    return keras.applications.MobileNetV2(weights=None, include_top=False, alpha=0.35,
                                          input_shape=(32, 32, 3))


def under_head(base: keras.Model) -> keras.Model:
    x = keras.Input((32, 32, 3))
    y = keras.layers.Dense(10)(keras.layers.GlobalAveragePooling2D()(base(x)))
    return keras.Model(x, y)


def median_ms(fn, rounds: int) -> float:
    fn()  # warm-up
    return statistics.median(timed(fn) for _ in range(rounds))


def measure(rounds: int) -> list[tuple[str, float, float | None, int | None]]:
    rows = []
    plain_base = base_model()
    plain = under_head(plain_base)
    nested = Capture(kc.Graph.from_model(plain))
    base = next(n for n, l in nested.canvas.graph.layers.items()
                if l["class_name"] in ("Functional", "Model"))
    import_ms = median_ms(lambda: kc.Graph.from_model(plain).model, max(1, rounds // 3))

    def flag(capture: Capture, name: str, value: bool) -> int:
        mark = len(capture.sent)
        reply = capture.intent(kind="set_trainable", id=1, name=name, trainable=value)
        assert reply.get("ok", True), reply
        return capture.bytes_since(mark)

    def plain_flag(layer, value):
        def run():
            layer.trainable = value
        return run

    sizes = {}

    def toggle_base():
        sizes["base"] = flag(nested, base, False)
        flag(nested, base, True)

    def plain_toggle_base():
        plain_base.trainable = False
        plain_base.trainable = True

    rows.append(("freeze + unfreeze the nested base (2 intents)", median_ms(toggle_base, rounds),
                 median_ms(plain_toggle_base, rounds), sizes["base"]))

    inner = f"{base}/block_13_expand"

    def toggle_inner():
        sizes["inner"] = flag(nested, inner, False)
        flag(nested, inner, True)

    plain_inner = plain_base.get_layer("block_13_expand")
    rows.append(("freeze + unfreeze one inner layer by path (2 intents)",
                 median_ms(toggle_inner, rounds),
                 median_ms(plain_flag(plain_inner, False), rounds) * 2, sizes["inner"]))

    flat = Capture(kc.Graph.from_model(base_model()))
    g = flat.canvas.graph
    last = list(g.layers)[-1]
    boxes = len(g.layers)

    def cut():
        mark = len(flat.sent)
        reply = flat.intent(kind="freeze_before", id=1, name=last)
        assert reply.get("ok", True), reply
        sizes["cut"] = flat.bytes_since(mark)
        g.undo()

    def plain_cut():  # the guide's loop: every layer before the last
        for layer in plain_base.layers[:-1]:
            layer.trainable = False
        for layer in plain_base.layers[:-1]:
            layer.trainable = True

    rows.append((f"freeze everything before the last of {boxes} boxes, then undo",
                 median_ms(cut, rounds), median_ms(plain_cut, rounds), sizes["cut"]))
    rows.append(("(for scale) import the model under a head and build it", import_ms, None, None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(machine())
    for label, ms, plain_ms, size in measure(args.rounds):
        extra = "" if plain_ms is None else f"; plain Keras {plain_ms:.2f} ms"
        extra += "" if size is None else f"; diff {size:,} bytes"
        print(f"{label}: {ms:.1f} ms{extra}")


if __name__ == "__main__":
    main()
