"""TensorFlow's start-up block (oneDNN and CPU notices, CUDA stubs, absl's line) never reaches a
notebook once kerascanvas is in the kernel: imported first or after Keras or TensorFlow (through
kerascanvas-quiet.pth, as installed), with TF_CPP_MIN_LOG_LEVEL set or not. Only that block is
taken: its information and warning lines, while TensorFlow or Keras is first imported. Error and
fatal lines always show, nothing is filtered after start-up, and a partial line (a progress bar
redrawn with \\r) goes on at once. Checked in processes of their own (a stand-in for Keras whose
import prints the block) and in real kernels (jupyter_client) on their stream outputs."""

import json
import os
import select
import shutil
import subprocess
import sys
import time
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
    "W0000 00:00:1733 12345 py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
]
# error and fatal lines, from the same sources: never part of the block (TensorFlow's Python error
# says "see the log above")
ERRORS = [
    ("E0000 00:00:1795523908.925564   29882 cuda_platform.cc:52] failed call to cuInit: INTERNAL:"
    " CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)"),
    ("E0000 00:00:1733 12345 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to"
    " register factory for plugin cuDNN when one has already been registered"),
    ("E0000 00:00:1795523999.102030   29882 cuda_dnn.cc:522] Could not create cudnn handle:"
    " CUDNN_STATUS_INTERNAL_ERROR"),
    ("F0000 00:00:1795523999.102031   29882 cuda_dnn.cc:2270] Check failed: cudnnSetTensorNdDescriptor"
    "(handle_.get(), elem_type, nd, dims.data(), strides.data()) == CUDNN_STATUS_SUCCESS (3 vs. 0)"),
]
OTHER = [*ERRORS,
    "Traceback (most recent call last):",
    "W0000 00:00:1795523908.925564   29882 op_kernel.cc:1857] OP_REQUIRES failed: a real error",
    "hello from the user",
    "",
]


def test_start_up_lines_are_told_from_the_rest():
    assert all(is_start_up_line(line) for line in START_UP)
    assert not any(is_start_up_line(line) for line in OTHER)
    text = "\n".join(START_UP[:3] + OTHER[:6] + START_UP[3:]) + "\n"
    assert filtered(text.encode()).decode() == "\n".join(OTHER[:6]) + "\n"
    redrawn = b"\r 10%\r" + START_UP[1].encode() + b"\n"  # (a \\r in a line: not absl's)
    assert filtered(redrawn) == redrawn


def test_a_partial_line_is_held_only_while_it_could_become_a_start_up_line():
    from kerascanvas.quiet import may_become_start_up_line

    for line in START_UP:
        for end in range(1, len(line) + 1):
            assert may_become_start_up_line(line[:end].encode()), line[:end]
    for part in ["Downloading 10%", "\r 10%", START_UP[1][:40] + "\r", "Password: ", "E0000 00:00:1",
                 ERRORS[2][:60], OTHER[-3][:70], "I'm here", "W: ", "Warning"]:
        assert not may_become_start_up_line(part.encode()), part


def line(level: str, source: str, message: str) -> bytes:
    """One line as absl prints it."""
    return f"{level}0000 00:00:1795523900.551698   29882 {source}] {message}\n".encode()


# What the stand-in's first import prints on fd 2: TensorFlow's block, and a line of the user's.
BLOCK = "".join(line + "\n" for line in START_UP).encode()

# A process as a Jupyter kernel is for kerascanvas, with kerascanvas-quiet.pth's watch on, whose
# first import of "keras" is the stand-in written by `stand_in`.
AS_KERNEL = """import os, sys, types
import kerascanvas.quiet as quiet, kerascanvas.startup as startup
quiet.in_kernel = lambda: True
sys.modules["ipykernel.kernelapp"] = types.ModuleType("ipykernel.kernelapp")
startup.watch()
"""


def stand_in(tmp_path: Path, during: str) -> dict:
    """A "keras" whose import runs `during` (os imported); the environment that imports it."""
    (tmp_path / "keras").mkdir()
    (tmp_path / "keras" / "__init__.py").write_text("import os\n" + during)
    env = kernel_env(KERAS_BACKEND="tensorflow")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    return env


def stderr_of(code: str, env: dict) -> bytes:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, env=env,
                          check=False)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stderr


def test_the_start_up_block_of_the_first_import_is_dropped(tmp_path):
    env = stand_in(tmp_path, f"os.write(2, {BLOCK!r})\nos.write(2, b'said while importing\\n')\n")
    err = stderr_of(AS_KERNEL + "import keras\n", env)
    assert err == b"said while importing\n"


def test_error_and_fatal_lines_always_pass(tmp_path):
    """During the first import (the block's sources say them too) and after it."""
    during = line("E", "cuda_dnn.cc:8310", "Unable to register cuDNN factory: Attempting to register")
    after = (line("E", "cuda_dnn.cc:522", "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR")
             + line("F", "cuda_dnn.cc:2270", "Check failed: cudnnSetTensorNdDescriptor == SUCCESS")
             + line("E", "cuda_platform.cc:52", "failed call to cuInit: UNKNOWN ERROR (303)"))
    env = stand_in(tmp_path, f"os.write(2, {BLOCK + during!r})\n")
    err = stderr_of(AS_KERNEL + f"import keras\nos.write(2, {after!r})\n", env)
    assert err == during + after


def test_nothing_is_filtered_after_start_up(tmp_path):
    """TensorFlow's information and warning lines after its first import (a GPU created, cuDNN
    loaded, a retried allocation) are the user's to see, whatever their source."""
    after = (line("I", "gpu_device.cc:2020", "Created device /job:localhost/replica:0/task:0/device:GPU:0")
             + line("I", "cuda_dnn.cc:529", "Loaded cuDNN version 90300")
             + line("W", "port.cc:153", "a later warning") + BLOCK)
    env = stand_in(tmp_path, f"os.write(2, {BLOCK!r})\n")
    err = stderr_of(AS_KERNEL + f"import keras\nos.write(2, {after!r})\n", env)
    assert err == after


# While the first import runs (the filter is on), a progress bar redrawn with \r and never ended by
# a newline until its tool ends: it writes every few milliseconds (no pause) until the reader says
# it has seen it, or 10 seconds; it says on stdout which came first.
PROGRESS = """import select, time
os.write(2, b"I0000 00:00:1795523900.551698   29882 port.cc:153] oneDNN custom operations are on.\\n")
end, k = time.monotonic() + 10, 0
while time.monotonic() < end and not select.select([0], [], [], 0.005)[0]:
    os.write(2, b"\\rDownloading %d%%" % (k % 100))
    k += 1
os.write(2, b"\\n")
print("seen while running" if time.monotonic() < end else "not seen until its end")
"""


def test_a_progress_bar_passes_at_once(tmp_path):
    env = stand_in(tmp_path, PROGRESS)
    proc = subprocess.Popen([sys.executable, "-c", AS_KERNEL + "import keras\n"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen, deadline = b"", time.monotonic() + 60
    try:
        while b"%" not in seen and time.monotonic() < deadline:
            if select.select([proc.stderr], [], [], 1)[0]:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        proc.stdin.write(b"seen\n")
        proc.stdin.close()
        said = proc.stdout.read().decode().strip()
        seen += proc.stderr.read()
        assert proc.wait(timeout=60) == 0, seen
    finally:
        proc.kill()
    assert said == "seen while running"  # not held for a newline
    assert seen.startswith(b"\rDownloading 0%"), seen[:200]
    assert seen.endswith(b"%\n") and b"port.cc" not in seen


def test_a_script_gets_the_same_filter_and_keeps_its_log_level(tmp_path):
    """kerascanvas's own first import of Keras outside a kernel: the block is dropped, error lines
    pass, and TF_CPP_MIN_LOG_LEVEL is left as the user set it (a level set for them would hide
    TensorFlow's later errors too)."""
    error = line("E", "cuda_dnn.cc:8310", "Unable to register cuDNN factory")
    env = stand_in(tmp_path, f"os.write(2, {BLOCK + error!r})\n")
    code = ("import os, sys\nfrom kerascanvas.quiet import quiet_tensorflow\n"
            "with quiet_tensorflow():\n    import keras\n"
            "print(os.environ.get('TF_CPP_MIN_LOG_LEVEL'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, env=env,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == error
    assert proc.stdout.strip() == b"None"


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
AFTER_START_UP = (ERRORS[2] + "\n" + START_UP[1] + "\n").encode()  # an error, a notice: they show
SPEAK = ("import os, sys, time; print('said on stderr', file=sys.stderr); "
         f"os.write(2, b'written on fd 2\\n' + {AFTER_START_UP!r}); time.sleep(0.5)")
# (fd 2 reaches the notebook a moment later)


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
    # not one line of the block; only errors, if any: without a GPU driver, the first op says
    # "failed call to cuInit" (an error, and after start-up: it shows where the level lets it)
    assert all(line[:1] in "EF" and not is_start_up_line(line)
               for line in (err[0] + err[1]).splitlines()), err
    assert out[1].strip() == "True"
    assert err[2] == "said on stderr\nwritten on fd 2\n" + AFTER_START_UP.decode()


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
