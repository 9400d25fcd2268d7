"""Where boxes go and how big they are, from the drawing's structure alone: `boxes.py`
(a box's size and its port layout, computed once and sent), `layout.py` (the automatic layout),
`repeats.py` (runs of identical blocks) and `folds.py` (what a folded run hides and shows).

May use: the foundations, kinds and drawing.
"""
