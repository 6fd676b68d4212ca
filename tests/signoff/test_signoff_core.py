"""The pure core of sign-off: parsing signoff.yaml, fingerprints, states, planning a signature."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest
from signoff_helpers import PEOPLE, PEOPLE_LINES, T1, T2, key_sha, plan_signature, public, ssh_signature

from site_plugins import signoff
from site_plugins.publishing.publish import Signable, decide

PATH = "content/terms/tiling.md"
TEXT = "---\ntitle: T\n---\nBody.\n"
S = Signable(PATH, TEXT, ("1.25 ms", "410 GB/s"), ("__syncthreads();",), (("code/x/t.cu", "int t;\n"),))
L = PEOPLE_LINES  # lines of the people block


def fp(s: Signable = S) -> str:
    return signoff.fingerprint(s)


def armored_sig(name: str, s: Signable = S, on: str = "2026-12-01T10:00:00Z", role: str = "author",
                key_of: str | None = None, path: str = PATH, reviews: str | None = None,
                with_covers: bool = False) -> str:
    when = dt.datetime.fromisoformat(on.replace("Z", "+00:00"))
    return ssh_signature(key_of or name, path, role, fp(s), when, name=name, reviews=reviews,
                         covers=signoff.covers(s) if with_covers else None)


def sig(name: str, s: Signable = S, on: str = "2026-12-01T10:00:00Z", role: str = "author",
        key_of: str | None = None, path: str = PATH, reviews: str | None = None, with_covers: bool = False) -> str:
    """A recorded signature as gloss sign writes it, signed with ``key_of``'s key (default: ``name``'s);
    ``reviews``: for a review, the author's armored signature it completes; ``with_covers``: with part digests."""
    armored = armored_sig(name, s, on, role, key_of, path, reviews, with_covers)
    c = signoff.covers(s)
    cov = f"covers: {{text: '{c.text}', values: '{c.values}', code: '{c.code}', files: '{c.files}'}}, "
    return (f"{{name: {name}, on: {on}, {cov if with_covers else ''}fingerprint: '{fp(s)}', "
            f"signature: {json.dumps(armored)}}}")


def rev(name: str, s: Signable = S, on: str = "2026-12-01T10:00:00Z", by: str = "Ada Author",
        by_s: Signable | None = None, with_covers: bool = False) -> str:
    """A review of ``s`` by ``name``, completing the author signature ``sig(by, by_s or s)``."""
    return sig(name, s, on, role="reviewer", reviews=armored_sig(by, by_s or s, with_covers=with_covers),
               with_covers=with_covers)


def registry(entries: str = "") -> signoff.Registry:
    reg, problems = signoff.parse(PEOPLE + "entries:\n" + entries if entries else PEOPLE)
    assert problems == []
    return reg


# --- fingerprints -----------------------------------------------------------------------------------


def test_fingerprint_is_sha256_of_the_documented_canonical_encoding() -> None:
    payload = {"v": 2, "text": TEXT, "shown_values": ["1.25 ms", "410 GB/s"],
               "quoted_code": ["__syncthreads();"], "files": [["code/x/t.cu", "int t;\n"]]}
    raw = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    assert fp() == "sha256:" + hashlib.sha256(raw).hexdigest()
    # Golden: changing the encoding would void every recorded signature.
    assert fp() == "sha256:0755f1379eaa230dc96e963297f5d2e33ba7d84bd39386dd8c77059963154302"


@pytest.mark.parametrize("other", [
    dataclasses.replace(S, text=TEXT + "More.\n"),
    dataclasses.replace(S, shown_values=("1.26 ms", "410 GB/s")),
    dataclasses.replace(S, shown_values=("410 GB/s", "1.25 ms")),  # order is part of what was shown
    dataclasses.replace(S, shown_values=("1.25 ms",)),
    dataclasses.replace(S, quoted_code=("__syncthreads(); ",)),
    dataclasses.replace(S, quoted_code=()),
    dataclasses.replace(S, shown_values=("1.25 ms", "410 GB/s", "")),
    dataclasses.replace(S, files=(("code/x/t.cu", "int t; // edited outside any region\n"),)),
    dataclasses.replace(S, files=(("code/x/t.cu", "int t;\n"), ("code/x/new.cu", "int n;\n"))),
    dataclasses.replace(S, files=(("code/x/renamed.cu", "int t;\n"),)),
])
def test_any_change_to_text_values_or_code_changes_the_fingerprint(other: Signable) -> None:
    assert fp(other) != fp()


def test_fingerprint_ignores_path_and_crlf_line_ends() -> None:
    assert fp(dataclasses.replace(S, path="content/terms/other.md")) == fp()
    assert fp(dataclasses.replace(S, text=TEXT.replace("\n", "\r\n"))) == fp()


def test_changed_parts_names_what_changed() -> None:
    c = signoff.covers(S)
    assert signoff.changed_parts(c, S) == []
    assert signoff.changed_parts(c, dataclasses.replace(S, text="x")) == ["text"]
    both = dataclasses.replace(S, shown_values=(), quoted_code=())
    assert signoff.changed_parts(c, both) == ["measured values", "quoted code"]
    assert signoff.changed_parts(c, dataclasses.replace(S, files=())) == ["code files"]


# --- reading signoff.yaml ---------------------------------------------------------------------------


def test_the_shipped_registry_is_empty_and_valid() -> None:
    root = Path(__file__).resolve().parents[2]
    text = (root / "signoff.yaml").read_text(encoding="utf-8")
    reg, problems = signoff.parse(text)
    assert problems == []
    assert reg.people == [] and reg.entries == {}
    assert text.lstrip().startswith("#")  # the format is explained in the file


def test_missing_or_empty_file_is_an_empty_registry(tmp_path: Path) -> None:
    assert signoff.load(tmp_path) == (signoff.Registry(), [])
    assert signoff.parse("# nothing yet\n") == (signoff.Registry(), [])


def test_a_full_record_parses() -> None:
    reg = registry(f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n")
    e = reg.entries[PATH]
    assert e.author is not None and e.author.name == "Ada Author" and e.author.on == T1
    assert reg.person("rex") == signoff.Person(name="Rex Reviewer", handle="rex", keys=[public("rex")])
    assert reg.person("Sam Self") is not None and reg.person("Zed") is None


BAD = [
    ("people: [\n", "signoff.yaml:2: malformed YAML: expected the node content, but found '<stream end>'; "
                    "fix the YAML syntax at this line"),
    ("people:\n  - name: Ada Author\n    keys: []\n    nick: ada\n",
     "signoff.yaml:4: unknown key 'people[0].nick'; allowed keys: name, keys, handle, email"),
    ("people:\n  - handle: ada\n    keys: []\n",
     "signoff.yaml:2: missing required key 'people[0].name'; "
     "add 'name:' (the name as it appears in bylines, e.g. Ada Author)"),
    ("people:\n  - name: Ada Author\n",
     "signoff.yaml:2: missing required key 'people[0].keys'; "
     "add 'keys:' (the person's SSH public keys, one line each as in ~/.ssh/id_ed25519.pub)"),
    (PEOPLE + "  - name: Ada Author\n    keys: []\n",
     f"signoff.yaml:{L + 1}: 'Ada Author' is registered twice; "
     "keep one entry per person, with a unique name and handle"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {{name: Ada Author, on: 2026-12-01, fingerprint: x, signature: x}}\n",
     f"signoff.yaml:{L + 3}: 'entries.content/terms/tiling.md.author.on' must be a date and time "
     "(YYYY-MM-DDTHH:MM:SSZ), got a date; write entries.content/terms/tiling.md.author.on as a date and time "
     "(YYYY-MM-DDTHH:MM:SSZ)"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {{name: Ada Author, on: 2026-12-01T10:00:00Z, "
              "fingerprint: x}\n",
     f"signoff.yaml:{L + 3}: missing required key 'entries.content/terms/tiling.md.author.signature'; "
     "add 'signature:' (the SSH signature made by gloss sign (-----BEGIN SSH SIGNATURE-----))"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Zed Nobody')}\n",
     f"signoff.yaml:{L + 3}: 'Zed Nobody' signed content/terms/tiling.md as author but is not registered; "
     "add them under 'people:' or remove the signature"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Sam Self')}\n    reviewer: {rev('Sam Self', by='Sam Self')}\n",
     f"signoff.yaml:{L + 4}: Sam Self is both author and reviewer of content/terms/tiling.md; "
     "a different registered person must review; remove the self-review"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author')}\n"
              f"    reviewer: {rev('Rex Reviewer', dataclasses.replace(S, text='old'), by_s=S)}\n",
     f"signoff.yaml:{L + 4}: the reviewer of content/terms/tiling.md signed a different version than the author; "
     "the reviewer signs again: gloss sign content/terms/tiling.md --as reviewer"),
    (PEOPLE + f"entries:\n  {PATH}:\n    reviewer: {sig('Rex Reviewer', role='reviewer')}\n",
     f"signoff.yaml:{L + 3}: content/terms/tiling.md has a review but no author sign-off; "
     "the author signs first: gloss sign content/terms/tiling.md --as author"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author')}\n    commit: abc\n",
     f"signoff.yaml:{L + 4}: unknown key 'entries.content/terms/tiling.md.commit'; "
     "allowed keys: author, reviewer, previous"),
    # Signatures that do not verify count for nothing.
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author', key_of='Rex Reviewer')}\n",
     f"signoff.yaml:{L + 3}: the author signature of content/terms/tiling.md names Ada Author but was made with "
     "Rex Reviewer's key KEY(rex); it counts for nothing; the signer signs again with their own registered key: "
     "gloss sign content/terms/tiling.md --as author"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author', key_of='Zed Nobody')}\n",
     f"signoff.yaml:{L + 3}: the author signature of content/terms/tiling.md was made with key KEY(zed), which "
     "is not registered; it counts for nothing; the signer signs again with their own registered key: "
     "gloss sign content/terms/tiling.md --as author"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {rev('Ada Author')}\n",
     f"signoff.yaml:{L + 3}: the author signature of content/terms/tiling.md does not verify (gloss sign did "
     "not make it over this entry, role, name, fingerprint, commit and date as written here: one of them was "
     "edited, or it was copied from elsewhere); it counts for nothing; the signer signs again with "
     "their own registered key: gloss sign content/terms/tiling.md --as author"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author', path='content/terms/other.md')}\n",
     f"signoff.yaml:{L + 3}: the author signature of content/terms/tiling.md does not verify (gloss sign did "
     "not make it over this entry, role, name, fingerprint, commit and date as written here: one of them was "
     "edited, or it was copied from elsewhere); it counts for nothing; the signer signs again with "
     "their own registered key: gloss sign content/terms/tiling.md --as author"),
    (PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author').replace('10:00:00Z', '09:00:00Z', 1)}\n",
     f"signoff.yaml:{L + 3}: the author signature of content/terms/tiling.md does not verify (gloss sign did "
     "not make it over this entry, role, name, fingerprint, commit and date as written here: one of them was "
     "edited, or it was copied from elsewhere); it counts for nothing; the signer signs again with "
     "their own registered key: gloss sign content/terms/tiling.md --as author"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m.split(": ", 2)[1][:40] for _, m in BAD])
def test_malformed_registry_gives_located_messages(text: str, message: str) -> None:
    reg, problems = signoff.parse(text)
    for who in ("rex", "zed"):
        message = message.replace(f"KEY({who})", key_sha(who))
    assert [str(p) for p in problems] == [message]
    if "counts for nothing" in message:  # dropped: the entry has no valid author sign-off
        assert reg.entries[PATH].author is None
        assert signoff.assess(reg, S).state == "draft"


def test_one_bad_signature_does_not_discard_the_rest() -> None:
    other = "content/terms/other.md"
    reg, problems = signoff.parse(PEOPLE + f"entries:\n  {PATH}:\n    author: {{name: Ada Author}}\n"
                                  f"  {other}:\n    author: {sig('Ada Author', path=other)}\n")
    assert len(problems) == 3  # 'on', 'fingerprint' and 'signature' missing
    assert PATH not in reg.entries and other in reg.entries
    assert [p.name for p in reg.people] == ["Ada Author", "Rex Reviewer", "Sam Self"]


# --- states -----------------------------------------------------------------------------------------

OLD = dataclasses.replace(S, text=TEXT.replace("Body.", "Old body."))
NEW_VALUES = dataclasses.replace(S, shown_values=("1.31 ms", "402 GB/s"))

STATES = [
    # (entries yaml, signable, state, missing)
    ("", S, "draft", ("author sign-off", "review by a registered person other than the author")),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n", S, "awaiting-review",
     ("review by a registered person other than the author",)),
    (f"  {PATH}:\n    author: {sig('Ada Author', OLD)}\n", S, "draft",
     ("author sign-off of the current content (Ada Author signed an earlier version)",
      "review by a registered person other than the author")),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n", S, "signed", ()),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n", OLD, "changed",
     ("author sign-off of the current content (Ada Author signed an earlier version)",
      "review of the current content (Rex Reviewer reviewed an earlier version)")),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Ada Author')}\n", S,
     "awaiting-review", ("review by someone other than the author (Ada Author reviewed their own entry)",)),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Zed Nobody')}\n", S,
     "awaiting-review", ("review by a registered person (Zed Nobody is not registered)",)),
    (f"  {PATH}:\n    author: {sig('Zed Nobody')}\n    reviewer: {rev('Rex Reviewer', by='Zed Nobody')}\n", S, "draft",
     ("author sign-off by a registered person (Zed Nobody is not registered)",)),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer', OLD, by_s=S)}\n", S,
     "awaiting-review", ("review by a registered person other than the author",)),
    # Mid re-sign: the author signed the change, the previous pair still covers the published version.
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    previous:\n      author: {sig('Ada Author', OLD)}\n"
     f"      reviewer: {rev('Rex Reviewer', OLD)}\n", S, "changed",
     ("review by a registered person other than the author",)),
    # ...and if the working copy goes back to the signed version, it is signed again.
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    previous:\n      author: {sig('Ada Author', OLD)}\n"
     f"      reviewer: {rev('Rex Reviewer', OLD)}\n", OLD, "signed",
     ("author sign-off of the current content (Ada Author signed an earlier version)",
      "review by a registered person other than the author")),
]


@pytest.mark.parametrize(("entries", "signable", "state", "missing"), STATES)
def test_states(entries: str, signable: Signable, state: str, missing: tuple[str, ...]) -> None:
    reg, _ = signoff.parse(PEOPLE + ("entries:\n" + entries if entries else ""))
    a = signoff.assess(reg, signable)
    assert (a.state, a.missing) == (state, missing)
    assert a.fingerprint == fp(signable)


def test_changed_says_which_parts_changed() -> None:
    entries = f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n"
    reg = registry(entries)
    # Without 'covers' digests nothing can be said about the parts.
    assert signoff.assess(reg, NEW_VALUES).changed == ()
    reg = registry(f"  {PATH}:\n    author: {sig('Ada Author', with_covers=True)}\n"
                   f"    reviewer: {rev('Rex Reviewer', with_covers=True)}\n")
    assert signoff.assess(reg, NEW_VALUES).changed == ("measured values",)


# --- planning a signature ---------------------------------------------------------------------------


def plan(entries: str, role: signoff.Role, name: str, s: Signable = S) -> signoff.EntrySignoff:
    record, _ = plan_signature(registry(entries), s, role, name, on=T2, commit=None)
    return record


REFUSALS = [
    ("", "reviewer", "Rex Reviewer",
     "content/terms/tiling.md has no author sign-off of its current content; the author signs first "
     "(gloss sign content/terms/tiling.md --as author)"),
    (f"  {PATH}:\n    author: {sig('Ada Author', OLD)}\n", "reviewer", "Rex Reviewer",
     "content/terms/tiling.md has no author sign-off of its current content; the author signs first "
     "(gloss sign content/terms/tiling.md --as author)"),
    (f"  {PATH}:\n    author: {sig('Sam Self')}\n", "reviewer", "Sam Self",
     "Sam Self signed content/terms/tiling.md as author and cannot also review it; "
     "ask another registered person to review"),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n", "reviewer", "ada",
     "Ada Author signed content/terms/tiling.md as author and cannot also review it; "
     "ask another registered person to review"),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n", "author", "Ada Author",
     "Ada Author already signed the current content of content/terms/tiling.md as author; nothing to do"),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n", "reviewer", "rex",
     "Rex Reviewer already reviewed the current content of content/terms/tiling.md; nothing to do"),
    (f"  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n", "author", "rex",
     "Rex Reviewer reviewed content/terms/tiling.md and cannot also sign it as author; "
     "an author and a different reviewer must sign"),
]


@pytest.mark.parametrize(("entries", "role", "name", "message"), REFUSALS)
def test_refusals(entries: str, role: signoff.Role, name: str, message: str) -> None:
    with pytest.raises(signoff.Refused) as exc:
        plan(entries, role, name)
    assert str(exc.value) == message


def test_author_then_reviewer_makes_a_signed_pair() -> None:
    rec = plan("", "author", "ada")
    assert rec.author is not None and rec.author.name == "Ada Author" and rec.author.on == T2
    assert rec.author.fingerprint == fp() and rec.author.covers == signoff.covers(S)
    reg = dataclasses.replace(registry(), entries={PATH: rec})
    rec2, sig2 = plan_signature(reg, S, "reviewer", "Rex Reviewer", on=T2, commit="a" * 40)
    assert rec2.author == rec.author and rec2.reviewer == sig2 and sig2.commit == "a" * 40
    reg = dataclasses.replace(reg, entries={PATH: rec2})
    assert signoff.assess(reg, S).state == "signed"


def test_resigning_a_changed_entry_keeps_the_published_pair_until_review() -> None:
    signed = f"  {PATH}:\n    author: {sig('Ada Author', OLD)}\n    reviewer: {rev('Rex Reviewer', OLD)}\n"
    rec = plan(signed, "author", "Sam Self")  # authorship may pass on; the old pair stays as 'previous'
    assert rec.reviewer is None and rec.previous is not None
    assert rec.previous.author is not None and rec.previous.author.fingerprint == fp(OLD)
    reg = dataclasses.replace(registry(), entries={PATH: rec})
    a = signoff.assess(reg, S)
    assert a.state == "changed" and a.served == rec.previous
    rec2, _ = plan_signature(reg, S, "reviewer", "Ada Author", on=T2, commit=None)
    assert rec2.previous is None  # complete again: the old pair is no longer what is published
    assert signoff.assess(dataclasses.replace(reg, entries={PATH: rec2}), S).state == "signed"


# --- decide: what the build gets ---------------------------------------------------------------------


def write(root: Path, entries: str) -> None:
    (root / "signoff.yaml").write_text(PEOPLE + ("entries:\n" + entries if entries else ""), encoding="utf-8")


def test_decide_maps_states_to_publication_bylines_and_banners(tmp_path: Path) -> None:
    other = dataclasses.replace(S, path="content/terms/other.md")
    draft = dataclasses.replace(S, path="content/lessons/day01-x.md")
    write(tmp_path, f"  {PATH}:\n    author: {sig('Ada Author')}\n"
                    f"    reviewer: {rev('Rex Reviewer', on='2026-12-02T23:30:00-05:00')}\n"
                    f"  {other.path}:\n    author: {sig('Ada Author', path=other.path)}\n")
    states, problems = decide(tmp_path, [S, other, draft], preview=False)
    assert problems == []
    s = states[PATH]
    assert (s.state, s.published, s.text, s.banner, s.missing) == ("signed", True, None, None, ())
    assert (s.byline.author, s.byline.reviewer, s.byline.written_on, s.byline.reviewed_on) == (
        "Ada Author", "Rex Reviewer", "2026-12-01", "2026-12-03")  # dates in UTC
    o = states[other.path]
    assert (o.state, o.published) == ("awaiting-review", False)
    assert o.byline.author == "Ada Author" and o.byline.reviewer is None
    assert o.banner == ("Awaiting review: signed by its author but not yet reviewed, so not published. "
                        "Missing: review by a registered person other than the author.")
    d = states[draft.path]
    assert (d.state, d.published, d.byline) == ("draft", False, type(d.byline)())
    assert d.banner == ("Draft: not published until a named author and a different named reviewer sign it. "
                        "Missing: author sign-off; review by a registered person other than the author.")


def test_decide_reports_registry_problems_and_sign_offs_for_non_entries(tmp_path: Path) -> None:
    write(tmp_path, f"  content/terms/gone.md:\n    author: {sig('Ada Author', path='content/terms/gone.md')}\n")
    states, problems = decide(tmp_path, [S], preview=True)
    assert states[PATH].state == "draft"
    assert [str(p) for p in problems] == [
        f"signoff.yaml:{L + 3}: sign-off recorded for content/terms/gone.md, which is not a term or lesson; "
        "remove it, or move it to the entry's new path if it was renamed"]


# --- people: names compared as people read them, keys belong to one person ----------------------------

ZOE_NFC = "Zo\u00eb Zeller"
ZOE_NFD = "Zoe\u0308 Zeller"


def one(name: str, who: str, handle: str | None = None) -> str:
    return (f"  - name: {json.dumps(name)}\n" + (f"    handle: {handle}\n" if handle else "")
            + f"    keys: [{json.dumps(public(who))}]\n")


TWINS = [
    # (second name, what the message says)
    ("Ada Author ", "'Ada Author ' is registered twice (as 'Ada Author': names are compared after Unicode "
                   "normalisation, ignoring case and spaces); keep one entry per person, with a unique name and "
                   "handle"),
    ("ada author", "'ada author' is registered twice (as 'Ada Author': names are compared after Unicode "
                   "normalisation, ignoring case and spaces); keep one entry per person, with a unique name and "
                   "handle"),
    ("\u0391da Author", "'\u0391da Author' looks like 'Ada Author' (confusable characters: \u0391 U+0391 vs A U+0041); "
                        "register each person under a name that cannot be mistaken for another's"),
    ("Ada Auth\u043er", "'Ada Auth\u043er' looks like 'Ada Author' (confusable characters: \u043e U+043E vs o U+006F); "
                        "register each person under a name that cannot be mistaken for another's"),
]


@pytest.mark.parametrize(("second", "message"), TWINS, ids=["trailing space", "case", "greek alpha",
                                                            "cyrillic o"])
def test_look_alike_names_are_errors(second: str, message: str) -> None:
    _, problems = signoff.parse("people:\n" + one("Ada Author", "ada") + one(second, "zed"))
    assert [str(p) for p in problems] == [f"signoff.yaml:4: {message}"]


def test_nfc_and_nfd_spellings_are_one_person() -> None:
    _, problems = signoff.parse("people:\n" + one(ZOE_NFC, "zoe") + one(ZOE_NFD, "zed"))
    assert [str(p) for p in problems] == [
        f"signoff.yaml:4: '{ZOE_NFD}' is registered twice (as '{ZOE_NFC}': names are compared after Unicode "
        "normalisation, ignoring case and spaces); keep one entry per person, with a unique name and handle"]
    reg, _ = signoff.parse("people:\n" + one(ZOE_NFC, "zoe"))
    assert reg.person(ZOE_NFD + " ") is reg.people[0] and reg.person("ZOË ZELLER") is reg.people[0]


def test_a_handle_may_not_shadow_another_persons_name() -> None:
    _, problems = signoff.parse("people:\n" + one("Ada Author", "ada") + one("Rex Reviewer", "rex", "ADA AUTHOR"))
    assert [str(p) for p in problems] == [
        "signoff.yaml:4: 'ADA AUTHOR' is registered twice (as 'Ada Author': names are compared after Unicode "
        "normalisation, ignoring case and spaces); keep one entry per person, with a unique name and handle"]


def test_distinct_names_are_not_flagged() -> None:
    people = ("people:\n" + one("Ada Author", "ada", "ada author") + one("Ida Author", "zed")
              + one("Zoë Zeller", "zoe"))  # a handle that is one's own name is no twin
    assert signoff.parse(people)[1] == []


def test_a_key_registered_to_two_people_is_an_error_and_counts_for_nobody() -> None:
    shared = public("ada")
    text = ("people:\n" + one("Ada Author", "ada") + f"  - name: Rex Reviewer\n    keys: [{json.dumps(shared)}]\n"
            f"entries:\n  {PATH}:\n    author: {sig('Ada Author')}\n")
    reg, problems = signoff.parse(text)
    assert [str(p) for p in problems] == [
        f"signoff.yaml:5: key {key_sha('ada')} is registered to both Ada Author and Rex Reviewer; a key belongs to "
        "one person: remove it from the one it is not theirs",
        f"signoff.yaml:8: the author signature of {PATH} was made with key {key_sha('ada')}, which is registered "
        f"to more than one person; it counts for nothing; the signer signs again with their own registered key: "
        f"gloss sign {PATH} --as author"]
    assert reg.entries[PATH].author is None


def test_a_malformed_key_line_is_located() -> None:
    _, problems = signoff.parse("people:\n  - name: Ada Author\n    keys:\n      - ssh-ed25519 notbase64\n")
    assert [str(p) for p in problems] == [
        "signoff.yaml:4: key 1 of Ada Author is not an SSH public key; paste the one line of the .pub file, e.g. "
        "ssh-ed25519 AAAA... name"]


def test_a_signature_with_another_persons_key_does_not_make_a_pair() -> None:
    # Ada signs as author, then writes a review in Rex's name with her own key: the review counts for nothing.
    forged = sig('Rex Reviewer', role='reviewer', key_of='Ada Author', reviews=armored_sig('Ada Author'))
    reg, problems = signoff.parse(PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author')}\n"
                                  f"    reviewer: {forged}\n")
    assert [p.problem for p in problems] == [
        f"the reviewer signature of {PATH} names Rex Reviewer but was made with Ada Author's key {key_sha('ada')}"]
    assert signoff.assess(reg, S).state == "awaiting-review"


# --- reading a large registry fast, within the same bounds -----------------------------------------------

UNUSUAL = [
    ("people: &a []\nentries: *a\n",
     "signoff.yaml:1: YAML anchor '&a' is not allowed here; remove it and write each value out in full"),
    ("people: []\nentries: {}\nx: " + "[" * 40 + "]" * 40 + "\n",
     "signoff.yaml:3: the YAML is nested more than 32 levels deep; flatten it; no key here needs that much nesting"),
    ("people: []\x07\n",
     "signoff.yaml:1: control character U+0007 at column 11; delete it (only tab and newline may appear in text)"),
    ("people: [\n", "signoff.yaml:2: malformed YAML: expected the node content, but found '<stream end>'; "
                    "fix the YAML syntax at this line"),
]


@pytest.mark.parametrize(("text", "message"), UNUSUAL, ids=["alias", "deep", "control", "syntax"])
def test_the_fast_reader_leaves_anything_unusual_to_the_bounded_one(text: str, message: str) -> None:
    from site_plugins.signoff import registry

    assert registry._plain_compose(text) is None
    assert [str(p) for p in signoff.parse(text)[1]] == [message]


def test_the_fast_reader_gives_the_same_tree_and_lines() -> None:
    from site_plugins.files import schema
    from site_plugins.signoff import registry

    text = PEOPLE + f"entries:\n  {PATH}:\n    author: {sig('Ada Author')}\n    reviewer: {rev('Rex Reviewer')}\n"
    fast = registry._plain_compose(text)
    slow, problems = schema.parse_yaml(text, "signoff.yaml")
    assert fast is not None and slow is not None and problems == []
    assert yaml_shape(fast) == yaml_shape(slow)
    reg, problems = signoff.parse(text)
    assert problems == [] and schema.line_of(reg.entries[PATH].reviewer) == L + 4


def yaml_shape(node: object) -> object:
    import yaml

    assert isinstance(node, yaml.Node)
    if isinstance(node, yaml.MappingNode):
        return [(yaml_shape(k), yaml_shape(v)) for k, v in node.value]
    if isinstance(node, yaml.SequenceNode):
        return [yaml_shape(v) for v in node.value]
    return (node.tag, node.value, node.start_mark.line)
