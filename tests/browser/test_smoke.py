"""The harness itself: a notebook written here runs in a real JupyterLab and Chromium, its output
shows on the page, and the kernel answers for the values its cells left behind."""

import nbformat
import pytest

from .conftest import open_notebook, output_text, screenshot

pytestmark = pytest.mark.browser


def test_a_notebook_runs_in_the_browser_and_its_kernel_answers(lab, page):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Smoke"),
        nbformat.v4.new_code_cell("squares = [n * n for n in range(10)]"),
        nbformat.v4.new_code_cell("total = sum(squares)\ntotal"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, lab.root / "smoke.ipynb")

    kernel = open_notebook(page, lab, lab.root / "smoke.ipynb")

    assert kernel.value("total") == 285
    assert kernel.value("squares[-1]") == 81
    assert output_text(page, 2) == "285"
    assert page.locator(".jp-Notebook .jp-Cell").count() == 3  # running added no cell
    shot = screenshot(page, "smoke-notebook")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
