"""Issue 40, "working inside a nested model", in a real JupyterLab: a MobileNetV2 base under a
head. Expanding the base glides to the top of its inside at a readable scale (text at least 9 px
high on screen), its runs of repeated blocks folded "×N"; a click on an inner box selects that
inner layer (not the base) and the inspector shows it; Delete on it is refused with the reason
and the base stays; Find reaches a layer inside (and one a folded run hides: the run unfolds).
Screenshots in test-artifacts/nested-*.png."""

import pytest

from .conftest import box, canvas_cell, dark_theme, open_canvas, screenshot

pytestmark = pytest.mark.browser

BASED = canvas_cell("""\
base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3), name="base")
inputs = keras.Input((32, 32, 3), name="image")
x = keras.layers.GlobalAveragePooling2D(name="pool")(base(inputs))
g = kc.Graph.from_model(keras.Model(inputs, keras.layers.Dense(10, name="head")(x)))""",
                    head="import keras, kerascanvas as kc")


def inner(page, path):
    return page.locator(f'.kc-svg [data-inner-path="{path}"]')


# the inner boxes on screen (inside the stage), with the rendered height of their text
VISIBLE_TEXT = """() => {
    const stage = document.querySelector('.kc-stage').getBoundingClientRect();
    const out = [];
    for (const g of document.querySelectorAll('.kc-svg [data-inner-path]')) {
        const r = g.getBoundingClientRect();
        if (r.bottom < stage.top || r.top > stage.bottom || r.right < stage.left || r.left > stage.right) continue;
        for (const t of g.querySelectorAll('text')) out.push([g.dataset.innerPath, t.getBoundingClientRect().height]);
    }
    return out;
}"""

ON_SCREEN = """(path) => {
    const stage = document.querySelector('.kc-stage').getBoundingClientRect();
    const g = document.querySelector(`.kc-svg [data-inner-path="${path}"]`);
    if (!g) return false;
    const r = g.getBoundingClientRect();
    return r.top >= stage.top && r.bottom <= stage.bottom && r.left >= stage.left && r.right <= stage.right;
}"""


def test_inside_a_nested_base_readable_selectable_read_only_and_found(lab, page):
    kernel = open_canvas(page, lab, "nested.ipynb", BASED, "base", timeout=120_000)
    page.locator('.kc-svg [data-toggle="base"]').click()
    inner(page, "base/Conv1").wait_for(timeout=30_000)
    assert kernel.value("sorted(canvas.graph.expanded)") == ["base"]
    page.wait_for_timeout(900)  # the camera glides to the inside
    screenshot(page, "nested-expanded")

    # the top of the inside on screen, readable; its runs folded
    heights = page.evaluate(VISIBLE_TEXT)
    shown = {path for path, _ in heights}
    assert "base/Conv1" in shown and len(shown) >= 3, shown
    assert min(h for _, h in heights) >= 9, heights
    assert page.locator(".kc-svg .kc-inner-folded").count() == 4
    assert "×2" in inner(page, "base/block_4_expand").text_content()
    assert inner(page, "base/block_5_expand").count() == 0  # hidden in its run's box

    # a click on an inner box selects that inner layer, not the base; the inspector shows it
    inner(page, "base/Conv1").click()
    page.wait_for_function("() => document.querySelector('.kc-svg [data-inner-path=\"base/Conv1\"]')"
                           ".getAttribute('aria-selected') === 'true'", timeout=10_000)
    assert "kc-selected" not in box(page, "base").get_attribute("class")
    page.locator(".kc-inspector", has_text="Conv1").wait_for(timeout=20_000)
    assert "base" in page.locator(".kc-inspector").text_content()
    screenshot(page, "nested-inner-selected")

    # Delete is refused with the reason; the base is still there
    page.keyboard.press("Delete")
    toast = page.locator(".kc-toast", has_text="read-only")
    toast.wait_for(timeout=10_000)
    assert "inside nested model 'base' is read-only" in toast.text_content()
    screenshot(page, "nested-delete-refused")
    assert "base" in kernel.value("list(canvas.graph.layers)")
    assert box(page, "base").count() == 1
    page.keyboard.press("Escape")

    # Find reaches a layer inside: selected, on screen
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("block_13_expand")
    page.wait_for_function("() => document.querySelector('.kc-svg [data-inner-path=\"base/block_13_expand\"]')"
                           "?.getAttribute('aria-selected') === 'true'", timeout=10_000)
    page.wait_for_function(ON_SCREEN, arg="base/block_13_expand", timeout=10_000)
    assert "0 found" not in page.locator(".kc-find").text_content()
    screenshot(page, "nested-find")

    # one a folded run hides: the run unfolds, the boxes below make room, the layer is on screen
    page.locator('[aria-label="find layer"]').fill("block_5_expand")
    inner(page, "base/block_5_expand").wait_for(timeout=10_000)
    page.wait_for_function(ON_SCREEN, arg="base/block_5_expand", timeout=10_000)
    page.keyboard.press("Escape")
    page.wait_for_timeout(500)
    screenshot(page, "nested-find-unfolded")
    heights = page.evaluate(VISIBLE_TEXT)
    assert min(h for _, h in heights) >= 9, heights
    # the base's box grew with its inside, and the head is still below it
    base_box, pool = box(page, "base").bounding_box(), box(page, "pool").bounding_box()
    assert pool["y"] >= base_box["y"] + base_box["height"] - 1

    # a double click on a folded run inside unfolds it; on one of its layers, folds it again
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("block_7_expand")
    page.wait_for_function(ON_SCREEN, arg="base/block_7_expand", timeout=10_000)
    page.keyboard.press("Escape")
    page.wait_for_timeout(400)
    assert inner(page, "base/block_8_expand").count() == 0
    inner(page, "base/block_7_expand").dblclick()
    inner(page, "base/block_8_expand").wait_for(timeout=10_000)
    page.wait_for_timeout(500)
    inner(page, "base/block_7_expand").dblclick()
    page.wait_for_function("() => !document.querySelector('.kc-svg [data-inner-path=\"base/block_8_expand\"]')", timeout=10_000)
    assert kernel.value("sorted(canvas.graph.expanded)") == ["base"]  # all of it in the browser
    with dark_theme(page):
        screenshot(page, "nested-dark")


def test_collapsed_base_find_expands_it(lab, page):
    kernel = open_canvas(page, lab, "nested-find.ipynb", BASED, "base", timeout=120_000)
    box(page, "image").click()
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("block_13_expand")
    inner(page, "base/block_13_expand").wait_for(timeout=30_000)
    assert kernel.value("sorted(canvas.graph.expanded)") == ["base"]
    page.wait_for_function(ON_SCREEN, arg="base/block_13_expand", timeout=10_000)
    screenshot(page, "nested-find-collapsed")
