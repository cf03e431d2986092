"""The writers' API reference pages list members as a user looks for them: `add_scalar` first, then the
other `add_*` methods (the common ones before `add_graph` and `add_embedding`), then flush and close.
The order comes from the `members:` lists of the `:::` directives in docs/api/; this checks the built site."""
from __future__ import annotations

import re

import pytest
from docs_site import build_site

COMMON_FIRST = ["add_scalar", "add_scalars", "add_histogram", "add_image", "add_images", "add_text", "add_audio",
                "add_hparams"]
WRITER_PAGES = [("tensorboard", "tensorboard.SummaryWriter"), ("mxboard", "tensorboard.mxboard.SummaryWriter"),
                ("tensorboard", "tensorboard.FileWriter"), ("tensorboard", "tensorboard.GlobalSummaryWriter")]


def members_on_page(page: str, cls: str) -> list[str]:
    """The members of `cls` in the order its API page shows them (its headings' anchors)."""
    html = (build_site()[0] / "api" / page / "index.html").read_text()
    return re.findall(rf'<h\d id="{re.escape(cls)}\.(\w+)" class="doc doc-heading"', html)


@pytest.mark.parametrize("page,cls", WRITER_PAGES[:2])
def test_a_summary_writer_page_starts_with_add_scalar(page, cls):
    members = members_on_page(page, cls)
    assert members[:len(COMMON_FIRST)] == COMMON_FIRST, members
    assert members.index("add_graph") > members.index("add_hparams"), members
    assert members.index("add_embedding") > members.index("add_hparams"), members


@pytest.mark.parametrize("page,cls", WRITER_PAGES)
def test_flush_and_close_come_after_every_add_method(page, cls):
    members = members_on_page(page, cls)
    last_add = max(i for i, name in enumerate(members) if name.startswith("add_"))
    assert last_add < members.index("flush") < members.index("close"), members
