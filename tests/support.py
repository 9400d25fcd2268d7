"""Helpers shared by the tests."""

import kerascanvas as kc
from kerascanvas.invariants import violations


def siamese(merge: str = "subtract"):
    """One Dense called on two inputs (nodes 0 and 1), its two outputs subtracted."""
    g = kc.Graph()
    g.add_input((4,), name="left")
    g.add_input((4,), name="right")
    g.add_layer("Dense", units=3, name="shared")
    g.connect("left", "shared")
    g.connect("right", "shared", call=1)
    g.add_layer("Subtract", name=merge)
    g.connect(("shared", 0, 0), merge)
    g.connect(("shared", 1, 0), merge)
    return g


def ok(g):
    """Assert DESIGN.md's invariants 1-5 hold; returns the graph."""
    assert violations(g) == []
    return g


def history(g, layer, call, slot):
    """(layer name, node_index, tensor_index) of the tensor in a slot of a call."""
    t = g.keras_layer(layer)._inbound_nodes[call].input_tensors[slot]
    op, n, i = t._keras_history
    return (op.name, n, i)


def fingerprint(g):
    """The drawing, the identity of every live object and node, and every weight."""
    d = g._drawing
    objects = {n: g._net.objects.get(n) for n in d.layers}
    return (
        {n: (s.class_name, dict(s.config), s.calls) for n, s in d.layers.items()},
        g.edges, dict(d.pinned), d.output_order, d.outputs_only,
        {n: (id(o), [id(x) for x in o._inbound_nodes], [id(x) for x in o._outbound_nodes],
             [w.tobytes() for w in getattr(o, "get_weights", list)()])  # (ops have none)
         for n, o in objects.items() if o is not None},
    )
