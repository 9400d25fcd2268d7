"""Issue 40 in a real JupyterLab and Chromium, on a model nobody here wrote (KerasHub's GPT-2,
built small): the toolbar stays on one line in a narrow notebook (what does not fit goes into a
More menu), the node view opens readable, zooms with the wheel and keeps its labels apart, and
the forward pass says what it fed (token ids within the vocabulary, a padding mask of ones)."""

import pytest

from .conftest import box, canvas_cell, open_canvas, screenshot, tool

pytestmark = pytest.mark.browser

GPT2 = canvas_cell("""import keras_hub
backbone = keras_hub.models.GPT2Backbone(vocabulary_size=50, num_layers=2, num_heads=2,
    hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
g = kc.Graph.from_model(backbone, trust_custom=True)""")


def rects(page, selector):
    return page.locator(selector).evaluate_all(
        "els => els.filter(e => e.getClientRects().length).map(e => {"
        " const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })")


def overlapping(boxes):
    return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a[0] + 0.5 < b[0] + b[2] and b[0] + 0.5 < a[0] + a[2]
            and a[1] + 0.5 < b[1] + b[3] and b[1] + 0.5 < a[1] + a[3]]


def test_gpt2_node_view_forward_pass_and_a_narrow_toolbar(lab, page):
    pytest.importorskip("keras_hub")
    open_canvas(page, lab, "gpt2_teach.ipynb", GPT2, "token_ids", timeout=60_000)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, errors.all_text_contents()  # nothing printed red
    assert "subclass of Functional" in page.locator(".kc-notes").text_content()

    # every group fits at this width but File (last: the first into More; a canvas keeps its
    # drawing by itself)
    bar = page.locator(".kc-toolbar")
    for label in ("Undo", "Find", "Keras's walk", "Export SVG", "Export HTML"):
        assert bar.locator(f'[aria-label="{label}"]').is_visible(), label
    # the forward pass feeds token ids within the vocabulary and a mask of ones, and says so
    tool(page, "Forward pass")
    step = page.locator(".kc-teach-side .kc-player .kc-step")
    step.wait_for(timeout=30_000)
    said = step.text_content()
    assert "(an Input): " in said
    texts = []
    for _ in range(40):  # each Input's step says what it was fed
        texts.append(step.text_content())
        if sum("(an Input)" in t for t in texts) == 2:
            break
        page.keyboard.press("ArrowRight")
    joined = " ".join(texts)
    assert "token ids 1..49 (the vocabulary of 50), 8 long" in joined
    assert "a mask of ones over all 8 positions" in joined
    page.keyboard.press("Escape")

    # the node view opens at a readable scale, zooms with the wheel, keeps edge labels apart
    tool(page, "Node view")
    view = page.locator(".kc-nodeview")
    view.locator(".kc-nv-node").first.wait_for(timeout=20_000)
    name = view.locator(".kc-nv-node .kc-name").first
    assert name.bounding_box()["height"] >= 9  # no 6 px text
    labels = rects(page, ".kc-nodeview .kc-nv-label")
    assert labels and not overlapping(labels)
    before = name.bounding_box()["height"]
    b = view.bounding_box()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(200)
    assert name.bounding_box()["height"] > before * 1.3
    screenshot(page, "gpt2-node-view")
    # Find in the node view brings the layer's node to the middle of it, selected
    tool(page, "Find")
    page.locator('[aria-label="find layer"]').fill("layer_norm")
    page.wait_for_function("""() => {
        const v = document.querySelector('.kc-nodeview').getBoundingClientRect();
        const n = document.querySelector('.kc-nodeview [data-node="layer_norm:0"]');
        if (!n) return false;
        const r = n.getBoundingClientRect();
        return n.classList.contains('kc-nv-selected') && r.top >= v.top && r.bottom <= v.bottom
            && r.left >= v.left && r.right <= v.right;
    }""", timeout=10_000)
    page.keyboard.press("Escape")
    tool(page, "Node view")

    # a narrow notebook: the toolbar keeps one line; the tools that do not fit are in More
    page.set_viewport_size({"width": 700, "height": 1000})
    page.wait_for_timeout(400)
    bar = page.locator(".kc-toolbar")
    heights = {round(r[1]) for r in rects(page, ".kc-toolbar > .kc-toolbar-group, .kc-toolbar > .kc-toolbar-more")}
    assert len(heights) == 1, heights  # one line
    root, stage = page.locator(".kc-root").bounding_box(), page.locator(".kc-stage").bounding_box()
    assert stage["width"] >= 0.9 * root["width"]  # the drawing takes the width; the palette goes under
    more = page.locator(".kc-toolbar-more")
    assert more.is_visible()
    more.click()
    page.locator('.kc-toolbar-menu [aria-label="Export SVG"]').wait_for(timeout=5_000)
    screenshot(page, "toolbar-narrow-more-menu")
    page.keyboard.press("Escape")
    assert page.locator(".kc-toolbar-menu").is_hidden()
    page.set_viewport_size({"width": 1500, "height": 1000})
    page.wait_for_timeout(400)
    assert bar.locator('[aria-label="Export SVG"]').is_visible()  # on the bar again
    assert page.locator('.kc-toolbar-menu [aria-label="Export SVG"]').count() == 0
    assert box(page, "token_ids").is_visible()
