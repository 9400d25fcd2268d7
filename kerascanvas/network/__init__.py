"""The live network: the drawing made into real Keras objects, one Keras `Node` per complete
call, rebuilt only where an edit touched the drawing (`network.py`); `depth.py` is Keras's own
depth map; `invariants.py` checks that the live objects match the drawing; `detached.py` puts
back the values a JAX fit detached from the variables.

May use: the foundations, kinds, drawing and geometry.
"""
