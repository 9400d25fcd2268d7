"""Issue 19: `g.to_html(path)` opened from disk in Chromium with the network blocked: one file,
no request leaves the page, and the read-only view works (boxes, find, fold and unfold, a box's
Keras nodes, a wire's tensor), user strings shown as text."""

import colorsys
import os
import re
import shutil
import struct
import subprocess
import zlib

import keras
import pytest

import kerascanvas as kc

pytestmark = pytest.mark.browser

HEAD = "conv2_block2_1_conv"  # ResNet50 opens with stage 2's identity blocks folded into it
MEMBER = "conv2_block3_2_conv"


def box(page, name):
    return page.locator(f'.kc-svg [data-name="{name}"]')


@pytest.fixture
def offline(browser):
    """A page on which every request but the file itself is refused and recorded."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.left = []  # requests that tried to leave the page
    page.errors = []

    def route(r):
        if r.request.url.startswith("file://") and r.request.url.endswith(".html"):
            r.continue_()
        else:
            page.left.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("request", lambda q: None if q.url.startswith(("file://", "data:", "blob:"))
            else page.left.append(q.url))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


def test_resnet50_html_opens_offline_and_its_view_works(tmp_path, offline):
    g = kc.Graph.from_model(keras.applications.ResNet50(weights=None))
    path = g.to_html(tmp_path / "resnet50.html")
    page = offline
    page.goto(path.resolve().as_uri())
    box(page, "input_layer").wait_for(timeout=30_000)
    folded = box(page, HEAD)
    assert "kc-folded" in folded.get_attribute("class")
    assert box(page, MEMBER).count() == 0
    # Enter in Find on a layer inside a folded run unfolds it and goes to the layer
    box(page, "input_layer").click()
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("conv4_block3_2_conv")
    page.wait_for_timeout(300)
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"conv4_block3_2_conv\"]')"
                           "?.classList.contains('kc-selected')", timeout=10_000)
    page.keyboard.press("Escape")
    # find: a layer's name typed shows its box
    box(page, "conv4_block3_2_conv").click()
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill("conv4_block1_0_conv")
    box(page, "conv4_block1_0_conv").wait_for(timeout=10_000)
    page.wait_for_function("() => document.querySelector('.kc-svg [data-name=\"conv4_block1_0_conv\"]')"
                           ".classList.contains('kc-selected')", timeout=10_000)
    page.keyboard.press("Escape")
    # a box's class, config, parameters and Keras nodes
    box(page, "conv4_block1_0_conv").click()
    inspector = page.locator(".kc-inspector")
    page.wait_for_function("() => document.querySelector('.kc-inspector').textContent.includes('Node 0 of conv4_block1_0_conv')",
                           timeout=10_000)
    text = inspector.text_content()
    assert "Conv2D" in text and "inbound_layers" in text
    values = inspector.evaluate("e => [...e.querySelectorAll('input, select')].map(i => i.value)")
    assert "1024" in values  # its config: filters
    assert inspector.evaluate("e => [...e.querySelectorAll('input')].every(i => i.readOnly)")
    assert "(None, 14, 14, 1024)" in box(page, "conv4_block1_0_conv").text_content()  # shapes
    assert "params" in box(page, "conv4_block1_0_conv").text_content()
    # found, the folded run's box unfolds with its "+" and folds again
    page.keyboard.press("Control+f")
    page.locator('[aria-label="find layer"]').fill(HEAD)
    page.wait_for_timeout(500)  # (the view glides to it)
    page.keyboard.press("Escape")
    box(page, HEAD).locator("[data-toggle]").click()
    box(page, MEMBER).wait_for(timeout=10_000)
    assert "kc-folded" not in (box(page, HEAD).get_attribute("class") or "")
    _standing(page, "conv3_block1_1_conv")  # (the boxes glide to their places)
    below = box(page, "conv3_block1_1_conv").bounding_box()["y"]
    assert below > box(page, MEMBER).bounding_box()["y"]  # the boxes below made room
    box(page, HEAD).click(button="right")
    page.locator(".kc-menu.kc-show .kc-menu-item", has_text="Fold repeated blocks").click()
    page.wait_for_function(f"() => !document.querySelector('.kc-svg [data-name=\"{MEMBER}\"]')", timeout=10_000)
    assert "kc-folded" in box(page, HEAD).get_attribute("class")
    # a wire's tensor
    wire = page.locator(f'.kc-svg [data-edge-key="conv2_block1_out:0:0>{HEAD}:0:0"] .kc-edge-line')
    wire.wait_for(state="attached", timeout=10_000)
    b = wire.evaluate("e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }")
    page.mouse.click(*b)
    page.wait_for_function("() => /KerasTensor|keras_history/.test(document.querySelector('.kc-inspector').textContent)",
                           timeout=10_000)
    # pan (a drag on empty space) and zoom (the wheel) move the view
    world = page.locator(".kc-world")
    stage = page.locator(".kc-stage").bounding_box()
    before = world.get_attribute("transform")
    corner = (stage["x"] + 15, stage["y"] + stage["height"] - 15)
    page.mouse.move(*corner)
    page.mouse.down()
    page.mouse.move(corner[0] + 120, corner[1] - 80, steps=6)
    page.mouse.up()
    panned = world.get_attribute("transform")
    assert panned != before
    page.mouse.wheel(0, -300)
    page.wait_for_function("t => document.querySelector('.kc-world').getAttribute('transform') !== t",
                           arg=panned, timeout=5_000)
    assert page.locator(".kc-svg [data-name]").count() > 100
    assert page.left == [], page.left
    assert page.errors == [], page.errors


def test_user_strings_are_text_and_edits_are_refused(tmp_path, offline):
    g = kc.Graph()
    g.add_input((8,), name="<img src=x onerror=alert(1)>")
    name = g.add_layer("Dense", units=4, name="<script>x<b>bold")
    g.connect("<img src=x onerror=alert(1)>", name)
    path = g.to_html(tmp_path / "strings.html")
    page = offline
    page.goto(path.resolve().as_uri())
    box(page, name).wait_for(timeout=30_000)
    assert page.locator("#kc-app img, #kc-app b, #kc-app script").count() == 0  # not markup
    assert name in box(page, name).text_content()
    shown = page.evaluate("() => [...document.querySelectorAll('.kc-toolbar button')]"
                          ".filter(b => b.offsetParent !== null).map(b => b.textContent)")
    assert shown == ["Find", "Fit", "Export SVG", "Export PNG"]  # what needs no kernel
    # an edit is refused with a message (no kernel): the drawing stays as it was
    box(page, name).click()
    page.keyboard.press("Delete")
    page.wait_for_function("() => document.body.textContent.includes('read-only view')", timeout=10_000)
    assert box(page, name).count() == 1
    assert page.left == [] and page.errors == []


def test_svg_and_png_exports_are_print_quality(tmp_path, offline):
    """Export SVG: the drawing as vector, its text as <text>, each element with the colours it
    is drawn in (a family's band keeps its hue); Export PNG: the same at twice the size."""
    import struct
    import xml.etree.ElementTree as ET

    g = kc.Graph()
    g.add_input((28, 28, 1), name="image")
    g.add_layer("Conv2D", filters=4, kernel_size=3, name="conv")
    g.connect("image", "conv")
    page = offline
    page.goto(g.to_html(tmp_path / "m.html").resolve().as_uri())
    box(page, "conv").wait_for(timeout=30_000)
    with page.expect_download() as svg_download:
        page.get_by_role("button", name="Export SVG").click()
    svg_path = tmp_path / "m.svg"
    svg_download.value.save_as(svg_path)
    root = ET.parse(svg_path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "conv" in texts and "image" in texts and any("(None, 26, 26, 4)" in (t or "") for t in texts)
    band = next(e for e in root.iter(f"{ns}path") if "kc-family" in (e.get("class") or ""))
    fill = re.search(r"fill:\s*(rgb\([^)]*\))", band.get("style")).group(1)
    assert fill not in ("rgb(0, 0, 0)", "rgb(255, 255, 255)")  # the family's colour, not a default
    width, height = float(root.get("width")), float(root.get("height"))
    with page.expect_download() as png_download:
        page.get_by_role("button", name="Export PNG").click()
    png = png_download.value.path().read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (round(width * 2), round(height * 2))
    assert page.left == [] and page.errors == []


def _standing(page, name: str) -> None:
    """Wait until box `name` has stopped gliding (its place the same over 150 ms)."""
    last = None
    for _ in range(60):
        place = box(page, name).bounding_box()
        if place is not None and place == last:
            return
        last = place
        page.wait_for_timeout(150)
    raise AssertionError(f"box {name} never stood still")


def _pixels(data: bytes) -> list[tuple[int, int, int]]:
    """Every pixel (RGB) of an 8-bit RGB or RGBA PNG (no imaging library needed)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, out, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):  # PNG's row filters undone
            a, b = (line[i - bpp] if i >= bpp else 0), prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                near = min((abs(p - a), 0, a), (abs(p - b), 1, b), (abs(p - c), 2, c))[2]
                line[i] = (line[i] + near) & 255
        out += [tuple(line[x * bpp:x * bpp + 3]) for x in range(width)]
        prev = line
    return out


def test_the_file_opens_from_disk_in_firefox_too(tmp_path):
    """Firefox (Debian's firefox-esr, headless) takes a screenshot of the file opened from disk:
    the boxes are drawn (the Input box's family band is in it), so its script ran there too."""
    firefox = os.environ.get("FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    if firefox is None:
        pytest.fail("no Firefox: run `bash .ci/setup` (installs firefox-esr) or set FIREFOX")
    g = kc.Graph()
    g.add_input((8,), name="features")
    g.add_layer("Dense", units=4, name="hidden")
    g.connect("features", "hidden")
    page = g.to_html(tmp_path / "m.html")
    shot, profile = tmp_path / "shot.png", tmp_path / "profile"
    profile.mkdir()
    subprocess.run([firefox, "--headless", "--no-remote", "--profile", str(profile),
                    "--window-size=1200,800", "--screenshot", str(shot), page.resolve().as_uri()],
                   env={**os.environ, "HOME": str(profile)}, timeout=120, check=True,
                   capture_output=True)
    band = tuple(round(v * 255) for v in colorsys.hls_to_rgb(210 / 360, 0.52, 0.62))  # Input's
    drawn = sum(1 for p in _pixels(shot.read_bytes()) if all(abs(a - b) <= 4 for a, b in zip(p, band)))
    assert drawn > 200
