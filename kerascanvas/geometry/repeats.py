"""Repeated blocks: which runs of layers in a drawing are copies of one block (ResNet's identity
blocks in a stage, a transformer's encoder layers, Dense-Dropout pairs), so that a view can fold
each run away. Detection only, pure: structure in, layer names out; no keras, nothing drawn.

A block is a stretch of the graph between two cut points: calls that every path from the inputs
to the outputs goes through (in a topological order of the calls, no edge jumps over them). In a
ResNet, the cut points are each block's closing ReLU; in a plain chain, every layer. Two
stretches are copies when they hold the same layer classes with the same configs (names aside),
wired the same way inside and fed the same way from the cut point before them. A run is two or
more copies one after another; a copy may be several stretches long (Dense, Dropout, Dense,
Dropout: the block is Dense-Dropout).

Limits: shared layers (several calls) never count as copies; a drawing with several branches
side by side (an Inception module) has no cut points inside it, so it is one stretch.
"""

from __future__ import annotations

import bisect
import heapq
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Node = tuple[str, int]  # (layer, call)
EdgeLike = tuple[tuple[str, int, int], tuple[str, int, int]]

MAX_BLOCK_LAYERS = 200  # longer blocks are not looked for: 2,000 layers are searched in well under a second


@dataclass(frozen=True)
class Repeat:
    """Copies of one block, one after another: `blocks[i]` are the layer names of copy i, in
    order; `classes` the layer classes of one copy."""

    blocks: tuple[tuple[str, ...], ...]
    classes: tuple[str, ...]


def repeated_blocks(layers: Mapping[str, Mapping[str, Any]], edges: Iterable[EdgeLike],
                    min_layers: int = 2, max_layers: int = MAX_BLOCK_LAYERS) -> list[Repeat]:
    """Runs of identical blocks, in graph order. `layers` is {name: {"class_name", "config"}} in
    creation order and `edges` [((src, node_index, tensor_index), (dst, call, slot)), ...], as
    `Graph.layers` and `Graph.edges` give them (a layer may carry "config_text", its
    `config_text(config)` made before). Blocks have `min_layers` to `max_layers` layers."""
    edges = [(tuple(s), tuple(d)) for s, d in edges]
    order = _topological(layers, edges)
    stretches = _stretches(order, edges)
    calls = _calls(layers, edges)
    into: dict[Node, list] = {}  # dst call -> its edges (a signature reads only those)
    for e in edges:
        into.setdefault((e[1][0], e[1][1]), []).append(e)
    ids: dict[tuple, int] = {}  # equal signatures get equal small ints: cheap to compare
    signatures = []
    for i, s in enumerate(stretches):
        sig = _signature(s, i, stretches, layers, into, calls)
        signatures.append(None if sig is None else ids.setdefault(sig, len(ids)))
    sizes = [0]  # sizes[i]: layers in stretches[:i]
    for s in stretches:
        sizes.append(sizes[-1] + len(s))
    same = [1] * len(signatures)  # same[i]: how many equal signatures start at i
    for j in range(len(signatures) - 2, -1, -1):
        if signatures[j] is not None and signatures[j] == signatures[j + 1]:
            same[j] = same[j + 1] + 1
    where: dict[int, list[int]] = {}  # signature -> the positions that have it, in order
    for j, sig in enumerate(signatures):
        if sig is not None:
            where.setdefault(sig, []).append(j)
    found: list[Repeat] = []
    i = 0
    def copies_at(start: int, period: int) -> int:
        unit = signatures[start:start + period]
        if (len(unit) < period or None in unit
                or signatures[start + period:start + 2 * period] != unit):
            return 0
        if any(period % p == 0 and unit == unit[:p] * (period // p) for p in range(1, period)):
            return 0  # copies of a smaller block (four Dense are not two pairs of Dense)
        copies = 2
        while signatures[start + copies * period:start + (copies + 1) * period] == unit:
            copies += 1
        return copies

    while i < len(stretches):
        best: tuple[int, int] | None = None  # (period in stretches, copies)
        for period in _periods(i, signatures, where, same):
            if period > (len(stretches) - i) // 2:
                break
            size = sizes[i + period] - sizes[i]
            if size > max_layers:
                break  # blocks longer than that are not looked for (it keeps big drawings fast)
            if size < min_layers:
                continue
            copies = copies_at(i, period)
            if copies >= 2 and (best is None or copies * period > best[0] * best[1]):
                best = (period, copies)
        if best is None:
            i += 1
            continue
        period, copies = best
        # a copy ends with its own output rather than starting with the previous one's: of the
        # phases with as many copies, the latest (ResNet: conv2_block2_1_conv .. conv2_block2_out)
        i += max(s for s in range(period) if copies_at(i + s, period) >= copies)
        blocks = tuple(tuple(n for s in stretches[i + c * period:i + (c + 1) * period] for n, _ in s)
                       for c in range(copies))
        found.append(Repeat(blocks, tuple(layers[n]["class_name"] for n in blocks[0])))
        i += period * copies
    return found


def _periods(i: int, signatures: list, where: dict[int, list[int]], same: list[int]):
    """The periods worth trying at position i, in increasing order: a copy starts where the
    same signature comes again; periods p > 1 with 2p equal stretches from i are copies of one
    stretch, not of p (so only p = 1 and p > same[i] // 2 are tried)."""
    sig = signatures[i]
    if sig is None:
        return
    if i + 1 < len(signatures) and signatures[i + 1] == sig:
        yield 1
    positions = where[sig]
    for j in positions[bisect.bisect_right(positions, max(i + 1, i + same[i] // 2)):]:
        yield j - i


def _calls(layers: Mapping[str, Any], edges: list[EdgeLike]) -> dict[str, int]:
    calls = dict.fromkeys(layers, 1)
    for (s, n, _), (d, k, _) in edges:
        calls[s] = max(calls[s], n + 1)
        calls[d] = max(calls[d], k + 1)
    return calls


def _topological(layers: Mapping[str, Any], edges: list[EdgeLike]) -> list[Node]:
    """The calls in an order where every edge goes forward; ties go by creation order (an
    imported model's order, in which copies of a block list their layers alike)."""
    rank = {name: i for i, name in enumerate(layers)}
    calls = _calls(layers, edges)
    nodes = [(name, k) for name in layers for k in range(calls[name])]
    into: dict[Node, set[Node]] = {v: set() for v in nodes}
    out: dict[Node, set[Node]] = {v: set() for v in nodes}
    for (s, n, _), (d, k, _) in edges:
        into[(d, k)].add((s, n))
        out[(s, n)].add((d, k))
    waiting = {v: len(into[v]) for v in nodes}
    ready = [(rank[v[0]], v[1], v) for v in nodes if not waiting[v]]
    heapq.heapify(ready)
    order = []
    while ready:
        *_, v = heapq.heappop(ready)
        order.append(v)
        for w in out[v]:
            waiting[w] -= 1
            if not waiting[w]:
                heapq.heappush(ready, (rank[w[0]], w[1], w))
    return order  # (a cycle would leave calls out; the graph refuses cycles)


def _stretches(order: list[Node], edges: list[EdgeLike]) -> list[list[Node]]:
    """The order cut after each cut point: no edge goes from before it to after it."""
    at = {v: i for i, v in enumerate(order)}
    reach = [-1] * len(order)  # reach[i]: the furthest position an edge from position i goes to
    for (s, n, _), (d, k, _) in edges:
        if (s, n) in at and (d, k) in at:
            reach[at[(s, n)]] = max(reach[at[(s, n)]], at[(d, k)])
    stretches, current, furthest = [], [], -1  # furthest: reach of the calls before position i
    for i, v in enumerate(order):
        current.append(v)
        if furthest <= i:  # no edge from before goes past this call: it is a cut point
            stretches.append(current)
            current = []
        furthest = max(furthest, reach[i])
    if current:
        stretches.append(current)
    return stretches


def config_text(config: Mapping[str, Any] | None) -> str:
    """A config as compared between copies: names aside, as sorted JSON. A caller may pass it
    precomputed as a layer's "config_text" (the Graph keeps it per unchanged layer)."""
    config = {k: v for k, v in dict(config or {}).items() if k != "name"}
    return json.dumps(config, sort_keys=True, default=repr)


def _signature(stretch: list[Node], index: int, stretches: list[list[Node]],
               layers: Mapping[str, Mapping[str, Any]], into: Mapping[Node, list[EdgeLike]],
               calls: dict[str, int]) -> tuple | None:
    """What makes two stretches copies: their layers' classes and configs (names aside), and
    their edges, inside and from the stretch before, by position. None: never a copy."""
    if any(calls[name] > 1 for name, _ in stretch):
        return None
    where = {v: i for i, v in enumerate(stretch)}
    before = {v: -1 - i for i, v in enumerate(reversed(stretches[index - 1]))} if index else {}
    parts: list[Any] = []
    for name, _ in stretch:
        spec = layers[name]
        parts.append((spec["class_name"], spec.get("config_text") or config_text(spec.get("config"))))
    wires = []
    for (s, n, t), (d, k, slot) in (e for v in stretch for e in into.get(v, ())):
        src = where.get((s, n), before.get((s, n)))
        if src is None:
            return None  # fed from further back: not a stretch that repeats on its own
        wires.append((src, t, where[(d, k)], slot))
    return (tuple(parts), tuple(sorted(wires)))
