"""promtool accepts the Prometheus config, the rules, the rules' unit tests and the dashboard's
queries. Without promtool these skip, except when CI is set: then they fail."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from deploy_helpers import ROOT, dashboard_exprs, grafana_to_promql, require_promtool


def _promtool(*args: str, cwd=ROOT) -> None:
    promtool = require_promtool()
    done = subprocess.run([promtool, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, (
        f"promtool {' '.join(args)} exited {done.returncode}\n{done.stdout}\n{done.stderr}")


def test_prometheus_config_is_valid():
    _promtool("check", "config", "deploy/prometheus/prometheus.yml")


def test_alert_rules_are_valid():
    _promtool("check", "rules", "deploy/prometheus/alerts.yml")


def test_alert_rules_unit_tests_pass():
    _promtool("test", "rules", "deploy/prometheus/alerts_test.yml")


def test_dashboard_queries_are_valid_promql(tmp_path):
    # promtool has no offline "check this query": each one becomes a recording rule.
    exprs = dashboard_exprs()
    rules = [{"record": f"dashboard:query_{i}", "expr": grafana_to_promql(expr)}
             for i, expr in enumerate(exprs) if not expr.startswith("label_values(")]
    assert rules
    path = tmp_path / "dashboard_rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    _promtool("check", "rules", str(path))


@pytest.mark.parametrize("ci", ["true", "1"])
def test_missing_promtool_fails_under_ci(monkeypatch, ci):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        require_promtool()


def test_missing_promtool_skips_outside_ci(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="promtool not found"):
        require_promtool()
