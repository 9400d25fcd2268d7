"""Shared by every test, set before anything imports Keras."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")  # the default; KERAS_BACKEND=jax/torch too
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up notices, not errors
