"""The event types and extra columns SummaryReader knows (tbparse's names)."""
SCALARS, TENSORS, HISTOGRAMS, IMAGES, AUDIO, HPARAMS, TEXT = (
    "scalars", "tensors", "histograms", "images", "audio", "hparams", "text")
ALL_EVENT_TYPES = frozenset({SCALARS, TENSORS, HISTOGRAMS, IMAGES, AUDIO, HPARAMS, TEXT})
ALL_EXTRA_COLUMNS = frozenset({"dir_name", "file_name", "wall_time", "min", "max", "num", "sum", "sum_squares",
                               "width", "height", "content_type", "length_frames", "sample_rate"})
