"""The house's seams, read from the source (no import of kerascanvas, so it is fast): the
packages of kerascanvas in their declared order, each importing only from its own package or
from those below it (LAYERS; docs/architecture.md says what each holds); no import circle
between kerascanvas modules; no module using another's private names; no module longer than
LONG lines without saying why at its top.

Every import counts, at module level or inside a function: a deferred import only hides a
circle (or a package reaching up) from Python's import machinery, not from the reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kerascanvas"


# The layers of the house, bottom up: a package imports only from itself and those before it.
# The foundations are modules at the top of kerascanvas/, where everything can reach them; the
# entries (the package's own __init__, its public modules and the old paths kept for users) may
# import anything and nothing imports them.
FOUNDATIONS = {"errors", "limits", "text", "words", "quiet"}
LAYERS = ["foundations", "kinds", "drawing", "geometry", "network", "insights", "io", "teaching",
          "mirror", "graph", "training", "canvas", "entries"]
ENTRIES = {"__init__", "startup", "server", "datasets", "widget"}

LONG = 500  # lines; a longer module says why in its docstring ("Why it is long: ...")


def _modules(root: Path = PACKAGE) -> dict[str, ast.Module]:
    """Every module under root by dotted name: "limits", "graph.edits"; a package's __init__ by
    the package's name ("graph"), root's own as "__init__"."""
    found = {}
    for p in sorted(root.rglob("*.py")):
        parts = p.relative_to(root).with_suffix("").parts
        if len(parts) > 1 and parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = ast.parse(p.read_text(encoding="utf-8"), str(p))
    return found


def _package_of(name: str, known: set[str]) -> list[str]:
    """The package a module's relative imports start from."""
    if name == "__init__":
        return []
    parts = name.split(".")
    is_package = any(k.startswith(name + ".") for k in known)
    return parts if is_package else parts[:-1]


def _imported(node: ast.AST, known: set[str], name: str = "") -> list[tuple[str, list[str]]]:
    """(module, names taken from it) for one import statement in module `name`, kerascanvas
    modules only: `from .x import a` gives ("x", ["a"]), `from . import x` ("x", [])."""
    if isinstance(node, ast.Import):
        found = []
        for a in node.names:
            parts = a.name.split(".")
            if parts[0] == "kerascanvas" and len(parts) > 1:
                target = ".".join(parts[1:])
                if target in known:
                    found.append((target, []))
        return found
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = _package_of(name, known)
        if node.level - 1 > len(base):
            return []
        base = base[:len(base) - (node.level - 1)]
    elif (node.module or "").split(".")[0] == "kerascanvas":
        base = []
    else:
        return []
    module = [p for p in (node.module or "").split(".") if p][(0 if node.level else 1):]
    target = ".".join(base + module)
    found = []
    for a in node.names:
        sub = f"{target}.{a.name}" if target else a.name
        if sub in known:
            found.append((sub, []))  # from . import x: the module x
        elif target in known:
            found.append((target, [a.name]))
    merged: dict[str, list[str]] = {}
    for module_name, taken in found:
        merged.setdefault(module_name, []).extend(taken)
    return list(merged.items())


def import_graph(modules: dict[str, ast.Module]) -> dict[str, set[str]]:
    """module -> the kerascanvas modules it imports anywhere in its source."""
    known = set(modules)
    return {name: {m for node in ast.walk(tree) for m, _ in _imported(node, known, name)} - {name}
            for name, tree in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """(a closed path, every module of the circle) per strongly connected component of more
    than one module (Tarjan, iterative): (["a", "b", "a"], ["a", "b", "c"])."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append((_path_in(set(component), graph), sorted(component)))
    return found


def _path_in(component: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A closed path through a component: from its first module back to it (breadth-first)."""
    start = min(component)
    came_from = {start: None}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for child in sorted(graph[node] & component):
            if child == start:
                path = [node]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, node, start]
            if child not in came_from:
                came_from[child] = node
                todo.append(child)
    return sorted(component)


def private_uses(modules: dict[str, ast.Module]) -> list[str]:
    """`module: _name of other` for each private name one kerascanvas module takes from another:
    `from .other import _name` or `other._name` where `other` names an imported kerascanvas module."""
    known, found = set(modules), []
    for name, tree in sorted(modules.items()):
        aliases: dict[str, str] = {}  # local name -> kerascanvas module
        for node in ast.walk(tree):
            for module, taken in _imported(node, known, name):
                if module == name:
                    continue
                found += [f"{name}: {t} of {module}" for t in taken if _private(t)]
                if not taken:  # import of the module itself
                    for a in node.names:
                        if isinstance(node, ast.ImportFrom) and module.split(".")[-1] != a.name:
                            continue  # from . import x, y: each name its own module
                        local = a.asname or a.name.split(".")[-1]
                        if isinstance(node, ast.Import) and a.asname is None:
                            continue  # `import kerascanvas.x` is used as kerascanvas.x.attr
                        aliases[local] = module
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and _private(node.attr)):
                found.append(f"{name}: {node.attr} of {aliases[node.value.id]}")
    return sorted(set(found))


def private_members_used(modules: dict[str, ast.Module]) -> list[str]:
    """`module: obj._name (defined in other)` for a private method or attribute that only another
    kerascanvas module defines (a def, or an assignment to self._name) used on an object here.
    Keras's own private attributes (`_keras_history`, `_inbound_nodes`) are defined by no
    kerascanvas module, so they do not count."""
    defined = {name: _defined_private(tree) for name, tree in modules.items()}
    found = []
    for name, tree in sorted(modules.items()):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)) or _own(node.value):
                continue
            others = sorted(m for m, names in defined.items() if m != name and node.attr in names)
            if others and node.attr not in defined[name]:
                found.append(f"{name}: {ast.unparse(node)} (defined in {', '.join(others)})")
    return sorted(set(found))


def _defined_private(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id == "self"):
            names.add(node.attr)
    return {n for n in names if _private(n)}


def _own(value: ast.AST) -> bool:
    """self._x, cls._x and super()._x are a class's own business."""
    return (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        and value.func.id == "super")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def layer_of(module: str) -> str | None:
    """The layer a module belongs to: its package, or foundations and entries at the top."""
    top = module.split(".")[0]
    if "." in module or top in LAYERS:
        return top if top in LAYERS else None
    return "foundations" if top in FOUNDATIONS else "entries" if top in ENTRIES else None


def unplaced(modules: dict[str, ast.Module]) -> list[str]:
    return sorted(m for m in modules if layer_of(m) is None)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """`module (its layer) imports other (a layer above)` for each import that reaches up."""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    found = []
    for module, imported in sorted(graph.items()):
        here = layer_of(module)
        for other in sorted(imported):
            there = layer_of(other)
            if here and there and rank[there] > rank[here]:
                found.append(f"{module} ({here}) imports {other} ({there}, above it)")
    return found


def long_modules(modules: dict[str, ast.Module], root: Path = PACKAGE) -> list[str]:
    """Modules above LONG lines whose docstring does not say why ("Why it is long: ...")."""
    found = []
    for p in sorted(root.rglob("*.py")):
        lines = p.read_text(encoding="utf-8").count("\n")
        if lines > LONG and "Why it is long:" not in (ast.get_docstring(
                ast.parse(p.read_text(encoding="utf-8"))) or ""):
            found.append(f"{p.relative_to(root)} ({lines} lines)")
    return found


def test_every_module_has_its_place_in_the_layers():
    found = unplaced(_modules())
    assert not found, ("modules in no declared layer (put them in a package of LAYERS, or name "
                       "them in FOUNDATIONS or ENTRIES): " + ", ".join(found))


def test_no_package_imports_one_above_it():
    found = upward_imports(import_graph(_modules()))
    assert not found, "imports that reach up the layers: " + "; ".join(found)


def test_no_module_is_long_without_saying_why():
    found = long_modules(_modules())
    assert not found, (f"modules above {LONG} lines that do not say why at their top (split them "
                       "by concern, or write \"Why it is long: ...\" in the docstring): "
                       + ", ".join(found))


def test_no_import_circle_between_kerascanvas_modules():
    found = cycles(import_graph(_modules()))
    assert not found, "import circles: " + "; ".join(
        f"{' -> '.join(path)} (the circle holds {', '.join(members)})" for path, members in found)


def test_no_module_uses_another_modules_private_names():
    found = private_uses(_modules())
    assert not found, "private names used across modules: " + "; ".join(found)


def test_no_module_uses_private_members_defined_by_another_module():
    found = private_members_used(_modules())
    assert not found, "private members used across modules: " + "; ".join(found)


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, ast.Module]:
    for name, text in files.items():
        path = tmp_path / f"{name.replace('.', '/')}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return _modules(tmp_path)


def test_the_checks_find_a_deferred_circle_and_a_private_name(tmp_path):
    modules = _package(tmp_path, {
        "a": "from .b import thing\n",
        "b": "def f():\n    from . import c\n    return c._hidden\n",
        "c": "import os\n\ndef g():\n    from kerascanvas.a import _x\n",
        "d": "from . import a as alias\n\nalias._y\n",
        "e": "from .a import __all__\n",  # dunder names are public
        "f": "class K:\n    def _checked(self):\n        return self._checked\n",
        "g": "def h(kind, layer):\n    return kind._checked, layer._keras_history\n",
    })
    assert cycles(import_graph(modules)) == [(["a", "b", "c", "a"], ["a", "b", "c"])]
    assert private_uses(modules) == ["b: _hidden of c", "c: _x of a", "d: _y of a"]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert private_members_used(modules) == ["g: kind._checked (defined in f)"]


def test_the_layer_rule_finds_a_deferred_import_reaching_up(tmp_path):
    modules = _package(tmp_path, {
        "errors": "",
        "kinds.__init__": "",
        "kinds.catalog": "from ..errors import EditError\nfrom . import layerkind\n",
        "kinds.layerkind": "def f():\n    from ..graph.graph import Graph\n",  # deferred, up
        "graph.__init__": "",
        "graph.graph": "from ..kinds import catalog\nimport kerascanvas.drawing.drawing\n",
        "drawing.__init__": "",
        "drawing.drawing": "from kerascanvas.kinds.catalog import names\n",
        "stray": "",
    })
    graph = import_graph(modules)
    assert graph["kinds.catalog"] == {"errors", "kinds.layerkind"}
    assert graph["graph.graph"] == {"kinds.catalog", "drawing.drawing"}
    assert upward_imports(graph) == [
        "kinds.layerkind (kinds) imports graph.graph (graph, above it)"]
    assert unplaced(modules) == ["stray"]
    assert [members for _, members in cycles(graph)] == [  # the deferred import closes a circle too
        ["drawing.drawing", "graph.graph", "kinds.catalog", "kinds.layerkind"]]
