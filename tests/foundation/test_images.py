"""External images fail the build: the site makes no request beyond itself at page load."""

from __future__ import annotations

from pathlib import Path

import pytest
from mkdocs.exceptions import Abort
from sitekit import build_site, make_site
from tinyproject import TERM_A, project

from site_plugins.publishing.images import REMEDY, external_images

PATH = "content/terms/t.md"


def test_inline_reference_and_raw_images_from_elsewhere_are_found_outside_code() -> None:
    text = ("Intro ![a](https://x.org/a.png) and ![b](images/b.png).\n"
            '<img alt="x" src="//cdn.example/x.svg">\n'
            "![c][logo] and ![logo]\n"
            "`![d](https://in.code/x.png)`\n"
            "```\n![e](https://in.fence/e.png)\n```\n"
            "\n[logo]: https://x.org/logo.png\n")
    assert [str(p) for p in external_images(text, path=PATH, first_line=10)] == [
        f"{PATH}:10: external image 'https://x.org/a.png'; {REMEDY}",
        f"{PATH}:11: external image '//cdn.example/x.svg'; {REMEDY}",
        f"{PATH}:12: external image 'https://x.org/logo.png'; {REMEDY}",
        f"{PATH}:12: external image 'https://x.org/logo.png'; {REMEDY}",
    ]
    assert external_images("A [link](https://x.org/a.png) is not an image.", path=PATH, first_line=1) == []


def test_an_external_image_in_an_entry_or_a_hand_written_page_fails_the_build(
        tmp_path: Path, expect_warnings: object) -> None:
    term = TERM_A.replace("Tiles pay in two ways.", "Tiles pay in two ways.\n\n![tile](https://example.org/t.png)")
    files = project() | {"content/terms/tiling.md": term,
                         "content/index.md": "# Home\n\n![logo](https://example.org/logo.png)\n"}
    expect_warnings.add(  # type: ignore[attr-defined]
        f"content/terms/tiling.md:21: external image 'https://example.org/t.png'; {REMEDY}",
        f"content/index.md:3: external image 'https://example.org/logo.png'; {REMEDY}")
    with pytest.raises(Abort):
        build_site(make_site(tmp_path, files))
