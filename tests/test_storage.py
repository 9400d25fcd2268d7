"""Save and load: the same drawing, positions and weights; bad files fail and change nothing."""

import io
import json
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from support import fingerprint, ok
from test_codegen import STEPS, random_graph
from test_import import nested_models

import kerascanvas as kc
from kerascanvas.io import storage


def drawing():
    g = kc.Graph(name="saved")
    g.add_input((4,), name="left")
    g.add_input((4,), name="right")
    g.add_layer("Dense", units=3, name="shared")
    g.connect("left", "shared")
    g.connect("right", "shared", call=1)
    g.add_layer("Concatenate", name="cat")
    g.connect(("shared", 1, 0), "cat")
    g.connect(("shared", 0, 0), "cat")
    g.add_layer("Dense", units=2, name="pending")  # no input yet: saved as drawn
    g.add_call("pending")
    g.move("cat", 300, 40)
    g.keras_layer("shared").set_weights([np.full((4, 3), 0.25, "float32"), np.arange(3, dtype="float32")])
    return g


def test_save_and_load_round_trip(tmp_path):
    g = drawing()
    g.save(tmp_path / "m.kcanvas")
    h = ok(kc.Graph.load(tmp_path / "m.kcanvas"))
    assert h.name == "saved" and list(h.layers) == list(g.layers)
    assert h.edges == g.edges and h.pinned == g.pinned and h.positions["cat"] == (300.0, 40.0)
    assert h.calls("pending") == 2 and {n: dict(v["config"]) for n, v in h.layers.items()} == {
        n: dict(v["config"]) for n, v in g.layers.items()}
    for name in ("shared", "cat"):
        for a, b in zip(h.keras_layer(name).get_weights(), g.keras_layer(name).get_weights()):
            np.testing.assert_array_equal(a, b)


def same_drawing(g, h):
    """Layers, configs, calls, edges, positions, outputs and every weight (not object ids)."""
    a, b = fingerprint(g), fingerprint(h)
    assert json.dumps(a[0]) == json.dumps(b[0])  # configs as JSON: tuples read back as lists
    assert a[1:5] == b[1:5]
    assert {n: v[3] for n, v in a[5].items()} == {n: v[3] for n, v in b[5].items()}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_random_drawings_survive_save_and_load(tmp_path_factory, steps):
    g = random_graph(steps)
    for name in list(g.layers)[1:3]:
        g.move(name, 10.5, -3)
    path = tmp_path_factory.mktemp("random") / "g.kcanvas"
    g.save(path)
    h = ok(kc.Graph.load(path))
    same_drawing(g, h)
    assert h.model.get_config() == g.model.get_config() and not h.can_undo


def test_nested_models_survive_save_and_load(tmp_path):
    g = kc.Graph.from_model(nested_models())
    g.expand("inner")
    g.save(tmp_path / "n.kcanvas")
    h = ok(kc.Graph.load(tmp_path / "n.kcanvas"))
    same_drawing(g, h)
    assert h.specs["inner"].slots == g.specs["inner"].slots
    assert h.expanded == {"inner"} and h.positions == g.positions
    assert json.dumps(h.model.get_config()) == json.dumps(g.model.get_config())


def test_an_interrupted_save_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "m.kcanvas"
    drawing().save(path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(storage.zipfile.ZipFile, "writestr", boom)
    with pytest.raises(OSError, match="disk full"):
        drawing().save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.kcanvas"]  # no temporary file left


def write(path, document, weights=b""):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", json.dumps(document))
        z.writestr("weights.npz", weights or _empty_npz())


def _empty_npz():
    import io

    buffer = io.BytesIO()
    np.savez(buffer)
    return buffer.getvalue()


def good_document():
    return {"format": "kerascanvas", "version": 1, "name": "m", "pinned": {}, "outputs": [],
            "outputs_only": False, "edges": [],
            "layers": [{"name": "x", "class_name": "InputLayer", "calls": 1, "weights": 0,
                        "config": {"batch_shape": [None, 3], "dtype": "float32"}}]}


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(version=2), "newer kerascanvas"),
    (lambda d: d.update(format="other"), "not a kerascanvas file"),
    (lambda d: d.update(layers="x"), "'layers' must be a list"),
    (lambda d: d["layers"].append({"name": "evil", "class_name": "Lambda", "calls": 1,
                                   "weights": 0, "config": {}}), "not a layer the canvas offers"),
    (lambda d: d["layers"].append({"name": "os.system", "class_name": "keras.src.x.Y", "calls": 1,
                                   "weights": 0, "config": {}}), "not a layer the canvas offers"),
    (lambda d: d.update(edges=[[["x", 0, 0], ["nowhere", 0, 0]]]), "no layer named"),
    (lambda d: d.update(edges=[["x"]]), "invalid drawing|malformed"),
    (lambda d: d.update(expanded="x"), "'expanded' must be a list of layer names"),
    (lambda d: d.update(expanded=["x"]), r"'x' \(InputLayer\) is not a nested model"),
    (lambda d: d.update(folded={"x": 1}), "'folded' must be a list of layer names"),
    (lambda d: d.update(folded=["x"]), "'x' is not part of a run of repeated blocks"),
])
def test_bad_files_fail_clearly(tmp_path, change, message):
    document = good_document()
    change(document)
    write(tmp_path / "bad.kcanvas", document)
    with pytest.raises(ValueError, match=message):
        kc.Graph.load(tmp_path / "bad.kcanvas")


def test_truncated_and_corrupt_files(tmp_path):
    path = tmp_path / "m.kcanvas"
    drawing().save(path)
    data = path.read_bytes()
    (tmp_path / "cut.kcanvas").write_bytes(data[: len(data) // 2])
    with pytest.raises(kc.EditError, match="corrupt or truncated"):
        kc.Graph.load(tmp_path / "cut.kcanvas")
    (tmp_path / "noise.kcanvas").write_bytes(b"\x00" * 100)
    with pytest.raises(kc.EditError, match="corrupt or truncated"):
        kc.Graph.load(tmp_path / "noise.kcanvas")
    with pytest.raises(kc.EditError, match="no file"):
        kc.Graph.load(tmp_path / "missing.kcanvas")


def test_weights_that_do_not_fit_are_refused(tmp_path):
    import io

    document = good_document()
    document["layers"].append({"name": "d", "class_name": "Dense", "calls": 1, "weights": 2,
                               "config": {"units": 2}})
    document["edges"] = [[["x", 0, 0], ["d", 0, 0]]]
    buffer = io.BytesIO()
    np.savez(buffer, l1_0=np.zeros((5, 2), "float32"), l1_1=np.zeros(2, "float32"))
    write(tmp_path / "w.kcanvas", document, buffer.getvalue())
    with pytest.raises(kc.EditError, match="shape"):
        kc.Graph.load(tmp_path / "w.kcanvas")


def test_a_canvas_with_a_file_survives_a_kernel_restart(tmp_path):
    path = tmp_path / "c.kcanvas"
    canvas = kc.Canvas(path=str(path))
    sent = []
    canvas.send = lambda content, buffers=None: sent.append(content)
    canvas.graph.add_input((3,), name="x")
    canvas.receive({"kind": "save", "id": 1})
    assert sent[-1] == {"id": 1, "ok": True, "result": str(path)}
    restarted = kc.Canvas(path=str(path))  # a new kernel: the file brings the drawing back
    assert list(restarted.graph.layers) == ["x"]
    canvas.graph.add_layer("Dense", units=2)
    canvas.receive({"kind": "load", "id": 2})
    assert list(canvas.graph.layers) == ["x"] and [l["name"] for l in canvas.state["layers"]] == ["x"]
    path.write_bytes(b"garbage")
    canvas.receive({"kind": "load", "id": 3})
    assert "corrupt" in sent[-1]["error"] and list(canvas.graph.layers) == ["x"]
    bare = kc.Canvas()
    bare.send = lambda content, buffers=None: sent.append(content)
    bare.receive({"kind": "save", "id": 4})
    assert "no file" in sent[-1]["error"]


def test_a_file_nested_too_deeply_for_json_fails_clearly(tmp_path):
    path = tmp_path / "deep.kcanvas"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", "[" * 200_000)
        z.writestr("weights.npz", b"")
    with pytest.raises(kc.EditError, match="not a readable kerascanvas file"):
        kc.Graph.load(path)


def _chain_cut_after_a(units):
    """x (4,) -> a Dense(3) -> b Dense(units), built: b holds weights for a (3,) input."""
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=3, name="a")
    g.add_layer("Dense", units=units, name="b")
    g.connect("x", "a")
    g.connect("a", "b")
    return g


def test_a_box_left_pending_keeps_its_trained_weights_through_save_and_load(tmp_path):
    """A box whose input was removed keeps its weights in the kernel; saving it wrote them, but
    loading refused the file ("the weights of 'b' are missing or do not match its layer"). Now
    the file loads, and the weights go to the box's layer when it is called again."""
    import numpy as np

    g = _chain_cut_after_a(units=2)
    trained = g.keras_layer("b").get_weights()
    g.remove("a")
    g.save(tmp_path / "one.kcanvas")
    h = kc.Graph.load(tmp_path / "one.kcanvas")
    assert not h.is_built("b")
    h.save(tmp_path / "two.kcanvas")  # saved again while still pending: kept
    h = kc.Graph.load(tmp_path / "two.kcanvas")
    h.rename("b", "head")  # a rename carries them, as it carries a live layer's
    h.add_layer("Dense", units=3, name="a2")
    h.connect("x", "a2")
    h.connect("a2", "head")
    assert all(np.array_equal(u, v) for u, v in zip(h.keras_layer("head").get_weights(), trained))
    h.undo()  # the call undone: the weights wait again
    h.connect("a2", "head")
    assert all(np.array_equal(u, v) for u, v in zip(h.keras_layer("head").get_weights(), trained))
    ok(h)


def test_pending_weights_that_do_not_fit_the_new_input_are_dropped(tmp_path):
    g = _chain_cut_after_a(units=2)
    g.remove("a")
    g.save(tmp_path / "m.kcanvas")
    h = kc.Graph.load(tmp_path / "m.kcanvas")
    h.connect("x", "b")  # a (4,) input: the saved (3, 2) kernel does not fit
    assert [w.shape for w in h.keras_layer("b").get_weights()] == [(4, 2), (2,)]
    h.remove("b")
    h.add_layer("Dense", units=2, name="b")  # a new box of the same name starts fresh
    h.add_layer("Dense", units=3, name="c")
    h.connect("x", "c")
    h.connect("c", "b")
    ok(h)


def test_pending_weights_in_a_file_are_capped(tmp_path):
    g = _chain_cut_after_a(units=64)
    g.remove("a")
    g.save(tmp_path / "m.kcanvas")
    with kc.limits.allow(pending_weight_bytes=100), pytest.raises(kc.EditError,
                                                                  match="refused unread"):
        kc.Graph.load(tmp_path / "m.kcanvas")


# ----- issue 38: saving as editors do, concurrent saves, clean refusals --------------------------

def _temporaries(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_saving_through_a_symlink_writes_the_file_it_names(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "m.kcanvas"
    kc.Graph(name="old").save(target)
    link = tmp_path / "link.kcanvas"
    link.symlink_to("real/m.kcanvas")  # relative, as people make them
    drawing().save(link)
    assert link.is_symlink() and kc.Graph.load(target).name == "saved"
    assert not _temporaries(tmp_path) and not _temporaries(tmp_path / "real")
    dangling = tmp_path / "new.kcanvas"  # a link to a file not yet made: saving makes it
    dangling.symlink_to("real/new.kcanvas")
    drawing().save(dangling)
    assert dangling.is_symlink()
    assert kc.Graph.load(tmp_path / "real" / "new.kcanvas").name == "saved"


def test_a_read_only_file_is_not_replaced(tmp_path):
    path = tmp_path / "m.kcanvas"
    kc.Graph(name="old").save(path)
    path.chmod(0o444)
    before = path.read_bytes()
    with pytest.raises(storage.SaveError, match=r"m\.kcanvas.*read-only"):
        drawing().save(path)
    assert path.read_bytes() == before and (path.stat().st_mode & 0o777) == 0o444
    assert not _temporaries(tmp_path)
    link = tmp_path / "link.kcanvas"  # through a link, the file it names decides
    link.symlink_to(path)
    with pytest.raises(storage.SaveError, match="read-only"):
        drawing().save(link)
    assert path.read_bytes() == before


def test_saves_of_one_path_from_many_threads_never_fail_each_other(tmp_path):
    import threading

    path = tmp_path / "m.kcanvas"
    graphs = [drawing() for _ in range(8)]
    errors = []

    def save_often(g):
        try:
            for _ in range(20):
                g.save(path)
        except Exception as e:  # noqa: BLE001 - collected, asserted below
            errors.append(e)

    threads = [threading.Thread(target=save_often, args=(g,)) for g in graphs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    same_drawing(graphs[0], ok(kc.Graph.load(path)))
    assert not _temporaries(tmp_path)


def _save_often(path, times):  # (a child process: exit 1 on any failure)
    import os

    g = kc.Graph(name="child")
    g.add_input((3,), name="x")  # no weights: the child touches no backend state
    try:
        for _ in range(times):
            g.save(path)
    except Exception:  # noqa: BLE001
        os._exit(1)
    os._exit(0)


def test_saves_of_one_path_from_several_kernels_never_fail_each_other(tmp_path):
    import multiprocessing

    path = tmp_path / "m.kcanvas"
    context = multiprocessing.get_context("fork")  # the modules are loaded: a fast start
    children = [context.Process(target=_save_often, args=(path, 40)) for _ in range(3)]
    for child in children:
        child.start()
    for child in children:
        child.join(60)
        if child.is_alive():  # (hung: fail, leaving nothing running)
            child.kill()
            child.join()
    assert [child.exitcode for child in children] == [0, 0, 0]
    assert kc.Graph.load(path).name == "child" and not _temporaries(tmp_path)


def test_only_provably_stale_temporaries_are_removed(tmp_path):
    import os
    import subprocess
    import sys
    import time

    path = tmp_path / "m.kcanvas"
    prefix = storage._tmp_prefix(path)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    try:
        host = storage._owner().partition("-")[2]
        live = tmp_path / f"{prefix}{other.pid}-{host}.abc.tmp"  # another kernel's save under way
        elsewhere = tmp_path / f"{prefix}{gone.pid}-otherhost.abc.tmp"  # another machine's
        dead = tmp_path / f"{prefix}{gone.pid}-{host}.abc.tmp"  # its kernel was killed
        old = tmp_path / f"{prefix}x1y2z3.tmp"  # an older version's, untouched for days
        for p in (live, elsewhere, dead, old):
            p.write_bytes(b"half")
        os.utime(old, (time.time() - 3 * 86400,) * 2)
        drawing().save(path)
        assert _temporaries(tmp_path) == sorted([live.name, elsewhere.name])
    finally:
        other.kill()
        other.wait()


def _tampered(path, change=None, entries=None):
    """The saved file at path rewritten: kerascanvas.json's text through change, entries
    ({name: bytes}) added or replaced; every entry deflated."""
    with zipfile.ZipFile(path) as z:
        contents = {i.filename: z.read(i) for i in z.infolist()}
    if change:
        contents["kerascanvas.json"] = change(contents["kerascanvas.json"].decode()).encode()
    contents.update(entries or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in contents.items():
            z.writestr(name, data)


def _corrupt_deflate(data: bytes, entry: str) -> bytes:
    """A zip's bytes with entry's deflate stream broken (its first block of type 3, which
    does not exist), the zip's directory and sizes left valid."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo(entry)
    assert info.compress_type == zipfile.ZIP_DEFLATED
    name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26:
                                                          info.header_offset + 30])
    start = info.header_offset + 30 + name_length + extra_length
    return data[:start] + b"\xff" + data[start + 1:]


INSIGHTS = json.dumps({"version": 1, "records": {"cat": [
    {"epoch": 1, "weights": {}, "gradients": {}}]}})


def _deflated_weights(path):
    """The file's weights.npz with its arrays deflated (np.savez stores them)."""
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(io.BytesIO(z.read("weights.npz"))) as w:
        arrays = {i.filename: w.read(i) for i in w.infolist()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as w:
        for name, data in arrays.items():
            w.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("entry", ["kerascanvas.json", "weights.npz", "insights.json",
                                   "weights.npz/l2_0.npy"])
def test_a_corrupt_compressed_entry_is_a_clean_refusal(tmp_path, entry):
    path = tmp_path / "m.kcanvas"
    drawing().save(path)
    weights = _deflated_weights(path)
    _tampered(path, entries={"weights.npz": weights, "insights.json": INSIGHTS})
    ok(kc.Graph.load(path))  # sound before the damage
    outer, _, inner = entry.partition("/")
    if inner:  # an array inside weights.npz
        _tampered(path, entries={"weights.npz": _corrupt_deflate(weights, inner)})
    else:
        path.write_bytes(_corrupt_deflate(path.read_bytes(), outer))
    with pytest.raises(kc.EditError, match=r"m\.kcanvas.*(corrupt|truncated)"):
        kc.Graph.load(path)


def test_a_corrupt_file_loaded_by_the_canvas_changes_nothing(tmp_path):
    path = tmp_path / "m.kcanvas"
    canvas = kc.Canvas(path=str(path))
    sent = []
    canvas.send = lambda content, buffers=None: sent.append(content)
    canvas.graph.add_input((3,), name="x")
    drawing().save(path)
    path.write_bytes(_corrupt_deflate(path.read_bytes(), "kerascanvas.json"))
    canvas.receive({"kind": "load", "id": 1})
    assert "Internal error" not in sent[-1]["error"] and "m.kcanvas" in sent[-1]["error"]
    assert list(canvas.graph.layers) == ["x"]


HUGE = "1" + "0" * 400  # a valid JSON number no Python float (nor any tensor) holds


@pytest.mark.parametrize("place", [
    lambda d: d["pinned"].update(cat=["HUGE", 0]),
    lambda d: d["pinned"].update(cat=[0, "HUGE_FLOAT"]),
    lambda d: d["layers"][2]["config"].update(units="HUGE"),
    lambda d: d["layers"][4]["config"].update(units="HUGE"),  # a pending box's
    lambda d: d["layers"][2].update(calls="HUGE"),
    lambda d: d["edges"][0][0].__setitem__(1, "HUGE"),
    lambda d: d["edges"][0][0].__setitem__(2, "HUGE"),
    lambda d: d["edges"][0][1].__setitem__(1, "HUGE"),
    lambda d: d["edges"][0][1].__setitem__(2, "HUGE"),
    lambda d: d.update(outputs=[["cat", 0, "HUGE"]]),
    lambda d: d.update(version="HUGE"),
    lambda d: d.update(input_structure="HUGE"),
    lambda d: d["layers"][2].update(weights=2 ** 64),
], ids=["pinned", "pinned-float", "units", "pending-units", "calls", "edge-node", "edge-tensor",
        "edge-call", "edge-slot", "outputs", "version", "structure", "weights"])
def test_a_number_out_of_range_is_a_clean_refusal(tmp_path, place):
    path = tmp_path / "m.kcanvas"
    drawing().save(path)

    def change(text):
        document = json.loads(text)
        place(document)
        return json.dumps(document).replace('"HUGE_FLOAT"', "1e400").replace('"HUGE"', HUGE)

    _tampered(path, change)
    with pytest.raises(kc.EditError, match=r"m\.kcanvas.*(out of range|malformed)"):
        kc.Graph.load(path)


@pytest.mark.parametrize("record", [{"epoch": "HUGE"},
                                    {"epoch": 1, "gradients": {"k": {"norm": "HUGE"}}}])
def test_a_number_out_of_range_in_the_insights_is_a_clean_refusal(tmp_path, record):
    path = tmp_path / "m.kcanvas"
    drawing().save(path)
    text = json.dumps({"version": 1, "records": {"cat": [{"weights": {}, "gradients": {},
                                                          **record}]}}).replace('"HUGE"', HUGE)
    _tampered(path, entries={"insights.json": text})
    with pytest.raises(kc.EditError, match=r"m\.kcanvas.*out of range"):
        kc.Graph.load(path)
