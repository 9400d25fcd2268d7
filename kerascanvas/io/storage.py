"""Save and load a drawing with its weights: `g.save(path)`, `kc.Graph.load(path)`.

The file is a zip archive (format version 1):
    kerascanvas.json  {"format": "kerascanvas", "version": 1, "name": str,
                       "layers": [{"name", "class_name", "config", "calls", "weights": n,
                                   "keywords": [...], "call_args": [...]} (both optional), ...],
                       "edges": [[[src, node_index, tensor_index], [dst, call, slot]], ...],
                       "pinned": {name: [x, y]}, "outputs": [[layer, node, tensor], ...],
                       "outputs_only": bool, "expanded": [name, ...] (optional),
                       "folded": [first layer of a folded run, ...] (optional),
                       "direction": "down" | "right" (optional: the layout's flow),
                       "dict_inputs": bool (optional),
                       "output_keys": [key, ...] (optional: dict outputs, one per output)}
    weights.npz       arrays "l<i>_<j>": weight j of layer i (the order of layer.weights),
                      and "c<i>_<k>": array constant k of layer i's config (the mean of
                      `x - mean`), which the config names {"__array__": [dtype, shape,
                      "c<i>_<k>"]}; read with allow_pickle=False.
    insights.json     (optional) training insight records, see insights.py.
A layer entry is what `g.layers` shows: the catalog class name (or "InputLayer"; or "Functional" /
"Sequential" for a model used as a layer, whose config holds its own layers) and Keras's config;
"calls" counts its calls, complete or pending; edges are (source triple, (layer, call, slot)).
A reader refuses versions above its own; a later version adds keys, an older file keeps loading.
Layers, configs and edges go through the same checks as edits made by hand (class names from the
catalog only), so a file can only describe a drawing; a number out of range anywhere, or corrupt
compressed data, is refused naming the file. Saving writes a temporary file beside the target and
renames it over the target: an interrupted save leaves the previous file whole. A symlink is
saved through (its target is written), a read-only file is refused, and saves of one path at once
(threads, kernels) each write their own temporary file: none fails another or leaves a half file.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import math
import os
import secrets
import socket
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .. import limits
from ..errors import EditError
from ..insights import insights
from ..network import inside
from .file_constants import constants_apart, constants_back, read_array

FORMAT = "kerascanvas"
VERSION = 1
MAX_LAYERS = 100_000
MAX_WEIGHTS = 100_000  # arrays per layer (a nested model holds all of its layers')
INSIGHTS_ENTRY = "insights.json"  # the training insight records (insights.py), optional


class SaveError(EditError, OSError):
    """A save the system refused (a full disk, a read-only folder), said as a refusal: the
    canvas answers it with its message; still an OSError for code that catches those."""


def save(g, path) -> None:
    path = Path(path)
    layers, arrays = [], {}
    for i, (name, spec) in enumerate(g.specs.items()):
        weights = g.saved_weights(name)  # (a pending box may hold some, an operation never)
        for j, w in enumerate(weights):
            arrays[f"l{i}_{j}"] = w
        config = constants_apart(spec.config, f"c{i}", arrays)
        layers.append({"name": name, "class_name": spec.class_name, "config": config,
                       "calls": spec.calls, "weights": len(weights), **call_entry(spec),
                       **({"inside": [list(e) for e in spec.inside]} if spec.inside else {})})
    document = {"format": FORMAT, "version": VERSION, "name": g.name, "layers": layers,
                "edges": [[list(src), list(dst)] for src, dst in g.edges],
                "pinned": {n: list(g.positions[n]) for n in g.pinned},
                "expanded": sorted(g.expanded),
                "folded": sorted(g.folded),
                **({"direction": g.direction} if g.direction != "down" else {}),
                "outputs": [list(t) for t in g.output_order], "outputs_only": g.outputs_only,
                "dict_inputs": g.dict_inputs, "output_keys": list(g.output_keys),
                "input_structure": g.input_structure, "output_structure": g.output_structure}
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    shown = str(path)
    # As editors (and Jupyter's own writer) save: through a symlink to the file it names, the
    # link kept; and never over a read-only file, whose mode the rename would ignore.
    path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise SaveError(f"Could not save {shown!r}: {e.strerror or e}.") from None
    if mode is not None and (not mode & 0o222 or not os.access(path, os.W_OK)):
        raise SaveError(f"Could not save {shown!r}: the file is read-only (make it writable to "
                        "save over it); the file on disk is as it was.")
    # A name no other save takes (other threads, other kernels), saying who writes it
    tmp = path.with_name(f"{_tmp_prefix(path)}{_owner()}.{secrets.token_hex(8)}.tmp")
    try:  # 0o666: a new file gets the umask's mode, as open() gives one (no umask juggling)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except OSError as e:
        raise SaveError(f"Could not save {shown!r}: {e.strerror or e}.") from None
    try:
        if mode is not None:
            os.chmod(tmp, mode)  # an existing file keeps its own mode
        with os.fdopen(fd, "wb") as f:
            with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("kerascanvas.json", json.dumps(document, default=_jsonable))
                z.writestr("weights.npz", buffer.getvalue())
                records = insights.of(g).to_json()  # training insights, when there are any
                if records is not None:
                    z.writestr(INSIGHTS_ENTRY, records)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):  # a full disk, a read-only folder: said as a refusal
            raise SaveError(f"Could not save {shown!r}: {e.strerror or e}; the file on disk "
                            "is as it was.") from None
        raise
    _remove_leftovers(path)


def _tmp_prefix(path: Path) -> str:
    return f".{path.name}."


_HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]
STALE_SECONDS = 24 * 3600


def _owner() -> str:
    """Who writes a temporary file: "<pid>-<host>", the host hashed short (a folder shared over
    the network holds other machines' saves, whose pids say nothing here)."""
    return f"{os.getpid()}-{_HOST}"


def _remove_leftovers(path: Path) -> None:
    """Temporary files that saves of this path left when their process was killed (kill -9 runs
    no cleanup). Saves of the same path may be under way in other threads or kernels, so a file
    goes only when provably stale: its writer, a process of this machine, no longer runs; or it
    is untouched for a day (a save writes its file in one go and renames it at once)."""
    prefix = _tmp_prefix(path)
    try:
        leftovers = list(path.parent.glob(glob.escape(prefix) + "*.tmp"))
    except OSError:
        return
    for leftover in leftovers:
        pid, _, host = leftover.name[len(prefix):].partition(".")[0].partition("-")
        try:
            if ((host == _HOST and pid.isdigit() and not _alive(int(pid)))
                    or time.time() - leftover.stat().st_mtime > STALE_SECONDS):
                leftover.unlink(missing_ok=True)
        except OSError:  # one we may not remove stays; the save itself succeeded
            pass


def _alive(pid: int) -> bool:
    if os.name == "nt":  # os.kill(pid, 0) would end the process there: the age decides
        return True
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, only whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's process, alive
        return True
    return True


def _jsonable(value):
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def load(path, graph_class):
    """A new Graph from a saved file; a bad file raises EditError and creates nothing.

    Sizes and counts are checked before anything is decompressed (limits.py); the weights
    archive is read only after the drawing is built, and only if it is no bigger than the
    weights of the layers it describes (a zip bomb there is refused unread)."""
    path = Path(path)
    where = repr(str(path))
    try:
        with open(path, "rb") as f:
            limits.check_entries(f, where)
            with zipfile.ZipFile(f) as z:
                limits.check_archive(z.infolist(), where)
                limits.check_document(z.getinfo("kerascanvas.json").file_size, where)
                document = json.loads(z.read("kerascanvas.json"), parse_int=_int(where),
                                      parse_float=_float(where))
                _check(document, path)
                constants = constants_back(z, document, where)
                g = _drawing(graph_class, document, where)
                arrays = _arrays(z, g, document, where, constants)
                if INSIGHTS_ENTRY in z.namelist():  # (optional: files before it have none)
                    if z.getinfo(INSIGHTS_ENTRY).file_size > limits.INSIGHT_BYTES:
                        raise limits.LimitError(f"{where}'s training insights are over "
                                                f"limits.INSIGHT_BYTES ({limits.INSIGHT_BYTES:,}).")
                    insights.of(g).load_json(z.read(INSIGHTS_ENTRY), where, g.layers)
    except FileNotFoundError:
        raise EditError(f"There is no file {str(path)!r}.") from None
    except EditError:
        raise
    except OverflowError as e:  # a number no float holds, met past the document (insights)
        raise EditError(f"{where} holds a number out of range: {e}.") from None
    except (zipfile.BadZipFile, zlib.error, KeyError, ValueError, EOFError, OSError,
            RecursionError) as e:  # (zlib.error: an entry's compressed data is corrupt)
        raise EditError(f"{where} is not a readable kerascanvas file (corrupt or "
                        f"truncated?): {e}") from None
    try:
        for i, layer in enumerate(document["layers"]):
            _set_weights(g, layer, [arrays.get(f"l{i}_{j}") for j in range(layer["weights"])])
    except EditError:
        raise
    except (TypeError, KeyError, IndexError, ValueError, OverflowError) as e:
        raise EditError(f"{where} describes an invalid drawing: {e}") from None
    g.reset_history()  # a loaded drawing starts a fresh history
    return g


def _int(where: str):
    """json's reader of integers: one out of 64-bit range (a 400-digit number is valid JSON)
    is refused here, naming the file, wherever it stands (positions, configs, calls, edges)."""
    def read(text: str) -> int:
        # (a longer text is out of range: refused unconverted)
        if len(text) > 21 or not -(2**63) <= int(text) < 2**64:
            raise EditError(f"{where} holds a number out of range ({text:.24}..., "
                            f"{len(text.lstrip('-'))} digits).")
        return int(text)
    return read


def _float(where: str):
    """json's reader of decimals: one past float's range (1e400) would be read as infinity;
    refused as such (an infinity saved is written Infinity, which still reads)."""
    def read(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise EditError(f"{where} holds a number out of range ({text:.24}).")
        return value
    return read


def _drawing(graph_class, document: dict, where: str):
    try:
        g = graph_class(name=document["name"])
        g.replay(document)
        return g
    except EditError:
        raise
    except (TypeError, KeyError, IndexError, ValueError, RecursionError, OverflowError) as e:
        # (UnknownLayerError is a ValueError): every bad file is an EditError
        raise EditError(f"{where} describes an invalid drawing: {e}") from None


def _budgets(g, document: dict) -> tuple[dict[str, int], set[str]]:
    """({entry: bytes} for the weights of live layers: each variable's size plus room for its
    header, {entries} of boxes still pending, which have no shapes to size them by: together
    they share limits.PENDING_WEIGHT_BYTES). An entry named by neither is no weight at all."""
    budgets, pending = {}, set()
    live = set(g.live_names)
    for i, layer in enumerate(document["layers"]):
        if layer["name"] in live:
            variables = getattr(g.keras_layer(layer["name"]), "weights", ())  # (an op has none)
            for j, v in enumerate(variables):
                budgets[f"l{i}_{j}.npy"] = int(np.prod(v.shape)) * limits.itemsize(v.dtype) + 1024
        else:
            pending.update(f"l{i}_{j}.npy" for j in range(layer["weights"]))
    return budgets, pending


def _arrays(z: zipfile.ZipFile, g, document: dict, where: str, constants: dict) -> dict:
    """The weights archive's arrays, each counted before it is inflated: the archive no bigger
    than the drawing's weights, each entry one the drawing has and no bigger than its weight
    (pending boxes' entries adding up to at most limits.PENDING_WEIGHT_BYTES), each array's
    header checked against the bytes stored for it before numpy allocates it. zipfile inflates
    an entry no further than the size its header gives, so no count here is taken on trust."""
    budgets, pending = _budgets(g, document)
    budgets.update(constants)  # (entries read already, by _constants_back)
    expected = sum(budgets.values()) + (limits.PENDING_WEIGHT_BYTES if pending else 0) + 1024
    size = z.getinfo("weights.npz").file_size
    if size > expected:
        raise limits.LimitError(f"{where} holds {size:,} bytes of weights, but its layers take "
                                f"{expected:,} bytes: refused unread.")
    buffer = io.BytesIO(z.read("weights.npz"))
    limits.check_entries(buffer, f"{where}'s weights", "weight_arrays")
    arrays, pending_bytes = {}, 0
    with zipfile.ZipFile(buffer) as w:
        infos = w.infolist()
        for info in infos:  # every entry counted before any is inflated
            if info.filename in pending:
                pending_bytes += info.file_size
                limits.check_pending(where, pending_bytes)
            elif info.filename in budgets:
                limits.check_inflated(where, info.filename, info.file_size, budgets[info.filename])
            else:
                raise limits.LimitError(f"{where}'s weights hold {info.filename!r}, which is no "
                                        "weight of its drawing: refused unread.")
        for info in infos:
            if info.filename.startswith("c"):  # constants: read before the drawing was built
                continue
            arrays[info.filename.removesuffix(".npy")] = read_array(w, info, where)
    return arrays


def _check(doc, path) -> None:
    where = f"{str(path)!r}"
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise EditError(f"{where} is not a kerascanvas file (no 'format': 'kerascanvas').")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise EditError(f"{where} has an invalid format version {version!r}.")
    if version > VERSION:
        raise EditError(f"{where} was written by a newer kerascanvas (format version {version}); "
                        f"this one reads up to version {VERSION}.")
    expected = {"name": str, "layers": list, "edges": list, "pinned": dict, "outputs": list,
                "outputs_only": bool}
    for key, kind in expected.items():
        if not isinstance(doc.get(key), kind):
            raise EditError(f"{where}: {key!r} must be a {kind.__name__}, got {doc.get(key)!r:.80}.")
    expanded = doc.get("expanded", [])
    if not (isinstance(expanded, list) and all(isinstance(n, str) for n in expanded)):
        raise EditError(f"{where}: 'expanded' must be a list of layer names, got {expanded!r:.80}.")
    folded = doc.get("folded", [])
    if not (isinstance(folded, list) and all(isinstance(n, str) for n in folded)):
        raise EditError(f"{where}: 'folded' must be a list of layer names, got {folded!r:.80}.")
    if doc.get("direction", "down") not in ("down", "right"):
        raise EditError(f"{where}: 'direction' must be 'down' or 'right', got "
                        f"{doc.get('direction')!r:.80}.")
    if len(doc["layers"]) > MAX_LAYERS:
        raise EditError(f"{where} has more than {MAX_LAYERS} layers.")
    for layer in doc["layers"]:
        if not (isinstance(layer, dict) and isinstance(layer.get("name"), str)
                and isinstance(layer.get("class_name"), str) and isinstance(layer.get("config"), dict)
                and isinstance(layer.get("calls"), int) and 1 <= layer["calls"] <= limits.CALLS
                and isinstance(layer.get("weights"), int) and 0 <= layer["weights"] <= MAX_WEIGHTS):
            raise EditError(f"{where}: a layer entry is malformed: {layer!r:.200}.")


def replay(g, doc, as_given: bool = False) -> None:
    """`Graph.replay`: the layers, then every call, then the edges, in one batch. as_given: the
    configs are live layers' own get_config() (import), kept as they are."""
    names = {layer["name"] for layer in doc["layers"]}
    expanded = _listed(doc, "expanded", names)  # checked before any work
    folded = _listed(doc, "folded", names)
    pinned = doc.get("pinned", {})
    for name, point in pinned.items():
        if not (isinstance(point, list) and len(point) == 2):
            raise EditError(f"A malformed position for {name!r}: {point!r:.80}.")
    with g.batch(all_or_nothing=True):  # one copy of the drawing, not one per edit
        for layer in doc["layers"]:
            config = dict(layer["config"], name=layer["name"])
            if layer["class_name"] == "InputLayer":
                shape = config.get("batch_shape")
                if not isinstance(shape, list) or not shape:
                    raise EditError(f"Input {layer['name']!r} has no batch_shape.")
                g.add_input(tuple(shape[1:]), name=layer["name"], dtype=config.get("dtype", "float32"),
                            batch_size=shape[0], optional=config.get("optional", False))
            else:
                g.add_layer_from_config({"class_name": layer["class_name"], "config": config},
                                        as_given=as_given, inside=inside_of(layer),
                                        **call_model(layer))
        for layer in doc["layers"]:  # every call first: edges may come from any of them
            for _ in range(layer["calls"] - 1):
                g.add_call(layer["name"])
        for src, dst in _in_slot_order(doc["edges"]):
            g.connect(tuple(src), dst[0], call=dst[1], slot=dst[2])
        if doc.get("direction", "down") != g.direction:  # before the pins: it unpins
            g.set_direction(doc.get("direction", "down"))
        if pinned:
            g.move_many({name: tuple(point) for name, point in pinned.items()})
        if expanded or folded:
            g.show(expanded=expanded, folded=folded)
        keys = doc.get("output_keys") or []  # optional: older files lack it
        if keys and not (isinstance(keys, list) and len(keys) == len(doc.get("outputs") or [])
                         and len(set(map(str, keys))) == len(keys)):
            raise EditError(f"'output_keys' must be one distinct key per output, got {keys!r:.80}.")
        if keys:
            g.set_outputs(dict(zip(keys, [tuple(t) for t in doc["outputs"]])))
        elif doc.get("outputs"):
            g.set_outputs([tuple(t) for t in doc["outputs"]], only=doc.get("outputs_only", False))
        if doc.get("dict_inputs", False) is not False:  # optional: older files lack it
            g.set_dict_inputs(doc["dict_inputs"])
        if doc.get("input_structure") is not None or doc.get("output_structure") is not None:
            g.set_structures(inputs=doc.get("input_structure"),  # optional, as output_keys
                             outputs=doc.get("output_structure"))


def call_entry(spec) -> dict:
    """A layer entry's optional call model: "keywords" (the tensor keyword arguments its
    calls take as named slots) and "call_args" (per call: settings, positional count)."""
    entry = {}
    if spec.slots.named:
        entry["keywords"] = list(spec.slots.named)
    if spec.call_args:
        entry["call_args"] = [a.as_json() for a in spec.call_args]
    return entry


def call_model(layer: dict) -> dict:
    """add_layer_from_config's keywords and call_args from a layer entry, checked."""
    from ..kinds import calls

    where = f"Layer {layer['name']!r:.80}"
    keywords, call_args = layer.get("keywords", []), layer.get("call_args", [])
    if not (isinstance(keywords, list) and len(keywords) <= 64
            and all(isinstance(k, str) and k.isidentifier() for k in keywords)):
        raise EditError(f"{where}: 'keywords' must be a list of argument names, got "
                        f"{keywords!r:.80}.")
    if not (isinstance(call_args, list) and len(call_args) <= layer["calls"]):
        raise EditError(f"{where}: 'call_args' must be a list, one entry per call, got "
                        f"{call_args!r:.80}.")
    return {"keywords": tuple(keywords),
            "call_args": tuple(calls.CallArgs.from_json(a, where) for a in call_args)}


def inside_of(layer: dict) -> tuple:
    """A layer entry's optional "inside": [[path, "lora", rank] or [path, "trainable", flag],
    ...], what was done to layers made in its build (LayerSpec.inside), checked."""
    done = layer.get("inside", [])
    where = f"Layer {layer['name']!r:.80}"
    if not isinstance(done, list) or len(done) > MAX_WEIGHTS:
        raise EditError(f"{where}: 'inside' must be a list, got {done!r:.80}.")
    for e in done:
        ok = (isinstance(e, list) and len(e) == 3 and isinstance(e[0], str)
              and 0 < len(e[0]) <= 1000 and "" not in e[0].split("/")
              and ((e[1] == "trainable" and isinstance(e[2], bool))
                   or (e[1] == "lora" and type(e[2]) is int and 1 <= e[2] <= inside.MAX_RANK)))
        if not ok:
            raise EditError(f"{where}: an 'inside' entry is [path, \"lora\", rank] or [path, "
                            f"\"trainable\", true/false], got {e!r:.80}.")
    return tuple(tuple(e) for e in done)


def _listed(doc: dict, key: str, names: set) -> list[str]:
    """A file's list of layer names (optional: older files lack it), deduplicated and checked
    against the drawing's layers before any work: a name repeated a million times costs one
    look-up each, not an edit each."""
    listed = doc.get(key, [])
    if not (isinstance(listed, list) and all(isinstance(n, str) for n in listed)):
        raise EditError(f"{key!r} must be a list of layer names, got {listed!r:.80}.")
    unique = list(dict.fromkeys(listed))
    for name in unique:
        if name not in names:
            raise EditError(f"{key!r} names {name!r:.100}, which is not a layer of the drawing.")
    return unique


def _in_slot_order(edges: list) -> list:
    """The edges in file (creation) order, except that the edges into one call take their
    places in slot order: list slots can only be filled in order."""
    for e in edges:
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(p, list) and len(p) == 3
                                                           for p in e)):
            raise EditError(f"A malformed edge: {e!r:.120}.")
    by_call: dict = {}
    for e in edges:
        by_call.setdefault(json.dumps(e[1][:2]), []).append(e)
    queues = {k: iter(sorted(v, key=lambda e: (e[1][2] is None, e[1][2] or 0)))
              for k, v in by_call.items()}
    return [next(queues[json.dumps(e[1][:2])]) for e in edges]


def _set_weights(g, layer: dict, arrays: list) -> None:
    if arrays and g.live_layer(layer["name"]) is None:  # pending: kept for its first call
        if any(a is None for a in arrays):
            raise EditError(f"The weights of {layer['name']!r} are missing.")
        g.park_weights(layer["name"], arrays)
        return
    target = g.keras_layer(layer["name"])
    variables = getattr(target, "weights", [])  # (a keras.ops operation has none)
    if not arrays and not variables:  # a pending layer, or one without weights
        return
    if any(a is None for a in arrays) or len(arrays) != len(variables):
        raise EditError(f"The weights of {layer['name']!r} are missing or do not match its layer.")
    for variable, value in zip(variables, arrays):
        if tuple(variable.shape) != value.shape:
            raise EditError(f"Weight {variable.path!r} of {layer['name']!r} has shape "
                            f"{value.shape} in the file, but the layer needs {tuple(variable.shape)}.")
    target.set_weights(arrays)
    from ..kinds.layerkind import settle

    settle(target)  # an adapted Normalization
