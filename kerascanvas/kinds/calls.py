"""The call model: how one call of a layer is made from its slots, and what else it is given.

A box's slots (catalog.Slots) are its call's tensor arguments: positional ones first (`inputs`;
MultiHeadAttention's query, value, key), then the tensor keyword arguments the box offers
(`slots.named`: padding_mask, attention_mask, ...), each a named slot that may stay empty. A call
also has settings, the arguments that are not tensors (training=True, use_causal_mask=True,
return_attention_scores=...), and says how many of its slots it passes by position (Keras records
`mha(query=q, value=v)` and `mha(q, v)` as different nodes: args versus kwargs). Together these
are a CallArgs, one per call, kept in the drawing's LayerSpec.

Keras records a call in `node.arguments` (args and kwargs as given); `node.input_tensors` is
their flattening, keyword tensors sorted by name. `arrange` makes a call's args and kwargs from
the drawing; `read` takes them back out of a Keras node; both agree with what Keras records.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import EditError

PLAIN = (bool, int, float, str, type(None))
MAX_SETTINGS = 32
# Call arguments that are never settings: Keras fills them in itself (a mask from the tensors'
# own masks, training from the context) unless a call gives them
KERAS_FILLED = ("training",)


@dataclass(frozen=True)
class CallArgs:
    """One call's non-tensor keyword arguments (sorted (name, value) pairs) and how many of its
    filled slots it passes by position (None: every positional slot that is filled). A box
    called on one container of tensors also says which: `keys`, a dict's keys in the order the
    caller wrote them (its slots hold them sorted, the order Keras flattens a dict in), or
    `as_tuple`, a tuple where a list is the default (`sel({"age": a, "income": b})`,
    `pair((a, b))`: layers of one's own may read either)."""

    settings: tuple[tuple[str, Any], ...] = ()
    positional: int | None = None
    keys: tuple[str, ...] | None = None
    as_tuple: bool = False

    @property
    def settings_dict(self) -> dict:
        return dict(self.settings)

    def as_json(self) -> dict:
        found = {}
        if self.settings:
            found["settings"] = {k: _json(v) for k, v in self.settings}
        if self.positional is not None:
            found["positional"] = self.positional
        if self.keys is not None:
            found["keys"] = list(self.keys)
        if self.as_tuple:
            found["tuple"] = True
        return found

    @classmethod
    def from_json(cls, value: Any, where: str) -> CallArgs:
        """A CallArgs as storage writes it ({"settings": {...}, "positional": n}), checked."""
        if not isinstance(value, Mapping) or set(value) - {"settings", "positional", "keys",
                                                           "tuple"}:
            raise EditError(f"{where}: a call's arguments are {{'settings': {{...}}, "
                            f"'positional': n, 'keys': [...], 'tuple': true}} (each optional), "
                            f"got {value!r:.120}.")
        positional = value.get("positional")
        if positional is not None and not (type(positional) is int and 0 <= positional <= 64):
            raise EditError(f"{where}: 'positional' is a count of slots, got {positional!r:.40}.")
        as_tuple = value.get("tuple", False)
        if type(as_tuple) is not bool:
            raise EditError(f"{where}: 'tuple' is true or false, got {as_tuple!r:.40}.")
        keys = value.get("keys")
        return cls(checked_settings(value.get("settings") or {}, where), positional,
                   None if keys is None else checked_keys(keys, where), as_tuple)


MAX_KEYS = 64


def checked_keys(keys: Any, where: str) -> tuple[str, ...]:
    """The keys of a call on one dict of tensors: distinct strings, bounded (they come from
    files too)."""
    if not (isinstance(keys, (list, tuple)) and 0 < len(keys) <= MAX_KEYS
            and all(isinstance(k, str) and 0 < len(k) <= 100 for k in keys)
            and len(set(keys)) == len(keys)):
        raise EditError(f"{where}: a call's dict keys are up to {MAX_KEYS} distinct strings, got "
                        f"{keys!r:.120}.")
    return tuple(keys)


DEFAULT = CallArgs()


def of(spec, k: int) -> CallArgs:
    """Call k's arguments (the default where none were given)."""
    found = getattr(spec, "call_args", ())
    return found[k] if k < len(found) else DEFAULT


def trimmed(call_args) -> tuple:
    """Per-call arguments without the default ones at the end (what a spec keeps)."""
    found = list(call_args)
    while found and found[-1] == DEFAULT:
        found.pop()
    return tuple(found)


def checked_settings(settings: Any, where: str) -> tuple[tuple[str, Any], ...]:
    """Settings as a spec keeps them: identifiers mapped to plain values (or lists of them)."""
    if not isinstance(settings, Mapping):
        raise EditError(f"{where}: call settings are a dict, got {settings!r:.80}.")
    if len(settings) > MAX_SETTINGS:
        raise EditError(f"{where}: more than {MAX_SETTINGS} call settings.")
    for key, value in settings.items():
        if not (isinstance(key, str) and key.isidentifier() and len(key) <= 100):
            raise EditError(f"{where}: a call setting is named by an identifier, got {key!r:.60}.")
        if not _plain(value):
            raise EditError(f"{where}: call setting {key}= must be a number, string, boolean, "
                            f"None or a list of them (a tensor goes into a slot); got "
                            f"{type(value).__name__} {value!r:.60}.")
    return tuple(sorted((k, _frozen(v)) for k, v in settings.items()))


def _plain(value: Any, depth: int = 0) -> bool:
    if isinstance(value, PLAIN):
        return not isinstance(value, str) or len(value) <= 1000
    return (isinstance(value, (list, tuple)) and depth < 3 and len(value) <= 64
            and all(_plain(v, depth + 1) for v in value))


def _frozen(value: Any) -> Any:
    return tuple(map(_frozen, value)) if isinstance(value, (list, tuple)) else value


def plain(value: Any) -> Any:
    """A setting's value as given (lists where the spec keeps tuples)."""
    return list(map(plain, value)) if type(value) is tuple else value


_json = plain


# ----- which tensor keyword arguments a class offers ------------------------------------------

def call_parameters(cls) -> list[inspect.Parameter]:
    """The parameters of `cls.call` after self ([] where there is no readable signature)."""
    try:
        return list(inspect.signature(cls.call).parameters.values())[1:]
    except (TypeError, ValueError, AttributeError):
        return []


def takes_any_keyword(cls) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in call_parameters(cls))


def keyword_defaults(cls, positional: tuple[str, ...]) -> tuple[str, ...]:
    """The tensor keyword arguments a box of this class offers as slots from the start: the
    masks its call takes (padding_mask, attention_mask, ...) but those Keras fills in from
    the tensors' own masks (`mask` of a one-tensor call, `query_mask` beside `query`)."""
    filled_by_keras = {"mask"} | {f"{name}_mask" for name in positional}
    return tuple(p.name for p in call_parameters(cls)
                 if p.name not in positional and p.name.endswith("mask") and p.default is None
                 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                 and p.name not in filled_by_keras)


# call settings that make a call give more tensors (MultiHeadAttention's attention scores)
EXTRA_OUTPUTS = {"return_attention_scores": 1}


def extra_outputs(args) -> int:
    """The output tensors one call's settings add (a CallArgs, or None: the default)."""
    settings = args.settings_dict if args is not None else {}
    return sum(n for key, n in EXTRA_OUTPUTS.items() if settings.get(key) is True)


def most_extra_outputs(call_args) -> int:
    """The output ports a box's calls add: its ports are the most any call gives."""
    if not call_args:  # (most boxes: every add asks)
        return 0
    return max((extra_outputs(a) for a in call_args), default=0)


def optional_tensors(cls, positional: tuple[str, ...]) -> tuple[str, ...]:
    """A user class's optional second tensor argument, offered as a named slot: the parameter
    after its first tensor, where it defaults to None (call(x, y=None)) and Keras does not fill
    it in (further keyword tensors become slots when a call is imported with them)."""
    params = [p for p in call_parameters(cls) if p.kind in (p.POSITIONAL_ONLY,
                                                             p.POSITIONAL_OR_KEYWORD)]
    skip = set(KERAS_FILLED) | {"mask"} | {f"{name}_mask" for name in positional}
    return tuple(p.name for p in params[1:2] if p.default is None and p.name not in skip
                 and p.name not in positional)


def with_keywords(slots, names) -> Any:
    """`slots` with the tensor keyword arguments `names` as further named slots (those it has
    already are kept where they are). A box called on a list takes none."""
    if not names:  # (most boxes: every add asks)
        return slots
    extra = tuple(n for n in dict.fromkeys(names) if n not in slots.names)
    if not extra:
        return slots
    if slots.kind not in ("single", "args") or slots.max is None:
        raise EditError(f"A layer called on a list of tensors takes no tensor keyword arguments "
                        f"({', '.join(extra)}).")
    return replace(slots, kind="args", names=slots.names + extra, max=slots.max + len(extra),
                   named=slots.named + extra)


def positional_count(slots) -> int:
    """How many of a box's slots can be passed by position (the rest go by name)."""
    if slots.kind == "list":
        return 1
    return (slots.max if slots.max is not None else len(slots.names)) - len(slots.named)


def check_setting_names(cls, slots, names, where: str) -> None:
    """Settings must be non-tensor arguments the class's call takes."""
    params = {p.name for p in call_parameters(cls)}
    for name in names:
        if name in slots.names:
            raise EditError(f"{where}: {name}= is a slot of the call (a tensor goes there by an "
                            "edge), not a setting.")
        if name not in params and not takes_any_keyword(cls) and name not in KERAS_FILLED:
            raise EditError(f"{where}: the call takes no argument {name}= (it takes "
                            f"{', '.join(sorted(params)) or 'nothing more'}).")


# ----- a call from the drawing, and back ---------------------------------------------------

def arrange(slots, filled: Mapping[int, Any], call_args: CallArgs = DEFAULT, keys=None):
    """(args, kwargs) of a call whose slots hold `filled` {slot: value}: positional slots by
    position (as many as the call passes so), the rest by their names, then the settings.
    A list layer gets its tensors as one list (a tuple where the call was made so); a model
    that takes a dict, as {key: tensor} (keys: nested.input_keys), and a layer called on a dict
    likewise (its call's keys, in the caller's order); slots hold the keys sorted."""
    if slots.kind == "list":
        items = [filled[i] for i in sorted(filled)]
        keys = keys if keys is not None else call_args.keys
        if keys is not None and len(keys) == len(items):
            by_key = dict(zip(sorted(keys), items))
            return [{k: by_key[k] for k in keys}], dict(call_args.settings)
        return [tuple(items) if call_args.as_tuple else items], dict(call_args.settings)
    limit = positional_count(slots)
    if call_args.positional is not None:
        limit = min(limit, call_args.positional)
    args, kwargs = [], {}
    for i in sorted(filled):
        if i == len(args) and i < limit:
            args.append(filled[i])
        else:
            kwargs[keyword(slots, i)] = filled[i]
    kwargs = _lists_gathered(kwargs)
    kwargs.update(call_args.settings)
    return args, kwargs


def keyword(slots, i: int) -> str:
    """The name slot i goes by when a call passes it by keyword: slot "inputs" under the call's
    own name for it (query=, decoder_sequence=), the others under theirs."""
    if i >= len(slots.names):
        return str(i)
    name = slots.names[i]
    return getattr(slots, "first", name) if i == 0 and name == "inputs" else name


# A keyword argument that takes a list of tensors (Bidirectional's initial_state=[h, c, h, c]):
# one named slot per item, "initial_state__0", "initial_state__1", ... gathered back for the call.
_ITEM = re.compile(r"^(?P<key>[A-Za-z_]\w*?)__(?P<index>\d{1,3})$")


def item_slot(key: str, i: int) -> str:
    return f"{key}__{i}"


def _lists_gathered(kwargs: dict) -> dict:
    found, items = {}, {}
    for name, value in kwargs.items():
        match = _ITEM.match(name)
        if match is None:
            found[name] = value
        else:
            items.setdefault(match["key"], {})[int(match["index"])] = value
            found.setdefault(match["key"], None)  # (its place among the keywords)
    for key, by_index in items.items():
        found[key] = [by_index[i] for i in sorted(by_index)]
    return found


def keras_order(slots, filled: Mapping[int, Any], call_args: CallArgs = DEFAULT) -> list:
    """The filled values in the order of `node.input_tensors`: args, then keyword tensors
    sorted by name (keras.tree.flatten sorts dict keys)."""
    args, kwargs = arrange(slots, filled, CallArgs(positional=call_args.positional))
    # (no dict nor tuple here: a dict's slots are already in the order Keras flattens it)
    flat = [x for a in args for x in (a if isinstance(a, list) else [a])]
    return flat + [x for k in sorted(kwargs)
                   for x in (kwargs[k] if isinstance(kwargs[k], list) else [kwargs[k]])]


def tensor_at(node, slots, s: int):
    """The tensor in slot s of a Keras node, read from its arguments as Keras recorded them."""
    args, kwargs = node.arguments.args, node.arguments.kwargs
    if slots.kind == "list":  # a list, or a model's dict of inputs (slots: sorted keys)
        items = args[0]
        return [items[k] for k in sorted(items)][s] if isinstance(items, dict) else items[s]
    name = keyword(slots, s) if s < len(slots.names) else None
    if name in kwargs:
        return kwargs[name]
    match = _ITEM.match(name) if name is not None else None
    if match is not None and isinstance(kwargs.get(match["key"]), (list, tuple)):
        return kwargs[match["key"]][int(match["index"])]
    return args[s]


def is_tensor(value) -> bool:
    import keras

    return isinstance(value, keras.KerasTensor)
