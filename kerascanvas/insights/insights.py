"""Training insights of a drawing: the records `recording.Recorder` makes while it trains, the
problems they show, their place in the drawing's file and their small view for the browser.

Each graph has one `Insights` store (`of(graph)`). Its records are immutable snapshots
(`{layer: (record, ...)}`), replaced, never mutated, so that a training run's undo step (the
Journal the Trainer keeps) puts the records from before the run back, and redo the run's own.
The store also holds the id of the last run not undone: the training panel compares it with the
run it shows to say that a run was undone.

A record (one per layer per epoch recorded: recording.py chooses the epochs within a budget;
`"partial": True` for one taken within an epoch, every N
batches in long epochs, its epoch a fraction) is JSON:
    {"epoch": 3, "partial": false,
     "weights": {"kernel": {"mean", "std", "norm", "min", "max", "zeros", "non_finite",
                            "histogram": {"counts": [16 ints], "range": [min, max]}}, ...},
     "gradients": {"kernel": {"norm", "update_ratio", "non_finite"}, ...},
     "activations": {the same statistics, "dead_units", "units", "relu_like"} or null}

Why it is long: one store and its file format: the records, their problems and their wire view read
each other's fields, so splitting them would make those fields public.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings
import weakref
from collections.abc import Collection, Sequence
from typing import Any

from .. import limits
from ..errors import EditError
from ..text import check_strings
from .late import Late

KINDS = ("dead_units", "vanishing_gradients", "exploding_gradients", "non_finite")
DEAD_LAYER_SHARE = 0.5  # a layer is named when at least half its units are dead (a few dead
# units are common in healthy ReLU networks, and a probe batch can miss a rare feature)
VANISHING_RATIO = 1e-4  # a layer's gradient norm this much smaller than the median layer's
# Exploding: a layer's gradient norm (on the probe batch) above EXPLODING_NORM and either
# EXPLODING_RATIO times the median layer's, or with the median layer's above EXPLODING_NORM too
# (a deep net whose every layer multiplies the signal has huge gradients at every depth). A
# bound alone named healthy stock networks: the first convolutions of ResNet101/152 and
# EfficientNets reach 1,100-3,100, 75 to 234 times their median layer's.
EXPLODING_NORM = 1e3
EXPLODING_RATIO = 1e3
STRIP_POINTS = 32  # values per box in the live strip
SUMMARY_POINTS = 20_000  # strip values in all (a big drawing gets shorter strips)
DETAIL_RECORDS = 64  # records per histogram panel (evenly thinned, the last kept)
DETAIL_WEIGHTS = 6  # weights per layer shown in the panel
EPOCH_CHOICES = 512  # epochs the forward-pass view offers to pick from (evenly thinned)
_RUN_IDS = itertools.count(1)
_STORES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def of(graph) -> Insights:
    """The insights store of a graph (made on first use)."""
    store = _STORES.get(graph)
    if store is None:
        store = _STORES[graph] = Insights()
    return store


class Insights:
    """Records of the training runs on one drawing (see the module's docstring)."""

    def __init__(self):
        self.cell: dict[str, Any] = {"records": {}, "run": None}  # the journaled values
        self._record_bytes = 0  # JSON bytes of one layer's record, measured once
        self._record_values = 0  # JSON values of the largest record yet, with its place in a
        # file (limits.json_values: what INSIGHT_MEMORY counts)
        self._shapes: set[tuple] = set()  # the shapes of record measured (see add)
        self.thinned = 0
        self.compiled: dict[str, Any] = {}  # recording.measure's cache: the last model's program
        self._epochs: tuple[Any, list[float]] = (None, [])  # (records, their epochs)
        self._epoch_cache: tuple[Any, Any, dict] = (None, None, {})  # epoch_view's last answer
        self._summary: tuple = (None, {})  # summary's last (records, answer)
        self._wire: tuple = (None, {})  # wire_summary's last (records, answer)
        # _strips_now's last (records, {layer: (its records, its strip)}, {layer: problems})
        self._strips: tuple = (None, {}, {})
        self.late = Late()  # records that land after their run's end (late.py)

    # ----- a run -----------------------------------------------------------------------------

    def begin_run(self, journal) -> int:
        """A new run: its records and id become part of the undo step `journal` seals."""
        self.late.settle()  # (the last run's late records first: the new run starts after them)
        journal.item(self.cell, "records")
        journal.item(self.cell, "run")
        self.late.begin(journal)
        run = next(_RUN_IDS)
        self.cell["run"] = run
        return run

    def layers_changed(self, journal, renamed, removed) -> None:
        """Records follow their layers' new names ({old: new}) and go with removed layers, as
        part of the undo step `journal` seals: a renamed box keeps its strip, histograms and
        history; a box drawn again under a removed one's name starts without its records, and
        insight_problems no longer names a layer that is gone."""
        if renamed or removed:
            self.late.moved()  # (records of the last run still landing are not shown)
        records = self.cell["records"]
        if not any(n in records for n in (*renamed, *removed)):
            return
        journal.item(self.cell, "records")
        taken = {renamed[n] for n in records if n in renamed}  # (an old layer's records there go)
        self.cell["records"] = {renamed.get(n, n): rs for n, rs in records.items()
                                if n not in removed and (n in renamed or n not in taken)}

    @property
    def run(self) -> int | None:
        """The last run not undone (None before any, or after its undo)."""
        return self.cell["run"]

    def epochs_done(self) -> float:
        """The epoch of the latest record: a new run's epochs count on from it."""
        self.settle()
        latest = [rs[-1]["epoch"] for rs in self.cell["records"].values() if rs]
        return float(math.floor(max(latest))) if latest else 0.0

    def settle(self) -> None:
        """Wait for the records of the last run still landing (late.py)."""
        self.late.settle()

    def add(self, records: dict[str, dict]) -> None:
        """One record per layer, taken at the same moment (where it belongs: late.py)."""
        self.late.land(self.cell, records, self._plus)

    def _plus(self, base: dict, records: dict[str, dict]) -> dict:
        """`base` with `records` added (thinned when over the caps)."""
        current = dict(base)
        for name, record in records.items():
            current[name] = current.get(name, ()) + (record,)
        seen, epochs = self._epochs
        if seen is base:  # the epochs known: add these, not read all again
            added = {r["epoch"] for r in records.values()}
            self._epochs = (current, epochs if added <= set(epochs) else
                            sorted(set(epochs) | added))
        if records and not self._record_bytes:
            self._record_bytes = max(len(json.dumps(r)) for r in records.values())
        # Values are counted for every shape of record (the largest kept): a file of what is
        # kept must load, and loading refuses past INSIGHT_MEMORY. In a file, a record takes
        # its values, a comma and (at most) its layer's key and list; the document 6 more.
        for r in records.values():
            shape = (tuple(r["weights"]), tuple(r["gradients"]), r.get("activations") is None)
            if shape not in self._shapes:  # (records of one shape hold as many values)
                self._shapes.add(shape)
                self._record_values = max(self._record_values,
                                          limits.json_values(json.dumps(r)) + 3)
        count = sum(len(rs) for rs in current.values())
        over = ("INSIGHT_BYTES" if self._record_bytes * count > limits.INSIGHT_BYTES else
                "INSIGHT_MEMORY" if (self._record_values * count + 6) *
                limits.INSIGHT_VALUE_BYTES > limits.INSIGHT_MEMORY else None)
        if over:
            current = {n: _thin(rs) for n, rs in current.items()}
            self.thinned += 1
            if self.thinned == 1:
                warnings.warn(f"Training insights went over their cap of "
                              f"{getattr(limits, over):,} bytes (kerascanvas.limits.{over}):"
                              f" older records are thinned, every second one dropped.",
                              RuntimeWarning, stacklevel=2)
            self._epochs = (None, [])  # (thinned: some epochs went)
        return current

    # ----- reading -------------------------------------------------------------------------

    def records(self, within_epochs: bool = False) -> dict[str, list[dict]]:
        """{layer: [record, ...]} (copies): one record per epoch, the latest taken in it (its
        end's, unless the cap thinned that one away); `within_epochs` adds the records taken
        every N batches within long epochs."""
        self.settle()
        return {n: json.loads(json.dumps(list(rs if within_epochs else _per_epoch(rs))))
                for n, rs in self.cell["records"].items()}

    def problems(self) -> list[tuple[str, str, float, str]]:
        """(layer, kind, epoch, message) for what the latest records show."""
        self.settle()
        return problems(self.cell["records"])

    def epochs(self) -> list[float]:
        """Every epoch some layer has a record of, in order (a record taken within an epoch has
        a fractional epoch)."""
        records = self.cell["records"]  # (replaced, never changed: its identity is its version)
        if self._epochs[0] is not records:
            self._epochs = (records, sorted({r["epoch"] for rs in records.values() for r in rs}))
        return list(self._epochs[1])

    def recorded_epochs(self) -> list[int | float]:
        """The epochs with an epoch's record (not only records taken within it), in order."""
        self.settle()
        return [int(e) if float(e).is_integer() else e for e in self.epochs()
                if float(e).is_integer()]

    def activations_at(self, epoch: float) -> dict[str, dict | None]:
        """{layer: its activation statistics recorded at `epoch` (mean, std, zeros, dead_units,
        units, histogram...; None for a layer with no output recorded)} for each layer with a
        record at that epoch: what the model's layers output on the probe batch then, read from
        the records (nothing is run again). A ValueError names the epochs there are."""
        self.settle()
        epochs = self.epochs()
        if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or \
                epoch not in epochs:
            shown = ", ".join(_epoch(e) for e in epochs[:20]) + (", ..." if len(epochs) > 20
                                                                   else "")
            raise ValueError(f"No training insights were recorded at epoch {epoch!r:.40}; "
                             f"there are records at: {shown or 'none (train first)'}.")
        return {name: json.loads(json.dumps(r.get("activations")))
                for name, rs in self.cell["records"].items() for r in rs if r["epoch"] == epoch}

    # ----- files ---------------------------------------------------------------------------

    def to_json(self) -> str | None:
        self.settle()
        records = self.cell["records"]
        if not records:
            return None
        return json.dumps({"version": 1, "records": {n: list(rs) for n, rs in records.items()}})

    def load_json(self, text: bytes | str, where: str, layers: Collection[str]) -> None:
        """Records from a file (untrusted): each field checked; a bad one raises ValueError.
        Records of a name that is not one of the drawing's `layers` are left out (files saved
        before a removed box took its records with it kept them). Refused before parsing when
        it would take more memory than limits.INSIGHT_MEMORY; every string (names and keys
        included) must be valid Unicode text (a lone surrogate loaded here made every later
        state push fail to encode)."""
        limits.check_insights(text, where)
        document = json.loads(text)
        check_strings(document, f"{where}'s insights.json")
        if not isinstance(document, dict) or document.get("version") != 1 or \
                not isinstance(document.get("records"), dict):
            raise EditError(f"{where}'s insights.json is not insight records of version 1.")
        records = {}
        for name, rs in document["records"].items():
            if not isinstance(rs, list):
                raise EditError(f"{where}: the insight records of {name!r:.80} are not a list.")
            checked = tuple(_checked_record(r, where) for r in rs)
            if name in layers:
                records[str(name)] = checked
        self.cell["records"] = records


def _per_epoch(records: tuple) -> list:
    """The last record of each epoch (epoch e holds the records from e - 1 on, up to e)."""
    kept: list = []
    for r in records:
        if kept and math.ceil(kept[-1]["epoch"]) == math.ceil(r["epoch"]):
            kept[-1] = r
        else:
            kept.append(r)
    return kept


def _thin(records: tuple) -> tuple:
    if len(records) <= 2:
        return records
    return records[:-1][::2] + records[-1:]


# ----- problems -----------------------------------------------------------------------------------

def _layer_gradient(record: dict) -> float | None:
    norms = [g["norm"] for g in record["gradients"].values() if g.get("norm") is not None]
    return math.sqrt(sum(n * n for n in norms)) if norms else None


def problems(records: dict[str, tuple]) -> list[tuple[str, str, float, str]]:
    latest = {n: rs[-1] for n, rs in records.items() if rs}
    found: list[tuple[str, str, float, str]] = []
    gradient = {n: _layer_gradient(r) for n, r in latest.items()}
    finite = [g for g in gradient.values() if g is not None and math.isfinite(g)]
    typical = sorted(finite)[len(finite) // 2] if finite else 0.0  # the median layer's
    # (the lower of the middle two for exploding: of two layers, one huge one is not "huge at
    # every depth")
    lower = sorted(finite)[(len(finite) - 1) // 2] if finite else 0.0
    for name, record in latest.items():
        epoch = record["epoch"]
        when = f"after epoch {_epoch(epoch)}"
        a = record.get("activations")
        bad = [w for w, s in record["weights"].items() if s.get("non_finite")]
        bad += [f"gradient of {w}" for w, g in record["gradients"].items() if g.get("non_finite")]
        if a and a.get("non_finite"):
            bad.append("output")
        if bad:
            found.append((name, "non_finite", epoch, (f"NaN or infinite values in {', '.join(bad)} "
                           f"{when}: the learning rate is probably too high, or the data holds "
                           "NaN.")))
        if a and a.get("relu_like") and a.get("units"):
            dead, units = a["dead_units"], a["units"]
            if dead and dead >= DEAD_LAYER_SHARE * units:
                found.append((name, "dead_units", epoch,
                              (f"{dead} of {units} units are dead {when}: their output is zero "
                               "on at least 99% of the probe batch, so they no longer learn. "
                               "Start the bias at zero, lower the learning rate, or try "
                               "LeakyReLU.")))
        g = gradient.get(name)
        if g is None:
            continue
        exploding = _exploding(g, lower)
        if exploding:
            found.append((name, "exploding_gradients", epoch,
                          (f"Exploding gradients {when}: {exploding}. Lower the learning rate, "
                           "clip gradients (clipnorm), or add normalization.")))
        elif typical > 0 and g < VANISHING_RATIO * typical:
            size = ("zero: no signal reaches its weights" if g == 0 else
                    f"{g:.3g}, {typical / g:.3g} times smaller than the median layer's")
            found.append((name, "vanishing_gradients", epoch,
                          (f"Vanishing gradients {when}: the gradient norm is {size}. "
                           "Layers above may be dead or saturated; try ReLU-like activations, "
                           "residual connections or normalization.")))
    return found


def _exploding(g: float, typical: float) -> str | None:
    """What makes a layer's gradient norm `g` exploding, with `typical` the median layer's, or
    None (see EXPLODING_NORM)."""
    if not math.isfinite(g):
        return f"the gradient norm is {g}"
    if g <= EXPLODING_NORM:
        return None
    if typical > EXPLODING_NORM:
        return (f"the gradient norm is {g:.3g}, and the median layer's is {typical:.3g}: huge "
                "at every depth")
    if g > EXPLODING_RATIO * typical:
        return (f"the gradient norm is {g:.3g}, {g / typical:.3g} times the median layer's"
                if typical > 0 else f"the gradient norm is {g:.3g}")
    return None


def _epoch(epoch: float) -> str:
    return str(int(epoch)) if float(epoch).is_integer() else f"{epoch:.2f}"


# ----- what the browser gets (small and bounded) ------------------------------------------------

def _weight_norm(record: dict) -> float | None:
    norms = [s["norm"] for s in record["weights"].values() if s.get("norm") is not None]
    return math.sqrt(sum(n * n for n in norms)) if norms else None


def summary(store: Insights, wait: bool = True) -> dict[str, Any]:
    """Per layer its last STRIP_POINTS records' epochs, weight norms and activation spreads
    (std; to 4 significant digits: a 10-pixel strip draws them), and its problems: what the
    canvas's live strips show (`canvas.insight_summary`; the browser gets it as `wire_summary`
    says). While the records are the same it is the same object. `wait`: records of the last
    run still landing first (the live strips do not wait: they are sent again as they land)."""
    if wait:
        store.settle()
    records = store.cell["records"]
    seen, answer = store._summary
    if seen is records:
        return answer
    strips, found = _strips_now(store, records)
    layers: dict[str, Any] = {}
    for name, (_, strip) in strips.items():
        epochs, norms, spreads = ([p[i] for p in strip] for i in range(3))
        layers[name] = {"epochs": epochs, "norms": norms, "spreads": spreads,
                        "problems": found.get(name, [])}
    answer = {"layers": layers}
    store._summary = (records, answer)
    return answer


def wire_summary(store: Insights) -> dict[str, Any]:
    """`summary` as the browser gets it with every record that lands: per layer its strip as one
    string, its points joined by "," and each point's epoch, norm and spread by ";" (an empty
    place for a missing value), and its problems. ipywidgets walks every number of a message
    looking for binary buffers, and Jupyter writes each as JSON: 52 full strips as numbers took
    0.67 ms to walk and 0.44 to write, as 52 strings (each point formatted once, as it lands)
    0.04 and 0.06. The same object while the records are the same (nothing is sent again)."""
    records = store.cell["records"]
    seen, answer = store._wire
    if seen is records:
        return answer
    strips, found = _strips_now(store, records)
    answer = {"layers": {name: {"strip": ",".join(p[3] for p in strip),
                                "problems": found.get(name, [])}
                         for name, (_, strip) in strips.items()}}
    store._wire = (records, answer)
    return answer


def _strips_now(store: Insights, records: dict) -> tuple[dict[str, tuple], dict[str, list]]:
    """({layer: (its records, its strip points)}, {layer: its problems}) for `records` (the
    store's, read once by the caller: the worker may add a record meanwhile, and an answer kept
    for one reading must be made of it). A record that lands adds one point to each strip
    without reading the others again (a 52-layer model: 2.2 ms -> 0.3 ms per new record)."""
    seen, strips, found = store._strips
    if seen is records:
        return strips, found
    points = max(4, min(STRIP_POINTS, SUMMARY_POINTS // max(len(records), 1)))
    strips = {name: _strip(strips.get(name), rs, points) for name, rs in records.items()}
    found = {}
    for name, kind, epoch, message in problems(records):
        found.setdefault(name, []).append({"kind": kind, "epoch": _finite(epoch),
                                           "message": message})
    store._strips = (records, strips, found)
    return strips, found


def _strip(before: tuple | None, rs: tuple, points: int) -> tuple[tuple, list]:
    """(rs, the strip of its last `points` records), from `before` (an earlier tuple of the
    layer's records and its strip) when rs ends as that tuple did, plus new records."""
    if before is not None:
        old, strip = before
        kept = min(points, len(old))
        tail = old[len(old) - kept:]
        if len(strip) == kept and 0 <= len(rs) - len(old) <= points and \
                all(a is b for a, b in zip(rs[len(old) - kept:len(old)], tail)):
            return rs, (strip + [_strip_point(r) for r in rs[len(old):]])[-points:]
    return rs, [_strip_point(r) for r in rs[-points:]]


def _strip_point(record: dict) -> tuple:
    """(epoch, weight norm, activation spread, the three as the browser's text)."""
    epoch, norm = _finite(record["epoch"]), _short(_weight_norm(record))
    spread = _short((record.get("activations") or {}).get("std"))
    return (epoch, norm, spread, ";".join("" if v is None else repr(v)
                                          for v in (epoch, norm, spread)))


def _short(value: Any) -> float | None:
    """A finite number to 4 significant digits (None for another value)."""
    value = _finite(value)
    return None if value is None else float(f"{value:.4g}")


def evenly(items: Sequence, n: int) -> list:
    """At most `n` of `items`, evenly spaced, the first and the last kept (what a panel shows of
    a long run)."""
    if len(items) <= n:
        return list(items)
    step = len(items) / (n - 1)
    return [items[int(i * step)] for i in range(n - 1)] + [items[-1]]


def detail(store: Insights, name: str) -> dict[str, Any]:
    """A layer's histograms over its records, thinned to DETAIL_RECORDS, for the panel."""
    rs = evenly(store.cell["records"].get(name, ()), DETAIL_RECORDS)

    def series(pick, extra) -> list:
        out = []
        for r in rs:
            s = pick(r)
            out.append(None if s is None else {
                "counts": s["histogram"]["counts"],
                "range": [_finite(v) for v in s["histogram"]["range"]],
                "mean": _finite(s["mean"]), "std": _finite(s["std"]), **extra(r)})
        return out

    def gradient(w):  # (the weight's gradient on the probe batch, and its update since before)
        return lambda r: {k: _finite((r["gradients"].get(w) or {}).get(k))
                          for k in ("norm", "update_ratio")}

    def units(r):
        a = r["activations"]
        return {"zeros": _finite(a.get("zeros")), "dead_units": _finite(a.get("dead_units")),
                "units": _finite(a.get("units"))}

    every = list(rs[-1]["weights"]) if rs else []
    names = every[:DETAIL_WEIGHTS]
    return {"layer": name, "epochs": [_finite(r["epoch"]) for r in rs],
            "weight_count": len(every),  # (the panel says how many it leaves out)
            "weights": {w: series(lambda r, w=w: r["weights"].get(w), gradient(w))
                        for w in names},
            "activations": series(lambda r: r.get("activations"), units)}


def epoch_view(store: Insights, epoch: Any) -> dict[str, Any]:
    """For the forward-pass view: the epochs it may pick (at most EPOCH_CHOICES, the last kept)
    and, for the recorded epoch nearest to `epoch` (untrusted: from the browser; a negative or
    non-number one picks none), each layer's activation summary then."""
    records = store.cell["records"]
    seen, asked, view = store._epoch_cache  # (asked ten times a second while training runs)
    if seen is records and asked == epoch:
        return view
    view = _epoch_view(store, epoch)
    store._epoch_cache = (records, epoch, view)
    return view


def _epoch_view(store: Insights, epoch: Any) -> dict[str, Any]:
    epochs = evenly(store.epochs(), EPOCH_CHOICES)
    view: dict[str, Any] = {"epochs": [_finite(e) for e in epochs], "epoch": None, "layers": {}}
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or \
            not math.isfinite(epoch) or epoch < 0 or not epochs:
        return view
    chosen = min(epochs, key=lambda e: abs(e - epoch))
    view["epoch"] = _finite(chosen)
    for name, a in store.activations_at(chosen).items():
        if a is not None:
            view["layers"][name] = {k: _finite(a.get(k)) for k in (
                "mean", "std", "zeros", "min", "max", "dead_units", "units")} | {
                "counts": list(a["histogram"]["counts"]),
                "range": [_finite(v) for v in a["histogram"]["range"]]}
    return view


def _finite(value: Any) -> Any:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


# ----- checking records from a file --------------------------------------------------------------

_STAT_FIELDS = ("mean", "std", "norm", "min", "max", "zeros")


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value):  # (a record says a non-finite value as null)
        raise EditError(f"{where}: an insight value is {value!r:.40}, not a finite number.")
    return value


def _stats(s: Any, where: str, extra: tuple = ()) -> dict:
    if not isinstance(s, dict) or not isinstance(s.get("histogram"), dict):
        raise EditError(f"{where}: an insight statistic is not a record of numbers.")
    h = s["histogram"]
    counts, span = h.get("counts"), h.get("range")
    if not isinstance(counts, list) or len(counts) > 256 or not isinstance(span, list) or \
            len(span) != 2:
        raise EditError(f"{where}: an insight histogram is malformed.")
    out = {k: _number(s.get(k), where) for k in _STAT_FIELDS}
    out["non_finite"] = int(_number(s.get("non_finite"), where) or 0)
    out["histogram"] = {"counts": [int(_number(c, where) or 0) for c in counts],
                        "range": [_number(v, where) for v in span]}
    for k in extra:
        out[k] = _number(s.get(k), where)
    return out


def _checked_record(r: Any, where: str) -> dict:
    if not isinstance(r, dict) or not isinstance(r.get("weights"), dict) or \
            not isinstance(r.get("gradients"), dict):
        raise EditError(f"{where}: an insight record is not a record.")
    epoch = _number(r.get("epoch"), where)
    if epoch is None or epoch < 0:
        raise EditError(f"{where}: an insight record has no epoch (or a negative one).")
    gradients = {}
    for w, g in r["gradients"].items():
        if not isinstance(g, dict):
            raise EditError(f"{where}: an insight gradient is not a record.")
        norm, ratio = _number(g.get("norm"), where), _number(g.get("update_ratio"), where)
        if any(v is not None and v < 0 for v in (norm, ratio)):
            raise EditError(f"{where}: the insight gradient of {str(w)!r} has a negative norm or "
                            f"update ratio ({norm}, {ratio}).")
        gradients[str(w)] = {"norm": norm, "update_ratio": ratio,
                             "non_finite": bool(g.get("non_finite"))}
    a = r.get("activations")
    activations = None
    if a is not None:
        activations = _stats(a, where, ("dead_units", "units"))
        activations["relu_like"] = bool(a.get("relu_like"))
    return {"epoch": epoch, "partial": bool(r.get("partial")),
            "weights": {str(w): _stats(s, where) for w, s in r["weights"].items()},
            "gradients": gradients, "activations": activations}
