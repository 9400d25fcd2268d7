"""Modules talk to a Graph through its public methods: only graph.py reads or writes the private
fields a Graph keeps (its drawing, network, history, edit lock, caches)."""

import ast
from pathlib import Path

import kerascanvas

PACKAGE = Path(kerascanvas.__file__).parent


def graph_private_fields() -> set[str]:
    """Every `self._name` that graph.py reads or sets: the fields and helpers Graph keeps to itself."""
    tree = ast.parse((PACKAGE / "graph.py").read_text())
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self" and node.attr.startswith("_") and not node.attr.startswith("__")}


def test_graph_private_fields_are_found():
    assert {"_drawing", "_net", "_undo", "_redo", "_edit_lock"} <= graph_private_fields()


def test_no_module_but_graph_touches_a_graph_private_field():
    private = graph_private_fields()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "graph.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            # `self._x` in another class is that class's own field, not the Graph's
            if (isinstance(node, ast.Attribute) and node.attr in private
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: .{node.attr}")
    assert found == [], "use a public Graph method or property instead:\n" + "\n".join(found)
