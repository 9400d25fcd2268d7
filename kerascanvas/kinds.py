"""Layer kinds by class name: the catalog's, plus models nested as layers (which come by import
only, never from the palette)."""

from __future__ import annotations

NESTED_MODEL_CLASSES = ("Functional", "Sequential")


def get(class_name: str):
    """The kind (slots, n_outputs, create) for a class name found in a drawing."""
    if class_name in NESTED_MODEL_CLASSES:
        from . import nested

        return nested.kind(class_name)
    from . import catalog

    return catalog.get(class_name)
