"""The custom_scalars layout: a DT_STRING scalar tensor holding a serialized `Layout`."""
from __future__ import annotations

from typing import Any, Mapping, Union

from tensorboard.src import layout_pb2, summary_pb2
from tensorboard.src.pool import as_ours, is_message
from tensorboard.summary._common import make_metadata, make_string_tensor

__all__ = ["custom_scalars", "layout_proto", "merge_layouts", "CONFIG_TAG"]

CONFIG_TAG = "custom_scalars__config__"


def _strings(items: Any, where: str) -> list:
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{where}: expected a list of tag strings, got {items!r:.60}")
    items = list(items)
    if not all(isinstance(item, str) for item in items):
        raise TypeError(f"{where}: expected a list of tag strings, got {items!r:.60}")
    return [_text(item, where) for item in items]


def _text(value: Any, where: str) -> str:
    """`value` as text a protobuf string field holds (valid Unicode); raises naming `where` otherwise."""
    text = str(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{where}: {text!r:.40} is not valid Unicode ({err.reason})") from None
    return text


def layout_proto(layout: Union[Mapping[str, Mapping[str, Any]], layout_pb2.Layout]) -> layout_pb2.Layout:
    """A Layout proto from tensorboardX's layout format.

    Args:
        layout: {category: {chart title: ["Multiline", [tag regexes]] or ["Margin", [value,
            lower, upper]]}}, or a Layout proto (passed through).

    Returns:
        A Layout proto.

    Raises:
        TypeError: A layout not of that form.
        ValueError: A chart kind other than Multiline or Margin, or a Margin chart without three tags.
    """
    if is_message(layout, layout_pb2.Layout):  # ours or upstream's custom_scalar layout_pb2
        return as_ours(layout, layout_pb2.Layout)
    if not isinstance(layout, Mapping) or not layout:
        raise TypeError(f"layout: expected a non-empty dict {{category: {{title: [kind, tags]}}}} or a Layout, "
                        f"got {type(layout).__name__}")
    proto = layout_pb2.Layout()
    for category_title, charts in layout.items():
        if not isinstance(charts, Mapping):
            raise TypeError(f"layout[{category_title!r}]: expected a dict {{chart title: [kind, tags]}}")
        category = proto.category.add(title=_text(category_title, f"layout[{category_title!r}]"))
        for title, spec in charts.items():
            where = f"layout[{category_title!r}][{title!r}]"
            if not isinstance(spec, (list, tuple)) or len(spec) != 2:
                raise TypeError(f"{where}: expected ['Multiline', [tags]] or ['Margin', [value, lower, upper]]")
            kind, tags = spec
            tags = _strings(tags, where)
            chart = category.chart.add(title=_text(title, where))
            if str(kind).lower() == "multiline":
                chart.multiline.tag.extend(tags)
            elif str(kind).lower() == "margin":
                if len(tags) != 3:
                    raise ValueError(f"{where}: a Margin chart needs [value, lower, upper] tags, got {tags}")
                chart.margin.series.add(value=tags[0], lower=tags[1], upper=tags[2])
            else:
                raise ValueError(f"{where}: chart kind must be 'Multiline' or 'Margin', got {kind!r}")
    return proto


def merge_layouts(earlier: layout_pb2.Layout | None, later: layout_pb2.Layout) -> layout_pb2.Layout:
    """`earlier` with the charts of `later` added: a chart with the same category and title is
    replaced in place, new categories and charts come after the old ones."""
    merged = layout_pb2.Layout()
    if earlier is not None:
        merged.CopyFrom(earlier)
    for category in later.category:
        target = next((c for c in merged.category if c.title == category.title), None)
        if target is None:
            merged.category.add().CopyFrom(category)
            continue
        for chart in category.chart:
            old = next((c for c in target.chart if c.title == chart.title), None)
            (target.chart.add() if old is None else old).CopyFrom(chart)
    return merged


def custom_scalars(layout: Union[Mapping[str, Mapping[str, Any]], layout_pb2.Layout]) -> summary_pb2.Summary:
    """The summary (tag 'custom_scalars__config__') that tells the Custom Scalars dashboard its layout.

    Args:
        layout: As `layout_proto` takes it.

    Returns:
        A Summary proto with one string tensor.
    """
    serialized = layout_proto(layout).SerializeToString()
    metadata = make_metadata("custom_scalars", b"", data_class=summary_pb2.DATA_CLASS_TENSOR)
    value = summary_pb2.Summary.Value(tag=CONFIG_TAG, metadata=metadata, tensor=make_string_tensor([serialized], []))
    return summary_pb2.Summary(value=[value])
