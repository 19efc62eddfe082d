"""Rule options and the eight presets of SPEC §9, as data.

``rules_for("belgian", {"target": "151"})`` gives a frozen :class:`Rules`; an unknown preset,
option or value, or a combination the engine cannot honour, raises :class:`InvalidOptions`
listing what is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import InvalidOptions

# What a new table may ask for: the presets play to 101..1010 points, and every point of target
# is log a table writes. Logs of tables made before this bound still read (up to 100000).
MAX_TARGET, MAX_STORED_TARGET = 10_000, 100_000

# Option name -> accepted values. bool and int options are marked by their type.
CHOICES: dict[str, tuple[str, ...] | type] = {
    "bidding": ("two_rounds", "two_rounds_with_no_trump", "none"),
    "all_pass": ("redeal", "forced_trump"),
    "play": ("standard", "belgian", "free"),
    "undertrump": ("required", "allowed"),
    "values": ("standard", "enhanced"),
    "belote_order": ("any", "king_first"),
    "belote_in_contract": bool,
    "announcements": ("off", "classic", "enhanced"),
    "announcements_in_contract": bool,
    "litige": ("reserve", "dedans"),
    "scoring": ("points", "belgian_tens"),
    "multipliers": ("none", "sa_ta", "x3_both"),
    "target": int,
    "first_dealer": int,
    "play_direction": ("counter_clockwise", "clockwise"),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of SPEC.md; build it with :func:`rules_for`."""

    bidding: str = "two_rounds"
    all_pass: str = "redeal"
    play: str = "standard"
    undertrump: str = "allowed"
    values: str = "standard"
    belote_order: str = "any"
    belote_in_contract: bool = True
    announcements: str = "off"
    announcements_in_contract: bool = True
    litige: str = "reserve"
    scoring: str = "points"
    multipliers: str = "none"
    target: int = 1000
    first_dealer: int = 0
    play_direction: str = "counter_clockwise"

    def as_strings(self) -> dict[str, str]:
        """Option name -> value as text (``"true"``/``"false"`` for flags), in SPEC order."""
        return {k: _to_text(v) for k, v in asdict(self).items()}

    def __str__(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.as_strings().items())


def _preset(bidding, all_pass, play, undertrump, values, belote_order, belote_in_contract,
            announcements, announcements_in_contract, litige, scoring, multipliers, target):
    return dict(bidding=bidding, all_pass=all_pass, play=play, undertrump=undertrump,
                values=values, belote_order=belote_order, belote_in_contract=belote_in_contract,
                announcements=announcements, announcements_in_contract=announcements_in_contract,
                litige=litige, scoring=scoring, multipliers=multipliers, target=target)


# SPEC §9, one row per preset, columns in the table's order.
PRESETS: dict[str, dict] = {
    "classic": _preset("two_rounds", "redeal", "standard", "allowed", "standard", "any", True,
                       "off", True, "reserve", "points", "none", 1000),
    "classic-501": _preset("two_rounds", "redeal", "standard", "required", "standard", "any", True,
                           "off", True, "dedans", "points", "none", 501),
    "belgian": _preset("two_rounds", "forced_trump", "belgian", "required", "standard", "king_first",
                       True, "classic", True, "reserve", "belgian_tens", "none", 101),
    "belgian-open": _preset("two_rounds", "redeal", "standard", "required", "standard", "any", True,
                            "classic", True, "reserve", "points", "none", 1010),
    "online-classic": _preset("two_rounds", "redeal", "standard", "required", "standard", "any",
                              False, "off", False, "reserve", "points", "none", 1000),
    "modern": _preset("two_rounds_with_no_trump", "redeal", "standard", "required", "standard",
                      "any", False, "off", False, "reserve", "points", "sa_ta", 1000),
    "kamikaze": _preset("none", "redeal", "standard", "required", "standard", "any", False,
                        "off", False, "reserve", "points", "x3_both", 1000),
    "enhanced": _preset("two_rounds", "redeal", "free", "required", "enhanced", "any", False,
                        "enhanced", False, "dedans", "points", "none", 1000),
}

PRESET_SHEETS = {
    "classic": "001", "classic-501": "002", "belgian": "000", "belgian-open": "000 last paragraph",
    "online-classic": "003", "modern": "003", "kamikaze": "003", "enhanced": "004",
}


def _to_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_value(name: str, value, max_target: int = MAX_TARGET) -> object:
    kind = CHOICES[name]
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1", "on"):
            return True
        if text in ("false", "no", "0", "off"):
            return False
        raise InvalidOptions(f"option {name}: {value!r} is not a flag (use true or false)", field=name)
    if kind is int:
        try:
            number = int(str(value).strip())
        except ValueError:
            raise InvalidOptions(f"option {name}: {value!r} is not a whole number", field=name) from None
        if name == "target" and not 1 <= number <= max_target:
            raise InvalidOptions(f"option target: must be between 1 and {max_target}", field=name)
        if name == "first_dealer" and not 0 <= number <= 3:
            raise InvalidOptions("option first_dealer: must be a seat 0, 1, 2 or 3", field=name)
        return number
    assert isinstance(kind, tuple)
    text = str(value).strip().lower().replace("-", "_")
    if text not in kind:
        raise InvalidOptions(
            f"option {name}: unknown value {value!r} (valid: {', '.join(kind)})", field=name)
    return text


def check_combination(rules: Rules) -> None:
    """Refuse the combinations SPEC §9 lists, with the reason."""
    if rules.play == "belgian" and rules.undertrump == "allowed":
        raise InvalidOptions("play=belgian needs undertrump=required (the Belgian rule forces undertrumping)",
                             field="undertrump")
    if rules.values == "enhanced" and rules.bidding != "two_rounds":
        raise InvalidOptions("values=enhanced is only played with bidding=two_rounds", field="values")
    if rules.scoring == "belgian_tens" and not (
            rules.bidding == "two_rounds" and rules.values == "standard" and rules.announcements != "enhanced"):
        raise InvalidOptions("scoring=belgian_tens needs bidding=two_rounds, values=standard and "
                             "announcements off or classic", field="scoring")
    if rules.announcements == "enhanced" and rules.announcements_in_contract:
        raise InvalidOptions("announcements=enhanced never count in the contract: "
                             "set announcements_in_contract=false", field="announcements_in_contract")


def rules_for(preset: str = "classic", overrides: Mapping[str, object] | None = None) -> Rules:
    """The rules of a preset with options overridden on top (values may be text)."""
    if preset not in PRESETS:
        raise InvalidOptions(f"unknown preset {preset!r} (valid: {', '.join(PRESETS)})", field="preset")
    values = dict(PRESETS[preset])
    for name, value in (overrides or {}).items():
        if name not in CHOICES:
            raise InvalidOptions(f"unknown option {name!r} (valid: {', '.join(CHOICES)})", field=name)
        values[name] = _parse_value(name, value)
    rules = Rules(**values)
    check_combination(rules)
    return rules


def rules_from_strings(options: Mapping[str, str]) -> Rules:
    """Rebuild rules from :meth:`Rules.as_strings` (as stored in a TableCreated event)."""
    base = Rules()
    values: dict[str, Any] = {
        f.name: _parse_value(f.name, options.get(f.name, _to_text(getattr(base, f.name))),
                             MAX_STORED_TARGET)
        for f in fields(Rules)}
    rules = replace(base, **values)
    check_combination(rules)
    return rules


def describe_choices() -> dict[str, str]:
    """Option -> accepted values, for help texts."""
    out = {}
    for name, kind in CHOICES.items():
        if kind is bool:
            out[name] = "true | false"
        elif kind is int:
            out[name] = f"1..{MAX_TARGET}" if name == "target" else "0..3"
        else:
            assert isinstance(kind, tuple)
            out[name] = " | ".join(kind)
    return out
