"""The drawing in other forms: `importer.py` (any Keras model -> drawing), `codegen.py` (drawing
-> Python), `storage.py` (files: save, load, replay), `picture.py` (the static SVG picture),
`standalone.py` (the self-contained HTML view), `inner.py` (the inner view of a nested model),
`snapshot.py` (a drawing frozen to compare against) and `compare.py` (kc.compare).
They take a Graph (or its class) as an argument and use its public methods; the Graph offers
them as methods (`to_code`, `from_model`, `save`, `to_html`).

May use: everything below the Graph but teaching and mirror: foundations, kinds, drawing,
geometry, network, insights.
"""
