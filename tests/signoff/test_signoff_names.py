"""Names a reader cannot see correctly, and names that look alike, in signoff.yaml (fictional people,
real ed25519 keys)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from signoff_helpers import public, ssh_signature

from site_plugins import signoff
from site_plugins.signoff.model import ident, invisible, skeletons
from site_plugins.signoff.signable import Signable

PATH = "content/terms/tiling.md"
S = Signable(PATH, "---\ntitle: T\n---\nBody.\n")
ON = dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)


def q(text: str) -> str:
    """``text`` as a YAML double-quoted scalar: characters outside the BMP written as they are (YAML does
    not join escaped surrogate pairs), line and paragraph separators escaped (YAML breaks lines at them)."""
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def one(name: str, who: str, handle: str | None = None) -> str:
    return (f"  - name: {q(name)}\n" + (f"    handle: {q(handle)}\n" if handle else "")
            + f"    keys: [{json.dumps(public(who))}]\n")


# One of each kind of default-ignorable code point (Unicode DerivedCoreProperties), and the
# invisible characters that are not default-ignorable (format characters, separators, private use).
HIDDEN = {
    "\u200d": "U+200D ZERO WIDTH JOINER",
    "\u200b": "U+200B ZERO WIDTH SPACE",
    "\u200c": "U+200C ZERO WIDTH NON-JOINER",
    "\u00ad": "U+00AD SOFT HYPHEN",
    "\u2060": "U+2060 WORD JOINER",
    "\u200e": "U+200E LEFT-TO-RIGHT MARK",
    "\u202e": "U+202E RIGHT-TO-LEFT OVERRIDE",
    "\u2068": "U+2068 FIRST STRONG ISOLATE",
    "\u061c": "U+061C ARABIC LETTER MARK",
    "\ufe0f": "U+FE0F VARIATION SELECTOR-16",
    "\U000e0100": "U+E0100 VARIATION SELECTOR-17",
    "\u034f": "U+034F COMBINING GRAPHEME JOINER",
    "\U000e0041": "U+E0041 TAG LATIN CAPITAL LETTER A",
    "\u180e": "U+180E MONGOLIAN VOWEL SEPARATOR",
    "\u3164": "U+3164 HANGUL FILLER",
    "\u115f": "U+115F HANGUL CHOSEONG FILLER",
    "\u17b4": "U+17B4 KHMER VOWEL INHERENT AQ",
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2800": "U+2800 BRAILLE PATTERN BLANK",
    "\ue000": "U+E000 unnamed",
    "\ufff9": "U+FFF9 INTERLINEAR ANNOTATION ANCHOR",
}


@pytest.mark.parametrize("char", HIDDEN, ids=[v.split()[0] for v in HIDDEN.values()])
def test_a_name_holding_an_invisible_character_is_an_error_and_counts_for_nobody(char: str) -> None:
    name = f"Ada Au{char}thor"
    reg, problems = signoff.parse("people:\n" + one(name, "ada") + one("Rex Reviewer", "rex"))
    assert [str(p) for p in problems] == [
        f"signoff.yaml:2: the name 'Ada Au<U+{ord(char):04X}>thor' holds an invisible character ({HIDDEN[char]} at "
        "character 7), so it does not read as what it is; retype the name with visible letters and plain spaces only"]
    assert [p.name for p in reg.people] == ["Rex Reviewer"]
    assert not reg.registered("Ada Author") and not reg.registered(name)


def test_every_invisible_character_of_a_name_is_listed() -> None:
    _, problems = signoff.parse("people:\n" + one("A\u200bda\u00ad Au\u200dth\u2060or", "ada"))
    assert [str(p) for p in problems] == [
        "signoff.yaml:2: the name 'A<U+200B>da<U+00AD> Au<U+200D>th<U+2060>or' holds invisible characters "
        "(U+200B ZERO WIDTH SPACE at character 2, U+00AD SOFT HYPHEN at character 5, U+200D ZERO WIDTH JOINER at "
        "character 9, ...), so it does not read as what it is; retype the name with visible letters and plain "
        "spaces only"]


def test_a_handle_holding_an_invisible_character_is_an_error() -> None:
    reg, problems = signoff.parse("people:\n" + one("Ada Author", "ada", handle="a\u200bda"))
    assert [str(p) for p in problems] == [
        "signoff.yaml:3: the handle 'a<U+200B>da' holds an invisible character (U+200B ZERO WIDTH SPACE at "
        "character 2), so it does not read as what it is; retype the name with visible letters and plain spaces only"]
    assert reg.people == []


def test_a_signature_whose_name_holds_an_invisible_character_counts_for_nothing() -> None:
    # Made with Ada's own key, over exactly the name written: it verifies, but it is no byline.
    name = "Ada\u200b Author"
    armored = ssh_signature("Ada Author", PATH, "author", signoff.fingerprint(S), ON, name=name)
    text = ("people:\n" + one("Ada Author", "ada") + f"entries:\n  {PATH}:\n    author: {{name: {json.dumps(name)}, "
            f"on: 2026-12-01T10:00:00Z, fingerprint: '{signoff.fingerprint(S)}', signature: {json.dumps(armored)}}}\n")
    reg, problems = signoff.parse(text)
    assert [str(p) for p in problems] == [
        f"signoff.yaml:6: the name 'Ada<U+200B> Author' in 'entries.{PATH}.author' holds an invisible character "
        "(U+200B ZERO WIDTH SPACE at character 4), so it does not read as what it is; retype the name with visible "
        "letters and plain spaces only"]
    assert reg.entries[PATH].author is None
    assert signoff.assess(reg, S).state == "draft"


@pytest.mark.parametrize(("a", "b"), [
    ("Ada Author", "ADA AUTHOR"),
    ("Ada Author", "  Ada   Author "),
    ("Ada Author", "\uff21\uff44\uff41 Author"),  # full-width letters (NFKC)
    ("Ada Author", "Ada\u00a0Author"),  # no-break space
    ("Ada Author", "Ada Au\u200dthor"),  # a default-ignorable inside
    ("Ada Author", "Ada Author\ufe0f"),
    ("Zo\u00eb Zeller", "Zoe\u0308 Zeller"),  # NFC and NFD
    ("Stra\u00dfe", "STRASSE"),  # case folding
    ("\ufb01ona", "fiona"),  # the fi ligature (NFKC)
])
def test_names_that_are_one_person(a: str, b: str) -> None:
    assert ident(a) == ident(b)


@pytest.mark.parametrize(("a", "b"), [
    ("Ada Author", "\u0410da Author"),  # Cyrillic A
    ("Ada Author", "\u0391da Author"),  # Greek Alpha
    ("Ada Author", "Ada Auth\u043er"),  # Cyrillic o
    ("ADA AUTHOR", "\u0430da author"),  # Cyrillic a, other case
    ("Ian Ide", "lan Ide"),  # capital I and small l
    ("Olga Orr", "0lga Orr"),  # O and zero
    ("Rex Reviewer", "R\u0435x R\u0435vi\u0435w\u0435r"),  # Cyrillic e
])
def test_names_that_look_alike(a: str, b: str) -> None:
    assert ident(a) != ident(b) and skeletons(a) & skeletons(b)


@pytest.mark.parametrize(("a", "b"), [("Ada Author", "Ida Author"), ("Mia Moe", "M\u00eda Moe"),
                                      ("Jose Ruiz", "Jos\u00e9 Ruiz"), ("Ann Lee", "Anna Lee")])
def test_names_that_differ(a: str, b: str) -> None:
    assert not skeletons(a) & skeletons(b)


def test_a_cyrillic_twin_is_refused_with_the_letters_that_differ() -> None:
    _, problems = signoff.parse("people:\n" + one("Ada Author", "ada") + one("\u0410da Author", "zed"))
    assert [str(p) for p in problems] == [
        "signoff.yaml:4: '\u0410da Author' looks like 'Ada Author' (confusable characters: \u0410 U+0410 vs A U+0041); "
        "register each person under a name that cannot be mistaken for another's"]


def test_a_full_width_twin_is_the_same_person() -> None:
    _, problems = signoff.parse("people:\n" + one("Ada Author", "ada") + one("\uff21\uff44\uff41 Author", "zed"))
    assert [str(p) for p in problems] == [
        "signoff.yaml:4: '\uff21\uff44\uff41 Author' is registered twice (as 'Ada Author': names are compared after "
        "Unicode normalisation, ignoring case and spaces); keep one entry per person, with a unique name and handle"]


def test_visible_names_have_nothing_invisible() -> None:
    for name in ("Ada Author", "Zo\u00eb Zeller", "\u674e\u5c0f\u9f99", "\u0410\u043d\u043d\u0430", "O'Brien-Smith"):
        assert invisible(name) == []


def test_lone_surrogates_from_escapes_are_invisible_too() -> None:
    _, problems = signoff.parse('people:\n  - name: "Ada\\udb40\\udc41 Author"\n    keys: []\n')
    assert [str(p) for p in problems] == [
        "signoff.yaml:2: the name 'Ada<U+DB40><U+DC41> Author' holds invisible characters (U+DB40 unnamed at "
        "character 4, U+DC41 unnamed at character 5), so it does not read as what it is; retype the name with "
        "visible letters and plain spaces only"]


def test_an_empty_or_invisible_name_is_nobody() -> None:
    reg, _ = signoff.parse("people:\n" + one("Ada Author", "ada"))
    assert reg.person("Ada Author") is reg.people[0] and reg.person("ada\u200b author") is reg.people[0]
    assert reg.person("") is None and reg.person("\u200b\u00ad") is None and reg.person("  ") is None


def test_an_empty_name_is_an_error_and_counts_for_nobody() -> None:
    reg, problems = signoff.parse("people:\n" + one("   ", "ada") + one("Rex Reviewer", "rex"))
    assert [str(p) for p in problems] == [
        "signoff.yaml:2: the name of person 1 is empty; write the name as it appears in bylines, e.g. Ada Author"]
    assert [p.name for p in reg.people] == ["Rex Reviewer"]
