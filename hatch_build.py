"""Build hook: kerascanvas-quiet.pth goes into site-packages beside the package (wheels and
editable installs alike), so that in a Jupyter kernel TensorFlow's start-up block is kept out of
the notebook even when Keras is imported before kerascanvas (kerascanvas/startup.py)."""

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PTH = "kerascanvas/kerascanvas-quiet.pth"


class QuietStartHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        key = "force_include_editable" if version == "editable" else "force_include"
        build_data.setdefault(key, {})[PTH] = "kerascanvas-quiet.pth"
