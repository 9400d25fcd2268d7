"""Bounded resources (issue 13): caps from kerascanvas/limits.py, each refusal naming the number
and the cap and changing nothing; each memory bomb refused in a subprocess under a memory limit."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from support import fingerprint, intent, ok, recorded_canvas

import kerascanvas as kc
from kerascanvas import limits

ROOT = Path(__file__).resolve().parents[1]


canvas = recorded_canvas



# ----- parameters and activations, counted before any weight exists ------------------------------

def test_a_huge_layer_is_refused_before_its_weights_exist():
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=10**9, name="d")  # unbuilt: no weights yet
    before = fingerprint(g)
    with pytest.raises(limits.LimitError, match=r"d would hold 4,000,000,000 parameters; the cap "
                                                r"is 200,000,000 per layer"):
        g.connect("x", "d")
    assert fingerprint(g) == before and not g.is_built("d")
    ok(g)


def test_the_python_api_raises_a_cap_explicitly():
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=4, name="d")
    with limits.allow(layer_params=10), pytest.raises(limits.LimitError,
                                                      match="16 parameters; the cap is 10"):
        g.connect("x", "d")
    g.connect("x", "d")  # 16 is fine under the default cap
    assert limits.LAYER_PARAMS == 200_000_000  # allow() puts the cap back
    with limits.allow(total_params=20):
        g.add_layer("Dense", units=1, name="e")
        with pytest.raises(limits.LimitError, match="The drawing would hold 21 parameters; the "
                                                    "cap is 20"):
            g.connect("d", "e")
    with pytest.raises(TypeError), limits.allow(colour=3):
        pass
    ok(g)


def test_activations_are_capped_for_inputs_and_layer_outputs():
    g = kc.Graph()
    with pytest.raises(limits.LimitError, match=r"2,147,483,648 elements per sample; the cap is "
                                                r"100,000,000"):
        g.add_input((2**31,))
    g.add_input((4, 4, 1), name="x")
    g.add_layer("UpSampling2D", size=(100, 100), name="up")
    with limits.allow(activation=1000):
        with pytest.raises(limits.LimitError, match=r"up call 0 would make tensors of shape "
                                                    r"\(None, 400, 400, 1\): 160,000 elements"):
            g.connect("x", "up")
        with pytest.raises(limits.LimitError):
            g.configure("x", shape=(100, 100))
    g.connect("x", "up")
    ok(g)


def test_a_nested_model_from_a_file_is_counted_before_its_weights_exist():
    import keras

    x = keras.Input((3,))
    inner = keras.Model(x, keras.layers.Dense(8)(x), name="inner")
    y = keras.Input((3,), name="y")
    model = keras.Model(y, inner(y))
    with limits.allow(layer_params=10), pytest.raises(limits.LimitError,
                                                      match="inner would hold 32 parameters"):
        kc.Graph.from_model(model)


def test_forward_steps_are_capped_before_a_sample_is_made():
    c = canvas()
    intent(c, kind="add_input", id=1, shape=[1000], name="x")
    intent(c, kind="add_layer", id=2, class_name="Identity", name="i")
    intent(c, kind="connect", id=3, src=["x", 0, 0], dst=["i", 0, None])
    with limits.allow(forward_elements=1500):
        reply = intent(c, kind="forward_steps", id=4)
        assert "2,000 elements; the cap is 1,500" in reply["error"]
        with pytest.raises(limits.LimitError):
            c.graph.forward_steps(__import__("numpy").zeros((1, 1000), "float32"))
    assert intent(c, kind="forward_steps", id=5)["ok"]


# ----- state pushes and undo history --------------------------------------------------------------

def test_a_tiny_message_cannot_amplify_into_a_huge_state_push():
    c = canvas()
    intent(c, kind="add_input", id=1, shape=[1], name="w", dtype="int32")
    vocabulary = [f"token{i}" for i in range(200)]
    with limits.allow(config_shown_bytes=100):  # a long config value is elided in the state only
        assert intent(c, kind="add_layer", id=2, class_name="IntegerLookup",
                      config={"vocabulary": list(range(200))})["ok"]
        shown = next(layer for layer in c.state["layers"] if layer["name"] == "integer_lookup")
        assert shown["config"]["vocabulary"].endswith("bytes, not shown>")
        assert len(c.graph.layers["integer_lookup"]["config"]["vocabulary"]) == 200
    size = len(json.dumps(c.graph.state()))
    with limits.allow(state_bytes=size + 100):
        before = fingerprint(c.graph)
        reply = intent(c, kind="duplicate", id=3, names=["integer_lookup"])  # would double it
        assert "bytes to send to the browser; the cap is" in reply["error"]
        assert fingerprint(c.graph) == before and not c.state.get("too_big")
    assert vocabulary  # (kept for the reader: a 2 MB config duplicated 200 times was 384 MB)


def test_small_edits_that_grow_the_whole_state_past_the_cap_are_refused():
    """The whole state is not encoded after every edit (it is bounded by the diffs since it was
    last measured): edits that each send little must still stop where the whole passes the cap."""
    c = canvas()
    intent(c, kind="add_input", id=1, shape=[4], name="x")
    cap = len(json.dumps(c.state, ensure_ascii=False).encode("utf-8")) + 3000
    with limits.allow(state_bytes=cap):
        for i in range(2, 200):
            reply = intent(c, kind="add_layer", id=i, class_name="Dense", config={"units": 2})
            assert len(json.dumps(c.state, ensure_ascii=False).encode("utf-8")) <= cap
            if "error" in reply:
                assert "bytes to send to the browser; the cap is" in reply["error"]
                break
        else:
            pytest.fail("200 layers never passed the cap")
    assert 2 < i < 200 and len(c.graph.layers) == i - 1


def test_undo_history_drops_its_oldest_steps_past_the_cap_and_says_so():
    g = kc.Graph()
    g.add_input((100,), name="x")
    g.add_layer("Dense", units=1000, name="d")  # 101,000 parameters: 404,000 bytes
    g.connect("x", "d")
    with limits.allow(history_bytes=1_000_000):
        for units in (1001, 1002):
            g.configure("d", units=units)  # each keeps the replaced layer's weights
        with pytest.warns(RuntimeWarning, match=r"cap of 1,000,000 bytes .* the oldest 4 step"):
            g.configure("d", units=1003)  # the first three steps kept nothing old: they go too
    assert g.history_dropped == 4
    steps = 0
    while g.can_undo:
        g.undo()
        steps += 1
    assert steps == 2 and g.layers["d"]["config"]["units"] == 1001
    ok(g)


# ----- files ------------------------------------------------------------------------------------

def test_a_file_over_the_archive_caps_is_refused_unread(tmp_path):
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.save(tmp_path / "small.kcanvas")
    for caps, message in (({"file_bytes": 10}, r"decompresses to [\d,]+ bytes; the cap is 10 "),
                          ({"file_entries": 1}, "holds 2 entries; the cap is 1 "),
                          ({"document_bytes": 10}, "drawing decompresses to")):
        with limits.allow(**caps), pytest.raises(limits.LimitError, match=message):
            kc.Graph.load(tmp_path / "small.kcanvas")
    assert kc.Graph.load(tmp_path / "small.kcanvas").inputs == ["x"]


def test_an_array_header_claiming_more_than_its_bytes_is_refused(tmp_path):
    import io

    import numpy as np

    g = kc.Graph()
    g.add_input((3,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    path = tmp_path / "m.kcanvas"
    g.save(path)
    with zipfile.ZipFile(path) as z:
        doc = z.read("kerascanvas.json")
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False,
                                                  "shape": (10**10,)})
    npz = io.BytesIO()
    with zipfile.ZipFile(npz, "w") as w:
        w.writestr("l1_0.npy", header.getvalue() + bytes(24))
        w.writestr("l1_1.npy", header.getvalue())
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", doc)
        z.writestr("weights.npz", npz.getvalue())
    with pytest.raises(limits.LimitError, match="claims 40,000,000,000 bytes"):
        kc.Graph.load(path)


# ----- the bombs, each in a subprocess under a memory limit -------------------------------------

MEMORY_LIMIT = 3_500 << 20  # address space; TensorFlow alone reserves about 2 GB of it
BOMBS = """
import json, resource, sys, numpy as np
import kerascanvas as kc
from kerascanvas import limits

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

c = kc.Canvas()
sent = []
c.send = lambda content, buffers=None: sent.append(content)
def intent(**m):
    c.receive(m)
    return sent[-1]
intent(kind="add_input", id=0, shape=[3], name="x")  # warm up Keras
intent(kind="add_layer", id=0, class_name="Dense", name="warm", config={"units": 2})
intent(kind="connect", id=0, src=["x", 0, 0], dst=["warm", 0, None])
c.graph.model
results = {}
base = peak()

intent(kind="add_layer", id=1, class_name="Dense", name="d", config={"units": 10**9})
results["dense_units"] = intent(kind="connect", id=2, src=["x", 0, 0], dst=["d", 0, None])
results["huge_input"] = intent(kind="add_input", id=3, shape=[2**31], name="big")
intent(kind="remove", id=4, names=["d", "warm"])
intent(kind="add_input", id=5, shape=[10**8], name="wide")
intent(kind="add_layer", id=6, class_name="Identity", name="i")
intent(kind="connect", id=7, src=["wide", 0, 0], dst=["i", 0, None])
intent(kind="remove", id=8, names=["x"])
results["forward_steps"] = intent(kind="forward_steps", id=9)
for name in sys.argv[1:]:
    try:
        kc.Canvas(path=name)
        results[name] = {"ok": True}
    except Exception as e:
        results[name] = {"error": f"{type(e).__name__}: {e}"}
print(json.dumps({"results": results, "growth": peak() - base}))
"""


def _bomb(path: Path, size: int, chunk: int = 64 << 20) -> Path:
    """A real zip bomb: a valid drawing whose weights archive decompresses to `size` zeros."""
    g = kc.Graph()
    g.add_input((3,), name="x")
    g.save(path)
    with zipfile.ZipFile(path) as z:
        doc = z.read("kerascanvas.json")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("kerascanvas.json", doc)
        with z.open("weights.npz", "w", force_zip64=True) as f:
            zeros = bytes(chunk)
            for _ in range(size // chunk):
                f.write(zeros)
    return path


def test_each_bomb_is_refused_cleanly_under_a_memory_limit(tmp_path):
    small = _bomb(tmp_path / "bomb_1g.kcanvas", 1 << 30)  # under FILE_BYTES, 5 MB on disk
    big = _bomb(tmp_path / "bomb_4g.kcanvas", limits.FILE_BYTES + (256 << 20))  # over it
    assert small.stat().st_size < 8 << 20

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    done = subprocess.run([sys.executable, "-c", textwrap.dedent(BOMBS), str(small), str(big)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
                          preexec_fn=limit, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    results = report["results"]
    assert "4,000,000,000 parameters; the cap is 200,000,000" in results["dense_units"]["error"]
    assert "2,147,483,648 elements per sample; the cap is" in results["huge_input"]["error"]
    assert "200,000,000 elements; the cap is 50,000,000" in results["forward_steps"]["error"]
    assert "LimitError" in results[str(small)]["error"]
    assert "refused unread" in results[str(small)]["error"]
    assert "decompresses to 4,563,40" in results[str(big)]["error"]
    assert report["growth"] < 300 << 20, report  # well under the limit: nothing was allocated


def test_a_pasted_big_config_shows_at_most_the_cap_per_layer():
    c = canvas()
    vocabulary = [f"{i:04d}" + "t" * 9_996 for i in range(200)]  # 2 MB from one message
    intent(c, kind="add_layer", id=1, class_name="StringLookup", name="lookup",
           config={"vocabulary": vocabulary})
    reply = intent(c, kind="duplicate", id=2, names=["lookup"] * 50)
    assert reply["ok"] and len(c.graph.layers) == 51
    size = len(json.dumps(c.state))
    assert size < 51 * (limits.CONFIG_SHOWN_BYTES + 4_000), size  # not 51 * 2 MB
    assert c.graph.layers["lookup_50"]["config"]["vocabulary"] == vocabulary
