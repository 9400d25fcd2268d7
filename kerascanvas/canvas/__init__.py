"""The canvas: everything from the browser is untrusted. `intents.json` describes each intent's
fields (the front end's types are made from it too); `intents.py` checks their types,
`intent_checks.py` their ranges, sizes and text; `intent_handlers.py` maps each kind to one
handler that edits through the Graph's methods; `placement.py` says where a canvas edit puts
boxes; `widget.py` is the anywidget (`kc.Canvas`): it receives messages, answers each and sends
the Graph's new state as diffs; `later.py` runs what an edit leaves until its diff is drawn;
`picture_output.py` keeps the picture a canvas leaves in the notebook.

May use: everything below it. `kerascanvas.widget` is the old path of `widget.py`.
"""
