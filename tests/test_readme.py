"""The README's Python examples run as written, in order, in one namespace (as a reader pastes
them into one notebook), in a fresh interpreter in a scratch directory. A block that needs a
browser or a display says so with the comment `<!-- readme: needs a browser -->` on the line
before it, and only such blocks are left out."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = "<!-- readme: needs a browser -->"


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """(line, code, skipped) for each ```python block, skipped when the line before it is SKIP."""
    out = []
    for m in re.finditer(r"```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        out.append((line, m.group(1), before == SKIP))
    return out


def test_the_blocks_are_found_and_the_marker_skips_only_its_block():
    text = f"a\n```python\nx = 1\n```\n{SKIP}\n```python\nshow()\n```\n```bash\nls\n```\n"
    assert python_blocks(text) == [(2, "x = 1\n", False), (6, "show()\n", True)]


def test_the_readme_examples_run_as_written(tmp_path):
    # Once, with the default backend (TensorFlow, as a reader without KERAS_BACKEND gets): the
    # rest of the suite checks each backend; under torch this alone would take two minutes.
    if os.environ.get("KERAS_BACKEND", "tensorflow") != "tensorflow":
        pytest.skip("the README runs with the default backend")
    blocks = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    run = [(line, code) for line, code, skipped in blocks if not skipped]
    assert len(run) >= 2, "the README's examples were not found"
    script = "\n".join(f"# README.md line {line}\n{code}" for line, code in run)
    (tmp_path / "readme_examples.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "readme_examples.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
