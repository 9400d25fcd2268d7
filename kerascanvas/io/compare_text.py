"""A Comparison (compare.py) as readable text: what `str(kc.compare(a, b))` prints.

One line per layer added, removed or renamed, the changed keys of each changed layer, the edges
only on one side, and the weights that differ; long values are cut to the width.
"""

from __future__ import annotations

from collections.abc import Mapping


def to_text(c, width: int = 100) -> str:
    trained = {n: v for n, v in c.weights.items() if v > 0}
    head = f"Comparing {c.a_name!r} (a) with {c.b_name!r} (b): "
    if c.same:
        lines = [head + "no differences."]
        if not c.weights_kept:
            lines.append("  (weights not compared)")
        return "\n".join(lines)
    counts = [(len(c.added), "added"), (len(c.removed), "removed"), (len(c.renamed), "renamed"),
              (len(c.changed), "changed"),
              (len(c.rewired.only_in_a) + len(c.rewired.only_in_b), "edges rewired"),
              (len(trained), "with other weights")]
    lines = [head + ", ".join(f"{n} {what}" for n, what in counts if n) + "."]
    for name in c.added:
        lines.append(f"+ added    {name}")
    for name in c.removed:
        lines.append(f"- removed  {name}")
    for old, new in c.renamed:
        lines.append(f"~ renamed  {old} -> {new}")
    for name, diff in c.changed.items():
        lines.append(f"* changed  {name}")
        for key, (va, vb) in diff.items():
            lines.append(_cut(f"      {key}: {_shown(va)} -> {_shown(vb)}", width))
    if c.rewired.only_in_a or c.rewired.only_in_b:
        lines.append("  edges")
        lines += [_cut(f"    - {_edge(e)}", width) for e in c.rewired.only_in_a]
        lines += [_cut(f"    + {_edge(e)}", width) for e in c.rewired.only_in_b]
    if trained:
        lines.append("  weights (norm of b - a)")
        lines += [f"      {name}: {norm:.4g}" for name, norm in trained.items()]
    if not c.weights_kept:
        lines.append("  (weights not compared)")
    return "\n".join(lines)


def _edge(edge) -> str:
    (src, n, t), (dst, call, slot) = edge
    return f"{src}[{n}][{t}] -> {dst} call {call} slot {slot}"


def _shown(value) -> str:
    """A config value, a dtype policy by its name."""
    if isinstance(value, Mapping) and value.get("class_name", "").endswith("DTypePolicy"):
        return str(value.get("config", {}).get("name", value))
    return repr(value)


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[:width - 1] + "…"
