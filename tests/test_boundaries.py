"""Modules talk to a Graph through its public methods: only graph.py reads or writes the private
fields a Graph keeps (its drawing, network, history, edit lock, caches); tests read no private
field of any kerascanvas object."""

import ast
import re
from pathlib import Path

import kerascanvas

PACKAGE = Path(kerascanvas.__file__).parent


def graph_private_fields() -> set[str]:
    """Every `self._name` that graph.py reads or sets: the fields and helpers Graph keeps to itself."""
    tree = ast.parse((PACKAGE / "graph" / "graph.py").read_text())
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self" and node.attr.startswith("_") and not node.attr.startswith("__")}


def test_graph_private_fields_are_found():
    assert {"_drawing", "_net", "_history"} <= graph_private_fields()  # (history.py keeps undo, redo, the lock)


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


def private_fields() -> set[str]:
    """Every `self._name` the classes of kerascanvas read or set."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        found |= {node.attr for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == "self" and node.attr.startswith("_")
                  and not node.attr.startswith("__")}
    return found


SAMPLES = {"test_house.py"}  # its strings are sample modules for its own checks, not code run


def test_no_test_reads_a_private_field_of_a_kerascanvas_object():
    """Tests drive kerascanvas's objects (Canvas, Graph, Trainer, ...) through their public names
    (Canvas.receive feeds a browser message; tests/support.py records what is sent), so they
    still mean something when the insides change. Keras's own private names (`_keras_history`)
    are not these."""
    private = private_fields()
    assert {"_graph", "_tracker", "_drawing", "_history"} <= private
    found = []
    for path in sorted((PACKAGE.parent / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    path.name not in SAMPLES:  # code a kernel or a subprocess runs
                found += [f"{path.name}:{node.lineno}: .{name} (in a string)"
                          for name in re.findall(r"\.(_[a-z]\w*)", node.value) if name in private]
    assert found == [], "use a public name (or tests/support.py) instead:\n" + "\n".join(found)
