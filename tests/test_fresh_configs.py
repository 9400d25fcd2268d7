"""A box's config read once per class, arguments and settings (fresh_configs.py) is always the
config Keras gives the layer it made."""

import contextlib
import itertools

import keras
import pytest

import kerascanvas as kc
from kerascanvas.kinds import catalog


def fresh(kind, name, **args):
    return kind.build(**{**kind.suggested_args(), **args, "name": name}).get_config()


@pytest.mark.parametrize("class_name", catalog.names())
def test_every_catalog_box_gets_the_config_keras_gives_its_layer(class_name):
    kind = catalog.get(class_name)
    g = kc.Graph()
    first = g.add_layer(class_name, name="first")
    second = g.add_layer(class_name, name="second")  # from the kept config, where one is kept
    for name in (first, second):
        got, want = g.layers[name]["config"], fresh(kind, name)
        if class_name == "RandomCrop":  # its config holds a seed Keras draws for each layer
            assert got["seed"] != g.layers[first if name == second else second]["config"]["seed"]
            got, want = {**got, "seed": None}, {**want, "seed": None}
        if "layer" in want:  # a wrapper's inner layer is named by Keras's own counter
            got, want = ({k: v for k, v in c.items() if k not in ("layer", "backward_layer")}
                         for c in (got, want))
        assert dict(got) == want


def test_a_kept_config_is_a_copy_each_box_owns():
    g = kc.Graph()
    configs = [g.specs[g.add_layer("Dense", name=n, units=3)].config for n in "abc"]
    for one, other in itertools.pairwise(configs):
        assert {**one, "name": "x"} == {**other, "name": "x"}
        assert one["kernel_initializer"] is not other["kernel_initializer"]
        assert one["kernel_initializer"]["config"] is not other["kernel_initializer"]["config"]


def test_a_kept_configs_lists_are_copies_each_box_owns():
    g = kc.Graph()
    configs = [g.specs[g.add_layer("StringLookup", name=n, vocabulary=["x", "y"])].config
               for n in "abc"]
    assert [list(c["vocabulary"]) for c in configs] == [["x", "y"]] * 3
    assert configs[1]["vocabulary"] is not configs[2]["vocabulary"]


def test_arguments_that_look_alike_are_told_apart():
    """1, 1.0 and True hash alike in Python; each makes its own config."""
    g = kc.Graph()
    g.add_layer("GaussianNoise", name="a", stddev=1)
    g.add_layer("GaussianNoise", name="b", stddev=1.0)
    assert type(g.layers["a"]["config"]["stddev"]) is int
    assert type(g.layers["b"]["config"]["stddev"]) is float
    g.add_layer("Dense", name="c", units=4, use_bias=1)
    g.add_layer("Dense", name="d", units=4, use_bias=True)
    assert g.layers["c"]["config"]["use_bias"] == 1 and g.layers["c"]["config"]["use_bias"] is not True
    assert g.layers["d"]["config"]["use_bias"] is True


@contextlib.contextmanager
def setting(set_it, value, now):
    previous = now()
    set_it(value)
    try:
        yield
    finally:
        set_it(previous)


def test_a_global_setting_changes_the_config():
    g = kc.Graph()
    g.add_layer("Conv2D", name="a")
    assert g.layers["a"]["config"]["data_format"] == "channels_last"
    with setting(keras.config.set_image_data_format, "channels_first", keras.config.image_data_format):
        g.add_layer("Conv2D", name="b")
    assert g.layers["b"]["config"]["data_format"] == "channels_first"
    with setting(keras.config.set_dtype_policy, "mixed_float16", keras.config.dtype_policy):
        g.add_layer("Conv2D", name="c")
    assert g.layers["c"]["config"]["dtype"]["config"]["name"] == "mixed_float16"


def test_arguments_that_are_objects_are_read_each_time():
    g = kc.Graph()
    for name, value in (("a", 0.25), ("b", 0.5)):
        g.add_layer("Dense", name=name, units=2, kernel_initializer=keras.initializers.Constant(value))
        assert g.layers[name]["config"]["kernel_initializer"]["config"]["value"] == value
