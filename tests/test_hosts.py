"""What other hosts and backends rely on, checked without a browser."""

import kerascanvas as kc
from kerascanvas.canvas.widget import Canvas


def test_large_traits_are_not_echoed_back_to_the_kernel():
    """marimo (and ipywidgets' echo protocol) would send a front-end echo of every big trait
    back; these traits only ever flow kernel -> browser."""
    for name in ("snapshot", "palette", "training", "train_choices"):
        assert Canvas.class_traits()[name].metadata.get("echo_update") is False, name


def test_exported_code_names_no_backend():
    g = kc.Graph()
    g.add_input((8, 8, 1), name="image")
    g.add_layer("Conv2D", filters=4, kernel_size=3)
    g.add_layer("GlobalAveragePooling2D")
    g.add_layer("Dense", units=2)
    g.connect("image", "conv2d")
    g.connect("conv2d", "global_average_pooling2d")
    g.connect("global_average_pooling2d", "dense")
    code = g.to_code()
    for backend in ("tensorflow", "tf.", "jax", "torch"):
        assert backend not in code, backend


def test_the_diffs_of_an_edit_from_the_browser_are_marked():
    """The front end sets the synced `edits` trait on such a diff (js/src/mirror/store.ts): a trait
    changed by the front end is what makes marimo re-run the cells that read the canvas. Edits
    made from Python, reads and refusals are not marked."""
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    c = Canvas(g)
    sent = []
    c.send = lambda content, buffers=None: sent.append(content)
    c.receive({"kind": "connect", "id": 1, "src": ["x", 0, 0], "dst": ["d", 0, None]})
    assert [m.get("edit") for m in sent if "diff" in m] == [True]
    assert sent[-1] == {"id": 1, "ok": True, "result": None}
    sent.clear()
    g.add_layer("Dense", units=3, name="e")  # from Python
    c.receive({"kind": "explain", "id": 2, "name": "d"})
    c.receive({"kind": "connect", "id": 3, "src": ["x", 0, 0], "dst": ["d", 0, None]})
    assert [m.get("edit") for m in sent if "diff" in m] == [None]
    assert "error" in sent[-1]
    c.set_state({"edits": 5})  # as the front end sets it: the kernel takes it and ignores it
    assert c.edits == 5 and list(g.edges) == [(("x", 0, 0), ("d", 0, 0))]
