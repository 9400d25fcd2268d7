"""mkdocs hooks for the docs site (mkdocs.yml names this file).

The notebooks in notebooks/ become pages of the site, read where they are. mkdocs only reads
files under docs_dir, and the notebooks live in notebooks/ (they run as tests there): on_files
adds each notebooks/*.ipynb to the build's files as `notebooks/<name>.ipynb`, its source left in
place (nothing copied into docs/, nothing committed twice), before mkdocs-jupyter's own on_files
renders them as pages. on_config imports Keras quietly for the API page.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]  # docs/hooks/build.py -> the repository


@event_priority(100)  # before mkdocs-jupyter (priority 0), which turns .ipynb files into pages
def on_files(files, config):
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        files.append(File(f"notebooks/{notebook.name}", src_dir=str(ROOT),
                          dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def on_config(config):
    # The API page inspects kc.Graph live (mkdocstrings' force_inspection: its methods are
    # forwarded to its parts), which imports Keras: first import it as kerascanvas does in a
    # notebook, TensorFlow's start-up lines kept out of the build's output.
    from kerascanvas.quiet import quiet_tensorflow

    with quiet_tensorflow():
        import keras  # noqa: F401
    return config
