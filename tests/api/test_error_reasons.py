"""Every error reason the server can raise is declared: in belote.v1.ErrorReason (errors.proto)
and in the one table of api/errors.py that gives each reason its status code.

The reasons are read from the source itself (every AppError, Refused, IllegalAction and error
helper call under service/belote/), so a new raise site with a new reason fails here until the
proto and the table know it.
"""

from __future__ import annotations

import ast
import pathlib

import grpc
from belote.api.errors import STATUS_OF_REASON
from belote.app import errors as app_errors
from belote.v1 import errors_pb2

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "service" / "belote"
RAISERS = {"AppError", "IllegalAction", "Refused", "invalid", "aborted", "not_found"}
PREFIX = "ERROR_REASON_"


def _is_reason(text) -> bool:
    return isinstance(text, str) and len(text) > 2 and text.replace("_", "").isalpha() and text.isupper()


def _constants(trees) -> dict[str, str]:
    """NAME = "REASON" assignments at the top of every module."""
    out = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                    and _is_reason(node.value.value):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        out[target.id] = node.value.value
    return out


def raised_reasons() -> set[str]:
    trees = [ast.parse(p.read_text()) for p in SOURCE.rglob("*.py") if "v1" not in p.parts]
    constants = _constants(trees)
    found = set()
    for tree in trees:
        for call in ast.walk(tree):
            if isinstance(call, ast.FunctionDef) and call.name in RAISERS:   # a helper's default
                for default in call.args.defaults:
                    ident = getattr(default, "id", None) or getattr(default, "value", None)
                    found.add(constants.get(ident, ident))
                continue
            if not isinstance(call, ast.Call):
                continue
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if name not in RAISERS:
                continue
            for arg in [*call.args, *(k.value for k in call.keywords if k.arg == "reason")]:
                for node in ast.walk(arg):
                    if isinstance(node, ast.JoinedStr):
                        break                      # a message, not a reason
                    if isinstance(node, ast.Constant) and _is_reason(node.value):
                        found.add(node.value)
                    elif isinstance(node, ast.Name | ast.Attribute):
                        ident = node.id if isinstance(node, ast.Name) else node.attr
                        if ident in constants:
                            found.add(constants[ident])
    return found


def declared() -> set[str]:
    return {v.name.removeprefix(PREFIX) for v in errors_pb2.ErrorReason.DESCRIPTOR.values if v.number}


def test_the_scan_finds_reasons_of_every_kind_of_raise_site():
    found = raised_reasons()
    # the rules, the table's refusals, the app, the api, and defaults of the helpers
    assert {"MUST_FOLLOW_SUIT", "SEAT_TAKEN", "TOO_MANY_TABLES", "READS_TOO_SLOWLY",
            "REQUEST_ID_REUSED", "TABLE_CHANGED", "INVALID_FIELD", "VERSION_CONFLICT",
            "TABLE_NOT_FOUND", "GAME_OVER", "DEAL_IN_PROGRESS"} <= found
    assert len(found) > 55


def test_every_reason_raised_is_in_the_proto_and_the_table():
    found = raised_reasons()
    assert sorted(found - declared()) == []
    assert sorted(found - set(STATUS_OF_REASON)) == []


def test_the_proto_and_the_table_hold_the_same_reasons():
    assert sorted(declared() ^ set(STATUS_OF_REASON)) == []
    assert all(v.name.startswith(PREFIX) for v in errors_pb2.ErrorReason.DESCRIPTOR.values)


def test_each_reason_documents_the_code_the_table_gives_it():
    source = (SOURCE.parents[1] / "proto" / "belote" / "v1" / "errors.proto").read_text()
    section = None
    for line in source.splitlines():
        line = line.strip()
        for code in grpc.StatusCode:
            if line.startswith(f"// {code.name}"):
                section = code                     # "// FAILED_PRECONDITION, from here on: ..."
        if line.startswith(PREFIX) and not line.startswith(PREFIX + "UNSPECIFIED"):
            reason = line.split()[0].removeprefix(PREFIX)
            assert STATUS_OF_REASON[reason] == section, reason


def test_the_app_s_reason_sets_agree_with_the_table():
    assert {r for r, c in STATUS_OF_REASON.items() if c == grpc.StatusCode.ABORTED} == app_errors.RACES
    assert {STATUS_OF_REASON[r] for r in app_errors.JOIN_MISSED} == {grpc.StatusCode.FAILED_PRECONDITION}
