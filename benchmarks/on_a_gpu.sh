#!/usr/bin/env bash
# Issue 21's checks on a lent GPU machine (the `device` tool's), in one call: where records are
# computed and what the dead ReLU is called (insights_on_device.py), the insights tests, and the
# throughput ratios (bench_insights.py) under JAX and torch. That machine has JAX and torch with
# CUDA but no TensorFlow and no Keras, and reaches no registry: carry Keras and the project's
# pure-Python needs as wheels for its Python 3.12, and the built front end (anywidget reads it
# when kerascanvas.Canvas is defined). Here, once:
#
#   echo /.whl/ >> .git/info/exclude && mkdir -p .whl && cd .whl && for p in keras namex optree \
#     anywidget comm ipywidgets jupyterlab_widgets widgetsnbextension traitlets psygnal ipython \
#     ipython_pygments_lexers decorator jedi parso matplotlib-inline pexpect ptyprocess \
#     prompt_toolkit wcwidth stack_data executing asttokens pure_eval; do
#     python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#       --platform manylinux2014_x86_64 -d . $p; done
#
# then run `bash benchmarks/on_a_gpu.sh` there, carrying [".whl", "kerascanvas/static"], with a
# timeout of about 540 s (it took 336 s on an H200 without torch's residual, which alone needs
# more than 210 s: it runs last, with fewer rounds). What it prints lands under $OUT too.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl >/dev/null 2>&1 || { echo "carry .whl (see above)"; exit 3; }
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi -L
for b in jax torch; do
  KERAS_BACKEND=$b timeout 70 python3 benchmarks/insights_on_device.py 2>&1 | grep -vi warn |
    tee "$OUT/device_$b.txt"
done
KERAS_BACKEND=jax timeout 80 python3 -m pytest -q tests/test_insights.py tests/test_recording.py \
  -k "not tf_data" 2>&1 | tail -3 | tee "$OUT/pytest_jax.txt"  # (tf.data needs TensorFlow)
KERAS_BACKEND=jax timeout 150 python3 benchmarks/bench_insights.py --rounds 5 2>&1 |
  grep -vi warn | tee "$OUT/bench_jax.txt"
KERAS_BACKEND=torch timeout 100 python3 benchmarks/bench_insights.py --rounds 5 --models digits \
  2>&1 | grep -vi warn | tee "$OUT/bench_torch.txt"
KERAS_BACKEND=torch timeout 140 python3 benchmarks/bench_insights.py --rounds 3 --repeat 1 \
  --models residual 2>&1 | grep -vi warn | tee "$OUT/bench_torch_residual.txt"
