"""What tests/e2e/write_logdir.py logs, shared with the tests that read it back."""

RUN = "train"
SCALAR_TAG = "loss"
SCALAR_VALUES = [1.0, 0.5, 0.25, 0.125]
HISTOGRAM_TAG = "weights"
IMAGE_TAG = "sample_image"
IMAGE_HW = (12, 20)
AUDIO_TAG = "tone"
AUDIO_RATE = 8000
TEXT_TAG = "notes"
TEXT_VALUE = "standalone hello"
PR_TAG = "pr"
GRAPH_NODES = [
    ("input", "Placeholder", []),
    ("dense/matmul", "MatMul", ["input"]),
    ("output", "Relu", ["dense/matmul"]),
]
CUSTOM_LAYOUT = {"Training": {"Loss": ["Multiline", ["loss"]]}}
EMBEDDING_TAG = "points"
EMBEDDING_POINTS = 16
HPARAMS = {"lr": 0.01, "optimizer": "adam"}
HPARAM_METRICS = {"hparam/accuracy": 0.9}
HPARAM_RUN = "hp_run"
