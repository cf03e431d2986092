"""Training-loop helpers for frameworks, imported on demand:
`tensorboard.integrations.mxnet` (Module.fit callbacks, mx.mon.Monitor) and
`tensorboard.integrations.pytorch` (parameter/gradient histograms)."""
