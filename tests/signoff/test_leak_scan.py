"""Leak scan: a real site built with mkdocs from a fixture project holding drafts of every kind; no draft's
slug, title or distinctive sentence may appear in any file under site/ (HTML, search index, sitemap...).

Fictional people only. Signatures are made with the real `gloss sign`; the scenarios that the CLI refuses
to create (a self-review, an unregistered signer, a reviewer who signed something else) are written
through the sign-off module's own writer, as a hand edit of signoff.yaml would leave them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gzip
import importlib.util
import logging
import sys
from pathlib import Path
from types import ModuleType

import pytest
from signoff_helpers import PEOPLE, armored, commit_all, init_repo, key_file, key_sha
from sitekit import build_site, make_site

from site_plugins import cli, signoff
from site_plugins.signoff import registry


def _measuredkit() -> ModuleType:
    # The measured part's own fixture kit: a registered node, a spec and a result written through
    # measure.store.results with obviously synthetic samples.
    path = Path(__file__).resolve().parents[1] / "measured" / "measuredkit.py"
    spec = importlib.util.spec_from_file_location("measuredkit_for_signoff", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


EMBED = "{{ measured day13-transpose size=8192x8192 }}"


def term(slug: str, body: str, extra: str = "") -> str:
    return (f"---\ntitle: What is {slug.capitalize()} in CUDA?\ndefinition: The {slug} term is about "
            f"{slug} things.\n{extra}---\n\n{body}\n")


@dataclasses.dataclass(frozen=True)
class Draft:
    slug: str
    kind: str  # term | lesson
    why: str

    @property
    def path(self) -> str:
        return f"content/{self.kind}s/{self.slug}.md"

    @property
    def title(self) -> str:
        return f"What is {self.slug.capitalize()} in CUDA?" if self.kind == "term" else f"Lesson {self.slug}"

    @property
    def sentence(self) -> str:
        return f"Zebra {self.slug} quartz marker sentence."


DRAFTS = [
    Draft("leaknew", "term", "new, never signed"),
    Draft("leakauthor", "term", "signed by its author only"),
    Draft("leakself", "term", "reviewed by its own author"),
    Draft("leakstranger", "term", "reviewed by someone not registered"),
    Draft("leakghost", "term", "written by someone not registered"),
    Draft("leakmismatch", "term", "reviewer signed a different fingerprint than the author"),
    Draft("leakforged", "term", "the author wrote a review in the reviewer's name with her own key"),
    Draft("leaktampered", "term", "signed by both, then the review's date was edited by hand"),
    Draft("leakstale", "term", "author signed an earlier version, then it changed"),
    Draft("leaklost", "term", "signed, changed, and the signed version is not in git"),
    Draft("leaklinked", "term", "linked from a published term's body"),
    Draft("leakrelated", "term", "a related term of a published term"),
    Draft("leakintro", "term", "introduced by a published lesson"),
    Draft("leakmeasured", "term", "embeds a measurement"),
    Draft("leakhome", "term", "linked from the hand-written home page"),
    Draft("leakraw", "term", "linked by a raw-HTML <a href> from a published term and from the home page"),
    Draft("day02-leaklesson", "lesson", "a lesson listed by a published term, linking to it"),
]
NEW_SENTENCE = "Zebra leakchanged unsigned edit sentence."
# What reaches the working copy after sign-off and must never reach the published site:
UNSIGNED = [
    NEW_SENTENCE,
    "Zebra unsigned title",  # leakchanged's new title (nav label, <title>, related lists, A-Z, search)
    "Zebra unsigned definition",  # leakchanged's new definition (lede, A-Z line, tooltips, related lists)
    "Zebra unsigned lesson title",  # the signed lesson's new title (navigation, lesson index, backlinks)
    "zebra_new_kernel",  # a new .cu file in the signed lesson's code folder (its name and its code)
    "Zebra outside the quoted region",  # an edit to a quoted file outside the quoted region
    "Zebra unlisted page",  # a page that is neither an entry nor declared chrome
]
CODED_FILE = "code/extra/copy.cu"
CODED_SOURCE = ("// a copy kernel, quoted by pubcoded\n// --8<-- [start:copy]\n__global__ void copy(float* o) {\n"
                "    o[threadIdx.x] = 0.0f;\n}\n// --8<-- [end:copy]\n")


def lesson(day: int, slug: str, introduces: str, body: str, code: str = "code/day13") -> str:
    return (f"---\nday: {day}\ntitle: Lesson day{day:02d}-{slug}\nsummary: A lesson.\ncode: {code}\n"
            f"introduces: [{introduces}]\n---\n\n{body}\n")


def files() -> dict[str, str]:
    out = {
        "content/index.md": "# Home\n\nStart with [pubterm](terms/pubterm.md) or "
                            "[the home draft](terms/leakhome.md), or <a href=\"terms/leakraw/\">this one</a>.\n",
        "content/extra.md": "# Extra\n\nZebra unlisted page: nobody declared or signed it.\n",
        "content/terms/pubterm.md": term(
            "pubterm", f"A published term. See [this](leaklinked.md) and [that](leakchanged.md), and "
                       f"<a href=\"../leakraw/\">a raw link</a>.\n\n{EMBED}",
            extra="related: [leakrelated, leakchanged]\nlessons:\n  - lesson: day02-leaklesson\n"
                  "    why: it is used there.\n  - lesson: day01-publesson\n    why: it starts there.\n"),
        "content/terms/leakchanged.md": term("leakchanged", "Signed body sentence of leakchanged."),
        "content/lessons/day01-publesson.md": lesson(1, "publesson", "pubterm, leakintro",
                                                     "Read [pubterm](../terms/pubterm.md).", code="code/day01-pub"),
        "code/day01-pub/kernel.cu": "__global__ void signed_kernel() {}\n",
        CODED_FILE: CODED_SOURCE,
        "content/terms/pubcoded.md": term("pubcoded", "Signed body of pubcoded.",
                                          extra=f"code:\n  - file: {CODED_FILE}\n    region: copy\n"),
    }
    for d in DRAFTS:
        if d.kind == "lesson":
            out[d.path] = (f"---\nday: 2\ntitle: {d.title}\nsummary: {d.sentence}\ncode: code/day13\n"
                           f"introduces: [pubterm]\n---\n\n{d.sentence} It links to [pubterm](../terms/pubterm.md).\n")
        else:
            body = d.sentence + (f"\n\n{EMBED}" if d.slug == "leakmeasured" else "")
            out[d.path] = term(d.slug, body)
    return out


def sign(root: Path, path: str, role: str, name: str) -> None:
    assert cli.main(["sign", path, "--as", role, "--key", str(key_file(name)), "--root", str(root)]) == 0


def hand_edit(root: Path, path: str, role: str, key_of: str | None = None, **fields: object) -> None:
    """Rewrite one signature of an entry's record, as a hand edit of signoff.yaml could leave it; with
    ``key_of``, the edited signature is signed again with that person's real key (a valid signature of
    a record gloss sign would refuse to make)."""
    reg, _ = signoff.load(root)
    record = reg.entries[path]
    sig: signoff.Signature | None = getattr(record, role) or record.author
    assert sig is not None
    sig = dataclasses.replace(sig, **fields)  # type: ignore[arg-type]
    if key_of is not None:
        msg = registry.signed_message(path, role, sig, record.author if role == "reviewer" else None)
        sig = dataclasses.replace(sig, signature=armored(key_of, msg))
    signoff.write_entry(root, path, dataclasses.replace(record, **{role: sig}))


def ghost_pair(root: Path, path: str) -> None:
    """The author signature re-made by an unregistered person's key in their name, and the reviewer's
    re-made over it: a pair gloss sign would never record, every signature of it valid."""
    reg, _ = signoff.load(root)
    record = reg.entries[path]
    assert record.author is not None and record.reviewer is not None
    author = dataclasses.replace(record.author, name="Gus Ghost")
    author = dataclasses.replace(author, signature=armored("Gus Ghost", registry.signed_message(path, "author", author,
                                                                                               None)))
    msg = registry.signed_message(path, "reviewer", record.reviewer, author)
    reviewer = dataclasses.replace(record.reviewer, signature=armored("Rex Reviewer", msg))
    signoff.write_entry(root, path, dataclasses.replace(record, author=author, reviewer=reviewer))


def make_project(root: Path) -> Path:
    init_repo(root)
    _measuredkit().make_project(root)
    make_site(root, files(), theme="mkdocs")
    (root / "signoff.yaml").write_text(PEOPLE + "entries: {}\n", encoding="utf-8")
    commit_all(root, "fixture")
    for path in ("content/terms/pubterm.md", "content/terms/leakchanged.md", "content/lessons/day01-publesson.md",
                 "content/terms/pubcoded.md"):
        sign(root, path, "author", "Ada Author")
        sign(root, path, "reviewer", "Rex Reviewer")
    sign(root, "content/terms/leakauthor.md", "author", "Ada Author")
    sign(root, "content/terms/leakself.md", "author", "Sam Self")
    sign(root, "content/terms/leakstranger.md", "author", "Ada Author")
    sign(root, "content/terms/leakghost.md", "author", "Ada Author")
    sign(root, "content/terms/leakghost.md", "reviewer", "Rex Reviewer")
    sign(root, "content/terms/leakmismatch.md", "author", "Ada Author")
    sign(root, "content/terms/leakforged.md", "author", "Ada Author")
    sign(root, "content/terms/leaktampered.md", "author", "Ada Author")
    sign(root, "content/terms/leaktampered.md", "reviewer", "Rex Reviewer")
    sign(root, "content/terms/leakstale.md", "author", "Ada Author")
    commit_all(root, "sign-offs")
    # Changes after sign-off.
    stale = root / "content/terms/leakstale.md"
    stale.write_text(stale.read_text(encoding="utf-8") + "\nAn edit after the author signed.\n", encoding="utf-8")
    lost = root / "content/terms/leaklost.md"
    lost.write_text(lost.read_text(encoding="utf-8") + "\nA version that was signed but never committed.\n",
                    encoding="utf-8")
    sign(root, "content/terms/leaklost.md", "author", "Ada Author")
    sign(root, "content/terms/leaklost.md", "reviewer", "Rex Reviewer")
    lost.write_text(lost.read_text(encoding="utf-8") + "\nAnd a later edit.\n", encoding="utf-8")
    changed = root / "content/terms/leakchanged.md"
    text = changed.read_text(encoding="utf-8").replace("What is Leakchanged in CUDA?", "What is Zebra unsigned title?")
    text = text.replace("The leakchanged term is about", "Zebra unsigned definition is about")
    changed.write_text(text + f"\n{NEW_SENTENCE}\n", encoding="utf-8")
    publesson = root / "content/lessons/day01-publesson.md"
    publesson.write_text(publesson.read_text(encoding="utf-8").replace("title: Lesson day01-publesson",
                                                                       "title: Zebra unsigned lesson title"),
                         encoding="utf-8")
    (root / "code/day01-pub/zebra_new_kernel.cu").write_text("__global__ void zebra_new_kernel() {}\n",
                                                             encoding="utf-8")
    (root / CODED_FILE).write_text(CODED_SOURCE + "// Zebra outside the quoted region\n", encoding="utf-8")
    # Last, what `gloss sign` refuses to record (it also refuses to sign while signoff.yaml has problems).
    hand_edit(root, "content/terms/leakself.md", "reviewer", key_of="Sam Self")
    hand_edit(root, "content/terms/leakstranger.md", "reviewer", key_of="Zoe Stranger", name="Zoe Stranger")
    ghost_pair(root, "content/terms/leakghost.md")
    hand_edit(root, "content/terms/leakmismatch.md", "reviewer", key_of="Rex Reviewer", name="Rex Reviewer",
              fingerprint="sha256:" + "0" * 64)
    hand_edit(root, "content/terms/leakforged.md", "reviewer", key_of="Ada Author", name="Rex Reviewer")
    reg, _ = signoff.load(root)
    review = reg.entries["content/terms/leaktampered.md"].reviewer
    assert review is not None
    hand_edit(root, "content/terms/leaktampered.md", "reviewer", on=review.on + dt.timedelta(days=1))
    commit_all(root, "edits after sign-off")
    return root


EXPECTED_WARNINGS = [
    "content/extra.md:1: this page is neither a term, a lesson nor declared site chrome, so it is not published; "
    "move it to terms/ or lessons/ to have it signed off like every entry, or, if it is hand-written site chrome, "
    "list it under the gloss plugin's 'chrome:' option in mkdocs.yml",
    "content/terms/leaklost.md:1: changed since sign-off (text) and the signed version ({lost}…) cannot be "
    "recovered from git, so the entry is unpublished; review the change and sign it again: gloss sign "
    "content/terms/leaklost.md --as author",
    "signoff.yaml:{forged}: the reviewer signature of content/terms/leakforged.md names Rex Reviewer but was made "
    "with Ada Author's key {ada_key}; it counts for nothing; the signer signs again with their own registered key: "
    "gloss sign content/terms/leakforged.md --as reviewer",
    "signoff.yaml:{ghost}: 'Gus Ghost' signed content/terms/leakghost.md as author but is not registered; add "
    "them under 'people:' or remove the signature",
    "signoff.yaml:{mismatch}: the reviewer of content/terms/leakmismatch.md signed a different version than the "
    "author; the reviewer signs again: gloss sign content/terms/leakmismatch.md --as reviewer",
    "signoff.yaml:{self}: Sam Self is both author and reviewer of content/terms/leakself.md; a different "
    "registered person must review; remove the self-review",
    "signoff.yaml:{stranger}: 'Zoe Stranger' signed content/terms/leakstranger.md as reviewer but is not "
    "registered; add them under 'people:' or remove the signature",
    "signoff.yaml:{tampered}: the reviewer signature of content/terms/leaktampered.md does not verify (gloss sign did "
    "not make it over this entry, role, name, fingerprint, commit, date and author signature as written here: one "
    "of them was edited, or it was copied from elsewhere); it counts for nothing; the signer signs again with "
    "their own registered key: gloss sign content/terms/leaktampered.md --as reviewer",
]


def expected_warnings(root: Path) -> list[str]:
    from site_plugins.files import schema

    reg, _ = signoff.load(root)
    e = reg.entries
    lost = e["content/terms/leaklost.md"].author
    assert lost is not None
    values = {
        "lost": lost.fingerprint[:19],
        "ghost": schema.line_of(e["content/terms/leakghost.md"].author),
        "mismatch": schema.line_of(e["content/terms/leakmismatch.md"].reviewer),
        "self": schema.line_of(e["content/terms/leakself.md"].reviewer),
        "stranger": schema.line_of(e["content/terms/leakstranger.md"].reviewer),
        "forged": signature_line(root, "content/terms/leakforged.md"),
        "tampered": signature_line(root, "content/terms/leaktampered.md"),
        "ada_key": key_sha("Ada Author"),
    }
    return [w.format(**values) for w in EXPECTED_WARNINGS]


def signature_line(root: Path, path: str) -> int:
    """The line of the reviewer's 'signature:' key under ``path`` in signoff.yaml (dropped signatures are not
    in the registry that load returns, so their lines are found in the text)."""
    lines = (root / "signoff.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"  {path}:")
    review = next(i for i in range(start, len(lines)) if lines[i] == "    reviewer:")
    return next(i for i in range(review, len(lines)) if lines[i].startswith("      signature:")) + 1


def site_texts(site: Path) -> dict[str, str]:
    out = {}
    for f in site.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            if f.suffix == ".gz":
                data = gzip.decompress(data)
            out[f.relative_to(site).as_posix()] = data.decode("utf-8", errors="replace")
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("leak"))


def test_fixture_states_are_what_the_scenarios_say(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    capsys.readouterr()
    cli.main(["status", "--json", "--root", str(project)])
    states = {e["path"]: (e["state"], e["published"]) for e in json.loads(capsys.readouterr().out)["entries"]}
    assert all(not states[d.path][1] for d in DRAFTS)
    assert len(DRAFTS) >= 10
    assert states["content/terms/pubterm.md"] == ("signed", True)
    assert states["content/terms/leakchanged.md"] == ("changed", True)
    assert states["content/lessons/day01-publesson.md"] == ("changed", True)  # title, and a new .cu file
    assert states["content/terms/pubcoded.md"] == ("changed", True)  # its quoted file changed outside the region
    assert states["content/terms/leaklost.md"] == ("changed", False)
    assert states["content/terms/leakstale.md"] == ("draft", False)
    assert states["content/terms/leakauthor.md"] == ("awaiting-review", False)


def test_no_draft_leaks_into_the_built_site(project: Path, tmp_path: Path, expect_warnings: object,
                                            caplog: pytest.LogCaptureFixture) -> None:
    expect_warnings.add(*expected_warnings(project))  # type: ignore[attr-defined]
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.gloss")
    site = build_site(project, strict=False, site_dir=str(tmp_path / "site"))
    texts = site_texts(site)
    # Links to drafts are plain text, listed in the build summary (information, not a failure).
    pub = (project / "content/terms/pubterm.md").read_text(encoding="utf-8").splitlines()
    line = {slug: next(n for n, text in enumerate(pub, start=1) if slug in text) for slug in ("leaklinked", "leakraw")}
    summary = [r.getMessage() for r in caplog.records if r.getMessage().startswith("gloss: ")]
    assert summary == [
        "gloss: 4 links to unpublished entries shown as plain text:\n"
        "  content/index.md:3: links to draft 'content/terms/leakhome.md', which is not published; the link is shown "
        "as plain text until that entry is signed off\n"
        "  content/index.md:3: links to draft 'content/terms/leakraw.md', which is not published; the link is shown "
        "as plain text until that entry is signed off\n"
        f"  content/terms/pubterm.md:{line['leaklinked']}: links to draft 'content/terms/leaklinked.md', which is "
        "not published; the link is shown as plain text until that entry is signed off\n"
        f"  content/terms/pubterm.md:{line['leakraw']}: links to draft 'content/terms/leakraw.md', which is not "
        "published; the link is shown as plain text until that entry is signed off"]
    assert "a raw link" in texts["terms/pubterm/index.html"] and "this one" in texts["index.html"]
    # The scan is not vacuous: the published pages, the search index and the sitemap are there.
    assert {"terms/pubterm/index.html", "search/search_index.json", "sitemap.xml", "measurements/index.html",
            "terms/leakchanged/index.html"} <= set(texts)
    assert "What is Pubterm in CUDA?" in texts["search/search_index.json"]
    assert "pubterm" in texts["measurements/index.html"] or "Pubterm" in texts["measurements/index.html"]
    leaks = []
    for d in DRAFTS:
        for needle in (d.slug, d.title, d.sentence):
            for name, text in texts.items():
                if needle in text or needle in name:
                    leaks.append(f"{d.slug} ({d.why}): {needle!r} in {name}")
    assert leaks == []
    # The changed entries are served as signed: the old versions are there, no unsigned edit is, anywhere.
    assert "Signed body sentence of leakchanged." in texts["terms/leakchanged/index.html"]
    assert "What is Leakchanged in CUDA?" in texts["terms/leakchanged/index.html"]
    assert "signed_kernel" in texts["code/day01-pub/kernel.cu/index.html"]
    assert "threadIdx" in texts["code/extra/copy.cu/index.html"] and "code/extra/raw/copy.cu" in texts
    assert "extra/index.html" not in texts
    unsigned = [f"{needle!r} in {name}" for needle in UNSIGNED for name, text in texts.items()
                if needle in text or needle.lower() in name.lower()]
    assert unsigned == []


def test_preview_shows_every_draft_with_its_state(project: Path, tmp_path: Path, expect_warnings: object,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # In preview the drafts are pages, so no link to them is unlinked; the sign-off problems remain.
    expect_warnings.add(*expected_warnings(project))  # type: ignore[attr-defined]
    monkeypatch.setenv("GLOSS_PREVIEW", "1")
    site = build_site(project, strict=False, site_dir=str(tmp_path / "preview"))
    texts = site_texts(site)
    for d in DRAFTS:
        page = texts[f"{d.kind}s/{d.slug}/index.html"]
        assert d.sentence in page
        assert "not published" in page, d.slug
    assert "Awaiting review: signed by its author but not yet reviewed, so not published." in texts[
        "terms/leakauthor/index.html"]
    # The changed entry previews its working copy, with a banner saying what readers get instead.
    changed = texts["terms/leakchanged/index.html"]
    assert NEW_SENTENCE in changed and "Changed since sign-off (text): the published site shows the version" in changed
