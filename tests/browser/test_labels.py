"""Issue 40, "no label over another, no text out of its box", in a real JupyterLab on the models
people bring: a KerasHub GPT2Backbone (its TransformerDecoder has six named slots), a
keras.applications MobileNetV2 base under a head (a nested model) and ResNet50 alone. After Fit
(and, for GPT-2, zoomed in where every slot name is written, and in the forward-pass view) the
page's rectangles of every visible text (box titles and subtitles, call rows, port names, shape
labels, output badges, forward-pass values) are read: no two overlap (touching within 0.5 px is
allowed) and no box's own text leaves its box. Screenshots in test-artifacts/ (light and dark)."""

import pytest

from .conftest import box, canvas_cell, dark_theme, open_canvas, screenshot, tool

pytestmark = pytest.mark.browser

GPT2 = canvas_cell("""import keras_hub
m = keras_hub.models.GPT2Backbone(num_heads=2, max_sequence_length=12, vocabulary_size=50, num_layers=1,
                                  hidden_dim=8, intermediate_dim=16)
g = kc.Graph.from_model(m, trust_custom=True)""", head="import keras, kerascanvas as kc")

MOBILENET = canvas_cell("""base = keras.applications.MobileNetV2(weights=None, include_top=False, input_shape=(32, 32, 3))
x = keras.Input((32, 32, 3), name="image")
y = keras.layers.Dense(10, name="head")(keras.layers.GlobalAveragePooling2D(name="pool")(base(x)))
g = kc.Graph.from_model(keras.Model(x, y))""", head="import keras, kerascanvas as kc")

RESNET = canvas_cell("g = kc.Graph.from_model(keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3)))",
                     head="import keras, kerascanvas as kc")

# Every visible text of the drawing (and of the teaching layer over it), by its page rectangle:
# pairs that overlap by more than half a pixel, and texts of a box outside that box's rectangle.
MEASURE = """() => {
    const svg = document.querySelector('.kc-svg');
    const seen = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter((t) => {
        if (!t.textContent.trim() || t.closest('.kc-inner')) return false;   // inner boxes: another task
        const s = getComputedStyle(t);
        if (s.display === 'none' || s.visibility === 'hidden' || +s.opacity === 0) return false;
        let p = t;
        while (p && p !== svg) { if (getComputedStyle(p).display === 'none' || +getComputedStyle(p).opacity === 0) return false; p = p.parentElement; }
        const r = t.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.right > seen.left && r.left < seen.right && r.bottom > seen.top && r.top < seen.bottom;
    });
    const what = (t) => {
        const owner = t.closest('[data-name]')?.dataset.name ?? t.closest('[data-edge-key]')?.dataset.edgeKey
            ?? t.closest('[data-value]')?.dataset.value ?? t.closest('[data-output]')?.dataset.output ?? '?';
        return `${t.getAttribute('class') ?? t.parentElement.getAttribute('class') ?? 'text'} "${t.textContent}" of ${owner}`;
    };
    // a text's own glyphs: its rectangle shrunk to the font's size (the box of a line is taller)
    const rects = texts.map((t) => {
        const r = t.getBoundingClientRect();
        const size = parseFloat(getComputedStyle(t).fontSize) * (r.height / Math.max(1, t.getBBox().height));
        const pad = Math.max(0, (r.height - size) / 2);
        return { x: r.left, y: r.top + pad, w: r.width, h: r.height - 2 * pad, t };
    });
    const overlaps = [];
    const order = rects.map((_, i) => i).sort((a, b) => rects[a].x - rects[b].x);
    for (let a = 0; a < order.length; a++) {
        const p = rects[order[a]];
        for (let b = a + 1; b < order.length; b++) {
            const q = rects[order[b]];
            if (q.x >= p.x + p.w - 0.5) break;
            if (p.y + 0.5 < q.y + q.h && q.y + 0.5 < p.y + p.h && Math.min(p.x + p.w, q.x + q.w) - q.x > 0.5)
                overlaps.push(`${what(p.t)} over ${what(q.t)}`);
        }
    }
    const outside = [];
    for (const r of rects) {
        const g = r.t.closest('.kc-box');
        if (!g || r.t.closest('.kc-ports')) continue;
        const frame = g.querySelector(':scope > rect');
        if (!frame) continue;
        const b = frame.getBoundingClientRect();
        if (r.x < b.left - 0.5 || r.x + r.w > b.right + 0.5 || r.y < b.top - 0.5 || r.y + r.h > b.bottom + 0.5)
            outside.push(`${what(r.t)} (${Math.round(r.x - b.left)}..${Math.round(r.x + r.w - b.left)} in 0..${Math.round(b.width)})`);
    }
    return { count: rects.length, kinds: [...new Set(texts.map((t) => t.getAttribute('class') ?? t.parentElement.getAttribute('class')))],
             overlaps, outside };
}"""


def fit(page):
    tool(page, "Fit")
    page.wait_for_timeout(700)  # the view glides there


def measured(page, where: str) -> dict:
    found = page.evaluate(MEASURE)
    assert found["count"] > 0, where
    assert not found["overlaps"], f"{where}: {len(found['overlaps'])} overlapping labels: {found['overlaps'][:12]}"
    assert not found["outside"], f"{where}: {len(found['outside'])} texts out of their box: {found['outside'][:12]}"
    print(f"{where}: {found['count']} texts ({', '.join(map(str, found['kinds']))}), none over another or out of its box")
    return found


def zoom_on(page, name: str, steps: int):
    """Find the box of layer `name` (centred at a readable scale), then wheel zoom in `steps`
    notches over it."""
    page.locator(".kc-svg").click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill(name)
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    page.wait_for_timeout(700)
    b = box(page, name).bounding_box()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    for _ in range(steps):
        page.mouse.wheel(0, -120)
        page.wait_for_timeout(60)
    page.wait_for_timeout(500)


def decoder_name(kernel) -> str:
    return kernel.value("next(n for n, l in canvas.graph.layers.items() if l['class_name'] == 'TransformerDecoder')")


def test_gpt2_backbone_slot_names_values_and_badges_keep_apart(lab, page):
    kernel = open_canvas(page, lab, "labels_gpt2.ipynb", GPT2, "token_ids", timeout=120_000)
    decoder = decoder_name(kernel)
    fit(page)
    measured(page, "GPT-2 after Fit")
    screenshot(page, "labels-gpt2")
    # zoomed in on the decoder: all six slot names written, whole or cut with the name on hover
    zoom_on(page, decoder, 6)
    names = page.locator(f'.kc-svg .kc-ports:has([data-port^="in:{decoder}:"]) .kc-port-label')
    assert names.count() >= 6, names.count()
    for i in range(names.count()):
        label = names.nth(i)
        text = label.text_content()
        assert text.endswith("…") == (label.locator("title").count() == 1), text
    measured(page, "GPT-2 zoomed in on its decoder")
    screenshot(page, "labels-gpt2-decoder")
    with dark_theme(page):
        screenshot(page, "labels-gpt2-decoder-dark")
    # the forward pass: a value by each wire, none over another, a badge or a box
    fit(page)
    tool(page, "Forward pass")
    player = page.locator(".kc-teach-side .kc-player")
    player.wait_for(timeout=60_000)
    player.focus()
    page.keyboard.press("End")
    page.locator(".kc-teach .kc-value").first.wait_for(timeout=60_000)
    page.wait_for_timeout(500)
    measured(page, "GPT-2 forward pass")
    screenshot(page, "labels-gpt2-forward")
    with dark_theme(page):
        screenshot(page, "labels-gpt2-forward-dark")
    page.keyboard.press("Escape")
    # left to right: slot names beside the boxes' left edges, values and badges still apart
    turn_right(page, kernel)
    measured(page, "GPT-2 left to right, after Fit")
    zoom_on(page, decoder, 6)
    measured(page, "GPT-2 left to right, zoomed in on its decoder")
    screenshot(page, "labels-gpt2-right")
    fit(page)
    if not page.locator(".kc-teach-side .kc-player").is_visible():
        tool(page, "Forward pass")
    player.wait_for(timeout=60_000)
    page.wait_for_function("""() => /Step \\d+ of \\d+/.test(document.querySelector('.kc-teach-side')?.textContent ?? '')""",
                           timeout=60_000)
    player.focus()
    page.keyboard.press("End")
    page.wait_for_function("""() => { const m = /Step (\\d+) of (\\d+)/.exec(document.querySelector('.kc-teach-side')?.textContent ?? '');
                                     return m && m[1] === m[2]; }""", timeout=60_000)
    page.locator(".kc-teach .kc-value").first.wait_for(timeout=60_000)
    page.wait_for_timeout(500)
    measured(page, "GPT-2 left to right, forward pass")
    screenshot(page, "labels-gpt2-right-forward")
    kernel.close()


def turn_right(page, kernel):
    """Press "Left to right": the kernel lays the drawing out again; every wire then runs from a
    box's right edge to a box's left edge further right."""
    page.locator('.kc-stage [aria-label="Left to right"]').click()
    page.wait_for_function("document.querySelector('[data-action=\"direction\"]')?.getAttribute('aria-pressed') === 'true'",
                           timeout=30_000)
    page.wait_for_timeout(900)  # the boxes glide there, then the view fits
    assert kernel.value("canvas.graph.direction") == "right"
    leftwards = page.evaluate("""() => [...document.querySelectorAll('.kc-svg .kc-edge .kc-edge-line')].filter((p) => {
        const n = p.getTotalLength(), a = p.getPointAtLength(0), b = p.getPointAtLength(n);
        return b.x <= a.x;
    }).length""")
    assert leftwards == 0, f"{leftwards} wires run right to left"
    fit(page)


def test_mobilenet_base_under_a_head_keeps_its_labels_apart(lab, page):
    kernel = open_canvas(page, lab, "labels_mobilenet.ipynb", MOBILENET, "head", timeout=120_000)
    fit(page)
    measured(page, "MobileNetV2 under a head, after Fit")
    screenshot(page, "labels-mobilenet")
    with dark_theme(page):
        screenshot(page, "labels-mobilenet-dark")
    turn_right(page, kernel)
    # the base expanded inside a drawing that flows right: its inside as laid out, labels apart
    page.locator(".kc-svg").click(position={"x": 5, "y": 5})
    kernel.run("canvas.graph.expand(next(n for n, l in canvas.graph.layers.items() if l['class_name'] == 'Functional'))")
    page.locator(".kc-svg .kc-inner").first.wait_for(timeout=60_000)
    fit(page)
    measured(page, "MobileNetV2 under a head, left to right, base expanded")
    screenshot(page, "labels-mobilenet-right")
    kernel.close()


def test_resnet50_keeps_its_labels_apart(lab, page):
    kernel = open_canvas(page, lab, "labels_resnet.ipynb", RESNET, "input_layer", timeout=120_000)
    fit(page)
    measured(page, "ResNet50 after Fit")
    screenshot(page, "labels-resnet")
    zoom_on(page, "conv2_block1_add", 5)  # where merge slot names and shape labels are written
    measured(page, "ResNet50 zoomed in on an Add")
    screenshot(page, "labels-resnet-add")
    with dark_theme(page):
        screenshot(page, "labels-resnet-add-dark")
    turn_right(page, kernel)
    measured(page, "ResNet50 left to right, after Fit")
    zoom_on(page, "conv2_block1_add", 5)
    measured(page, "ResNet50 left to right, zoomed in on an Add")
    screenshot(page, "labels-resnet-right")
    with dark_theme(page):
        screenshot(page, "labels-resnet-right-dark")
    kernel.close()
