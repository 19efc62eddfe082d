"""SPEC §9: presets, options set on their own, and what is refused when a table is created."""

from __future__ import annotations

import pytest
from belote.rules import PRESETS, InvalidOptions, Rules, rules_for, rules_from_strings

COLUMNS = ("bidding", "all_pass", "play", "undertrump", "values", "belote_order",
           "belote_in_contract", "announcements", "announcements_in_contract", "litige", "scoring",
           "multipliers", "target")

# SPEC §9's table, row by row, as printed (yes/no as flags).
TABLE = """
classic        two_rounds               redeal       standard allowed   standard any        yes off      yes reserve points       none    1000
classic-501    two_rounds               redeal       standard required  standard any        yes off      yes dedans  points       none    501
belgian        two_rounds               forced_trump belgian  required  standard king_first yes classic  yes reserve belgian_tens none    101
belgian-open   two_rounds               redeal       standard required  standard any        yes classic  yes reserve points       none    1010
online-classic two_rounds               redeal       standard required  standard any        no  off      no  reserve points       none    1000
modern         two_rounds_with_no_trump redeal       standard required  standard any        no  off      no  reserve points       sa_ta   1000
kamikaze       none                     redeal       standard required  standard any        no  off      no  reserve points       x3_both 1000
enhanced       two_rounds               redeal       free     required  enhanced any        no  enhanced no  dedans  points       none    1000
"""


def spec_rows() -> dict[str, dict]:
    rows = {}
    for line in TABLE.strip().splitlines():
        words = line.split()
        preset, values = words[0], words[1:]
        row = dict(zip(COLUMNS, values))
        for flag in ("belote_in_contract", "announcements_in_contract"):
            row[flag] = row[flag] == "yes"
        row["target"] = int(row["target"])
        rows[preset] = row
    return rows


def test_the_eight_presets_match_the_spec_table():
    """SPEC §9 «| preset | sheet | bidding | all_pass | play | undertrump | values | belote_order |
    belote_in_contract | announcements | announcements_in_contract | litige | scoring |
    multipliers | target |»
    """
    expected = spec_rows()
    assert list(PRESETS) == list(expected)
    for preset, row in expected.items():
        rules = rules_for(preset)
        assert {c: getattr(rules, c) for c in COLUMNS} == row, preset
        assert (rules.first_dealer, rules.play_direction) == (0, "counter_clockwise")


def test_every_option_is_settable_on_top_of_a_preset():
    """SPEC §9 «Every option is also settable on its own when a table is created (for example
    announcements on online-classic, modern and kamikaze, or any target), on top of a preset, and
    so are first_dealer (default 0) and play_direction (default counter-clockwise).»
    """
    for preset in ("online-classic", "modern", "kamikaze"):
        rules = rules_for(preset, {"announcements": "classic"})
        assert (rules.announcements, rules.announcements_in_contract) == ("classic", False)
    rules = rules_for("belgian", {"target": "151", "first_dealer": 2, "play_direction": "clockwise",
                                  "belote_order": "any"})
    assert (rules.target, rules.first_dealer, rules.play_direction, rules.belote_order) == (
        151, 2, "clockwise", "any")
    assert rules.scoring == "belgian_tens" and rules.all_pass == "forced_trump"
    assert rules_for("classic", {"belote_in_contract": "no"}).belote_in_contract is False
    assert rules_for("classic", {"belote_in_contract": False}).belote_in_contract is False
    assert rules_for("online-classic", {"belote_in_contract": "TRUE"}).belote_in_contract is True
    assert rules_for("classic", {"play": "belgian", "undertrump": "required"}).play == "belgian"


def test_rules_round_trip_as_strings():
    """SPEC §9 «Every option is also settable on its own when a table is created (for example
    announcements on online-classic, modern and kamikaze, or any target), on top of a preset, and
    so are first_dealer (default 0) and play_direction (default counter-clockwise).»
    """
    for preset in PRESETS:
        rules = rules_for(preset, {"first_dealer": 1})
        text = rules.as_strings()
        assert rules_from_strings(text) == rules
    assert rules_for("belgian").as_strings()["belote_in_contract"] == "true"
    assert Rules() == rules_for("classic")


def refusal(preset: str, overrides=None) -> tuple[str, str]:
    with pytest.raises(InvalidOptions) as err:
        rules_for(preset, overrides or {})
    return err.value.field, str(err.value)


def test_unknown_preset_option_or_value_lists_the_valid_ones():
    """SPEC §9 «An option value the engine does not know, or a combination it cannot honour, is
    refused with a clear error when the table is created, never later.»
    """
    assert refusal("belote") == (
        "preset", ("unknown preset 'belote' (valid: classic, classic-501, belgian, belgian-open, "
                   "online-classic, modern, kamikaze, enhanced)"))
    assert refusal("classic", {"trump": "hearts"}) == (
        "trump", ("unknown option 'trump' (valid: bidding, all_pass, play, undertrump, values, "
                  "belote_order, belote_in_contract, announcements, announcements_in_contract, "
                  "litige, scoring, multipliers, target, first_dealer, play_direction)"))
    assert refusal("classic", {"bidding": "three_rounds"}) == (
        "bidding", ("option bidding: unknown value 'three_rounds' (valid: two_rounds, "
                    "two_rounds_with_no_trump, none)"))
    assert refusal("classic", {"multipliers": "x2"}) == (
        "multipliers", "option multipliers: unknown value 'x2' (valid: none, sa_ta, x3_both)")
    assert refusal("classic", {"belote_in_contract": "maybe"}) == (
        "belote_in_contract", "option belote_in_contract: 'maybe' is not a flag (use true or false)")
    assert refusal("classic", {"target": "lots"}) == (
        "target", "option target: 'lots' is not a whole number")
    assert refusal("classic", {"target": 0}) == ("target", "option target: must be between 1 and 10000")
    assert refusal("classic", {"target": 10_001}) == ("target", "option target: must be between 1 and 10000")
    assert refusal("classic", {"first_dealer": 4}) == (
        "first_dealer", "option first_dealer: must be a seat 0, 1, 2 or 3")
    assert isinstance(InvalidOptions("x"), ValueError)


def test_a_new_table_plays_to_10000_at_most_and_every_preset_far_below():
    assert rules_for("classic", {"target": "10000"}).target == 10_000
    assert max(rules_for(p).target for p in PRESETS) <= 10_000 // 9
    # The log of a table made when 100000 was allowed still reads.
    assert rules_from_strings({**rules_for("classic").as_strings(), "target": "100000"}).target == 100_000


@pytest.mark.parametrize("preset, overrides, field, message", [
    ("belgian", {"undertrump": "allowed"}, "undertrump",
     "play=belgian needs undertrump=required (the Belgian rule forces undertrumping)"),
    ("classic", {"play": "belgian"}, "undertrump",
     "play=belgian needs undertrump=required (the Belgian rule forces undertrumping)"),
    ("enhanced", {"bidding": "two_rounds_with_no_trump"}, "values",
     "values=enhanced is only played with bidding=two_rounds"),
    ("kamikaze", {"values": "enhanced"}, "values",
     "values=enhanced is only played with bidding=two_rounds"),
    ("belgian", {"bidding": "two_rounds_with_no_trump"}, "scoring",
     "scoring=belgian_tens needs bidding=two_rounds, values=standard and announcements off or classic"),
    ("belgian", {"values": "enhanced"}, "scoring",
     "scoring=belgian_tens needs bidding=two_rounds, values=standard and announcements off or classic"),
    ("belgian", {"announcements": "enhanced", "announcements_in_contract": "false"}, "scoring",
     "scoring=belgian_tens needs bidding=two_rounds, values=standard and announcements off or classic"),
    ("kamikaze", {"scoring": "belgian_tens"}, "scoring",
     "scoring=belgian_tens needs bidding=two_rounds, values=standard and announcements off or classic"),
    ("classic", {"announcements": "enhanced"}, "announcements_in_contract",
     "announcements=enhanced never count in the contract: set announcements_in_contract=false"),
    ("enhanced", {"announcements_in_contract": "true"}, "announcements_in_contract",
     "announcements=enhanced never count in the contract: set announcements_in_contract=false"),
])
def test_refused_combinations(preset, overrides, field, message):
    """SPEC §9 «Refused combinations: play=belgian with undertrump=allowed; values=enhanced with
    bidding other than two_rounds; scoring=belgian_tens unless bidding=two_rounds,
    values=standard and announcements not enhanced; announcements=enhanced with
    announcements_in_contract=true.»
    """
    assert refusal(preset, overrides) == (field, message)


def test_allowed_combinations_near_the_refused_ones():
    """SPEC §9 «(undertrump matters only with play=standard/belgian; all_pass is unused with
    bidding=none.)»
    """
    assert rules_for("enhanced", {"undertrump": "allowed"}).undertrump == "allowed"     # free play
    assert rules_for("kamikaze", {"all_pass": "forced_trump"}).all_pass == "forced_trump"
    assert rules_for("online-classic", {"announcements": "enhanced"}).announcements == "enhanced"
    assert rules_for("belgian", {"announcements": "off"}).scoring == "belgian_tens"
    assert rules_for("enhanced", {"values": "standard"}).values == "standard"


def test_refused_from_stored_strings_too():
    """SPEC §9 «An option value the engine does not know, or a combination it cannot honour, is
    refused with a clear error when the table is created, never later.»
    """
    text = rules_for("belgian").as_strings()
    text["undertrump"] = "allowed"
    with pytest.raises(InvalidOptions) as err:
        rules_from_strings(text)
    assert err.value.field == "undertrump"
