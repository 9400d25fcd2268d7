"""Keras model -> drawing: every layer, every node of it that belongs to the model, weights too.

A layer may have been called outside the model as well, so node indices are renumbered to the
order of the model's own nodes of that layer (as `Functional.get_config` numbers them). Models
used as layers (Functional or Sequential) become one box each, checked layer by layer. The whole
import is one `g.batch()`: one rebuild, one undo step.

Why it is long: one walk over a Keras model: every kind of node it meets (catalog, ops, nested,
custom, shared) is read in the same pass, with the same checks.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from pathlib import Path

import keras
import numpy as np
from keras.src.models.functional import Functional

from ..drawing import structures
from ..errors import EditError
from ..geometry.repeats import repeated_blocks
from ..kinds import calls, catalog, custom, kinds, nested, ops
from ..kinds.layerkind import settle
from ..network import inside

Triple = tuple[str, int, int]


@dataclass
class Walk:
    """A model's graph in drawing terms: what import draws and code export writes."""

    model: keras.Model  # the functional form (a Sequential's inner Functional)
    inputs: list  # InputLayers, in the order of model.inputs
    layers: list  # the other operations, in the model's order
    calls: dict[str, list[list[Triple]]]  # layer name -> per call (model node), its slot sources
    outputs: list[Triple]  # model.outputs, flattened
    widths: dict[tuple[str, int], int]  # call -> how many output tensors it has
    by_depth: list[tuple[str, int]]  # the calls in Keras's execution order (decreasing depth)
    configs: dict[str, dict] = field(default_factory=dict)  # name -> its box's config
    # layer name -> per call, the slot each of calls[name][k] fills (slot order, gaps where a
    # named slot stays empty)
    targets: dict[str, list[list[int]]] = field(default_factory=dict)
    keywords: dict[str, tuple[str, ...]] = field(default_factory=dict)  # named slots it adds
    call_args: dict[str, list] = field(default_factory=dict)  # per call: calls.CallArgs
    slots: dict[str, object] = field(default_factory=dict)  # name -> its box's slots

    def filled(self, name: str, k: int) -> dict[int, Triple]:
        """{slot: source} of call k of a layer."""
        return dict(zip(self.targets[name][k], self.calls[name][k]))


def walk(model, trust_custom: bool = False) -> Walk:
    """The layers, calls and edges of a Functional or Sequential model (its own nodes only).
    trust_custom: register the user layer classes met (kc.register) instead of refusing them."""
    functional = _functional(model)
    depths = functional._nodes_by_depth
    mine = {id(n) for nodes in depths.values() for n in nodes}
    local: dict[int, int] = {}  # id(node) -> its index among the model's nodes of its layer
    for op in functional.operations:
        k = 0
        for node in op._inbound_nodes:
            if id(node) in mine:
                local[id(node)] = k
                k += 1

    def triple(tensor) -> Triple:
        op, n, t = tensor._keras_history
        return (op.name, local[id(op._inbound_nodes[n])], t)

    inputs = [t._keras_history.operation for t in functional.inputs]
    layers = [op for op in functional.operations if not isinstance(op, keras.layers.InputLayer)]
    w = Walk(functional, inputs, layers, {}, [], {}, [])
    per_class: dict = {}
    for op in layers:
        _check_offered(op, trust_custom)
    _tie_held(layers)
    for op in layers:
        nodes = [n for n in op._inbound_nodes if id(n) in mine]
        w.configs[op.name] = config = _box_config(op, nodes)
        slots = _slots(op, config, nodes)
        read = [_by_name(op, slots, *_read_call(op, node)) for node in nodes]
        keywords = tuple(dict.fromkeys(k for r in read for k in r[1]))
        try:
            slots = calls.with_keywords(slots, keywords)
        except EditError as e:
            raise EditError(f"Layer {op.name!r}: {e}", layer=op.name) from None
        filled = [_filled(op, slots, *r) for r in read]
        w.slots[op.name], w.keywords[op.name] = slots, tuple(k for k in keywords
                                                             if k in slots.named)
        w.targets[op.name] = [sorted(f) for f in filled]
        w.calls[op.name] = [[triple(f[i]) for i in sorted(f)] for f in filled]
        w.call_args[op.name] = [calls.CallArgs(r[2], _positional(slots, f, r[0]),
                                               *_container(op, slots, r[0]))
                                for r, f in zip(read, filled)]
        w.widths.update({(op.name, k): len(node.output_tensors) for k, node in enumerate(nodes)})
        _check_widths(op, config, nodes, per_class, w.call_args[op.name])
    w.by_depth = [(n.operation.name, local[id(n)]) for depth in sorted(depths, reverse=True)
                  for n in depths[depth] if not isinstance(n.operation, keras.layers.InputLayer)]
    w.outputs = [triple(t) for t in functional.outputs]
    return w


def from_model(model, graph_class, trust_custom: bool = False):
    """A Graph drawing `model` (Functional or Sequential of catalog layers, keras.ops operations,
    Keras's own and registered layers), weights included."""
    try:
        _check_unshared(model, {})
        drawn = model
    except SharedAcrossModels:  # a layer also used outside the nested model that holds it
        drawn = _inlined(model)  # (KerasHub's tied embeddings): that model is drawn as its layers
        _check_unshared(drawn, {})
    with custom.saying_to([]) as said:  # what trusting says goes to g.notes
        w = walk(drawn, trust_custom)
    g = graph_class(name=model.name)
    g.notes = tuple(said)
    plain = (keras.Sequential, Functional)
    if type(model) not in plain and type(model).__name__ not in ("Functional", "Sequential"):
        # said on the canvas and in g.notes, not as a warning: a warning is printed red under
        # every KerasHub canvas, though nothing is wrong
        note = (f"{model.name!r} is a {type(model).__module__}.{type(model).__name__}, a "
                "subclass of Functional: the drawing holds its Functional graph (layers, calls, "
                "weights); its own Python methods (train_step, call overrides, ...) are not "
                "part of it.")
        g.notes += (note,)
    # model input order = the drawing's input order; the same replay as a file's
    layers = [{"name": layer.name, "class_name": "InputLayer", "calls": 1,
               "config": {"batch_shape": list(layer.batch_shape), "dtype": layer.dtype,
                          "optional": bool(getattr(layer, "optional", False))}}
              for layer in w.inputs]
    layers += [{"name": op.name, "class_name": class_name(op), "config": w.configs[op.name],
                "calls": len(w.calls[op.name]), "keywords": list(w.keywords[op.name]),
                "call_args": [a.as_json() for a in calls.trimmed(w.call_args[op.name])],
                "inside": [list(e) for e in inside.outside_config(op)]}
               for op in w.layers]
    edges = [[list(src), [op.name, k, slot]] for op in w.layers
             for k, (sources, slots) in enumerate(zip(w.calls[op.name], w.targets[op.name]))
             for slot, src in zip(slots, sources)]
    in_struct = w.model._inputs_struct
    dict_inputs = isinstance(in_struct, dict)
    # a big model opens readable: its runs of repeated blocks folded (g.fold_all(False) opens them)
    runs = repeated_blocks({layer["name"]: layer for layer in layers}, edges)
    with g.batch():  # one rebuild, one undo step
        unique = list(dict.fromkeys(w.outputs))  # one tensor given twice: one port, two places
        g.replay({"layers": layers, "edges": edges, "outputs": [list(t) for t in unique],
                  "outputs_only": True, "dict_inputs": dict_inputs,
                  "output_keys": _output_keys(w.model) if len(unique) == len(w.outputs) else [],
                  "folded": [run.blocks[0][0] for run in runs]}, as_given=True)
        _keep_structures(g, w, edges)
    for op in w.layers:
        copy_weights(op, g.keras_layer(op.name))
    return g


def _inlined(model):
    """The model with every nested Functional (and Sequential) drawn in place as its own
    layers: the same layer objects called once more on the outer tensors (Keras's own graph
    walk, symbolically), so a layer shared between a nested model and the outside is one box
    with two calls, one variable."""
    functional = _functional(model)
    shared = _used_in_two_models(model)

    def run(f, inputs):
        def expanded(op):
            # (a Sequential only where it holds a shared layer: others stay one box, as before)
            if isinstance(op, Functional) and not isinstance(op, keras.Sequential) or \
                    isinstance(op, keras.Sequential) and any(
                        id(inner) in shared for inner in _functional(op).operations):
                inner = _functional(op)
                return lambda *args, **kwargs: run(inner, args[0] if len(args) == 1 else list(args))
            return op

        return f._run_through_graph(inputs, operation_fn=expanded)

    try:
        inputs = [keras.Input(batch_shape=t.shape, dtype=t.dtype, sparse=t.sparse,
                              name=t._keras_history.operation.name) for t in functional.inputs]
        outputs = run(functional, inputs)
        return keras.Model(keras.tree.pack_sequence_as(functional._inputs_struct, inputs),
                           outputs, name=model.name)
    except Exception as e:
        raise EditError(f"Model {model.name!r} uses a layer both inside a nested model and "
                        f"outside it, and drawing the nested model as its layers failed: {e}",
                        layer=model.name) from e


def copy_weights(source, target) -> None:
    """Variable to variable, on the backend's device (no round trip through NumPy). JAX variables
    take the very array they are given, and a JAX fit donates (deletes) its arrays: copy there,
    or training the import would delete the original model's weights."""
    fresh = keras.ops.copy if keras.backend.backend() == "jax" else (lambda value: value)
    mine, theirs = getattr(target, "weights", []), getattr(source, "weights", [])
    if [tuple(w.shape) for w in mine] != [tuple(w.shape) for w in theirs]:
        theirs = _by_path(source, mine, theirs)  # float8: the same variables, made in another order
    for a, b in zip(mine, theirs, strict=True):
        a.assign(fresh(b.value))
    settle(target)


def _by_path(source, mine: list, theirs: list) -> list:
    """`theirs` in the order of `mine`, matched by path inside the layer; EditError where the
    layer made from its config has other weights (what its config does not record)."""
    def inside(w):
        return w.path.split("/", 1)[-1]

    by_path = {inside(w): w for w in theirs}
    if len(by_path) == len(theirs) == len(mine) and all(
            inside(a) in by_path and tuple(by_path[inside(a)].shape) == tuple(a.shape)
            for a in mine):
        return [by_path[inside(a)] for a in mine]
    made = {inside(w) for w in mine}
    extra = [w.path for w in theirs if inside(w) not in made]
    lora = any("lora" in p.rsplit("/", 1)[-1] for p in extra)
    why = ("LoRA weights enabled on its inner layers" if lora else
           "weights given to it after it was made (its inner layers quantized)") + (
        f" ({', '.join(extra[:3])})" if extra else "")
    raise EditError(f"Layer {source.name!r} ({type(source).__name__}) cannot be drawn with its "
                    f"weights: it holds {why}, which its config does not record. Quantize or "
                    "enable LoRA on layers whose config records it (Dense, EinsumDense, "
                    "Embedding: lora_rank, a quantized dtype policy), or merge those weights into "
                    "the kernels before importing.", layer=source.name)


def load_keras(path, graph_class, trust_custom: bool = False):
    """A Graph drawing the model saved in a .keras file (safe mode: no Lambda code is loaded).
    Classes of one's own load when registered (kc.register, or Keras's own registration)."""
    path = Path(path)
    if not path.is_file():
        raise EditError(f"There is no file {str(path)!r}.")
    lambdas = _lambdas_in(path)
    if lambdas:
        shown = ", ".join(map(repr, lambdas[:5]))
        raise EditError(f"{str(path)!r} holds Lambda layer(s) {shown}: a Lambda never comes in "
                        "from a file (its function would be code from the file). If you trust "
                        "the file, load it yourself (keras.saving.load_model(path, "
                        f"safe_mode=False)), trust the layer (kc.register(model.get_layer("
                        f"{lambdas[0]!r}))) and import the model (kc.Graph.from_model(model)).",
                        layer=lambdas[0])
    try:
        model = keras.saving.load_model(path, compile=False, safe_mode=True,
                                        custom_objects=custom.registered())
    except Exception as e:
        raise EditError(f"Keras could not load {str(path)!r}: {e}") from e
    return from_model(model, graph_class, trust_custom)


def _lambdas_in(path: Path) -> list[str]:
    """The names of the Lambda layers a .keras archive's config describes, at any depth (read
    before Keras loads anything; a file that is no such archive is left to Keras)."""
    import json
    import zipfile

    from .. import limits

    try:
        with zipfile.ZipFile(path) as z:
            limits.check_document(z.getinfo("config.json").file_size, repr(str(path)))
            todo, found = [json.loads(z.read("config.json"))], []
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        return []
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            if item.get("class_name") == "Lambda" and isinstance(item.get("config"), dict):
                found.append(str(item["config"].get("name", "?"))[:80])
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return sorted(found)


def class_name(op) -> str:
    """The drawing's class name of a layer: the catalog's, Functional / Sequential, the keras.ops
    name of an operation, or a Keras-own or registered class's name."""
    if isinstance(op, keras.Model):  # a subclass of Functional comes in as its graph
        return "Functional" if isinstance(op, Functional) and not isinstance(
            op, keras.Sequential) else type(op).__name__
    if not isinstance(op, keras.layers.Layer):
        return ops.name_of(op)
    return custom.drawing_name(op) or kinds.get(type(op).__name__).class_name


def _functional(model):
    if not isinstance(model, keras.Model):
        raise EditError(f"Expected a keras.Model, got {type(model).__name__}.")
    if isinstance(model, keras.Sequential):
        inner = getattr(model, "_functional", None)
        if inner is None and model.built:  # built on a dict, or holding no layer
            raise EditError(f"Sequential model {model.name!r} has no graph of layer calls "
                            "(Keras makes none for a Sequential built on a dict of inputs or "
                            "holding no layer): write it as a Functional model, keras.Model("
                            "inputs, outputs), to draw it.")
        if inner is None:
            raise EditError(f"Sequential model {model.name!r} is not built: give it an Input "
                            "(or call it once) before importing.")
        return inner
    if not hasattr(model, "_nodes_by_depth"):
        raise EditError(f"{model.name!r} is a subclassed model ({type(model).__name__}); only "
                        "Functional and Sequential models can be drawn.", layer=model.name)
    return model


def _keep_structures(g, w, edges) -> None:
    """Inputs and outputs in the model's own structures where plain flags cannot say them
    (nested, dicts keyed unlike the Inputs' names, tuples), and an Input that feeds nothing
    kept as the model's (Keras builds such a model)."""
    names = [layer.name for layer in w.inputs]
    in_struct, out_struct = w.model._inputs_struct, w.model._outputs_struct
    fed = {src[0] for src, _ in edges} | {t[0] for t in w.outputs}
    plain_in = structures.plain_inputs(in_struct, names) and fed >= set(names)
    unique = list(dict.fromkeys(w.outputs))
    plain_out = structures.plain_outputs(out_struct) and len(unique) == len(w.outputs)
    if plain_in and plain_out:
        return
    places = iter([unique.index(t) for t in w.outputs])  # flattened output -> its port
    g.set_structures(inputs=None if plain_in else structures.encoded(in_struct, _counter()),
                     outputs=None if plain_out else structures.encoded(
                         out_struct, lambda leaf: next(places)))


def _counter():
    """Positions in flattening order (Keras's: dicts by sorted key), one per leaf."""
    count = iter(range(1 << 30))
    return lambda leaf: next(count)


def _output_keys(model) -> list[str]:
    """The keys of a model's flat dict outputs in flattened (sorted) order, [] for others
    (a nested structure is kept by _keep_structures)."""
    struct = model._outputs_struct
    if not isinstance(struct, dict) or not structures.plain_outputs(struct):
        return []
    return sorted(struct)


def _used_in_two_models(model) -> set[int]:
    """ids of the layers used in two of the models nested in `model` (itself included)."""
    seen: dict[int, int] = {}
    found: set[int] = set()
    models, done = [model], set()
    while models:
        current = models.pop()
        if id(current) in done:
            continue
        done.add(id(current))
        for op in _functional(current).operations:
            if seen.setdefault(id(op), id(current)) != id(current):
                found.add(id(op))
            if isinstance(op, keras.Model):
                models.append(op)
    return found


class SharedAcrossModels(EditError):
    """A layer used in two models of one import."""


def _check_unshared(model, seen: dict) -> None:
    """Each nested model is one box holding its own layers: a layer (or model) used both inside
    a nested model and outside it, or in two nested models, shares weights across boxes, which
    a drawing cannot hold (import would silently split them)."""
    for op in _functional(model).operations:
        if isinstance(op, keras.layers.InputLayer):
            continue
        first = seen.setdefault(id(op), model)
        if first is not model:
            raise SharedAcrossModels(f"Layer {op.name!r} is used in model {first.name!r} and in model "
                            f"{model.name!r}: weights shared across nested models cannot be drawn "
                            "(a nested model is one box with its own layers).", layer=op.name)
        if isinstance(op, keras.Model):  # first seen here (an operation is listed once)
            _check_unshared(op, seen)


def _check_offered(layer, trust_custom: bool = False) -> None:
    name = type(layer).__name__
    if not isinstance(layer, keras.layers.Layer):  # an operation: allow-listed keras.ops only
        if ops.name_of(layer) is None:
            raise EditError(ops.refusal(layer), layer=layer.name)
        return
    if trust_custom:
        _trust_held(layer)
    if custom.drawing_name(layer) is not None:  # Keras's own, registered or a trusted Lambda
        return
    if isinstance(layer, keras.Model):
        plain = name in nested.MODULES and type(layer).__module__.split(".")[0] == "keras"
        graph = isinstance(layer, Functional) and not isinstance(layer, keras.Sequential)
        if not plain and not (trust_custom and graph):
            raise EditError(f"Layer {layer.name!r} is a model of class {type(layer).__module__}."
                            f"{name}; only Functional and Sequential models can be drawn"
                            + (" (a subclass of Functional comes in as its graph of layers with "
                               "trust_custom=True)." if graph else "."), layer=layer.name)
        walk(layer, trust_custom)  # its own layers, checked (and trusted) the same way
        return
    if isinstance(layer, keras.layers.Lambda):
        raise EditError(f"Layer {layer.name!r} is a Lambda, which runs code a drawing cannot hold "
                        "unless you trust this very layer from Python: "
                        f"kc.register(model.get_layer({layer.name!r})) (or write its function as a "
                        "Layer subclass and kc.register that).", layer=layer.name)
    try:
        kind = catalog.get(name)
    except ValueError:
        kind = None
    if kind is not None and kind.cls is type(layer):
        return
    if kind is None and type(layer).__module__.split(".")[0] == "keras":
        raise EditError(f"Layer {layer.name!r} is a {name}, which the canvas does not offer "
                        f"({catalog.DENIED.get(name, 'kerascanvas.catalog.names() lists them')}).",
                        layer=layer.name)
    if trust_custom:
        if custom.describable(layer):
            custom.trust(type(layer))
        else:  # its config cannot make it again: the object itself, with its weights
            custom.keep_object(layer)
        return
    raise EditError(f"Layer {layer.name!r} is a {type(layer).__module__}.{name}, a class of your "
                    f"own: register it with kc.register({name}) (or import with "
                    "trust_custom=True) to draw it.", layer=layer.name)


def _tie_held(layers: list) -> None:
    """A layer kept as the object (its config cannot make it again) that holds another layer
    of the model (a tied output made around the token embedding): that layer's box is kept as
    its object too, so both boxes hold the same variables (one copy, trained together), as in
    the model. Only layers the user trusted are kept (trust_custom, kc.register)."""
    kept = [op for op in layers if isinstance(custom.get(custom.trusted_name(op)), custom.TrustedObject)]
    held = {id(inner) for op in kept for inner in op._flatten_layers(include_self=False)}
    for op in layers:
        if id(op) in held and custom.trusted_name(op) is None:
            custom.keep_object(op)


def _trust_held(layer) -> None:
    """Trusting a model trusts the objects its layers hold as settings: a custom activation
    class given as Dense(activation=ScaledTanh()), a Regularizer, Initializer or Constraint of
    one's own, an activation function of one's own (Dense(activation=swishy))."""
    import keras

    def own(obj) -> bool:  # not Keras's (nor a backend's) code, and not registered yet
        # (the Keras family's packages register their own: keras_hub's gelu_approximate)
        return (obj.__module__.split(".")[0] not in ("keras", "keras_hub", "keras_nlp",
                                                      "keras_cv", "tensorflow", "jax", "torch",
                                                      "numpy")
                and custom.held().get(keras.saving.get_registered_name(obj)) is not obj)

    settings = dict(vars(layer))
    held = list(settings.values()) + [getattr(layer, "activation", None)]
    held += list(layer._flatten_layers(include_self=False, recursive=False))  # (torch: modules)
    # functions only where a config names them as activations, or as TextVectorization's
    # standardize and split: a Lambda's function is code
    functions = [] if isinstance(layer, keras.layers.Lambda) else [
        getattr(layer, "activation", None),
        *(v for k, v in settings.items()
          if k.endswith("activation") or k.lstrip("_") in ("standardize", "split"))]
    for value in held:
        if isinstance(value, keras.layers.Layer) and not isinstance(value, keras.Model) and \
                type(value).__module__.split(".")[0] != "keras" and \
                custom.class_name_of(type(value)) is None:
            custom.trust(type(value))  # (under a free name where its own is taken)
        elif custom.is_held_kind(type(value)) and own(type(value)):
            custom.register(type(value))
    for value in functions:
        if custom.is_held_kind(value) and own(value):
            custom.register(value)


def _box_config(op, nodes) -> dict:
    """What the box's config will be: get_config(), with an operation's call constants."""
    if isinstance(op, Functional) and type(op) is not Functional and not isinstance(
            op, keras.Sequential):
        return _graph_config(op)
    if isinstance(op, keras.layers.Layer):
        kind = custom.get(custom.drawing_name(op))
        if isinstance(kind, (custom.TrustedLambda, custom.TrustedObject)):
            return kind.config_of(op)
        try:
            config = op.get_config()
        except Exception as e:  # a class of one's own whose get_config is broken
            raise EditError(f"Layer {op.name!r} ({type(op).__name__}) cannot describe itself: "
                            f"its get_config() raised {type(e).__name__}: {e}", layer=op.name) from e
        if isinstance(kind, custom.CustomKind) and kind.made_from == "arguments":
            config = {**config, "name": op.name, "trainable": op.trainable}
        return _plain_numbers(_functions_serialized(_with_vocabulary(op, config)))
    constants = [ops.node_arguments(op, node)[1] for node in nodes]
    if any(c != constants[0] for c in constants[1:]):
        raise EditError(f"Operation {op.name!r} is called with different constants in its calls, "
                        "which one box cannot hold.", layer=op.name)
    return ops.config_of(op, constants[0] if constants else {})


def _with_vocabulary(layer, config: dict) -> dict:
    """An adapted lookup layer (StringLookup, IntegerLookup, TextVectorization after adapt())
    keeps its vocabulary in a table its config leaves out (vocabulary=None): the config gets
    it, so the box's layer, the file and the code look up the same tokens. With
    output_mode="tf_idf" its idf_weights go in too (one per token; Keras gives the OOV index
    their mean, as adapt() does)."""
    get = getattr(layer, "get_vocabulary", None)
    if get is None or config.get("vocabulary") is not None or "vocabulary" not in config:
        return config
    try:
        vocabulary = list(get(include_special_tokens=False))
    except Exception:  # noqa: BLE001 - a table Keras cannot read back: the config as given
        return config
    if not vocabulary:  # never adapted
        return config
    found = {**config, "vocabulary": [v.decode() if isinstance(v, bytes) else v
                                      for v in vocabulary]}
    if config.get("output_mode") == "tf_idf" and config.get("idf_weights") is None:
        held: dict = {}  # TextVectorization holds its lookup's; Keras saves both alike
        layer.save_own_variables(held)
        weights = np.asarray(held["idf_weights"])  # specials first, then the tokens'
        found["idf_weights"] = weights[len(weights) - len(vocabulary):].tolist()
    return found


def _functions_serialized(config: dict) -> dict:
    """A config whose values hold functions of one's own as they are (TextVectorization's
    standardize=fn) with those written as Keras saves them ({"class_name": "function", ...}):
    a config is data (Keras's own functions stay as they were)."""
    found = {k: keras.saving.serialize_keras_object(v) if inspect.isfunction(v) and not
             v.__module__.startswith("keras") else v for k, v in config.items()}
    return found if any(found[k] is not config[k] for k in config) else config


def _plain_numbers(value):
    """A config with NumPy scalars as the Python numbers they hold (Dropout(np.float64(0.1))):
    what the file, the state and the code write; anything else as it is (no copy when none)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        found = {k: _plain_numbers(v) for k, v in value.items()}
        return value if all(found[k] is value[k] for k in value) else found
    if isinstance(value, (list, tuple)):
        found = [_plain_numbers(v) for v in value]
        if all(a is b for a, b in zip(found, value)):
            return value
        return type(value)(found) if isinstance(value, list) or type(value) is tuple else value
    return value


def _graph_config(model) -> dict:
    """The config of a subclass of Functional (a KerasHub backbone) as Keras writes a plain
    Functional's: its layers and how they are called (its own get_config describes its
    constructor instead)."""
    cls = model.__class__
    try:
        model.__class__ = Functional  # (Functional.get_config asks for a plain constructor)
        return Functional.get_config(model)
    finally:
        model.__class__ = cls


def _check_widths(op, config, nodes, per_class: dict, call_args=()) -> None:
    if isinstance(op, keras.Model) or not nodes:
        return
    name = custom.drawing_name(op)
    if name is not None and isinstance(op, keras.layers.Layer):  # its calls say how many
        width = len(nodes[0].output_tensors)
        first = per_class.setdefault(name, (op.name, width))
        if first[1] != width:
            raise EditError(f"Layers {first[0]!r} and {op.name!r} of class {name} give {first[1]} "
                            f"and {width} tensors per call; a drawing holds one count per class "
                            "(register one of them as another class).", layer=op.name)
        custom.gives_outputs(name, width)
    expected = kinds.get(class_name(op)).n_outputs(config)
    extra = [calls.extra_outputs(a) for a in call_args]
    if any(len(n.output_tensors) != expected + x for n, x in zip(nodes, extra)) or \
            len(set(extra)) > 1:
        raise EditError(f"Layer {op.name!r} ({type(op).__name__}) gives "
                        f"{len(nodes[0].output_tensors)} output tensors per call; the canvas "
                        f"expects {expected} for it.", layer=op.name)


def _slots(op, config, nodes=()):
    if not isinstance(op, keras.layers.Layer):
        return ops.get(ops.name_of(op)).slots_for(config)
    name = custom.drawing_name(op)
    first = nodes[0].arguments.args if nodes else ()
    if name is not None and first and isinstance(first[0], (list, tuple, dict)):
        custom.called_on_a_list(name)  # Sampling()([z_mean, z_log_var]), sel({"age": a, ...})
    if isinstance(op, keras.Sequential):
        return nested.kind("Sequential").slots_for(op.get_config())
    if isinstance(op, keras.Model):  # its input names, without a (deep-copying) get_config()
        names = [t._keras_history.operation.name for t in op.inputs]
        return nested.kind("Functional").slots_named(names)
    return kinds.get(class_name(op)).slots


def _read_call(op, node) -> tuple[list, dict, tuple]:
    """(positional tensors, keyword tensors by name, settings) of a call as Keras recorded it
    (`node.arguments`). Settings are the caller's non-tensor arguments: what Keras fills in
    itself (mask=None, a signature's default: Dropout's training=False) is left for it to fill
    again; a value Keras would not fill (a base called with training=False) is the caller's."""
    if not isinstance(op, keras.layers.Layer):
        return list(ops.node_arguments(op, node)[0]), {}, ()
    args, kwargs = node.arguments.args, node.arguments.kwargs
    defaults = _call_defaults(type(op))
    tensors, settings = {}, {}
    for key, value in kwargs.items():
        flat = keras.tree.flatten(value)
        if isinstance(value, keras.KerasTensor):
            tensors[key] = value
        elif isinstance(value, (list, tuple)) and value and all(
                isinstance(x, keras.KerasTensor) for x in value):  # initial_state=[h, c]
            tensors.update({calls.item_slot(key, i): x for i, x in enumerate(value)})
        elif any(isinstance(x, keras.KerasTensor) for x in flat):
            raise EditError(f"Layer {op.name!r} ({type(op).__name__}) is called with {key}= "
                            "holding several tensors, which a drawing cannot hold yet: a named "
                            "slot takes one tensor.", layer=op.name)
        elif not _is_default(defaults, key, value) and any(x is not None for x in flat):
            # (mask=[None, None] is Keras's; training=False given where the signature's default
            # is None is the caller's: a pretrained base kept in inference mode)
            settings[key] = value
    try:
        found = calls.checked_settings(settings, f"Layer {op.name!r} ({type(op).__name__})")
    except EditError as e:
        raise EditError(e.message, layer=op.name) from None
    return list(args), tensors, found


def _by_name(op, slots, args: list, tensors: dict, settings) -> tuple[list, dict, tuple]:
    """A call's tensors passed by position beyond the box's positional slots (a custom
    layer's call(x, y=None) called as layer(x, y)), moved to named slots under their
    parameters' names: the same call, made by keyword."""
    if not isinstance(op, keras.layers.Layer) or isinstance(op, keras.Model) or \
            slots.kind == "list":
        return args, tensors, settings
    first = calls.keyword(slots, 0) if slots.names[:1] == ("inputs",) else None
    if not args and first in tensors and first != "inputs":  # decoder(decoder_sequence=x, ...):
        # the first slot, passed by keyword (the call's positional count, 0, says so)
        tensors = {"inputs": tensors[first], **{k: v for k, v in tensors.items() if k != first}}
    n = calls.positional_count(slots)
    params = [p.name for p in calls.call_parameters(type(op))
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    extra = args[n:]
    if not extra or len(args) > len(params) or not all(
            isinstance(v, keras.KerasTensor) for v in extra) or any(
            params[i] in tensors for i in range(n, len(args))):
        return args, tensors, settings
    return args[:n], {**tensors, **{params[i]: args[i] for i in range(n, len(args))}}, settings


def _filled(op, slots, args: list, tensors: dict, settings=()) -> dict:
    """{slot: tensor} of a call read by _read_call, in the box's slots."""
    if not isinstance(op, keras.layers.Layer):
        return dict(enumerate(args))
    if isinstance(op, keras.Model) and len(args) == 1 and isinstance(args[0], dict):
        by_key = op._inputs_struct  # a dict of inputs: in the order of model.inputs
        if isinstance(by_key, dict) and set(by_key) == set(args[0]):
            position = {id(t): i for i, t in enumerate(op.inputs)}
            args = [[args[0][k] for k in sorted(by_key, key=lambda k: position[id(by_key[k])])]]
    if slots.kind == "list" or isinstance(op, keras.Model):
        flat = [t for t in keras.tree.flatten(args) if t is not None]
        if any(not isinstance(t, keras.KerasTensor) for t in flat):
            raise EditError(f"Layer {op.name!r} ({type(op).__name__}) is called with a value "
                            "that is not a tensor in its list of inputs.", layer=op.name)
        return dict(enumerate(flat))
    filled = {}
    for i, value in enumerate(args):
        if not isinstance(value, keras.KerasTensor) or i >= calls.positional_count(slots):
            shown = type(value).__name__
            raise EditError(f"Layer {op.name!r} ({type(op).__name__}) is called with {shown} as "
                            f"positional argument {i}, which a drawing cannot hold: only tensors "
                            f"in its slots ({', '.join(slots.names)}).", layer=op.name)
        filled[i] = value
    for key, value in tensors.items():
        filled[slots.names.index(key)] = value
    return filled


def _container(op, slots, args: list) -> tuple:
    """(keys, as_tuple) of a layer of one's own called on one dict or tuple of tensors (what
    calls.CallArgs keeps so the call is made again as it was); (None, False) for a list."""
    if slots.kind != "list" or isinstance(op, keras.Model) or len(args) != 1:
        return None, False
    (items,) = args
    values = list(items.values()) if isinstance(items, dict) else items
    if not isinstance(values, (list, tuple)) or not all(
            isinstance(t, keras.KerasTensor) for t in values):
        raise EditError(f"Layer {op.name!r} ({type(op).__name__}) is called on a container "
                        "holding more than tensors, which a drawing cannot hold: one list, tuple "
                        "or dict of tensors.", layer=op.name)
    if isinstance(items, dict):
        return calls.checked_keys(list(items), f"Layer {op.name!r}"), False
    return None, isinstance(items, tuple)


def _positional(slots, filled: dict, args: list) -> int | None:
    """How many slots a call passed by position, where that differs from the default (every
    filled positional slot from the first)."""
    if slots.kind == "list":
        return None
    default = 0
    while default in filled and default < calls.positional_count(slots):
        default += 1
    return None if len(args) == default else len(args)


@functools.cache
def _call_defaults(cls) -> dict:
    """The defaults of a layer's call signature (RandomFlip.call(inputs, training=True))."""
    try:
        params = inspect.signature(cls.call).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return {}
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def _is_default(defaults: dict, key: str, value) -> bool:
    """An argument equal to its signature default is Keras's filling-in, not the caller's."""
    default = defaults.get(key, _NO_DEFAULT)
    return (default is not _NO_DEFAULT and isinstance(value, (bool, int, float, str, type(None)))
            and type(value) is type(default) and value == default)


_NO_DEFAULT = object()
