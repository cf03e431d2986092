"""Training-loop helpers for frameworks, imported on demand:
`tensorboard.integrations.mxnet` (Module.fit callbacks, mx.mon.Monitor),
`tensorboard.integrations.pytorch` (parameter/gradient histograms) and
`tensorboard.integrations.keras` (a Keras 3 TensorBoard callback for every backend, no TensorFlow)."""
