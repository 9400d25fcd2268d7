"""Issue 44 in a real JupyterLab and Chromium, on a model nobody here wrote (keras.applications'
MobileNetV2, small): after a few edits (a rename, a config, a layer removed keeping the chain
joined, a layer inserted), the toolbar's Compare… offers the drawing as imported; the changes are
marked on the drawing (pills, a ghost beside it, rewired edges), the marks' texts overlap no other
text, the selected box's differences are listed, and End compare takes every mark away."""

import pytest

from .conftest import box, canvas_cell, open_canvas, screenshot, tool
from .test_real_models_teach import overlapping

pytestmark = pytest.mark.browser

MOBILENET = canvas_cell("""import keras
model = keras.applications.MobileNetV2(weights=None, input_shape=(32, 32, 3), alpha=0.35, classes=10)
g = kc.Graph.from_model(model)""")

EDITS = """g.rename("Conv1", "stem_conv")
g.configure("predictions", units=5)
g.remove("out_relu", bridge=True)
g.add_layer("Dropout", rate=0.2, name="extra_dropout")
g.insert("extra_dropout", "global_average_pooling2d", "predictions")"""


def texts_over(page, selector: str):
    """The page rectangles of the texts matching `selector` that the stage shows."""
    return page.evaluate("""(sel) => {
        const s = document.querySelector('.kc-stage').getBoundingClientRect();
        return [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect())
          .filter(r => r.width > 0 && r.right > s.left && r.left < s.right && r.bottom > s.top && r.top < s.bottom)
          .map(r => [r.x, r.y, r.width, r.height]); }""", selector)


def overlaps(ours, others):
    return [(a, b) for a in ours for b in others if a != b
            and a[0] + 0.5 < b[0] + b[2] and b[0] + 0.5 < a[0] + a[2]
            and a[1] + 0.5 < b[1] + b[3] and b[1] + 0.5 < a[1] + a[3]]


def find(page, name):
    tool(page, "Find")
    page.locator('[aria-label="find layer"]').fill(name)
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    page.wait_for_timeout(400)  # (the view glides there)


def test_mobilenet_edits_compared_with_the_drawing_as_imported(lab, page):
    kernel = open_canvas(page, lab, "compare.ipynb", MOBILENET, "predictions", timeout=90_000)
    kernel.run(EDITS)
    box(page, "extra_dropout").wait_for(timeout=30_000)

    tool(page, "Compare…")
    page.get_by_role("menuitem", name="Compare with the drawing as imported").click()
    panel = page.locator(".kc-compare")
    panel.wait_for(state="visible", timeout=20_000)
    assert "Compared with the drawing as imported: 1 added, 1 removed, 1 renamed, 1 changed, 6 edges rewired" \
        in panel.locator(".kc-compare-summary").text_content()
    svg = page.locator(".kc-svg")
    assert svg.locator("[data-compare]").count() == 3
    for name, kind in [("extra_dropout", "added"), ("predictions", "changed"), ("stem_conv", "renamed")]:
        assert page.evaluate("""([name, kind]) => {
            const b = document.querySelector(`.kc-svg [data-name="${name}"] > rect`).getBoundingClientRect();
            const x = b.x + b.width / 2, y = b.y + b.height / 2;
            return [...document.querySelectorAll(`.kc-svg [data-compare="${kind}"] .kc-cmp-outline`)].some(m => {
                const r = m.getBoundingClientRect();
                return r.left < x && x < r.right && r.top < y && y < r.bottom; }); }""", [name, kind]), (name, kind)
    assert svg.locator('[data-ghost="out_relu"]').count() == 1
    assert svg.locator(".kc-cmp-rewired").count() == 3
    assert kernel.value("canvas.comparison['against']") == "the drawing as imported"

    # the marks' texts keep clear of every other text where the changes are
    ours = ".kc-cmp-text, .kc-cmp-ghost text"
    for name in ("predictions", "stem_conv"):
        find(page, name)
        mine = texts_over(page, ours)
        assert mine, name
        others = texts_over(page, ".kc-svg text:not(.kc-cmp-text)")
        assert not overlaps(mine, [r for r in others if r not in mine]), name
        assert not overlapping(mine), name
        screenshot(page, f"compare-mobilenet-{name}")
    assert "was Conv1" in page.locator(".kc-svg .kc-cmp-renamed .kc-cmp-text").text_content()

    # the selected box's differences, then End compare takes every mark away
    find(page, "predictions")
    box(page, "predictions").locator("rect").first.click()
    assert "units: 10 → 5" in panel.locator(".kc-compare-detail").text_content()
    page.locator('.kc-compare [aria-label="End compare"]').click()
    panel.wait_for(state="hidden", timeout=10_000)
    assert svg.locator("[data-compare], [data-ghost], .kc-cmp-rewired").count() == 0
    assert kernel.value("canvas.comparison") == {}
