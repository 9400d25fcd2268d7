"""The drawing as plain data, no Keras: layers, calls with their slots, edges, pins and
outputs (`drawing.py`), with the structural checks; `changelog.py` records what an edit changed
(old and new value of each field), so undo and redo cost what the edit changed;
`structures.py` reads nested structures of tensors (dict and list inputs and outputs).

May use: the foundations and kinds.
"""
