"""Hostile input to the summary encoders (property-based): any finite or non-finite number, odd array
shapes and dtypes, unicode and control characters in tags and text, huge and empty inputs. Each
either yields a Summary that upstream TensorBoard's reader accepts, or raises TypeError/ValueError
naming the argument; all accepted summaries are written to one logdir and read back by upstream."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from upstream import upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.src import summary_pb2

EXAMPLES = 60  # per encoder

tags = st.one_of(
    st.text(min_size=0, max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x1F), max_size=8),  # control characters
    st.sampled_from(["loss", "a/b/c", "\u00e9t\u00e9", "\U0001F600", "x" * 5000, "", " ", "\x00"]),
)
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-2**63, max_value=2**63),
                    st.sampled_from([1e300, -1e-320, np.float16(1.5), np.int8(-3), np.float64("nan"), True]))
dtypes = st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_])


def arrays(max_dims: int = 3, max_side: int = 6):
    return dtypes.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0,
                                                                       max_side=max_side)))


class Outcomes:
    """Accepted summaries (to write and read back) and rejections (checked to name an argument)."""

    def __init__(self):
        self.accepted: list[tuple[str, summary_pb2.Summary]] = []
        self.rejected: dict[str, int] = {}

    def attempt(self, encoder: str, names: tuple[str, ...], make) -> None:
        try:
            result = make()
        except (TypeError, ValueError) as err:
            message = str(err)
            assert any(name in message for name in names), f"{encoder}: {message!r} names none of {names}"
            self.rejected[encoder] = self.rejected.get(encoder, 0) + 1
            return
        assert isinstance(result, summary_pb2.Summary)
        result.SerializeToString()
        self.accepted.append((encoder, result))


def test_hostile_inputs_are_read_by_upstream_or_rejected_by_name(tmp_path):
    out = Outcomes()
    common = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)

    @settings(max_examples=EXAMPLES, **common)
    @given(tag=tags, value=numbers)
    def scalar_case(tag, value):
        out.attempt("scalar", ("tag", "value"), lambda: summary.scalar(tag, value))

    @settings(max_examples=EXAMPLES, **common)
    @given(tag=tags, values=st.one_of(arrays(), st.lists(numbers, max_size=20)))
    def histogram_case(tag, values):
        out.attempt("histogram", ("tag", "values"), lambda: summary.histogram(tag, values))

    @settings(max_examples=EXAMPLES, **common)
    @given(tag=tags, text=st.one_of(st.text(max_size=200), st.sampled_from(["", "\x00\x01", "a" * 100_000]),
                                                                          numbers))
    def text_case(tag, text):
        out.attempt("text", ("tag", "text"), lambda: summary.text(tag, text))

    @settings(max_examples=EXAMPLES, **common)
    @given(tag=tags, tensor=arrays(max_dims=4, max_side=5), fmt=st.sampled_from(["HWC", "CHW", "HW", "NCHW", "NHWC"]))
    def image_case(tag, tensor, fmt):
        out.attempt("image", ("tag", "tensor", "dataformats", "image"),
                    lambda: summary.image(tag, tensor, dataformats=fmt))

    @settings(max_examples=EXAMPLES, **common)
    @given(tag=tags, tensor=arrays(max_dims=2, max_side=50),
           rate=st.one_of(st.integers(-10, 200_000), st.floats(max_value=1e6)))
    def audio_case(tag, tensor, rate):
        out.attempt("audio", ("tag", "tensor", "sample_rate", "audio"),
                    lambda: summary.audio(tag, tensor, sample_rate=rate))

    for case in (scalar_case, histogram_case, text_case, image_case, audio_case):
        case()

    # Huge and empty inputs, once each.
    out.attempt("histogram", ("values",), lambda: summary.histogram("huge", np.random.default_rng(0).normal(
        size=2_000_000)))
    out.attempt("histogram", ("values",), lambda: summary.histogram("empty", np.zeros(0)))
    out.attempt("image", ("tensor", "image"), lambda: summary.image("big", np.zeros((1024, 1024, 3), np.uint8)))
    out.attempt("scalar", ("value",), lambda: summary.scalar("inf", math.inf))

    assert out.accepted, "nothing was accepted"
    with tensorboard.FileWriter(tmp_path) as writer:
        for step, (_, proto) in enumerate(out.accepted):
            writer.add_summary(proto, step)
    view = upstream_read(tmp_path)  # fails the test if upstream's readers choke on anything
    assert view["runs"]["."]["files"] and sum(view["runs"]["."]["files"].values()) == len(out.accepted) + 1
    kinds = {encoder for encoder, _ in out.accepted}
    assert {"scalar", "histogram", "text"} <= kinds
    print(f"\nhostile input: {len(out.accepted)} summaries accepted and read by upstream, rejected by name: "
          f"{out.rejected}")


@pytest.mark.parametrize("tag", [3, None, b"bytes", ""])
def test_bad_tags_are_named(tag):
    with pytest.raises((TypeError, ValueError), match="tag"):
        summary.scalar(tag, 1.0)


# Found by the property tests above, now fixed.
def test_surrogate_tag_is_named():
    with pytest.raises(ValueError, match="tag"):
        summary.scalar("\ud800broken", 1.0)


def test_huge_sample_rate_is_named():
    with pytest.raises(ValueError, match="sample_rate"):
        summary.audio("a", np.zeros(4, np.float32), sample_rate=10**20)


@pytest.mark.parametrize("call, match", [
    (lambda w: w.add_scalar(tag=["a"], scalar_value=1.0), r"^tag: expected str, got list"),
    (lambda w: w.add_scalar(tag="s", scalar_value=1.0, new_style=np.zeros(0)), r"^new_style: expected a bool"),
    (lambda w: w.add_text(tag="t", text_string="a\ud800b"), r"^text: not valid Unicode"),
    (lambda w: w.add_hparams(hparam_dict={"a": 1}, metric_dict={"m": 1.0}, run_name="x\0y"),
     r"^run_name 'x\\x00y' holds a NUL character"),
    (lambda w: w.add_hparams(hparam_dict={"a\ud800": 1}, metric_dict={}), r"^hparam_dict key: not valid Unicode"),
    (lambda w: w.add_scalars(main_tag="m", tag_scalar_dict={"a\0b": 1.0}),
     r"^tag_scalar_dict key 'a\\x00b' holds a NUL character"),
    (lambda w: w.add_graph(model=b"garbage"), r"^model: 7 bytes that are not a serialized GraphDef"),
    (lambda w: w.add_custom_scalars(layout={"a\ud800": {"t": ["Multiline", ["x"]]}}), r"^layout\['a\\ud800'\]: "),
    (lambda w: w.add_custom_scalars_multilinechart(tags=None), r"^tags: expected a list of tag strings"),
])
def test_the_issue_cases_name_their_argument(tmp_path, call, match):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        with pytest.raises((TypeError, ValueError), match=match):
            call(writer)
    assert all(p.stat().st_size > 0 for p in tmp_path.rglob("*tfevents*"))  # no 0-byte sub-run file
