"""TensorFlow's start-up block (oneDNN and CPU notices, CUDA stubs, cuInit, absl's line) never
reaches a notebook once kerascanvas is in the kernel: imported first or after Keras or TensorFlow
(through kerascanvas-quiet.pth, as installed), with TF_CPP_MIN_LOG_LEVEL set or not; every other
line on stderr still does. Checked in real kernels (jupyter_client) on their stream outputs."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kerascanvas.quiet import filtered, is_start_up_line

ROOT = Path(__file__).resolve().parents[1]

# lines as TensorFlow 2.21 prints them at start-up on a machine without a GPU
START_UP = [
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    ("I0000 00:00:1795523900.551698   29882 port.cc:153] oneDNN custom operations are on. You may see"
    " slightly different numerical results due to floating-point round-off errors."),
    ("I0000 00:00:1795523900.552700   29882 cudart_stub.cc:31] Could not find cuda drivers on your"
    " machine, GPU will not be used."),
    ("I0000 00:00:1795523900.849574   29882 cpu_feature_guard.cc:227] This TensorFlow binary is"
    " optimized to use available CPU instructions in performance-critical operations."),
    ("To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with"
    " the appropriate compiler flags."),
    ("E0000 00:00:1795523908.925564   29882 cuda_platform.cc:52] failed call to cuInit: INTERNAL:"
    " CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)"),
    ("E0000 00:00:1733 12345 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to"
    " register factory for plugin cuDNN when one has already been registered"),
    "W0000 00:00:1733 12345 py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
]
OTHER = [
    "Traceback (most recent call last):",
    "W0000 00:00:1795523908.925564   29882 op_kernel.cc:1857] OP_REQUIRES failed: a real error",
    "hello from the user",
    "",
]


def test_start_up_lines_are_told_from_the_rest():
    assert all(is_start_up_line(line) for line in START_UP)
    assert not any(is_start_up_line(line) for line in OTHER)
    text = "\n".join(START_UP[:3] + OTHER[:2] + START_UP[3:]) + "\n"
    assert filtered(text.encode()).decode() == "\n".join(OTHER[:2]) + "\n"


def kernel_env(**set_: str) -> dict:
    """This process's environment for a kernel, less what would change what it shows: pytest's
    marker (ipykernel leaves fd 2 alone under pytest) and TensorFlow's log level."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TF_CPP_MIN_LOG_LEVEL", "PYTEST_CURRENT_TEST")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**env, **set_}


def test_a_process_that_only_imports_ipykernel_is_not_a_kernel():
    """A test runner that imports ipykernel keeps its own stderr: the filter is for kernels.
    (In a process of its own: ipykernel imported here would change how ipywidgets' comms behave
    for the tests after this one.)"""
    code = ("import ipykernel.kernelapp\nfrom kerascanvas import quiet\n"
            "print('kernel' if quiet.in_kernel() else 'not a kernel')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=kernel_env(), check=True).stdout
    assert out.strip() == "not a kernel"


def stderr_of_cells(cells: list[str], env: dict, site: Path | None) -> tuple[list[str], list[str]]:
    """Run `cells` in a fresh kernel (its site-packages stand-in `site` holds what an install puts
    there); the stdout and stderr stream texts, cell by cell."""
    jupyter_client = pytest.importorskip("jupyter_client")
    from jupyter_client.kernelspec import KernelSpecManager

    km = jupyter_client.KernelManager(kernel_name="python3")
    if site is not None:  # as installed: site-packages' .pth files run at start-up
        spec = site.parent / "kernels" / "site"
        spec.mkdir(parents=True)
        start = (f"import site; site.addsitedir({str(site)!r}); "
                 "from ipykernel.kernelapp import launch_new_instance; launch_new_instance()")
        (spec / "kernel.json").write_text(json.dumps({
            "language": "python", "display_name": "site",
            "argv": [sys.executable, "-c", start, "-f", "{connection_file}"]}))
        km = jupyter_client.KernelManager(kernel_name="site", kernel_spec_manager=KernelSpecManager(
            kernel_dirs=[str(spec.parent)]))
    km.start_kernel(env=env)
    client = km.client()
    client.start_channels()
    out, err = [], []
    try:
        client.wait_for_ready(timeout=120)
        for code in cells:
            streams = {"stdout": [], "stderr": []}

            def hook(m, streams=streams):
                if m["msg_type"] == "stream":
                    streams[m["content"]["name"]].append(m["content"]["text"])

            reply = client.execute_interactive(code, timeout=180, output_hook=hook)
            assert reply["content"]["status"] == "ok", reply["content"]
            out.append("".join(streams["stdout"]))
            err.append("".join(streams["stderr"]))
        return out, err
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


BUILD = ("g = kc.Graph(); g.add_input((4,), name='x'); g.add_layer('Dense', units=2, name='d'); "
         "g.connect('x', 'd'); print(g.model is not None)")
SPEAK = ("import os, sys, time; print('said on stderr', file=sys.stderr); "
         "os.write(2, b'written on fd 2\\n'); time.sleep(0.5)")  # (fd 2 reaches the notebook a moment later)


@pytest.mark.parametrize("first, level, installed", [
    ("import keras, kerascanvas as kc", "1", True),  # Keras first, a level set in the kernel
    ("import tensorflow as tf\nimport kerascanvas as kc", None, True),  # TensorFlow first
    ("import kerascanvas as kc, keras", "0", False),  # kerascanvas first, everything asked for
])
def test_the_start_up_block_never_reaches_the_notebook(tmp_path, first, level, installed):
    if os.environ.get("KERAS_BACKEND", "tensorflow") != "tensorflow" and "tensorflow" not in first:
        pytest.skip("TensorFlow prints its start-up block only when Keras uses it")
    env = kernel_env() if level is None else kernel_env(TF_CPP_MIN_LOG_LEVEL=level)
    site = None
    if installed:
        site = tmp_path / "site-packages"
        site.mkdir()
        shutil.copy(ROOT / "kerascanvas" / "kerascanvas-quiet.pth", site)
    out, err = stderr_of_cells([first, BUILD, SPEAK], env, site)
    assert err[0] == "" and err[1] == "", err  # not one line of the block
    assert out[1].strip() == "True"
    assert err[2] == "said on stderr\nwritten on fd 2\n"  # the rest of stderr still shows


def test_without_the_filter_the_block_shows(tmp_path):
    """The check above can fail: in a kernel where nothing filters fd 2, TensorFlow's block is
    there (the cuInit line, printed whatever the log level but 3, shows on any machine without a
    GPU driver; the oneDNN notice on any other)."""
    if os.environ.get("KERAS_BACKEND", "tensorflow") != "tensorflow":
        pytest.skip("with TensorFlow only")
    # (KERASCANVAS_SHOW_TF_STARTUP: where kerascanvas-quiet.pth is installed, it filters not)
    env = kernel_env(TF_CPP_MIN_LOG_LEVEL="0", KERASCANVAS_SHOW_TF_STARTUP="1")
    _, err = stderr_of_cells(["import tensorflow as tf; tf.constant(1.0) + 1"], env, None)
    assert any(is_start_up_line(line) for line in err[0].splitlines()), err
