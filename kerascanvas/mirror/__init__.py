"""What the browser mirrors: one description of the state (`state.json`, read by `shape.py` and
generated into TypeScript), the state built from parts (`state.py`) and the diffs that send
only the parts whose revision changed (`diffs.py`).

May use: everything below it: foundations, kinds, drawing, geometry, network, insights, io,
teaching.
"""
