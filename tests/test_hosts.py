"""What other hosts and backends rely on, checked without a browser."""

import kerascanvas as kc
from kerascanvas.widget import Canvas


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
