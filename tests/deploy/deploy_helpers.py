"""Shared helpers for the tests of deploy/: paths, loaders, a minimal Dockerfile reader, promtool."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SOURCE = ROOT / "service" / "belote"
K8S = DEPLOY / "kubernetes"
PROMETHEUS = DEPLOY / "prometheus"
GRAFANA = DEPLOY / "grafana"

GRPC_PORT = 50051
METRICS_PORT = 9464
WEB_PORT = 8080  # the web port: Connect, gRPC-Web and the page (BELOTE_WEB_LISTEN)
METRICS_PATH = "/metrics"

# FALLBACK, until belote.observability (with METRIC_NAMES) lands: the metric names the server is
# to expose, as agreed for the metrics work. metric_names() prefers the module's list; once the
# module exists this list is unused and can go.
FALLBACK_METRIC_NAMES = frozenset({
    "grpc_server_started_total",
    "grpc_server_handled_total",
    "grpc_server_handling_seconds",
    "grpc_server_msg_sent_total",
    "belote_tables_active",
    "belote_watch_streams",
    "belote_events_appended_total",
    "belote_store_append_seconds",
    "belote_append_conflicts_total",
    "belote_bot_decision_seconds",
    "belote_fold_seconds",
    "belote_store_up",
})

# Series a histogram NAME exposes besides NAME itself.
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")

METRIC_RE = re.compile(r"\b(?:grpc_server|belote)_[a-z0-9_]*[a-z0-9]\b")
ENV_RE = re.compile(r"\bBELOTE_[A-Z][A-Z0-9_]*\b")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_promtool() -> str:
    """promtool's path; skip without it, but fail when CI is set (CI must run these checks)."""
    path = shutil.which("promtool")
    if path:
        return path
    message = ("promtool not found on PATH: install Debian's `prometheus` package "
               "(`make tools` does it when run as root)")
    if in_ci():
        pytest.fail(f"{message}. CI is set, so this check may not be skipped.")
    pytest.skip(message)


def metric_names() -> tuple[frozenset[str], str]:
    """(names, where they come from): belote.observability.METRIC_NAMES, else the fallback."""
    try:
        from belote.observability import METRIC_NAMES
    except ModuleNotFoundError as exc:
        if exc.name not in ("belote.observability",):
            raise
        return FALLBACK_METRIC_NAMES, "FALLBACK list in tests/deploy/deploy_helpers.py"
    return frozenset(METRIC_NAMES), "belote.observability.METRIC_NAMES"


def base_metric(name: str, known: frozenset[str]) -> str | None:
    """The exposed metric `name` belongs to (a histogram's _bucket -> the histogram), or None."""
    if name in known:
        return name
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and name.removesuffix(suffix) in known:
            return name.removesuffix(suffix)
    return None


# ------------------------------------------------------------------------------------ files

def deploy_files(*suffixes: str) -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*") if p.is_file() and p.name.endswith(suffixes))


def load_yaml_all(path: Path) -> list:
    with path.open(encoding="utf-8") as f:
        return [doc for doc in yaml.safe_load_all(f) if doc is not None]


def load_yaml(path: Path):
    docs = load_yaml_all(path)
    assert len(docs) == 1, f"{path}: expected one YAML document, found {len(docs)}"
    return docs[0]


def load_json(path: Path):
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def k8s_objects() -> dict[str, dict]:
    """kind -> object, for the manifests kustomization.yaml lists."""
    kustomization = load_yaml(K8S / "kustomization.yaml")
    objects: dict[str, dict] = {}
    for resource in kustomization["resources"]:
        for obj in load_yaml_all(K8S / resource):
            assert obj["kind"] not in objects, f"two {obj['kind']} objects"
            objects[obj["kind"]] = obj
    return objects


def compose() -> dict:
    return load_yaml(DEPLOY / "docker-compose.yml")


def belote_services(doc: dict) -> dict[str, dict]:
    """The compose services that run the belote image (built from deploy/Dockerfile)."""
    return {name: svc for name, svc in doc["services"].items()
            if svc.get("build", {}).get("dockerfile") == "deploy/Dockerfile"}


def source_text() -> str:
    """All Python source of service/belote/, without the generated stubs (belote/v1)."""
    parts = []
    for path in sorted(SOURCE.rglob("*.py")):
        if (SOURCE / "v1") in path.parents:
            continue
        parts.append(path.read_text(encoding="utf-8"))
    return "\n".join(parts)


# ------------------------------------------------------------------------------- Dockerfile

def dockerfile_instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs: comments dropped, continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") and not pending:
            continue
        if stripped.startswith("#"):  # a comment inside a continued instruction
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        line = (pending + stripped).strip()
        pending = ""
        if not line:
            continue
        keyword, _, args = line.partition(" ")
        instructions.append((keyword.upper(), args.strip()))
    assert not pending, f"{path}: ends inside a continued line"
    return instructions


def exec_form(args: str) -> list[str]:
    """The JSON array of an exec-form ENTRYPOINT/CMD/HEALTHCHECK CMD."""
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), args
    return value


def dockerfile_stages(instructions: list[tuple[str, str]]) -> dict[str, tuple[str, list]]:
    """Stage name -> (its base image or stage, its instructions), in order, with the global
    ARGs' defaults put into the bases (`FROM ${PYTHON_IMAGE} AS build` -> python:3.11-slim)."""
    args: dict[str, str] = {}
    stages: dict[str, tuple[str, list]] = {}
    current: list | None = None
    for keyword, rest in instructions:
        if keyword == "ARG" and current is None:
            name, _, default = rest.partition("=")
            args[name] = default
        elif keyword == "FROM":
            words = rest.split()
            assert len(words) == 3 and words[1].upper() == "AS", f"FROM <base> AS <name>: {rest}"
            base = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], words[0])
            current = []
            stages[words[2]] = (base, current)
        elif current is not None:
            current.append((keyword, rest))
    return stages


def dockerfile_env(instructions: list[tuple[str, str]], stage: int = -1) -> dict[str, str]:
    """ENV NAME=value pairs set in one stage (default: the last one)."""
    stages: list[list[tuple[str, str]]] = []
    for keyword, args in instructions:
        if keyword == "FROM":
            stages.append([])
        elif stages:
            stages[-1].append((keyword, args))
    env: dict[str, str] = {}
    for keyword, args in stages[stage]:
        if keyword == "ENV":
            for pair in args.split():
                name, sep, value = pair.partition("=")
                assert sep, f"ENV in the form NAME=value, got {pair!r}"
                env[name] = value
    return env


# ------------------------------------------------------------------------- PromQL and Grafana

def alert_rules() -> list[dict]:
    doc = load_yaml(PROMETHEUS / "alerts.yml")
    return [rule for group in doc["groups"] for rule in group["rules"] if "alert" in rule]


def dashboard() -> dict:
    return load_json(GRAFANA / "dashboards" / "belote.json")


def dashboard_panels(doc: dict | None = None) -> list[dict]:
    doc = doc or dashboard()
    panels = []
    for panel in doc["panels"]:
        panels.append(panel)
        panels.extend(panel.get("panels", []))  # panels of a collapsed row
    return panels


def dashboard_exprs(doc: dict | None = None) -> list[str]:
    doc = doc or dashboard()
    exprs = [t["expr"] for p in dashboard_panels(doc) for t in p.get("targets", []) if "expr" in t]
    for var in doc.get("templating", {}).get("list", []):
        query = var.get("query")
        if var.get("type") == "query":
            exprs.append(query["query"] if isinstance(query, dict) else query)
    return exprs


def grafana_to_promql(expr: str) -> str:
    """A dashboard expression as plain PromQL: Grafana's variables replaced by sample values."""
    expr = expr.replace("$__rate_interval", "5m").replace("$__interval", "1m")
    return expr.replace("$instance", ".*")
