"""The words the plugin adds to material's search index (site_plugins/publishing/searchwords.py)."""

from __future__ import annotations

from typing import Any

import pytest

from site_plugins.publishing import searchwords as sw


@pytest.mark.parametrize(("words", "family"), [
    (["tiling", "tiles", "tile", "tiled"], "til"),
    (["coalescing", "coalesced", "coalesce", "coalesces"], "coalesc"),
    (["pinned", "pin", "pinning"], "pin"),
    (["conflict", "conflicts", "conflicted"], "conflict"),
    (["barrier", "barriers"], "barrier"),
    (["memory", "memories"], "memory"),
    (["swizzle", "swizzling", "swizzled"], "swizzl"),
    (["buffer", "buffering", "buffered", "buffers"], "buffer"),
    (["reduction", "reductions"], "reduction"),
    (["halo", "halos"], "halo"),
    (["access", "accesses"], "access"),
])
def test_a_words_forms_share_a_family(words: list[str], family: str) -> None:
    assert {sw.family(w) for w in words} == {family}


@pytest.mark.parametrize(("a", "b"), [("bus", "bu"), ("is", "i"), ("us", "u"), ("bed", "b")])
def test_short_words_and_latin_endings_keep_their_letters(a: str, b: str) -> None:
    assert sw.family(a) != b


def test_api_names_in_code_and_in_parentheses() -> None:
    text = ("<p>Call <code>cudaMemcpyAsync(dst, src, n, kind, stream)</code>, then <code>__syncthreads()</code>; "
            "<code>cp.async.wait_group 0</code>, <code>nvcuda::wmma</code>, <code>lts__t_bytes</code>, "
            "<code>dst = 2 × src</code>, <code>__shared__</code>.</p>")
    assert sw.api_names(text) == ["cudaMemcpyAsync", "__syncthreads", "cp.async.wait_group", "nvcuda::wmma",
                                  "__shared__"]
    assert sw.aliases("What is a barrier (__syncthreads) in CUDA?",
                      "fastest from page-locked (pinned) host memory (see the guide, chapter 3)") == (
        ["pinned"], ["__syncthreads"])


def record(location: str, title: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"location": location, "title": title, "text": text, **extra}


def test_term_records_get_their_forms_aliases_and_api_names_and_code_pages_are_trimmed() -> None:
    entries = [
        record("terms/tiling/", "What is tiling in CUDA?",
               "<p>Tiling stages tiles.</p> <p><code>__syncthreads()</code></p>"),
        record("terms/tiling/#more", "More", "<p>A tiled loop. <code>__syncthreads()</code></p>"),
        record("terms/halo/", "What is a halo in CUDA?", "<p>The cells around a block's piece (tile) of the grid.</p>"),
        record("terms/host-device-transfers/", "What do host-device transfers cost in CUDA?",
               "<p>Fastest from page-locked (pinned) host memory.</p><p><code>cudaMemcpyAsync</code></p>"),
        record("terms/barrier/", "What is a barrier (__syncthreads) in CUDA?", "<p>A barrier.</p>"),
        record("lessons/day1/", "Day 1", "<p>Transfers, coalesced. <code>cudaMemcpyAsync</code> "
               "<code>cudaMemcpyAsync</code></p>"),
        record("code/day1/k.cu/", "code/day1/k.cu", "<p>The whole file.</p> <pre><code>int main() {}</code></pre>"),
    ]
    sw.add_words(entries)
    tiling, _, halo, transfers, barrier, lesson, code = entries
    assert tiling[sw.FIELD] == "tile tiled tiles tiling"
    # The halo's "(tile)" is the tiling term's word: not the halo's.
    assert halo[sw.FIELD] == "halo halos"
    assert transfers[sw.FIELD] == "host hosts device devices transfers pinned"  # forms found on the site
    assert transfers[sw.API_FIELD] == "cudaMemcpyAsync"  # quoted by a lesson more often, but lessons own none
    # __syncthreads: twice on the tiling pages, once in the barrier's title: both own it.
    assert tiling[sw.API_FIELD] == "__syncthreads" == barrier[sw.API_FIELD]
    assert sw.FIELD not in lesson and sw.API_FIELD not in lesson
    assert code["text"] == "<p>The whole file.</p>" and code["boost"] == sw.CODE_BOOST
    assert sw.FIELD not in code
