"""A source file shown in a fenced block cannot end the block early: a line of backticks in it (a comment
quoting Markdown) stays code, and nothing after it is read as Markdown (emphasis, links, deep lists)."""

from __future__ import annotations

import markdown
import pytest

from site_plugins.publishing import render

EXTENSIONS = ["admonition", "attr_list", "md_in_html", "toc", "pymdownx.highlight", "pymdownx.superfences",
              "pymdownx.inlinehilite", "pymdownx.details"]  # the site's (mkdocs.yml)

SOURCE = "__global__ void k(float* out) {{\n    out[0] = 1.0f;\n}}\n/* quoted Markdown:\n{fence}\n{tail}\n*/\n"


@pytest.mark.parametrize("fence", ["```", "````", "```c", "``````````"])
def test_a_line_of_backticks_in_the_code_does_not_close_the_block(fence: str) -> None:
    source = SOURCE.format(fence=fence, tail="**bold** [a link](https://example.org/) " + "- " * 1000 + "x")
    page = render.render_code_page("code/x/k.cu", source, {}, "cuda")
    html = markdown.Markdown(extensions=EXTENSIONS).convert(page)  # no RecursionError: the list is code
    assert "<strong>" not in html and "<a href" not in html.split("</h1>", 1)[1].split("</p>", 1)[1]
    code = html.split("</p>", 1)[1]  # after the intro line: one highlighted block, up to the end
    assert code.count('class="highlighttable"') == 1 and code.rstrip().endswith("</table></div>")
    assert "quoted Markdown" in code and '<span class="cm">*/</span>' in code


def test_the_fence_is_longer_than_any_backtick_run() -> None:
    assert render.code_fence("int x;\n") == "```"
    assert render.code_fence("// ``x`` and ```\n") == "````"
    assert render.code_fence("`" * 7) == "`" * 8
