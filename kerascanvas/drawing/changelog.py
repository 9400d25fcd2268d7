"""A change log over an object's fields and the dicts and lists it holds: what an edit under way
changed, so that it can be taken back (a refusal, undo) and done again (redo).

An edit records an entry per change it makes, holding references to the old and new values (no
copy), so an edit costs what it changes. Dicts keep their order: a key taken out goes back where
it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MISSING = object()  # a key a change log saw absent (`_set(field, key, MISSING)` takes it out)


class Logged:
    """Base class: fields assigned, and containers changed through `_set`, `_pop`, `_insert`
    and `_delete`, are recorded while an edit is under way (`begin` ... `end`). Fields named in
    `UNLOGGED` are scratch, never recorded."""

    UNLOGGED: frozenset = frozenset()

    def __setattr__(self, field: str, value: Any) -> None:
        log = self.__dict__.get("_log")
        if log is not None and field not in self.UNLOGGED:  # replaced whole: keep the old one
            log.append(("field", field, self.__dict__.get(field, MISSING), value))
        object.__setattr__(self, field, value)

    # ----- an edit --------------------------------------------------------------------------

    def begin(self) -> None:
        """Start recording an edit."""
        if self.__dict__.get("_log") is not None:
            raise RuntimeError("An edit is already under way.")
        object.__setattr__(self, "_log", [])

    def end(self) -> tuple:
        """Stop recording; returns the edit's changes (for `undo_changes` / `redo_changes`)."""
        log = self.__dict__.get("_log")
        object.__setattr__(self, "_log", None)
        return tuple(log or ())

    def mark(self) -> int:
        """Where the edit's log stands (`rollback(mark)` takes back what came after)."""
        return len(self.__dict__.get("_log") or ())

    def rollback(self, mark: int = 0) -> None:
        """Take back the changes recorded after `mark`; recording goes on."""
        log = self.__dict__.get("_log")
        if log is None:
            return
        later, log[mark:] = log[mark:], []
        self.undo_changes(later)

    def take_over(self, other: Logged) -> None:
        """Make the changes of `other`'s edit under way here too, as part of this one's (`other`
        was a copy of this object as its edit began)."""
        changes = other.end()
        self.redo_changes(changes)
        self._log.extend(changes)

    def undo_changes(self, changes) -> None:
        for entry in reversed(changes):
            self._replay(entry, forward=False)

    def redo_changes(self, changes) -> None:
        """Make `changes` (from `end`) again: here, or on an equal object (`take_over`)."""
        for entry in changes:
            self._replay(entry, forward=True)

    # ----- recorded changes -----------------------------------------------------------------

    def _set(self, field: str, key: Any, value: Any) -> None:
        """`self.<field>[key] = value` (MISSING: `del`, where order does not matter), recorded."""
        container, log = getattr(self, field), self.__dict__.get("_log")
        if log is not None:
            log.append(("set", field, key, container.get(key, MISSING), value))
        if value is MISSING:
            del container[key]
        else:
            container[key] = value

    def _pop(self, field: str, key: Any) -> None:
        """`del self.<field>[key]` if there, recorded with its place (undo puts it back there)."""
        container, log = getattr(self, field), self.__dict__.get("_log")
        if key not in container:
            return
        if log is not None:
            at = len(container) - 1 if next(reversed(container)) == key else list(container).index(key)
            log.append(("pop", field, key, container[key], at))
        del container[key]

    def _insert(self, field: str, at: int, item: Any) -> None:
        """`self.<field>.insert(at, item)`, recorded."""
        log = self.__dict__.get("_log")
        if log is not None:
            log.append(("insert", field, at, item))
        getattr(self, field).insert(at, item)

    def _delete(self, field: str, at: int) -> Any:
        """`del self.<field>[at]`, recorded; returns the item."""
        items, log = getattr(self, field), self.__dict__.get("_log")
        item = items[at]
        if log is not None:
            log.append(("delete", field, at, item))
        del items[at]
        return item

    def _replay(self, entry: tuple, forward: bool) -> None:
        kind, field = entry[0], entry[1]
        if kind == "field":
            object.__setattr__(self, field, entry[3] if forward else entry[2])
        elif kind == "set":
            container, value = getattr(self, field), entry[4] if forward else entry[3]
            if value is MISSING:
                del container[entry[2]]
            else:
                container[entry[2]] = value
        elif kind == "pop":
            _, _, key, before, at = entry
            container = getattr(self, field)
            if forward:
                del container[key]
            elif at >= len(container):
                container[key] = before
            else:  # back in its place
                items = list(container.items())
                items.insert(at, (key, before))
                container.clear()
                container.update(items)
        else:  # "insert" / "delete" at an index of a list
            _, _, at, item = entry
            if (kind == "insert") == forward:
                getattr(self, field).insert(at, item)
            else:
                del getattr(self, field)[at]


def replaced(changes: tuple) -> Iterator[tuple[str, Any, Any]]:
    """(field, old value, new value) of each change that replaced or took out a value (what the
    log alone keeps alive); new is MISSING where the value was taken out. Changes that only
    added (a new key, an inserted item) replace nothing."""
    for entry in changes:
        kind = entry[0]
        if kind == "set":
            if entry[3] is not MISSING:
                yield entry[1], entry[3], entry[4]
        elif kind == "field":
            yield entry[1], entry[2], entry[3]
        elif kind == "pop":
            yield entry[1], entry[3], MISSING
