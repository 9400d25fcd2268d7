"""The program one training-insights record runs (recording.py's Recorder takes the records).

`measure(model, probe, cache)` gives the model's `Measure`: the layout of its records (each
layer's weights, then each layer's output), and one program, compiled for the backend, that
computes a whole record where the tensors live: one forward pass on the probe batch gives the
gradients and the activations (tf.GradientTape, jax.grad over the model's stateless loss,
torch.autograd.grad), then tensor_stats summarizes every weight and output, stacked by size,
into one vector; `rows` brings that vector to the host.

Why it is long: one compiled program: the probe's forward pass, gradients and statistics are traced
together, once per model, and must stay in step.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
from keras import ops

from ..network.detached import array_refs, held_values, same_arrays
from . import tensor_stats

DEAD_SHARE = 0.99  # a unit zero on at least this share of the probe batch is dead
# The probe pass runs as training does (BatchNormalization on the batch's statistics, Dropout
# dropping), in a stateless call whose state updates are dropped: the gradients are those the
# optimizer would see for these samples and a dead unit is one that gets none. In inference
# mode, a BatchNormalization whose moving statistics have not caught up yet (its first epochs)
# zeroed half the units of most ReLUs of a MobileNetV2 after 2 epochs, none dead in training.
PROBE_TRAINING = True
_FIELDS = tensor_stats.FIELDS
_JAX = keras.backend.backend() == "jax"
# TensorFlow's record reads copies made for it and keeps none (_Deferred keeps its packed copy
# as the next record's baseline): it stacks the weights without copying them again
_COPIES_WEIGHTS = keras.backend.backend() != "tensorflow"


_RELU_NAMES = {"relu", "relu6"}


def relu_like(layer) -> bool:
    """Whether a layer's outputs are a ReLU's: zero for every negative input."""
    config = layer.get_config() if hasattr(layer, "get_config") else {}
    if type(layer).__name__ == "ReLU":
        return not config.get("negative_slope")
    activation = config.get("activation")
    return isinstance(activation, str) and activation in _RELU_NAMES


def _layer_output(layer) -> Any:
    """The first call's output tensor of a layer (its first output)."""
    nodes = getattr(layer, "_inbound_nodes", None) or []
    if not nodes:
        return None
    outputs = nodes[0].output_tensors
    return outputs[0] if outputs else None



def _assemble(measure, values, previous, grads, outputs) -> tuple[Any, list]:
    """The record's numbers as one vector (per weight: its statistics, gradient norm, update
    ratio; per output: its statistics, dead units, units) and the weights now, copied (stacked
    by size, as `previous` is: see tensor_stats)."""
    weight_parts, now = [], []
    for group, before in zip(measure.weight_groups, previous):
        rows = tensor_stats.stacked(values, group, copy=_COPIES_WEIGHTS)
        now.append(rows)
        size, update = tensor_stats.norms(before), tensor_stats.norms(rows - before)
        # (a weight that was all zeros, as a bias starts, has no update ratio once it moves:
        # NaN, which a record says as None, not ||update|| / 1e-12)
        change = ops.where(size > 0, update / ops.maximum(size, 1e-12),
                           ops.where(update > 0, float("nan"), 0.0))
        weight_parts.append(ops.concatenate([tensor_stats.summaries(rows), ops.stack(
            [_grad_norms(grads, group), change], axis=1)], axis=1))
    parts = [tensor_stats.in_order(weight_parts, measure.weight_groups)] if weight_parts else []
    if outputs:
        output_parts = []
        output_groups = tensor_stats.groups(outputs, by_units=True)
        for group in output_groups:
            rows = tensor_stats.stacked(outputs, group, copy=False)
            shape = outputs[group[0]].shape
            units = int(shape[-1]) if len(shape) > 1 else 1
            dead = tensor_stats.dead_units(rows, units, DEAD_SHARE)
            output_parts.append(ops.concatenate([tensor_stats.summaries(rows), ops.stack(
                [dead, ops.full_like(dead, float(units))], axis=1)], axis=1))
        parts.append(tensor_stats.in_order(output_parts, output_groups))
    return ops.reshape(ops.concatenate(parts, axis=0), (-1,)), now


def _grad_norms(grads, group) -> Any:
    """The gradient norm of each weight in `group`, -1 for a weight without a gradient."""
    present = [grads[i] is not None for i in group]
    if all(present):
        return tensor_stats.norms(tensor_stats.stacked(grads, group, copy=False))
    if not any(present):
        return ops.full((len(group),), -1.0, dtype="float32")
    return ops.stack([tensor_stats.norms(tensor_stats.stacked(grads, [i], copy=False))[0]
                      if grads[i] is not None else ops.convert_to_tensor(-1.0, "float32")
                      for i in group])


class Measure:
    """What one record computes for a model: its layers' weights (in `layout` order) with their
    gradients on the probe batch and their change since the last record, and its layers' outputs
    on the probe batch. One forward pass on the probe batch gives both: `forward` is a model
    that returns every layer's output (the model's own outputs among them), the loss is taken
    on those and differentiated. One record body for every backend (`stateless`: the model's
    stateless call and loss on values, never on the variables), differentiated by jax.grad, a
    GradientTape or torch.autograd.grad; compiled where the backend compiles (jax.jit,
    tf.function: one device program instead of hundreds of small operations), once per model
    (`measure`); torch runs it eagerly, its statistics stacked by size (tensor_stats)."""

    def __init__(self, model: keras.Model, probe: bool):
        self.model = model
        self.weights, self.layout = [], []
        layers = [l for l in model.layers if not isinstance(l, keras.layers.InputLayer)]
        for layer in layers:
            for weight in layer.trainable_weights + layer.non_trainable_weights:
                self.weights.append(weight)
                self.layout.append(("weight", layer.name, _weight_name(layer, weight)))
        self.weight_groups = tensor_stats.groups(self.weights)
        self.relu = {l.name: relu_like(l) for l in layers}
        self.forward, self.activations, self.predicted = None, 0, []
        if probe:
            self._forward_model(layers)
        self.with_gradients = probe
        self.cost: float | None = None  # seconds from a record's start to its rows, last seen
        self._initial = None
        # JAX: (the values the last record read, its copy of them), kept between runs: the
        # device memory of one copy of the weights, as a run with insights holds anyway
        self._last_record: tuple | None = None
        self._run = self._compiled()

    def _forward_model(self, layers) -> None:
        """`forward`: the model's input to every layer's output and then the model's outputs
        that are not among them; `predicted`: where the model's outputs are in that list."""
        model = self.model
        tensors = [(l.name, _layer_output(l)) for l in layers]
        tensors = [(n, t) for n, t in tensors if t is not None and hasattr(t, "shape")]
        outputs = [t for _, t in tensors]
        predicted = []
        for out in keras.tree.flatten(model.outputs):
            at = next((i for i, t in enumerate(outputs) if t is out), None)
            if at is None:
                at = len(outputs)
                outputs.append(out)
            predicted.append(at)
        try:
            self.forward = keras.Model(model.input, outputs)
            self.activations = len(tensors)
            self.layout += [("activation", n, None) for n, _ in tensors]
        except Exception:  # noqa: BLE001 - a model Keras cannot slice: gradients, no activations
            self.forward = model
            predicted = list(range(len(keras.tree.flatten(model.outputs))))
        self.predicted = predicted

    def initial(self, later: Callable | None = None) -> list | concurrent.futures.Future:
        """The weights now, copied as `__call__` wants its `previous` (one compiled program
        under TensorFlow and JAX, made on first use). Under JAX, while the weights are the very
        arrays the last record read (a JAX array never changes in place: nothing trained or
        set them since), that record's copies: a run that follows another copies nothing; and
        a new model's are copied as they are and stacked by `later(fn) -> Future` (the
        recorder's worker), where the stacking program compiles (80 ms of XLA for a 4-layer MLP,
        which the training thread paid before its first batch)."""
        last = self._last_record
        if last is not None and same_arrays(last[0], held_values(self.weights)):
            return last[1]
        if isinstance(self._run, _Deferred):
            return self._run.initial()
        compiled = self._initial is not None
        if not compiled:
            groups = self.weight_groups

            def copies(values):
                return [tensor_stats.stacked(values, g) for g in groups]

            self._initial = _compile(copies)
        if _JAX and later is not None and not compiled:
            import jax

            program = self._initial
            values = [jax.device_put(w.value, may_alias=False) for w in self.weights]
            return later(lambda: program(values))
        with _no_grad():  # (torch: a copy, not a step in a graph)
            return self._initial([w.value for w in self.weights])

    def __call__(self, x, y, previous) -> tuple[list, list]:
        """(per `layout` entry (statistics, a, b), the weights now): a and b are a weight's
        gradient norm (None without one) and update ratio, an output's dead units and units."""
        vector, previous = self.start(x, y, previous)
        return self.rows(vector), previous

    def start(self, x, y, previous) -> tuple[Any, list]:
        """(the record's vector, still on the device and perhaps still being computed (JAX
        dispatches it and returns), the weights now) for `rows`."""
        with _one_intra_op_thread():
            try:
                vector, now = self._run(x, y, previous)
            except Exception:
                if not self.with_gradients:
                    raise
                self.with_gradients = False
                self._run = self._compiled()
                vector, now = self._run(x, y, previous)
        if _JAX:
            self._last_record = (array_refs(held_values(self.weights)), now)
        return vector, now

    @property
    def compiling(self) -> bool:
        """Whether the record's program is still being made in the worker (`prepare`)."""
        return bool(getattr(self._run, "compiling", False))

    def rows(self, vector) -> list:
        """`__call__`'s rows out of `start`'s vector (waits for it, moves it to the host): per
        `layout` entry ((its FIELDS, its histogram counts), a, b). Made with whole-matrix
        conversions: this runs for every record, beside training, holding the interpreter."""
        if callable(vector):  # (TensorFlow: the program itself runs here; see _Deferred)
            vector = vector()
        width = tensor_stats.WIDTH + 2
        matrix = np.asarray(keras.ops.convert_to_numpy(vector), dtype=np.float64)
        matrix = matrix.reshape(len(self.layout), width)
        fields = matrix[:, :len(_FIELDS)].tolist()
        counts = matrix[:, len(_FIELDS):-2].astype(np.int64).tolist()
        rows = []
        for (kind, _, _), values, hist, (a, b) in zip(self.layout, fields, counts,
                                                      matrix[:, -2:].tolist()):
            rows.append(((values, hist), None if kind == "weight" and a == -1.0 else a, b))
        return rows

    def y_pred(self, outputs) -> Any:
        """The model's prediction (in its own output structure) out of `forward`'s outputs."""
        found = [outputs[i] for i in self.predicted]
        struct = getattr(self.model, "_outputs_struct", None)
        if struct is None:
            return found[0] if len(found) == 1 else found
        return keras.tree.pack_sequence_as(struct, found)

    def _compiled(self):
        backend = keras.backend.backend()
        if backend == "jax":
            return self._jax()
        if backend == "tensorflow":
            return self._tensorflow()
        return self._torch()

    def stateless(self, gradient: Callable) -> Callable:
        """run(t, n, m, previous, x, y): one record from the values of the model's trainable,
        non-trainable and metric variables (never the variables themselves: it can run while
        training changes them), `gradient(loss_of, t) -> (grads, outputs)` differentiating."""
        model, forward, weights, measure = self.model, self.forward, self.weights, self
        tv, ntv = model.trainable_variables, model.non_trainable_variables
        with_gradients, activations = self.with_gradients, self.activations

        def run(t, n, m, previous, x, y):
            # (each Keras call gets the values in its own model's order, read when it is traced:
            # a late record's program may be traced after a layer was frozen or unfrozen)
            def ordered(trainable, model):
                values = {id(v): a for v, a in zip(tv, trainable)} | \
                    {id(v): a for v, a in zip(ntv, n)}
                return ([values[id(v)] for v in model.trainable_variables],
                        [values[id(v)] for v in model.non_trainable_variables])

            def outputs_of(trainable):
                outputs, _, losses = forward.stateless_call(
                    *ordered(trainable, forward), x, return_losses=True,
                    training=PROBE_TRAINING)
                return _listed(outputs), losses

            def loss_of(trainable):
                outputs, losses = outputs_of(trainable)
                if losses:  # (the forward pass's own losses, as compute_loss_and_updates does)
                    model._losses_override = losses
                try:
                    loss, _ = model.stateless_compute_loss(
                        *ordered(trainable, model), m, x=x, y=y,
                        y_pred=measure.y_pred(outputs), training=PROBE_TRAINING)
                finally:
                    if losses:
                        model._losses_override = []
                return loss, outputs

            grads, outputs = [None] * len(tv), []
            if forward is not None and x is not None:
                if with_gradients:
                    grads, outputs = gradient(loss_of, list(t))
                else:
                    with _no_grad():
                        outputs, _ = outputs_of(list(t))
            found = {id(v): g for v, g in zip(tv, grads)}
            values = {id(v): a for v, a in zip(tv, t)} | {id(v): a for v, a in zip(ntv, n)}
            with _no_grad():
                return _assemble(measure, [values[id(w)] for w in weights], previous,
                                 [found.get(id(w)) for w in weights], outputs[:activations])

        return run

    def _jax(self):
        import jax

        model = self.model
        tv, ntv, mv = (model.trainable_variables, model.non_trainable_variables,
                       model.metrics_variables)
        run = self.stateless(lambda loss_of, t: jax.grad(loss_of, has_aux=True)(t))
        return _CompiledAhead(jax.jit(run), (tv, ntv, mv),
                              lambda: (held_values(tv), held_values(ntv), held_values(mv)))

    def _tensorflow(self):
        import tensorflow as tf

        def gradient(loss_of, t):
            with tf.GradientTape() as tape:
                tape.watch(t)
                loss, outputs = loss_of(t)
            return tape.gradient(loss, t), outputs

        return _Deferred(self, self.stateless(gradient))

    def _torch(self):
        import torch

        def gradient(loss_of, t):
            loss, outputs = loss_of(t)
            wanted = [i for i, v in enumerate(t) if v.requires_grad]
            found = torch.autograd.grad(loss, [t[i] for i in wanted],
                                        allow_unused=True) if wanted else ()
            grads = [None] * len(t)
            for i, g in zip(wanted, found):
                grads[i] = g
            return grads, [o.detach() for o in outputs]

        model, run = self.model, self.stateless(gradient)
        tv, ntv, mv = (model.trainable_variables, model.non_trainable_variables,
                       model.metrics_variables)

        def record(x, y, previous):  # (eager: the variables' values now are the values read)
            return run([v.value for v in tv], [v.value for v in ntv], [v.value for v in mv],
                       previous, x, y)

        return record

    def prepare(self, x, y, previous, later: Callable) -> None:
        """Make the record's program off the training thread, before the first record needs it:
        `later(fn) -> Future` runs fn in the recorder's worker thread, where the records are
        finished in order, so a record started meanwhile waits there, not in training. Tracing
        reads Keras objects through a stateless call (Keras's scopes are per thread): the
        Recorder calls this once Keras has traced its own step. Under JAX, XLA compiles it
        there too (_CompiledAhead); under TensorFlow the program is traced there (_Deferred),
        and a model the program cannot differentiate falls back to records without gradients
        there; torch runs records eagerly (nothing to make)."""
        ahead = getattr(self._run, "prepare", None)
        if ahead is not None:
            try:
                ahead(x, y, previous, later)
            except Exception:  # noqa: BLE001, S110 - the first record meets it again, and falls back
                pass

    def without_gradients(self) -> Callable:
        """The record's body without the probe's gradients (a model the program cannot
        differentiate), for _Deferred's fallback in the worker."""
        self.with_gradients = False
        return self.stateless(lambda loss_of, t: None)  # (never differentiates)


class _CompiledAhead:
    """A jax.jit record program compiled ahead of its first call. `prepare` takes the
    arguments' shapes and dtypes (the variables' values may be lent to Keras's step) and hands
    tracing, lowering and XLA's compile (about 1 s for a 50-layer model on a CPU) to `later`
    (the recorder's worker thread) while training goes on. A record taken before it is compiled
    runs in the worker once it is (`_when_compiled`); one with nothing prepared compiles."""

    def __init__(self, jitted, variables, values):
        self._jitted, self._values = jitted, values  # values(): the variables' values now
        self._variables = variables  # (trainable, non-trainable, metrics variables)
        self._later: Callable | None = None  # the worker's submit, from prepare
        self._program: Any = None  # the compiled program, or a Future of it

    def prepare(self, x, y, previous, later: Callable) -> None:
        import jax

        if self._program is None:
            self._later = later

            def spec(a, value=None):
                return jax.ShapeDtypeStruct(tuple(a.shape), keras.backend.standardize_dtype(
                    a.dtype), sharding=_sharding(a if value is None else value))

            # (the variables' own shapes: during fit their values may be lent to Keras's step;
            # and their values' places: on a device mesh the program is compiled for the mesh,
            # each statistic reduced where its shards lie, only the small vector gathered)
            variables = [[spec(v, a) for v, a in zip(vs, held_values(vs))]
                         for vs in self._variables]

            def compiled():  # (in the worker: `previous` may be a Future made there before)
                shapes = jax.tree.map(spec, (_ready(previous), x, y))
                return _compiled(self._jitted.lower(*variables, *shapes))

            self._program = later(compiled)

    @property
    def compiling(self) -> bool:
        program = self._program
        return isinstance(program, concurrent.futures.Future) and not program.done()

    def __call__(self, x, y, previous):
        program = self._program
        waiting = [f for f in (program, previous)
                   if isinstance(f, concurrent.futures.Future) and not f.done()]
        if waiting and self._later is not None:
            return self._when_compiled(x, y, previous)
        previous = _ready(previous)
        if self._program is None:
            self._program = _compiled(self._jitted.lower(*self._values(), previous, x, y))
        if isinstance(self._program, concurrent.futures.Future):
            self._program = self._program.result()
        return _call(self._program, *self._values(), previous, x, y)

    def _when_compiled(self, x, y, previous) -> tuple[Callable, Any]:
        """A record while the program still compiles (a new model's first records): the values
        copied now (Keras's next step may take the arrays), the program run in the worker once
        compiled; (its vector when asked, its weights as a Future): training does not wait."""
        import jax

        # (device_put with may_alias=False copies without compiling a program per shape, as
        # jnp.copy did: 0.3 to 0.4 s of the first record's training thread on the MLP)
        values = jax.tree.map(lambda a: jax.device_put(a, may_alias=False), self._values())
        now: concurrent.futures.Future = concurrent.futures.Future()
        program = self._program

        def run():
            try:
                vector, copies = _call(_ready(program), *values, _ready(previous), x, y)
            except BaseException as e:
                now.set_exception(e)
                raise
            now.set_result(copies)
            return vector

        return self._later(run).result, now


# On a CPU, XLA's cheaper compile of the record's program: the 16-32-32-3 MLP's took 2.8 s
# instead of 4.6 to 5.0 s on a loaded 2-core CPU, and its records ran no slower (11 to 23 ms)
_CPU_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def _compiled(lowered) -> Any:
    import jax

    if jax.default_backend() == "cpu":
        return lowered.compile(_CPU_COMPILE)
    return lowered.compile()


def _sharding(a) -> Any:
    """Where a JAX array lies (None for a host array, or one a step took: placed as JAX
    chooses)."""
    try:
        return getattr(a, "sharding", None)
    except Exception:  # noqa: BLE001 - (a deleted array)
        return None


def _call(program, *args) -> Any:
    """A compiled JAX program on `args`. On a device mesh, a record's weights copied by another
    program (`Measure.initial`) may lie otherwise than it was compiled for: moved there."""
    try:
        return program(*args)
    except ValueError as e:
        if "sharding" not in str(e):
            raise
        import jax

        return program(*jax.device_put(args, program.input_shardings[0]))


def _ready(value) -> Any:
    """A value, waited for if it is still being made (a Future): a program still compiling, or
    a record's baseline weights that a record still computing makes."""
    return value.result() if isinstance(value, concurrent.futures.Future) else value


class _Deferred:
    """A TensorFlow record program that runs where the recorder finishes its records, not in the
    training thread. TensorFlow runs a program in the thread that calls it, and a small model's
    training leaves part of the second core idle: so the training thread only copies the values
    the record reads (one small program without arguments); `Measure.rows`, in the worker
    thread, runs the record's program on the copies while training goes on.

    The copies travel packed, one flat vector per dtype: a TensorFlow function call spends about
    6 us of the caller's Python per tensor argument (1.2 ms for the 50-layer model's 160 values
    and weights, holding the interpreter training needs); the program reads them back by
    slices. (Compiled by XLA the program ran no faster beside training, and its compile took
    20 s on MobileNetV2 before the first record.)

    The program is traced in the worker too (`prepare`; tracing reads Keras objects through a
    stateless call, whose scopes are per thread): tracing costs 0.9 s for a 4-layer MLP and 8 s
    for MobileNetV2, which a new model's first fit paid in the training thread before its first
    record; now the first records wait for it in the worker while training goes on. A model the
    program cannot differentiate falls back there to records without gradients
    (`Measure.without_gradients`); the records started meanwhile run the program that is ready.
    """

    def __init__(self, measure: Measure, run: Callable):
        import tensorflow as tf

        model = measure.model
        variables = [*model.trainable_variables, *model.non_trainable_variables,
                     *model.metrics_variables]
        split = (len(model.trainable_variables),
                 len(model.trainable_variables) + len(model.non_trainable_variables))
        dtypes = list(dict.fromkeys(tf.as_dtype(v.dtype) for v in variables))
        places, ends = [], [0] * len(dtypes)  # each variable's (vector, start, end, shape)
        for v in variables:
            d = dtypes.index(tf.as_dtype(v.dtype))
            size = int(np.prod(v.shape, dtype=np.int64))
            places.append((d, ends[d], ends[d] + size, tuple(v.shape)))
            ends[d] += size
        at = {id(v): i for i, v in enumerate(variables)}
        weights = [at[id(w)] for w in measure.weights]
        groups = measure.weight_groups

        def unpack(packed):
            return [tf.reshape(packed[d][start:end], shape) for d, start, end, shape in places]

        def pack():
            vectors = []
            for d in range(len(dtypes)):
                parts = [tf.reshape(v.value, [-1]) for v, (e, *_) in zip(variables, places)
                         if e == d]  # (a copy, not a read: updates write under a read)
                vectors.append(tf.concat(parts, 0) if len(parts) > 1 else
                               tf.raw_ops.DeepCopy(x=parts[0]))
            return vectors

        def record(packed, previous, x, y, run=run):
            values, before = unpack(packed), unpack(previous)
            before = [tensor_stats.stacked([before[i] for i in weights], g, copy=False)
                      for g in groups]
            return run(values[:split[0]], values[split[0]:split[1]], values[split[1]:], before,
                       x, y)[0]

        # (each model's functions are its own: TensorFlow counts traces by a function's code,
        # and warned of "retracing" in the notebook once a user had trained a few drawings.
        # Without AutoGraph: the record has no control flow on tensors, and AutoGraph's
        # rewriting of its code and Keras's took 4.7 s of a 6.1 s trace of a 4-layer MLP)
        self._copy = tf.function(functools.partial(pack), autograph=False)
        # (the copy runs op by op until the worker has traced it too: its trace in the training
        # thread, at a new model's run's start, cost 60-100 ms of a small MLP's first fit)
        self._pack, self._copy_traced = pack, False
        self._measure, self._record = measure, record
        self._program = tf.function(functools.partial(record), autograph=False)
        self._probe: tuple = (None, None, (None, None))  # (x, y as given, as tensors)
        self._tracing: concurrent.futures.Future | None = None  # prepare's trace

    def initial(self) -> list:
        return self._copied()

    def _copied(self) -> list:
        return self._copy() if self._copy_traced else self._pack()

    def __call__(self, x, y, previous) -> tuple[Callable, list]:
        packed = self._copied()
        args = (packed, previous, *self._tensors(x, y))
        return functools.partial(self._run, args), packed

    def _run(self, args) -> Any:
        return self._program(*args)

    def prepare(self, x, y, previous, later: Callable) -> None:
        args = (previous, previous, *self._tensors(x, y))  # (the copy's shapes are previous's)
        self._tracing = later(functools.partial(self._trace, args))

    @property
    def compiling(self) -> bool:
        tracing = self._tracing
        return tracing is not None and not tracing.done()

    def _trace(self, args) -> None:
        """In the worker: trace the program; a model it cannot differentiate falls back to a
        program without gradients."""
        import tensorflow as tf

        try:
            self._program.get_concrete_function(*args)
        except Exception:
            if not self._measure.with_gradients:
                raise
            program = tf.function(functools.partial(
                self._record, run=self._measure.without_gradients()), autograph=False)
            program.get_concrete_function(*args)
            self._program = program
        self._copy.get_concrete_function()
        self._copy_traced = True

    def _tensors(self, x, y) -> tuple:
        seen_x, seen_y, tensors = self._probe
        if seen_x is not x or seen_y is not y:
            tensors = tuple(None if a is None else keras.tree.map_structure(
                keras.ops.convert_to_tensor, a) for a in (x, y))
            self._probe = (x, y, tensors)
        return tensors


def _compile(fn):
    """fn as one JAX program; torch runs it eagerly."""
    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        return jax.jit(fn)
    return fn


def _listed(outputs) -> list:
    return keras.tree.flatten(outputs)


def measure(model: keras.Model, probe: tuple | None, cache: dict) -> Measure:
    """The measure of `model`, kept in `cache` (the drawing's insights store): a new fit of the
    same model reuses it and its compiled program; it goes with the drawing. A model compiled
    again (another loss, new metrics) gets a new one: the program traced the loss it had, and
    so does one whose trainable variables changed (a layer frozen or unfrozen on the same model:
    the program takes the trainable and the other variables' values apart, in their order)."""
    key = (id(model), probe is None, None if probe is None else _shapes(probe),
           _placement(model), tuple(id(v) for v in model.trainable_variables))
    loss = getattr(model, "_compile_loss", None)
    if cache.get("key") != key or cache.get("model") is not model or \
            cache.get("loss") is not loss:
        cache.update(key=key, model=model, loss=loss, measure=Measure(model, probe is not None))
    return cache["measure"]


def _placement(model) -> Any:
    """Where the model's variables lie (JAX: a program is compiled for its arguments' places;
    a run on a device mesh and one on a single device need their own)."""
    if not _JAX:
        return None
    return tuple(_sharding(a) for a in held_values(model.variables))


def _shapes(probe) -> Any:
    from keras import tree

    return tuple(repr(getattr(a, "shape", None)) for a in tree.flatten(probe))


@contextlib.contextmanager
def _one_intra_op_thread():
    """Under torch, the record's few hundred small operations in one thread: split over a team
    of threads, each pays the team's start and join (a digits CNN's record in a training thread:
    13 ms with 2 threads, 6.8 ms with 1). The setting is the calling thread's; training's own
    operations get their threads back after."""
    if keras.backend.backend() != "torch":
        yield
        return
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _no_grad():
    if keras.backend.backend() == "torch":
        import torch

        return torch.no_grad()
    return contextlib.nullcontext()



def _weight_name(layer, weight) -> str:
    path = getattr(weight, "path", None) or weight.name
    prefix = layer.name + "/"
    return path.removeprefix(prefix)
