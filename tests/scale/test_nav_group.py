"""The A–Z grouping behind the navigation and the letter pages (pure, no build)."""

from __future__ import annotations

import pytest

from site_plugins.nav import sections as nav
from site_plugins.publishing.render import az_initial


def named(*names: str) -> list[tuple[str, str]]:
    return [(f"terms/{n.lower().replace(' ', '-')}.md", n) for n in names]


def test_terms_group_by_initial_in_order_with_other_last() -> None:
    letters = nav.group(named("2:4 sparsity", "atomic", "Bank", "banked", "__syncthreads", "Écart"), 10)
    assert [(x.label, x.uri) for x in letters] == [
        ("A", "terms/letters/a/index.md"), ("B", "terms/letters/b/index.md"), ("E", "terms/letters/e/index.md"),
        ("#", "terms/letters/other/index.md")]
    assert letters[1].uris == ("terms/bank.md", "terms/banked.md")
    assert letters[-1].uris == ("terms/2:4-sparsity.md", "terms/__syncthreads.md")
    assert all(len(x.runs) == 1 and x.runs[0].label == x.label for x in letters)


@pytest.mark.parametrize(("name", "letter"), [("tiling", "T"), ("  warp", "W"), ("Ötzi", "O"), ("3 TB", "#"),
                                             ("", "#"), ("ß", "S")])
def test_initial(name: str, letter: str) -> None:
    assert az_initial(name) == letter


def test_a_large_letter_is_cut_into_near_equal_runs_no_longer_than_the_limit() -> None:
    names = [f"shared {w}" for w in ("alpha", "beta", "gamma", "delta", "epsilon")] + ["stride", "sync"]
    (s,) = nav.group(named(*names), 3)
    assert [len(r.uris) for r in s.runs] == [3, 3, 1]
    assert [r.label for r in s.runs] == ["Sha", "Sha–Str", "Syn"]
    assert s.uris == tuple(u for u, _ in named(*names))


@pytest.mark.parametrize("n", [1, 59, 60, 61, 119, 120, 121, 1000])
def test_runs_never_exceed_the_limit_and_keep_every_term(n: int) -> None:
    items = [(f"terms/t{i:04d}.md", f"t{i:04d}") for i in range(n)]
    (t,) = nav.group(items, 60)
    assert all(len(r.uris) <= 60 for r in t.runs)
    assert len(t.runs) == -(-n // 60)
    assert t.uris == tuple(u for u, _ in items)


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_per_section must be at least 1"):
        nav.group([], 0)


def test_letter_page_lists_every_term_with_its_definition_and_is_left_out_of_search() -> None:
    (s,) = nav.group(named("shared memory", "stride", "sync"), 2)
    page = nav.letter_page(s, titles={u: n for u, n in named("shared memory", "stride", "sync")},
                           ledes={u: f"About {n}." for u, n in named("shared memory", "stride", "sync")},
                           index_uri="terms/index.md")
    assert page == (
        "---\nsearch:\n  exclude: true\n---\n\n# Terms: S\n\n"
        "Part of the [A–Z glossary](../../index.md); search finds every term too.\n"
        "\n## Sha–Str\n\n"
        "- [shared memory](../../shared-memory.md): About shared memory.\n"
        "- [stride](../../stride.md): About stride.\n"
        "\n## Syn\n\n"
        "- [sync](../../sync.md): About sync.\n")


def test_a_letter_of_more_runs_than_a_page_holds_gets_a_page_per_run() -> None:
    names = ["sa", "sb", "sc", "sd", "se", "sf", "sg"]
    (s,) = nav.group(named(*names), 2, runs_per_page=3)  # four runs: more than three
    assert s.split and [r.uri for r in s.runs] == [f"terms/letters/s/{k}/index.md" for k in (1, 2, 3, 4)]
    (small,) = nav.group(named(*names), 2, runs_per_page=4)
    assert not small.split and all(r.uri == "" for r in small.runs)
    pages = nav.pages([s], titles=dict(named(*names)), ledes={u: f"About {n}." for u, n in named(*names)},
                      index_uri="terms/index.md")
    assert list(pages) == ["terms/letters/s/index.md", *(r.uri for r in s.runs)]
    assert pages["terms/letters/s/index.md"] == (
        "---\nsearch:\n  exclude: true\n---\n\n# Terms: S\n\n"
        "Part of the [A–Z glossary](../../index.md); search finds every term too.\n\n"
        "- [Sa–Sb](1/index.md): 2 terms\n- [Sc–Sd](2/index.md): 2 terms\n- [Se–Sf](3/index.md): 2 terms\n"
        "- [Sg](4/index.md): 1 term\n")
    assert pages["terms/letters/s/2/index.md"] == (
        "---\nsearch:\n  exclude: true\n---\n\n# Terms: S (Sc–Sd)\n\n"
        "Part of [Terms: S](../index.md) in the [A–Z glossary](../../../index.md); search finds every term too.\n\n"
        "- [sc](../../../sc.md): About sc.\n- [sd](../../../sd.md): About sd.\n")


def test_the_a_to_z_page_names_a_few_terms_per_letter_and_counts_the_rest() -> None:
    from site_plugins.publishing.render import AZ_NAMES, render_glossary_index

    terms = named(*(f"term{i}" for i in range(5000)), "2:4 sparsity", "atomic")
    by_uri = dict(terms)
    letters = nav.group(terms, 60)
    md = render_glossary_index("terms/index.md", [(x.label, x.uri, [(by_uri[u], u) for u in x.uris])
                                                  for x in letters], 0)
    lines = md.splitlines()
    assert "- [A](letters/a/index.md), 1 term: [atomic](atomic.md)" in lines
    assert "- [Other (digits and symbols)](letters/other/index.md), 1 term: [2:4 sparsity](2:4-sparsity.md)" in lines
    t = next(line for line in lines if line.startswith("- [T]"))
    assert t.startswith("- [T](letters/t/index.md), 5,000 terms: [term0](term0.md), [term1](term1.md), ")
    assert t.count("](") == 1 + AZ_NAMES and t.endswith(f", and {5000 - AZ_NAMES:,} more")
    assert len(md) < 2000  # the same size however many terms there are
