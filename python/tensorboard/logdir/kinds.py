"""The event types and extra columns SummaryReader knows (tbparse's names), and how text tags are named."""
SCALARS, TENSORS, HISTOGRAMS, IMAGES, AUDIO, HPARAMS, TEXT = (
    "scalars", "tensors", "histograms", "images", "audio", "hparams", "text")
ALL_EVENT_TYPES = frozenset({SCALARS, TENSORS, HISTOGRAMS, IMAGES, AUDIO, HPARAMS, TEXT})
ALL_EXTRA_COLUMNS = frozenset({"dir_name", "file_name", "wall_time", "min", "max", "num", "sum", "sum_squares",
                               "width", "height", "content_type", "length_frames", "sample_rate"})
TEXT_SUFFIX = "/text_summary"  # what TF 1's text summaries append to a tag; readers show the tag without it


def text_name(tag: str) -> str:
    """A text tag as readers show and match it: without TF 1's '/text_summary' suffix."""
    return tag[:-len(TEXT_SUFFIX)] if tag.endswith(TEXT_SUFFIX) else tag
