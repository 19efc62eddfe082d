"""Display names: what a name may contain, the form it is stored in, and when two names look
alike.

Only a spectator's chat name is compared with the seats' (app/watching.py): its messages have no
seat number, so the name is all that tells who speaks. Seats may look alike, or be equal: every
view and chat line tells them apart by number, clients often give everyone the same default
name, and a refusal there would fail a quick play instead of seating the player.

The tables are ICU's (PyICU over the system's libicu): Unicode properties, the NFC and
NFKC_Casefold normalizers, grapheme clusters, RGI emoji and UTS #39 confusable skeletons, so
they follow the Unicode version of the ICU the server runs on instead of lists kept by hand.
"""

from __future__ import annotations

import icu

from . import errors as err

MAX_DISPLAY_NAME = 32

# Invisible or control characters: controls (Cc), format characters (Cf: zero-width spaces and
# joiners, bidi controls, soft hyphen, tags), private use (Co), unassigned (Cn), lone surrogates
# (Cs), line and paragraph separators (Zl, Zp), and every default-ignorable code point (which
# also covers the variation selectors, the combining grapheme joiner and the Hangul fillers,
# letters that render as nothing). None of them shows, so each lets a name differ from another
# without looking different, or reorders or hides what follows it.
_INVISIBLE = icu.UnicodeSet(r"[[:Cc:][:Cf:][:Co:][:Cn:][:Cs:][:Zl:][:Zp:]"
                            r"[:Default_Ignorable_Code_Point:]]")
_INVISIBLE.freeze()
# The one place such characters are allowed: inside a standard (RGI) emoji sequence, where they
# are what phones' keyboards type: VS16 in "❤️" (U+2764 U+FE0F), the joiners in "👩‍💻", the
# tags of a subdivision flag. Any other variation selector is refused: after a letter it changes
# nothing visible, and the ideographic ones (CJK glyph variants) are not needed to write a name.
_EMOJI = icu.UnicodeSet(r"[:RGI_Emoji:]")
_EMOJI.freeze()
# Spaces that Python's str.isspace() misses but that show as nothing: a name of them is blank.
_BLANK = frozenset("\u2800")            # BRAILLE PATTERN BLANK (a symbol, not White_Space)
# The generic diacritics that NFD splits off accented Latin, Greek and Cyrillic letters (and
# their extensions): a name that differs from another by these only (Álice, Alicé) looks like
# it in a chat line, yet UTS #39 keeps them apart. Other scripts' marks (Devanagari viramas,
# Arabic harakat...) are letters' parts there, and stay.
_DIACRITICS = icu.UnicodeSet(r"[[:Block=Combining_Diacritical_Marks:]"
                             r"[:Block=Combining_Diacritical_Marks_Extended:]"
                             r"[:Block=Combining_Diacritical_Marks_Supplement:]"
                             r"[:Block=Combining_Half_Marks:]]")
_DIACRITICS.freeze()

_NFC = icu.Normalizer2.getNFCInstance()
_NFD = icu.Normalizer2.getNFDInstance()
_NFKC = icu.Normalizer2.getNFKCInstance()
_NFKC_CASEFOLD = icu.Normalizer2.getNFKCCasefoldInstance()
_SPOOF = icu.SpoofChecker()


def check_display_name(name: str, field: str = "display_name") -> str:
    """The name as stored, or INVALID_ARGUMENT on ``field``: empty, over MAX_DISPLAY_NAME
    characters (as sent, in code points), only spaces, or with an invisible or control
    character.

    Stored in NFC without the spaces around it: NFC changes no name's look, only its encoding
    (a decomposed "Álice" becomes the precomposed one), so canonically equal names are equal
    strings. Not NFKC: it rewrites what people chose to show ("Ｋｅｎ" to "Ken", "Jo²" to
    "Jo2", "™" to "TM"), and impersonation is caught by ``looks_like`` whatever the form.
    """
    if not name:
        raise err.invalid(field, f"{field}: empty: a name of 1 to {MAX_DISPLAY_NAME} characters "
                                 "is needed")
    if len(name) > MAX_DISPLAY_NAME:
        raise err.invalid(field, f"{field}: {len(name)} characters, at most {MAX_DISPLAY_NAME}")
    hidden = _first_invisible(name)
    if hidden is not None:
        at, char = hidden
        raise err.invalid(field, f"{field}: character {at} is {_described(char)}, an invisible "
                                 "or control character: names may not contain these (except "
                                 "inside an emoji)")
    stored = _NFC.normalize(name).strip()
    if all(c in _BLANK for c in stored):          # stripped of every other space already
        raise err.invalid(field, f"{field}: only spaces: a name needs a visible character")
    return stored


def looks_like(a: str, b: str) -> bool:
    """True if the two names would pass for each other in a chat line: their UTS #39
    confusable skeletons (Cyrillic "А" to Latin "A", "I" and "1" to "l", "m" to "rn"...) are
    equal after NFKC (fullwidth "Ａ" to "A"), case folding and dropping invisible characters,
    then dropping the accents of Latin, Greek and Cyrillic letters and the spaces around."""
    return any(x == y for x, y in zip(_skeletons(a), _skeletons(b)))


def _skeletons(name: str) -> tuple[str, str]:
    """The name's skeleton folded before and after: the skeleton is case-sensitive, so folding
    first misses "AIice" (capital I) for "Alice", and folding only after misses "ALICE" for
    "alice" (the skeleton of capital I is small l)."""
    folded = _NFKC_CASEFOLD.normalize(name)      # NFKC_Casefold drops default-ignorables too
    # ICU 72's skeleton keeps default-ignorables (Unicode 15.1's drops them): gone first here.
    visible = "".join(c for c in _NFKC.normalize(name) if not _INVISIBLE.contains(c))
    return (_bare(_SPOOF.getSkeleton(0, folded)),
            _bare(_NFKC_CASEFOLD.normalize(_SPOOF.getSkeleton(0, visible))))


def _bare(skeleton: str) -> str:
    return "".join(c for c in _NFD.normalize(skeleton) if not _DIACRITICS.contains(c)).strip()


def _first_invisible(name: str) -> tuple[int, str] | None:
    """The first invisible character outside an RGI emoji sequence, with its position (1 for
    the first character), if any."""
    # ICU counts in UTF-16 units: grapheme clusters are cut from an icu.UnicodeString.
    text = icu.UnicodeString(name)
    clusters = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
    clusters.setText(text)
    start, seen = 0, 0
    for end in clusters:
        cluster = str(text[start:end])
        if not _EMOJI.contains(cluster):
            for i, char in enumerate(cluster):
                if _INVISIBLE.contains(char):
                    return seen + i + 1, char
        start, seen = end, seen + len(cluster)
    return None


def _described(char: str) -> str:
    """U+200B ZERO WIDTH SPACE; unassigned and private-use ones have no name."""
    named = icu.Char.charName(char)
    return f"U+{ord(char):04X}" + (f" {named}" if named else "")
