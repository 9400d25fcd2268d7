"""Issue 41's two-stage fine-tuning from the Train panel in a real JupyterLab: a MobileNetV2 base
under a head, frozen from its box's menu, trained one epoch; unfrozen from the inspector, the
learning rate lowered in the panel, trained again. Both runs' curves stay, named "run 1" and
"run 2 · lr 1e-4" where each begins (epochs counted on); the footer's counts followed the
freezing; the kernel holds both runs. Screenshot in test-artifacts/two-stage.png."""

import pytest

from .conftest import box, canvas_cell, open_canvas, screenshot

pytestmark = pytest.mark.browser

BASED = canvas_cell("""\
base = keras.applications.MobileNetV2(weights=None, include_top=False, alpha=0.35,
                                      input_shape=(32, 32, 3), name="base")
inputs = keras.Input((32, 32, 3), name="image")
x = keras.layers.GlobalAveragePooling2D(name="pool")(base(inputs))
g = kc.Graph.from_model(keras.Model(inputs, keras.layers.Dense(10, name="head")(x)))""",
                    head="import keras, numpy as np, kerascanvas as kc",
                    then="rng = np.random.default_rng(0)\n"
                         "canvas.set_data(rng.random((32, 32, 32, 3), dtype=np.float32), "
                         "rng.integers(0, 10, 32))")

FOOTER = "() => document.querySelector('.kc-status').textContent"
FINISHED = ("(runs) => document.querySelector('.kc-training [role=status]').textContent"
            ".startsWith('finished') && document.querySelectorAll('.kc-run-mark').length === runs")


def train(page, runs: int) -> None:
    page.locator('.kc-training [aria-label="Train"]').click()
    try:
        page.wait_for_function(FINISHED, arg=runs if runs > 1 else 0, timeout=240_000)
    except Exception:
        screenshot(page, f"two-stage-run-{runs}-failed")
        raise


def test_train_the_head_then_unfreeze_and_train_again_at_a_lower_rate(lab, page):
    kernel = open_canvas(page, lab, "two_stage.ipynb", BASED, "base", timeout=120_000)
    footer = page.evaluate(FOOTER)
    box(page, "base").click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="Freeze (trainable = False)").click()
    page.wait_for_function(f"(before) => ({FOOTER})() !== before", arg=footer, timeout=30_000)
    frozen_footer = page.evaluate(FOOTER)
    assert "non-trainable" in frozen_footer

    page.locator(".kc-training summary").click()
    # the data the cell set, in words (issue 43: training you can read)
    assert page.locator('.kc-training [aria-label="training data"]').text_content() == (
        "Data: 32 samples · x (32, 32, 3) float32 · y int64, 10 classes")
    page.locator('.kc-training [aria-label="epochs"]').fill("1")
    page.locator('.kc-training [aria-label="batch size"]').fill("16")
    # no validation: each run traces one train step only (the whole base's is slow to trace)
    page.locator('.kc-training [aria-label="validation split"]').fill("0")
    train(page, 1)
    assert kernel.value("canvas.graph.keras_layer('base').trainable") is False

    box(page, "base").click()  # the inspector's trainable checkbox unfreezes it
    checkbox = page.locator('.kc-inspector input[aria-label="trainable"]')
    checkbox.wait_for(timeout=20_000)
    checkbox.click()
    page.wait_for_function(f"(before) => ({FOOTER})() !== before", arg=frozen_footer,
                           timeout=30_000)
    assert page.evaluate(FOOTER) != frozen_footer
    page.locator('.kc-training [aria-label="learning rate"]').fill("0.0001")
    train(page, 2)

    marks = page.locator(".kc-training .kc-run-mark")
    assert marks.all_text_contents() == ["run 1", "run 2 · lr 1e-4"]
    assert all(m.is_visible() for m in marks.all())
    first, second = (m.bounding_box() for m in marks.all())
    assert second["x"] > first["x"] + first["width"] or second["y"] >= first["y"] + first["height"]
    chart = page.locator(".kc-training .kc-chart").bounding_box()
    assert second["x"] + second["width"] <= chart["x"] + chart["width"] + 1  # not clipped
    # the legend names the last run's series and writes their final values
    rows = page.locator(".kc-training .u-legend .u-series:visible")
    legend = rows.all_text_contents()
    assert any(t.startswith("loss") for t in legend) and not any("run 1" in t for t in legend)
    assert not any("--" in t for t in legend), legend  # the epoch too: the last one
    # the panel says where each metric ended and where it was best, epochs counted on (run 2's
    # one epoch is epoch 2)
    summary = page.locator('.kc-training [aria-label="final metrics"]').text_content()
    loss = kernel.value("canvas.training['history']['loss'][-1]")
    assert summary.startswith("Final: loss ") and "(best, epoch 2)" in summary, summary
    assert summary.split()[2] == str(float(f"{loss:.4g}")).removesuffix(".0"), (summary, loss)
    view = kernel.value("{k: canvas.training[k] for k in ('runs', 'this_run')}")
    assert [r["number"] for r in view["runs"]] == [1]
    assert (view["this_run"]["number"], view["this_run"]["first_epoch"]) == (2, 1)
    assert view["this_run"]["learning_rate"] == 1e-4
    assert kernel.value("canvas.graph.keras_layer('base').trainable") is True
    page.locator(".kc-training .kc-chart").scroll_into_view_if_needed()
    screenshot(page, "two-stage")
