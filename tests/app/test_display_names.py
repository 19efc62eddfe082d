"""The display-name rules (app/display_names.py) in isolation: what a name may hold, the form
it is stored in, and which names look alike, with what ICU's UTS #39 skeleton itself says."""

from __future__ import annotations

import icu
import pytest
from belote.app import errors as err
from belote.app.display_names import MAX_DISPLAY_NAME, check_display_name, looks_like

CYRILLIC_A = "\u0410lice"
ZERO_WIDTH = "Al\u200bice"
ACCENT = "\u00c1lice"
FULLWIDTH = "\uff21\uff4c\uff49\uff43\uff45"


def skeleton(name: str) -> str:
    return icu.SpoofChecker().getSkeleton(0, name)


def refusal(name: str, field: str = "display_name") -> err.AppError:
    with pytest.raises(err.AppError) as caught:
        check_display_name(name, field)
    assert (caught.value.reason, caught.value.field) == ("INVALID_FIELD", field)
    return caught.value


def test_what_uts39_itself_says_of_the_lookalikes():
    """ICU's skeleton alone: it maps Cyrillic and fullwidth letters, but not case, and in ICU 72
    (Unicode 15.0) neither the zero-width space nor the accent: hence NFKC_Casefold before it
    and the accents dropped after it (app/display_names.py)."""
    assert icu.UNICODE_VERSION == "15.0"
    assert skeleton(CYRILLIC_A) == skeleton(FULLWIDTH) == skeleton("Alice") == "Alice"
    assert skeleton("AIice") == "Alice"                   # capital I is small l
    assert skeleton(ZERO_WIDTH) == ZERO_WIDTH
    assert skeleton(ACCENT) == "A\u0301lice" != skeleton("Alice")
    assert skeleton("alice") != skeleton("Alice")


@pytest.mark.parametrize("name", [CYRILLIC_A, ZERO_WIDTH, ACCENT, "A\u0301lice", FULLWIDTH,
                                  "AIice", "A1ice", "alice", "ALICE", " Alice ", "Alicé",
                                  "Al\ufe0fice", "Al\u00adice"])
def test_lookalikes_of_alice(name):
    assert looks_like("Alice", name) and looks_like(name, "Alice")


@pytest.mark.parametrize("a, b", [("Alice", "Alicia"), ("Bob", "Rob"), ("Ann", "Anna"),
                                  ("human0", "human1"), ("Alice", "Al ice"), ("Alice", "Alise"),
                                  ("Jan", "Jana"), ("Иван", "Иваn")])
def test_names_that_stay_distinct(a, b):
    assert not looks_like(a, b) and not looks_like(b, a)


def test_other_confusables_and_scripts():
    assert looks_like("bot (easy)", "b\u043et (easy)")    # a bot's shown name, Cyrillic o
    assert looks_like("Kim", "Kirn")                       # m is r n in the skeleton
    assert looks_like("Ёлка", "Елка")                      # Cyrillic accents too
    assert not looks_like("कृष्ण", "कषण")                   # other scripts' marks are kept


def test_a_name_is_stored_in_nfc_without_the_spaces_around():
    assert check_display_name("A\u0301lice") == ACCENT
    assert check_display_name("  Bob \u3000") == "Bob"
    assert check_display_name(FULLWIDTH) == FULLWIDTH         # not NFKC: as chosen
    assert check_display_name("Jo\u00b2") == "Jo\u00b2"
    assert check_display_name("x" * MAX_DISPLAY_NAME) == "x" * MAX_DISPLAY_NAME


@pytest.mark.parametrize("name", ["\u2764\ufe0f Ann", "\U0001F469\u200d\U0001F4BB dev",
                                  "1\ufe0f\u20e3", "\U0001F44D\U0001F3FD",
                                  "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074"
                                  "\U000E007F", "\u0639\u0644\u064a", "\u05d3\u05b8\u05d5\u05b4\u05d3",
                                  "\u674e\u5c0f\u9f99", "\u0915\u0943\u0937\u094d\u0923"])
def test_emoji_sequences_and_other_scripts_are_names(name):
    assert check_display_name(name) == name


def test_empty_too_long_and_blank_names_are_refused_with_their_reason():
    assert refusal("").message == "display_name: empty: a name of 1 to 32 characters is needed"
    assert refusal("x" * 33).message == "display_name: 33 characters, at most 32"
    for blank in (" ", "\u00a0\u3000", "\u2800"):
        assert refusal(blank).message == "display_name: only spaces: a name needs a visible character"
    assert refusal("", "name").message == "name: empty: a name of 1 to 32 characters is needed"


@pytest.mark.parametrize("name, at, shown", [
    (ZERO_WIDTH, 3, "U+200B ZERO WIDTH SPACE"),
    ("Al\u200dice", 3, "U+200D ZERO WIDTH JOINER"),              # a joiner outside an emoji
    ("\u202eecilA", 1, "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("Alice\u2066", 6, "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("Al\u00adice", 3, "U+00AD SOFT HYPHEN"),
    ("Al\u034fice", 3, "U+034F COMBINING GRAPHEME JOINER"),
    ("Al\ufe0fice", 3, "U+FE0F VARIATION SELECTOR-16"),          # no emoji before it
    ("\u845b\U000E0100", 2, "U+E0100 VARIATION SELECTOR-17"),    # an ideographic variant
    ("\u3164", 1, "U+3164 HANGUL FILLER"),
    ("\u2764\ufe0f\u200b", 3, "U+200B ZERO WIDTH SPACE"),        # after an emoji, not in it
    ("Al\tice", 3, "U+0009"),
    ("Al\nice", 3, "U+000A"),
    ("Al\u2028ice", 3, "U+2028 LINE SEPARATOR"),
    ("Al\u2029ice", 3, "U+2029 PARAGRAPH SEPARATOR"),
    ("Al\ue000ice", 3, "U+E000"),                                # private use
    ("Al\u0378ice", 3, "U+0378"),                                # unassigned
    ("\U0001F600\U0001F600\u200b", 3, "U+200B ZERO WIDTH SPACE"),  # counted in code points
])
def test_invisible_and_control_characters_are_refused_by_name(name, at, shown):
    assert refusal(name).message == (f"display_name: character {at} is {shown}, an invisible or "
                                     "control character: names may not contain these (except "
                                     "inside an emoji)")
