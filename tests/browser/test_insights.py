"""Training insights on the canvas in a real JupyterLab and Chromium (issue 21), and the training
panel after Ctrl+Z of a run (issue 18): it says the run was undone and greys its curves."""

import math

import pytest

from .conftest import box, canvas_cell, open_canvas, screenshot, tool

pytestmark = pytest.mark.browser

DEAD = canvas_cell("""g = kc.Graph(name="dead")
g.add_input((8, 8, 1), name="image")
g.add_layer("Flatten")
g.add_layer("Dense", units=16, activation="relu", name="hidden",
            bias_initializer={"class_name": "Constant", "config": {"value": -50.0}})
g.add_layer("Dense", units=10, name="head")
g.connect("image", "flatten")
g.connect("flatten", "hidden")
g.connect("hidden", "head")""", head="import kerascanvas as kc\nfrom kerascanvas.datasets import digits",
                   then="x, y = digits()\ncanvas.set_data(x[:512], y[:512])")


def test_insights_mark_a_dead_box_and_an_undone_run_is_said_and_greyed(lab, page):
    kernel = open_canvas(page, lab, "insights.ipynb", DEAD, "hidden")
    page.locator(".kc-training summary").click()
    page.locator('.kc-training [aria-label="epochs"]').fill("2")
    page.locator('.kc-training [aria-label="Train"]').click()
    page.wait_for_function("() => document.querySelector('.kc-training [role=status]')"
                           ".textContent.startsWith('finished')", timeout=120_000)
    assert ["hidden", "dead_units"] in kernel.value("[p[:2] for p in canvas.insight_problems]")
    # the box with dead units is marked, its message on hover as text; every box has its strip
    mark = page.locator(".kc-decor .kc-insight-problem")
    mark.first.wait_for(timeout=20_000)
    assert mark.count() == 1
    hover = mark.locator("title").text_content()
    assert "16 of 16 units are dead" in hover
    assert page.locator(".kc-decor .kc-strip").count() == 3  # flatten, hidden, head
    # drawn from the numbers read out of the kernel's strips: weight norms where there are weights
    assert page.locator(".kc-decor .kc-strip-weights").count() == 2
    assert page.locator(".kc-decor .kc-strip-activations").count() == 3
    # each strip says its lines in words on hover (its frame takes the pointer; the lines do not)
    titles = page.locator(".kc-decor .kc-strip-frame title").all_text_contents()
    assert sum("weight norm (blue)" in t for t in titles) == 2, titles
    assert all("activation spread (orange)" in t and "(epoch 1 to 2)" in t for t in titles), titles
    # select the box: its histograms over the run, with a slider over the records
    box(page, "hidden").click()
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length >= 3",
                           timeout=20_000)
    assert kernel.value("canvas.insight_focus") == "hidden"
    assert page.locator('.kc-insights [aria-label="record"]').get_attribute("max") == "1"
    assert page.locator('.kc-insights [aria-label="record"]').is_visible()
    # the panel says the box's problem too (a learner need not find the mark's hover)
    assert "16 of 16 units are dead" in page.locator(".kc-insights .kc-insight-said").text_content()
    said = page.locator(".kc-insights .kc-record-text").all_text_contents()
    assert "zeros 100% · dead units 16 of 16" in said, said  # (its output)
    assert sum(t.startswith("gradient norm 0.00 · update / weight") for t in said) == 2, said
    screenshot(page, "canvas-insights")
    box(page, "image").click()  # a box without records: the panel shows no other box's
    page.wait_for_function("() => !document.querySelector('.kc-insights .kc-histogram')", timeout=20_000)
    assert "Select a trained box" in page.locator(".kc-insights").text_content()
    assert page.locator(".kc-insights .kc-insight-said").text_content() == ""
    assert not page.locator('.kc-insights [aria-label="record"]').is_visible()  # (no empty slider)
    box(page, "hidden").click()
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length >= 3",
                           timeout=20_000)
    page.locator(".kc-insights").scroll_into_view_if_needed()
    screenshot(page, "insights-panel")
    # Ctrl+Z takes the run back: the panel says so instead of the run's last word, curves greyed
    box(page, "hidden").click()
    page.keyboard.press("Control+z")
    page.wait_for_function("() => document.querySelector('.kc-training [role=status]')"
                           ".textContent.startsWith('undone')", timeout=20_000)
    assert "Undone (Ctrl+Z)" in page.locator(".kc-train-message").text_content()
    assert "kc-undone" in page.locator(".kc-training").get_attribute("class")
    grey = page.locator(".kc-chart").evaluate("e => getComputedStyle(e).filter")
    assert "grayscale" in grey
    assert kernel.value("canvas.insights") == {}
    assert page.locator(".kc-decor .kc-insight-problem").count() == 0
    page.wait_for_function("() => document.querySelector('.kc-insights .kc-insight-said').textContent === ''",
                           timeout=20_000)  # (the run's records went, its problems with them)
    screenshot(page, "canvas-training-undone")
    page.keyboard.press("Control+Shift+z")
    page.wait_for_function("() => document.querySelector('.kc-training [role=status]')"
                           ".textContent.startsWith('finished')", timeout=20_000)
    assert "kc-undone" not in page.locator(".kc-training").get_attribute("class")
    kernel.close()


TRAINED = canvas_cell("""g = kc.Graph(name="trained")
g.add_input((8, 8, 1), name="image")
g.add_layer("Flatten")
g.add_layer("Dense", units=16, activation="relu", name="hidden")
g.add_layer("Dense", units=10, name="head")
g.connect("image", "flatten")
g.connect("flatten", "hidden")
g.connect("hidden", "head")""", head="import kerascanvas as kc\nfrom kerascanvas.datasets import digits",
                      then="x, y = digits()\ncanvas.set_data(x[:512], y[:512])\n"
                           # every epoch recorded (records are chosen within a budget: epochs
                           # this short would record only the first and last)
                           "from kerascanvas.insights import recording\n"
                           "recording.record_epoch = lambda *a, **k: True\n"
                           "canvas.fit(epochs=3, learning_rate=0.01, block=True)")


def shown_on_box(page, name):
    return " ".join(page.locator(f'.kc-teach .kc-epoch-act[data-layer="{name}"] text').all_text_contents())


def words(a):
    """What the box says of a recorded activation (js/src/training/epochs.ts: activationText)."""
    return f"mean {a['mean']:.3f} std {a['std']:.3f} zeros {math.floor(a['zeros'] * 100 + 0.5)}%"


def test_the_forward_pass_shows_each_box_output_recorded_at_a_chosen_epoch(lab, page):
    kernel = open_canvas(page, lab, "epochs.ipynb", TRAINED, "hidden")
    assert kernel.value("sorted(canvas.insights)") == ["flatten", "head", "hidden"]
    tool(page, "Forward pass")
    picker = page.locator(".kc-teach-side .kc-epoch-picker")
    picker.wait_for(timeout=30_000)
    slider = picker.locator('[aria-label="epoch"]')
    assert slider.get_attribute("max") == "2"  # epochs 1, 2, 3: the latest shown first
    page.locator('.kc-teach .kc-epoch-act[data-layer="hidden"]').wait_for(timeout=20_000)
    assert kernel.value("canvas.insight_activations['epoch']") == 3
    at = {k: kernel.value(f"canvas.activations_at({k})['hidden']") for k in (1, 3)}
    assert shown_on_box(page, "hidden") == words(at[3])
    assert page.locator(".kc-teach .kc-epoch-act").count() == 3  # every box with records
    screenshot(page, "forward-epoch-3")
    slider.focus()
    page.keyboard.press("Home")  # epoch 1: the values change to that epoch's records
    page.wait_for_function("(w) => [...document.querySelectorAll('.kc-teach .kc-epoch-act[data-layer=hidden] text')]"
                           ".map(t => t.textContent).join(' ') === w", arg=words(at[1]), timeout=20_000)
    assert words(at[1]) != words(at[3])
    assert "epoch 1 (1 of 3)" in picker.text_content()
    assert kernel.value("canvas.insight_epoch") == 1
    hover = page.locator('.kc-teach .kc-epoch-act[data-layer="hidden"] title').text_content()
    assert hover.startswith("hidden output at epoch 1 (recorded on the probe batch)")
    assert page.locator('.kc-teach .kc-epoch-act[data-layer="hidden"] .kc-epoch-hist rect').count() == 16
    screenshot(page, "forward-epoch-1")
    # unticked: the boxes show nothing recorded, and the kernel stops sending it
    picker.locator('[aria-label="Show recorded activations"]').uncheck()
    page.wait_for_function("() => !document.querySelector('.kc-teach .kc-epoch-act')", timeout=20_000)
    assert kernel.value("canvas.insight_epoch") == -1
    kernel.close()


def test_the_insights_panel_and_the_forward_pass_show_one_chosen_epoch(lab, page):
    """Moving the selected box's record slider moves the forward pass's epoch, and back."""
    kernel = open_canvas(page, lab, "epochs-linked.ipynb", TRAINED, "hidden")
    page.locator(".kc-training summary").click()
    box(page, "hidden").click()
    panel = page.locator(".kc-insights")
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length >= 3",
                           timeout=20_000)
    record = panel.locator('[aria-label="record"]')
    assert record.get_attribute("max") == "2"
    tool(page, "Forward pass")
    picker = page.locator(".kc-teach-side .kc-epoch-picker")
    page.locator('.kc-teach .kc-epoch-act[data-layer="hidden"]').wait_for(timeout=30_000)
    assert "epoch 3 (3 of 3)" in panel.text_content()
    at1 = kernel.value("canvas.activations_at(1)['hidden']")
    record.focus()
    page.keyboard.press("Home")  # the panel's slider: the boxes show epoch 1's records too
    page.wait_for_function("(w) => [...document.querySelectorAll('.kc-teach .kc-epoch-act[data-layer=hidden] text')]"
                           ".map(t => t.textContent).join(' ') === w", arg=words(at1), timeout=20_000)
    assert "epoch 1 (1 of 3)" in picker.text_content()
    assert "epoch 1 (1 of 3)" in panel.text_content()
    assert kernel.value("canvas.insight_epoch") == 1
    screenshot(page, "linked-epoch-1")
    picker.locator('[aria-label="epoch"]').focus()
    page.keyboard.press("End")  # the player's slider: the panel follows
    page.wait_for_function("() => document.querySelector('.kc-insights').textContent.includes('epoch 3 (3 of 3)')",
                           timeout=20_000)
    assert record.input_value() == "2"
    kernel.close()


def test_keys_on_the_training_panels_controls_stay_out_of_jupyterlab(lab, page):
    """JupyterLab leaves keys alone in a text field, not on a slider, a select or a button: "b"
    there inserted a cell and an arrow moved the focus to the next cell. Each control still
    takes its own keys: the record slider steps through the run with the arrows."""
    kernel = open_canvas(page, lab, "panel-keys.ipynb", TRAINED, "hidden")
    page.locator(".kc-training summary").click()
    box(page, "hidden").click()
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length >= 3",
                           timeout=20_000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    controls = ['.kc-insights [aria-label="record"]', '.kc-training select[aria-label="optimizer"]',
                '.kc-training select[multiple]', '.kc-training [aria-label="Train"]',
                '.kc-training [aria-label="epochs"]']
    for control in controls:
        target = page.locator(control)
        target.focus()
        for key in ("b", "a", "m", "ArrowDown", "ArrowUp"):
            page.keyboard.press(key)
        page.wait_for_timeout(200)
        assert cells.count() == 1, control  # no cell inserted
        assert target.evaluate("e => e === document.activeElement"), control  # focus stayed
    record = page.locator('.kc-insights [aria-label="record"]')
    record.focus()
    page.keyboard.press("End")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("() => document.querySelector('.kc-insights').textContent.includes('epoch 2 (2 of 3)')",
                           timeout=10_000)
    assert record.input_value() == "1"
    kernel.close()


NESTED = canvas_cell("""inner_in = keras.Input((64,), name="inner_in")
h = inner_in
for i in range(4):
    h = keras.layers.Dense(8, activation="relu", name=f"inner_{i}")(h)
image = keras.Input((8, 8, 1), name="image")
flat = keras.layers.Flatten(name="flatten")(image)
body = keras.Model(inner_in, h, name="body")
g = kc.Graph.from_model(keras.Model(image, keras.layers.Dense(10, name="head")(body(flat))))""",
                     head="import keras\nimport kerascanvas as kc\nfrom kerascanvas.datasets import digits",
                     then="x, y = digits()\ncanvas.set_data(x[:256], y[:256])\n"
                          "canvas.fit(epochs=2, block=True)")


def test_the_panel_says_it_shows_the_first_few_of_a_nested_models_weights(lab, page):
    kernel = open_canvas(page, lab, "nested-insights.ipynb", NESTED, "body")
    assert kernel.value("len(canvas.insights['body'][-1]['weights'])") == 8
    page.locator(".kc-training summary").click()
    box(page, "body").click()
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length >= 7",
                           timeout=20_000)  # its output and the first 6 weights
    panel = page.locator(".kc-insights")
    assert panel.locator(".kc-histogram").count() == 7
    said = panel.get_by_text("the first 6 of its 8 weights shown")
    said.scroll_into_view_if_needed()
    assert said.is_visible()
    screenshot(page, "insights-nested")
    box(page, "head").click()  # a box whose weights all show: nothing said
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length === 3",
                           timeout=20_000)
    assert "weights shown" not in panel.text_content()
    kernel.close()


def test_a_box_renamed_after_training_keeps_its_mark_strip_and_histograms(lab, page):
    kernel = open_canvas(page, lab, "renamed.ipynb", DEAD.replace(
        'canvas.set_data(x[:512], y[:512])', 'canvas.set_data(x[:512], y[:512])\n'
        'canvas.fit(epochs=2, block=True)'), "hidden")
    page.locator(".kc-training summary").click()
    box(page, "hidden").click()
    page.wait_for_function("() => document.querySelectorAll('.kc-insights .kc-histogram').length >= 3",
                           timeout=20_000)
    name_field = page.locator('.kc-inspector [aria-label="layer name"]')
    name_field.fill("dead_layer")
    name_field.press("Enter")
    box(page, "dead_layer").wait_for(timeout=20_000)
    assert kernel.value("sorted(canvas.insights)") == ["dead_layer", "flatten", "head"]
    # its mark and strip are on the renamed box, and the panel shows its histograms still
    page.locator('.kc-decor .kc-insight-problem').first.wait_for(timeout=20_000)
    assert page.locator(".kc-decor .kc-strip").count() == 3
    box(page, "dead_layer").click()
    page.wait_for_function("() => document.querySelector('.kc-insights').textContent"
                           ".includes('dead_layer: histograms over the run')", timeout=20_000)
    assert page.locator(".kc-insights .kc-histogram").count() == 3
    assert "16 of 16 units are dead" in page.locator(".kc-insights .kc-insight-said").text_content()
    screenshot(page, "insights-renamed")
    page.keyboard.press("Control+z")  # the rename undone: the records go back with the name
    box(page, "hidden").wait_for(timeout=20_000)
    assert kernel.value("sorted(canvas.insights)") == ["flatten", "head", "hidden"]
    kernel.close()
