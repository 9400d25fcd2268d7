"""keras.ops operations as boxes: `x + 3.0`, `keras.ops.expand_dims(x, axis=1)` in a functional graph.

An operation call on symbolic tensors is a Keras Node whose operation is a `keras.src.ops`
Operation (not a Layer): it has `_inbound_nodes`, `_outbound_nodes` and `_keras_history` like a
layer, so the invariants hold for it unchanged. Only the functions in ALLOWED are offered, by their
keras.ops name (never an import path); each one's Operation class and the split of its arguments
are read from Keras's own signatures: the class's `__init__` takes the settings (axis, keepdims),
its `call` the tensors (x, x1, x2, xs). A box's config is the operation's config (name and
settings) plus the constants given in place of call tensors (the 3.0 of `x + 3.0`); the call
parameters without a default that the config leaves out are its slots.
"""

from __future__ import annotations

import functools
import inspect
import math
import sys
from dataclasses import dataclass
from typing import Any

from .. import limits
from ..errors import EditError
from .layerkind import Slots, plain, type_of

ALLOWED = (
    # arithmetic (what `x + y`, `x * 3.0`, `x @ w`, `-x` make)
    "add", "subtract", "multiply", "divide", "true_divide", "power", "negative", "matmul",
    "maximum", "minimum", "abs", "absolute", "square", "sqrt", "exp", "log", "log1p", "sin", "cos", "tanh",
    "sign", "floor", "ceil", "round", "clip", "erf", "cast", "where", "dot", "outer", "tensordot",
    # comparisons and logic
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
    "logical_or", "logical_not",
    # shapes
    "concatenate", "stack", "reshape", "transpose", "expand_dims", "squeeze", "repeat", "tile",
    "swapaxes", "moveaxis", "broadcast_to", "zeros_like", "ones_like", "one_hot", "pad",
    # reductions
    "mean", "sum", "max", "min", "prod", "std", "var", "argmax", "argmin", "cumsum", "any", "all",
    # activations
    "relu", "relu6", "sigmoid", "softmax", "log_softmax", "gelu", "silu", "hard_sigmoid",
    "hard_silu", "elu", "selu", "softplus", "softsign", "leaky_relu", "normalize",
    # slicing: x[:, 0] (its key kept as plain data: kerascanvas/kinds/slicing.py)
    "get_item",
)
LIST_PARAMS = {("concatenate", "xs"), ("stack", "x")}  # call parameters that take a list
OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "power": "**",
             "matmul": "@"}  # how KerasTensor's operators call them: x + y is ops.add(x, y)
SUGGESTED = {"axis": -1, "newshape": [-1], "repeats": 2, "x_min": 0.0, "x_max": 1.0,
             "axis1": 1, "axis2": -1, "source": 1, "destination": -1, "shape": [1],
             "dtype": "float32", "num_classes": 10, "pad_width": [[0, 0], [1, 1]], "axes": 1}
SUGGESTED_FOR = {"expand_dims": {"axis": 1}, "squeeze": {"axis": 1}, "get_item": {"key": [":", 0]}}


@dataclass(frozen=True)
class OpKind:
    """The layerkind.Kind protocol for one allow-listed keras.ops function."""

    class_name: str  # the keras.ops function name: "add", "expand_dims"
    cls: type  # its keras.src.ops Operation class
    init: tuple[inspect.Parameter, ...]  # settings (no name)
    call_params: tuple[inspect.Parameter, ...]  # tensors, or constants in their place
    group: str = "ops"

    @property
    def slots(self) -> Slots:
        return self.slots_for({})

    def slots_for(self, config: dict) -> Slots:
        tensors = tuple(p.name for p in self.call_params
                        if (p.name not in config and p.default is inspect.Parameter.empty)
                        or config.get(p.name) == TENSOR)
        if len(tensors) == 1 and ((self.class_name, tensors[0]) in LIST_PARAMS or _spread(
                self.call_params, tensors[0])):
            return Slots("list", (), 1, None)
        if len(tensors) == 1:
            return Slots("single", tensors, 1, 1)
        return Slots("args", tensors, len(tensors), len(tensors))

    def n_outputs(self, config: dict) -> int:
        return config.get(OUTPUTS, 1)  # top_k gives (values, indices)

    def schema(self) -> list[dict]:
        suggested, fields = self.suggested_args(), []
        for p in self.init + tuple(q for q in self.call_params
                                   if q.default is not inspect.Parameter.empty):
            required = p.default is inspect.Parameter.empty
            default = suggested.get(p.name) if required else p.default
            fields.append({"name": p.name, "type": type_of(p.name, default),
                           "default": plain(default), "required": required})
        return fields

    def suggested_args(self) -> dict:
        args = {p.name: SUGGESTED[p.name] for p in self.init
                if p.default is inspect.Parameter.empty and p.name in SUGGESTED}
        return {**args, **SUGGESTED_FOR.get(self.class_name, {})}

    def checked(self, config: Any) -> dict:
        """A copy of config holding only this operation's settings and plain constants."""
        if not isinstance(config, dict):
            raise EditError(f"An operation {self.class_name} config is a dict, got {config!r:.120}.")
        known = {p.name for p in self.init + self.call_params} | {"name", OUTPUTS}
        unknown = sorted(set(config) - known)
        if unknown:
            raise TypeError(f"keras.ops.{self.class_name} takes no argument(s) "
                            f"{', '.join(map(repr, unknown))}; it takes {', '.join(sorted(known))}.")
        for key, value in config.items():
            _check_constant(f"keras.ops.{self.class_name} {key}", value)
        outputs = config.get(OUTPUTS, 1)
        if not (isinstance(outputs, int) and not isinstance(outputs, bool) and 0 < outputs <= 64):
            raise EditError(f"keras.ops.{self.class_name} {OUTPUTS} is a count of 1 to 64 "
                            f"tensors, got {outputs!r:.40}.")
        if self.class_name == "get_item" and "key" in config:
            from .slicing import decode

            decode(config["key"], "keras.ops.get_item key")
        if not self.slots_for(config).names and self.slots_for(config).kind != "list":
            raise EditError(f"keras.ops.{self.class_name} needs at least one tensor input: "
                            "not every argument can be a constant.")
        return dict(config)

    def create(self, config: dict):
        config = self.checked(config)
        settings = {p.name: config[p.name] for p in self.init if p.name in config}
        return self.cls(**settings, name=config.get("name"))

    def build(self, **config: Any):
        return self.create(config)

    def make_config(self, **config: Any) -> dict:
        given = {**self.suggested_args(), **config}
        return self.config_of(self.build(**given), given)

    def config_of(self, op, given) -> dict:
        """The operation's config and the constants `given` holds for its call parameters."""
        calls = {p.name for p in self.call_params}
        return config_of(op, {k: v for k, v in given.items() if k in calls})

    def call(self, op, config: dict, inputs: tuple):
        """Call the operation on its slot tensors, constants in their places (positionally, as the
        keras.ops function does)."""
        return op(*self.call_arguments(config, inputs))

    def call_arguments(self, config: dict, inputs) -> list:
        """The positional arguments of a call: slot tensors (`inputs`, in slot order) and
        constants in their places, defaults for parameters skipped before a later constant."""
        args, tensors = [], list(inputs)
        last = max((i for i, p in enumerate(self.call_params) if p.name in config
                    or p.default is inspect.Parameter.empty), default=-1)
        for p in self.call_params[: last + 1]:
            if config.get(p.name) == TENSOR:
                args.append(tensors.pop(0))
            elif p.name in config and (self.class_name, p.name) == ("get_item", "key"):
                from .slicing import decode

                args.append(decode(config[p.name]))
            elif p.name in config:
                args.append(decoded(config[p.name]))
            elif p.default is not inspect.Parameter.empty:
                args.append(p.default)
            elif p.kind == p.VAR_POSITIONAL:  # einsum(subscripts, *operands)
                args.extend(tensors)
                tensors = []
            elif (self.class_name, p.name) in LIST_PARAMS:
                args.append(tensors)
                tensors = []
            else:
                args.append(tensors.pop(0))
        return args

    def settings(self, config: dict) -> dict:
        """The constructor settings a config holds that differ from the class's defaults."""
        return {p.name: config[p.name] for p in self.init if p.name in config
                and not (p.default is not inspect.Parameter.empty and p.default == config[p.name])}

    def code(self, config: dict, sources: list) -> tuple[str, list, dict]:
        """(function or operator, positional items, keyword items) for codegen; tensors are
        given as their identifiers in `sources`, in slot order."""
        sources, items = list(sources), []
        for p in self.call_params:
            if config.get(p.name) == TENSOR:
                items.append((p.name, sources.pop(0), True))
            elif p.name in config:
                items.append((p.name, decoded(config[p.name]), False))
            elif p.kind == p.VAR_POSITIONAL:
                items.extend((p.name, v, True) for v in sources)
            elif p.default is inspect.Parameter.empty:
                value = sources if (self.class_name, p.name) in LIST_PARAMS else sources.pop(0)
                items.append((p.name, value, True))
        if self.class_name in OPERATORS and len(items) == 2 and any(t for _, _, t in items):
            return OPERATORS[self.class_name], [v for _, v, _ in items], {}
        if self.class_name == "negative":
            return "-", [items[0][1]], {}
        if self.class_name == "get_item" and "key" in config and items[0][2]:
            from .slicing import source

            return "[]", [source(items[0][1], config["key"])], {}
        defaults = _function_defaults(self.class_name)
        settings = {p.name: config[p.name] for p in self.init if p.name in config
                    and not (p.name in defaults and defaults[p.name] == config[p.name])}
        positional = [v for _, v, _ in items]
        leading = [settings.pop(n) for n in _leading(self.class_name) if n in settings]
        return f"keras.ops.{self.class_name}", leading + positional, settings


def _spread(params, name: str) -> bool:
    """Whether a call parameter takes any number of tensors (*operands)."""
    return any(p.name == name and p.kind == p.VAR_POSITIONAL for p in params)


# Constants Keras records that JSON cannot hold (the key of x[:, 0], ...), in a config as
# one-key dicts: {"__slice__": [start, stop, step]}, {"__ellipsis__": true}, {"__tuple__": [...]}
CODED = ("__slice__", "__ellipsis__", "__tuple__", "__tensor__", "__array__")
# {"__array__": [dtype, shape, flat values]}: an array constant (the mean of `x - mean`), kept with
# its dtype and shape, not as nested lists (Keras refuses those where it wants a tensor)
ARRAY_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64")
OUTPUTS = "__outputs__"  # a config key: how many tensors a call gives, where not one
TENSOR = {"__tensor__": True}  # an optional call parameter given a tensor: a slot (where's x1)


def encoded(value: Any) -> Any:
    """A constant as a config holds it (JSON's values and the CODED dicts)."""
    import numpy as np

    if isinstance(value, slice):
        return {"__slice__": [encoded(value.start), encoded(value.stop), encoded(value.step)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, tuple):
        return {"__tuple__": [encoded(v) for v in value]}
    if isinstance(value, list):
        return [encoded(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.size <= limits.CONSTANT_VALUES:
        if value.ndim and str(value.dtype) in ARRAY_DTYPES:
            return {"__array__": [str(value.dtype), list(value.shape), value.ravel().tolist()]}
        return value.tolist()
    return value


def decoded(value: Any) -> Any:
    """The Python value of an encoded constant."""
    if isinstance(value, dict) and len(value) == 1:
        (tag, inner), = value.items()
        if tag == "__slice__" and isinstance(inner, (list, tuple)) and len(inner) == 3:
            return slice(*map(decoded, inner))
        if tag == "__ellipsis__":
            return Ellipsis
        if tag == "__tuple__" and isinstance(inner, (list, tuple)):
            return tuple(map(decoded, inner))
        if tag == "__array__":
            return _array(inner)
    if isinstance(value, list):
        return [decoded(v) for v in value]
    return value


def _array(inner: Any):
    """The array an {"__array__": [dtype, shape, values]} holds, checked (it may come from a file)."""
    import numpy as np

    if not (isinstance(inner, (list, tuple)) and len(inner) == 3 and inner[0] in ARRAY_DTYPES
            and isinstance(inner[1], (list, tuple)) and isinstance(inner[2], (list, tuple))
            and all(type(n) is int and n >= 0 for n in inner[1])
            and math.prod(inner[1]) == len(inner[2])
            and all(isinstance(v, (bool, int, float)) for v in inner[2])):
        raise EditError(f"An array constant is {{'__array__': [dtype, shape, values]}} with a "
                        f"dtype among {', '.join(ARRAY_DTYPES)} and as many numbers as its shape "
                        f"holds; got {inner!r:.120}.")
    return np.asarray(inner[2], dtype=inner[0]).reshape(inner[1])


def _check_constant(where: str, value: Any) -> None:
    """Constants are plain values: numbers, strings, booleans, None and lists of them."""
    count, todo = 0, [(value, 0)]
    while todo:
        v, depth = todo.pop()
        count += 1
        if depth > 8 or count > limits.CONSTANT_VALUES:
            raise EditError(f"{where} is too large or too deeply nested (a constant holds at most "
                            f"{limits.CONSTANT_VALUES} values).")
        if isinstance(v, (list, tuple)):
            todo.extend((x, depth + 1) for x in v)
        elif isinstance(v, str):
            if len(v) > 200:
                raise EditError(f"{where} is a string of more than 200 characters.")
        elif isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
            raise EditError(f"{where} is an integer of {len(str(abs(v)))} digits: a constant "
                            "must fit a 64-bit integer (-2**63 to 2**63 - 1), as a tensor's does.")
        elif isinstance(v, dict) and len(v) == 1 and next(iter(v)) in CODED:
            if "__array__" in v:
                try:
                    _array(v["__array__"])
                except EditError as e:
                    raise EditError(f"{where}: {e.message}") from None
            todo.append((next(iter(v.values())), depth + 1))
        elif not (v is None or isinstance(v, (bool, int, float))):
            raise EditError(f"{where} must be a number, string, boolean, None or a list of them; "
                            f"got {type(v).__name__} {v!r:.80}.")


@functools.cache
def _table() -> dict[str, OpKind]:
    import keras
    from keras.src.ops.operation import Operation

    found = {}
    for name in ALLOWED:
        fn = getattr(keras.ops, name, None)
        module = sys.modules.get(getattr(fn, "__module__", ""), None)
        cls = getattr(module, "".join(p.capitalize() for p in name.split("_")), None)
        if fn is None or not (inspect.isclass(cls) and issubclass(cls, Operation)):
            continue  # not in this Keras version
        init = tuple(p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                     if p.name != "name" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
        call = list(inspect.signature(cls.call).parameters.values())[1:]
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in call):
            continue
        found[name] = OpKind(name, cls, init, tuple(call))
    return found


def _function(name: str):
    """keras.ops.<name> ("image.resize": keras.ops.image.resize); None for get_item."""
    import keras

    fn = keras.ops
    for part in name.split("."):
        fn = getattr(fn, part, None)
    return fn


@functools.cache
def _function_defaults(name: str) -> dict:
    fn = _function(name)
    if fn is None:
        return {}
    return {p.name: p.default for p in inspect.signature(fn).parameters.values()
            if p.default is not inspect.Parameter.empty}


@functools.cache
def _leading(name: str) -> tuple[str, ...]:
    """The parameters keras.ops.<name> takes before its *operands (einsum's subscripts)."""
    fn = _function(name)
    params = list(inspect.signature(fn).parameters.values()) if fn is not None else []
    if not any(p.kind == p.VAR_POSITIONAL for p in params):
        return ()
    return tuple(p.name for p in params[:[p.kind for p in params].index(inspect.Parameter.VAR_POSITIONAL)])


# Where Keras's Operation classes live: what a model may record beyond the palette's ALLOWED
OPERATION_MODULES = ("numpy", "core", "nn", "math", "image", "linalg")


@functools.cache
def _every() -> dict[str, OpKind]:
    """Every Operation class of Keras's own keras.ops, by its keras.ops name ("image.resize" for
    keras.ops.image.resize, "get_item" for what x[...] records): what an import may hold (Keras's
    own code, like its layers); the palette offers ALLOWED only."""
    import importlib

    import keras
    from keras.src.ops.operation import Operation
    from keras.src.utils.naming import to_snake_case

    found, taken = dict(_table()), {k.cls for k in _table().values()}
    for short in OPERATION_MODULES:
        module = importlib.import_module(f"keras.src.ops.{short}")
        for cls in list(vars(module).values()):
            if not (inspect.isclass(cls) and issubclass(cls, Operation) and cls not in taken
                    and cls.__module__ == module.__name__):
                continue
            snake = to_snake_case(cls.__name__)
            name = snake if callable(getattr(keras.ops, snake, None)) or snake == "get_item" \
                else f"{short}.{snake}"
            call = [p for p in list(inspect.signature(cls.call).parameters.values())[1:]
                    if p.kind != p.VAR_KEYWORD]  # (a call given keywords there is refused)
            if name in found or (
                    any(p.kind == p.VAR_POSITIONAL for p in call) and len(call) > 1):
                continue
            init = tuple(p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                         if p.name != "name" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
            found[name] = OpKind(name, cls, init, tuple(call))
            taken.add(cls)
    return found


def names() -> list[str]:
    """The keras.ops function names the palette offers, sorted."""
    return sorted(_table())


def every_name() -> list[str]:
    """Every keras.ops operation a model may hold (imports, files), sorted."""
    return sorted(_every())


def get(name: Any) -> OpKind | None:
    """The kind of a keras.ops operation by name: the offered ones and any other that Keras
    records in a model (imports and files may hold those; the browser may add offered ones)."""
    return _every().get(name) if isinstance(name, str) else None


def name_of(op) -> str | None:
    """The keras.ops name of an Operation object of Keras's own keras.ops."""
    return next((n for n, k in _every().items() if k.cls is type(op)), None)


def config_of(op, constants: dict) -> dict:
    """A box's config: the operation's own (name, settings) and the call's constants."""
    return {**op.get_config(), **constants}


def node_arguments(op, node) -> tuple[list, dict]:
    """(slot tensors in order, constants by call parameter) of one call of an operation."""
    import keras

    kind = _every()[name_of(op)]
    where = f"Operation {op.name!r} (keras.ops.{kind.class_name})"
    try:
        bound = inspect.signature(kind.cls.call).bind(None, *node.arguments.args,
                                                     **node.arguments.kwargs).arguments
    except TypeError as e:
        raise EditError(f"{where} is called in a way its signature does not take: {e}.",
                        layer=op.name) from None
    tensors, constants = [], {}
    known = {p.name for p in kind.call_params}
    if any(key not in known and value for key, value in bound.items() if key != "self"):
        raise EditError(f"{where} is called with keyword arguments a drawing cannot hold.",
                        layer=op.name)
    for p in kind.call_params:
        if p.name not in bound:
            continue
        value = bound[p.name]
        flat = keras.tree.flatten(value)
        symbolic = [isinstance(x, keras.KerasTensor) for x in flat]
        if not any(symbolic):
            if not (p.default is not inspect.Parameter.empty and value is p.default):
                constants[p.name] = _as_plain(value) if kind.class_name == "get_item" \
                    else encoded(_as_plain(value, keep_arrays=True))
            continue
        if p.default is not inspect.Parameter.empty and isinstance(value, keras.KerasTensor):
            constants[p.name] = TENSOR  # an optional parameter given a tensor: one more slot
            tensors.append(value)
            continue
        if p.default is not inspect.Parameter.empty:
            raise EditError(f"{where} mixes tensors and constants in {p.name}, which a drawing "
                            "cannot hold.", layer=op.name)
        if all(symbolic) and (p.kind == p.VAR_POSITIONAL or (
                (kind.class_name, p.name) in LIST_PARAMS and isinstance(value, (list, tuple)))):
            tensors.extend(flat)
        elif isinstance(value, keras.KerasTensor):
            tensors.append(value)
        else:
            raise EditError(f"{where} mixes tensors and constants in {p.name}, which a drawing "
                            "cannot hold.", layer=op.name)
    if kind.class_name == "get_item" and "key" in constants:
        from .slicing import encode

        constants["key"] = encode(constants["key"], where)
    for key, value in constants.items():
        _check_constant(f"{where} {key}", value)
    if len(node.output_tensors) != 1:
        constants[OUTPUTS] = len(node.output_tensors)
    return tensors, constants


def _as_plain(value: Any, keep_arrays: bool = False) -> Any:
    """A constant given as a concrete tensor or array (Gemma scales by `ops.sqrt(...)`) as the
    plain number or list it holds (with keep_arrays, an array of one or more dimensions as a
    NumPy array, for `encoded` to keep its dtype); anything else as it is."""
    import keras
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if (keras.ops.is_tensor(value) or isinstance(value, np.ndarray)) and \
            int(np.prod(value.shape)) <= limits.CONSTANT_VALUES:
        array = keras.ops.convert_to_numpy(value)
        return array if keep_arrays and array.ndim else array.tolist()
    return value


def refusal(op) -> str:
    """Why an operation that is not allow-listed is refused, in one sentence."""
    return (f"Operation {op.name!r} is a {type(op).__module__}.{type(op).__name__}, which is not "
            "one of Keras's own keras.ops operations a drawing can hold (a call taking a "
            "variable number of arguments, or a class of your own): wrap it in a Layer subclass "
            "and kc.register that.")
