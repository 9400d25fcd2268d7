"""kerascanvas: build, understand and train Keras models by drawing them in Jupyter."""

__version__ = "0.1.0"
