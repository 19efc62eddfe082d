"""deploy/: every file parses, and the files agree with each other (names, ports, paths, mounts)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from belote.api.server import LIVENESS, READINESS_NAMES
from deploy_helpers import (
    DEPLOY,
    GRAFANA,
    GRPC_PORT,
    K8S,
    METRICS_PATH,
    METRICS_PORT,
    PROMETHEUS,
    ROOT,
    WEB_PORT,
    belote_services,
    compose,
    dashboard,
    dashboard_exprs,
    dashboard_panels,
    deploy_files,
    dockerfile_env,
    dockerfile_instructions,
    dockerfile_stages,
    exec_form,
    k8s_objects,
    load_json,
    load_yaml,
    load_yaml_all,
)

COMPOSE_STORE = "postgresql://belote:belote@postgres:5432/belote"


# ----------------------------------------------------------------------------------- parsing

YAML_FILES = deploy_files(".yml", ".yaml")
JSON_FILES = deploy_files(".json")


def test_deploy_has_the_expected_files():
    expected = [
        "Dockerfile", "Dockerfile.dockerignore", "README.md", "docker-compose.yml",
        "belote.env.example", ".gitignore",
        "kubernetes/kustomization.yaml", "kubernetes/deployment.yaml", "kubernetes/service.yaml",
        "kubernetes/hpa.yaml", "kubernetes/pdb.yaml", "kubernetes/configmap.yaml",
        "kubernetes/ingress.yaml",
        "kubernetes/secret.example.yaml",
        "prometheus/prometheus.yml", "prometheus/alerts.yml", "prometheus/alerts_test.yml",
        "grafana/provisioning/datasources/prometheus.yml",
        "grafana/provisioning/dashboards/belote.yml", "grafana/dashboards/belote.json",
    ]
    missing = [name for name in expected if not (DEPLOY / name).is_file()]
    assert not missing, f"missing under deploy/: {missing}"
    assert YAML_FILES and JSON_FILES


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_yaml_parses(path: Path):
    docs = load_yaml_all(path)
    assert docs, f"{path} holds no YAML document"
    assert all(isinstance(doc, dict) for doc in docs), f"{path}: a document is not a mapping"


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_json_parses(path: Path):
    assert isinstance(load_json(path), dict)


# -------------------------------------------------------------------------------- Dockerfile

DOCKERFILE = dockerfile_instructions(DEPLOY / "Dockerfile")


def _all(keyword: str) -> list[str]:
    return [args for kw, args in DOCKERFILE if kw == keyword]


def test_dockerfile_is_multi_stage_on_python_slim():
    stages = dockerfile_stages(DOCKERFILE)
    assert list(stages) == ["web", "build", "with-page", "runtime"]
    bases = {name: base for name, (base, _) in stages.items()}
    assert bases["build"].startswith("python:3.11-slim"), bases
    assert bases["runtime"] == bases["build"], "the runtime runs on the image it was built on"
    assert bases["web"].startswith("node:"), "the package and the page are built by Node.js alone"
    assert bases["with-page"] == "build", "the page goes into the build stage's virtualenv"
    runtime_copies = [args for kw, args in stages["runtime"][1] if kw == "COPY"]
    assert runtime_copies == ["--from=with-page /opt/belote /opt/belote"], \
        "the runtime stage copies only the virtualenv (with the page) from the build stages"


def test_dockerfile_runs_as_a_non_root_user():
    users = _all("USER")
    assert users, "no USER: the image would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), f"last USER is {users[-1]!r}"
    # Numeric, so that Kubernetes' runAsNonRoot can check it; and the manifests agree.
    assert user.isdigit()
    pod = k8s_objects()["Deployment"]["spec"]["template"]["spec"]["securityContext"]
    assert pod["runAsNonRoot"] is True and str(pod["runAsUser"]) == user


def test_dockerfile_healthcheck_exposes_entrypoint_and_cmd():
    healthchecks = _all("HEALTHCHECK")
    assert len(healthchecks) == 1
    command = healthchecks[0].split(" CMD ", 1)
    assert len(command) == 2, "HEALTHCHECK [options] CMD [...]"
    argv = exec_form(command[1])
    assert argv[:2] == ["belote", "health"] and "--live" in argv
    assert argv[argv.index("--target") + 1] == f"127.0.0.1:{GRPC_PORT}"

    exposed = {int(p.split("/")[0]) for e in _all("EXPOSE") for p in e.split()}
    assert {GRPC_PORT, METRICS_PORT} <= exposed

    assert exec_form(_all("ENTRYPOINT")[-1]) == ["belote"]
    assert exec_form(_all("CMD")[-1]) == ["serve", "--listen", f"0.0.0.0:{GRPC_PORT}"]
    env = dockerfile_env(DOCKERFILE)
    assert env["BELOTE_METRICS_LISTEN"] == f"0.0.0.0:{METRICS_PORT}"


def test_dockerfile_generates_the_stubs_like_the_makefile():
    runs = " ".join(_all("RUN"))
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "python -m grpc_tools.protoc" in runs
    # The same protoc output options as `make proto`.
    for option in ("--python_out=service", "--pyi_out=service", "--grpc_python_out=service"):
        assert option in runs and option in makefile, option
    assert "proto/belote/v1/*.proto" in runs


def test_dockerignore_keeps_local_stubs_out():
    lines = [ln.strip() for ln in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "*", "start from nothing, then let in what the build needs"
    for needed in ("!pyproject.toml", "!README.md", "!proto", "!service"):
        assert needed in lines, needed
    assert any("service/belote/v1/" in ln and "_pb2" in ln for ln in lines)
    # What the Dockerfile COPYs from the context is let in.
    for copy in _all("COPY"):
        if "--from=" in copy:
            continue
        for source in copy.split()[:-1]:
            assert f"!{source.rstrip('/')}" in lines, f"COPY {source} but .dockerignore drops it"


# ---------------------------------------------------------------------------- docker compose

def test_compose_runs_two_replicas_on_postgres():
    doc = compose()
    services = doc["services"]
    replicas = belote_services(doc)
    assert len(replicas) >= 2, "two replicas on the same store"
    pg = services["postgres"]
    assert pg["healthcheck"]["test"], "PostgreSQL has a healthcheck"
    for name, svc in replicas.items():
        env = svc["environment"]
        assert env["BELOTE_STORE"] == COMPOSE_STORE, name
        assert env["BELOTE_METRICS_LISTEN"] == f"0.0.0.0:{METRICS_PORT}", name
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy", name
        assert svc["build"]["context"] == "..", "the repository root is the build context"
        assert "BELOTE_REVIEWER_TOKEN" not in env, "the token comes from the env file"
        assert svc["env_file"] == ["belote.env"], name
        # stop_grace_period above the server's own grace
        assert _seconds(svc["stop_grace_period"]) > float(env["BELOTE_GRACE"]), name
    # The user's env file is ignored by git; the example is committed and sets the token.
    assert "belote.env" in (DEPLOY / ".gitignore").read_text().split()
    assert "BELOTE_REVIEWER_TOKEN=" in (DEPLOY / "belote.env.example").read_text()


def _seconds(duration: str) -> float:
    match = re.fullmatch(r"(\d+)(s|m)", str(duration))
    assert match, duration
    return float(match[1]) * (60 if match[2] == "m" else 1)


def test_compose_bind_mounts_exist():
    for name, svc in compose()["services"].items():
        for volume in svc.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name}: {source} does not exist"


def test_compose_prometheus_scrapes_every_replica_and_loads_the_rules():
    doc = compose()
    mounts = {v.split(":")[1]: v.split(":")[0] for v in doc["services"]["prometheus"]["volumes"]}
    assert mounts["/etc/prometheus/prometheus.yml"] == "./prometheus/prometheus.yml"
    assert mounts["/etc/prometheus/alerts.yml"] == "./prometheus/alerts.yml"

    config = load_yaml(PROMETHEUS / "prometheus.yml")
    assert config["rule_files"] == ["alerts.yml"]  # relative to the config: mounted beside it
    job = next(j for j in config["scrape_configs"] if j["job_name"] == "belote")
    assert job["metrics_path"] == METRICS_PATH
    targets = {t for sc in job["static_configs"] for t in sc["targets"]}
    assert targets == {f"{name}:{METRICS_PORT}" for name in belote_services(doc)}


def test_compose_grafana_provisioning_matches_the_mounts():
    doc = compose()
    mounts = {v.split(":")[1]: v.split(":")[0] for v in doc["services"]["grafana"]["volumes"]}
    assert mounts["/etc/grafana/provisioning"] == "./grafana/provisioning"
    provider = load_yaml(GRAFANA / "provisioning" / "dashboards" / "belote.yml")["providers"][0]
    dashboards_dir = provider["options"]["path"]
    assert mounts[dashboards_dir] == "./grafana/dashboards"

    datasource = load_yaml(GRAFANA / "provisioning" / "datasources" / "prometheus.yml")
    source = datasource["datasources"][0]
    assert source["type"] == "prometheus"
    assert source["url"] == "http://prometheus:9090" and "prometheus" in doc["services"]
    # The dashboard's datasource variable defaults to the provisioned datasource.
    var = next(v for v in dashboard()["templating"]["list"] if v["type"] == "datasource")
    assert var["current"]["value"] == source["uid"]


# -------------------------------------------------------------------------------- Kubernetes

def _container(objects: dict) -> dict:
    containers = objects["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def test_kustomization_lists_every_manifest_but_the_secret_example():
    resources = load_yaml(K8S / "kustomization.yaml")["resources"]
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(resources) == on_disk - {"secret.example.yaml"}
    objects = k8s_objects()
    assert set(objects) == {"ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler",
                            "PodDisruptionBudget", "Ingress"}
    assert "Secret" not in objects


def test_kustomize_builds_when_kubectl_is_there():
    # Optional (kubectl is not a requirement of the tests): kustomize renders the same objects.
    kubectl = shutil.which("kubectl")
    if not kubectl:
        pytest.skip("kubectl not found: `kubectl kustomize deploy/kubernetes` not checked")
    done = subprocess.run([kubectl, "kustomize", str(K8S)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    rendered = [doc for doc in yaml.safe_load_all(done.stdout) if doc]
    assert sorted(d["kind"] for d in rendered) == sorted(k8s_objects())


def test_deployment_probes_resources_and_shutdown():
    objects = k8s_objects()
    pod = objects["Deployment"]["spec"]["template"]["spec"]
    container = _container(objects)
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == GRPC_PORT, probe
    # Restarts on liveness only (the process works); readiness follows the store.
    assert container["startupProbe"]["grpc"]["service"] == LIVENESS
    assert container["livenessProbe"]["grpc"]["service"] == LIVENESS
    assert container["readinessProbe"]["grpc"].get("service", "") in READINESS_NAMES
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(container["resources"][kind]), kind
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": GRPC_PORT, "metrics": METRICS_PORT, "web": WEB_PORT}

    sleep = container["lifecycle"]["preStop"]["exec"]["command"]
    assert sleep[0] == "sleep"
    grace = float(objects["ConfigMap"]["data"]["BELOTE_GRACE"])
    assert pod["terminationGracePeriodSeconds"] > float(sleep[1]) + grace

    annotations = objects["Deployment"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(METRICS_PORT)
    assert annotations["prometheus.io/path"] == METRICS_PATH


def test_deployment_env_comes_from_the_configmap_and_the_secret():
    objects = k8s_objects()
    container = _container(objects)
    config = objects["ConfigMap"]
    assert [e["configMapRef"]["name"] for e in container["envFrom"]] == [config["metadata"]["name"]]
    assert {"BELOTE_LISTEN", "BELOTE_METRICS_LISTEN", "BELOTE_LOG_LEVEL", "BELOTE_LOG_FORMAT",
            "BELOTE_DISCONNECT_GRACE"} <= set(config["data"])
    assert config["data"]["BELOTE_LOG_FORMAT"] == "json"
    assert config["data"]["BELOTE_LISTEN"] == f"0.0.0.0:{GRPC_PORT}"
    assert config["data"]["BELOTE_METRICS_LISTEN"] == f"0.0.0.0:{METRICS_PORT}"
    assert all(isinstance(v, str) for v in config["data"].values()), "ConfigMap values are strings"

    refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"]}
    assert set(refs) == {"BELOTE_STORE", "BELOTE_REVIEWER_TOKEN"}
    example = load_yaml(K8S / "secret.example.yaml")
    assert example["kind"] == "Secret"
    for ref in refs.values():
        assert ref["name"] == example["metadata"]["name"] == "belote-secrets"
        assert ref["key"] in example["stringData"]
        assert "CHANGE-ME" in example["stringData"][ref["key"]], "placeholders only"
    # No secret value in the ConfigMap.
    assert not {"BELOTE_STORE", "BELOTE_REVIEWER_TOKEN"} & set(config["data"])


def test_the_server_key_file_is_mounted_from_a_secret_in_kubernetes_and_compose():
    objects = k8s_objects()
    key_file = objects["ConfigMap"]["data"]["BELOTE_KEY_FILE"]
    directory, name = key_file.rsplit("/", 1)
    container = _container(objects)
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in objects["Deployment"]["spec"]["template"]["spec"]["volumes"]}
    (mount,) = [m for m in mounts.values() if m["mountPath"] == directory]
    assert mount["readOnly"] is True
    secret = volumes[mount["name"]]["secret"]
    assert secret["secretName"] == "belote-secrets"
    assert secret["items"] == [{"key": name, "path": name}]
    assert secret["defaultMode"] & 0o007 == 0, "not readable by others"
    assert name in load_yaml(K8S / "secret.example.yaml")["stringData"]
    doc = compose()
    for svc in belote_services(doc).values():
        assert svc["secrets"] == ["belote-key"]
        assert svc["environment"]["BELOTE_KEY_FILE"] == "/run/secrets/belote-key"
    assert doc["secrets"]["belote-key"]["file"] == "./server.key"
    assert "server.key" in (DEPLOY / ".gitignore").read_text().split()


def test_service_hpa_and_pdb_point_at_the_deployment():
    objects = k8s_objects()
    deployment = objects["Deployment"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()

    service = objects["Service"]
    assert service["spec"]["selector"].items() <= labels.items()
    container_ports = {p["name"] for p in _container(objects)["ports"]}
    ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert ports["grpc"]["port"] == GRPC_PORT and ports["metrics"]["port"] == METRICS_PORT
    assert ports["web"]["port"] == WEB_PORT
    assert {p["targetPort"] for p in ports.values()} <= container_ports

    hpa = objects["HorizontalPodAutoscaler"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["scaleTargetRef"]["kind"] == "Deployment"
    assert any(m["type"] == "Resource" and m["resource"]["name"] == "cpu"
               for m in hpa["spec"]["metrics"])
    assert hpa["spec"]["minReplicas"] >= 2
    # The HPA owns the count: a replicas field would reset it at every `kubectl apply`.
    assert "replicas" not in deployment["spec"]

    pdb = objects["PodDisruptionBudget"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"], "drains can proceed"


def test_the_ingress_sends_browsers_to_the_web_port_and_lets_watch_streams_flow():
    objects = k8s_objects()
    ingress = objects["Ingress"]
    service = objects["Service"]
    paths = [p for rule in ingress["spec"]["rules"] for p in rule["http"]["paths"]]
    # One path, /, for the page and the RPCs under /belote.v1.TableService/ alike.
    assert [(p["path"], p["pathType"]) for p in paths] == [("/", "Prefix")]
    backend = paths[0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    web = {p["name"]: p for p in service["spec"]["ports"]}[backend["port"]["name"]]
    assert web["port"] == WEB_PORT and web["appProtocol"] == "http"
    notes = ingress["metadata"]["annotations"]
    nginx = "nginx.ingress.kubernetes.io/"
    assert ingress["spec"]["ingressClassName"] == "nginx"
    # WatchTable is one long HTTP/1.1 response: unbuffered, and quiet for longer than nginx's
    # default 60 s read timeout without being cut.
    assert notes[nginx + "proxy-buffering"] == "off"
    assert notes[nginx + "proxy-http-version"] == "1.1"
    assert int(notes[nginx + "proxy-read-timeout"]) >= 600
    assert "sticky" not in " ".join(notes) and "affinity" not in " ".join(notes)


# -------------------------------------------------------------------------- alerts, dashboard

def test_every_alert_has_a_firing_and_a_quiet_unit_test():
    alerts = {r["alert"] for g in load_yaml(PROMETHEUS / "alerts.yml")["groups"]
              for r in g["rules"] if "alert" in r}
    assert {"BeloteRpcLatencyHigh", "BeloteRpcErrorRatioHigh", "BeloteStoreDown",
            "BeloteNoWatchStreams", "BeloteBotsBehind"} <= alerts
    tests = load_yaml(PROMETHEUS / "alerts_test.yml")
    assert tests["rule_files"] == ["alerts.yml"]
    fired, quiet = set(), set()
    for case in tests["tests"]:
        for check in case.get("alert_rule_test", []):
            (fired if check.get("exp_alerts") else quiet).add(check["alertname"])
    assert alerts <= fired, f"alerts never shown firing: {alerts - fired}"
    assert alerts <= quiet, f"alerts never shown quiet: {alerts - quiet}"


def test_dashboard_panels():
    doc = dashboard()
    assert doc["uid"] and doc["title"]
    panels = dashboard_panels(doc)
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    for panel in panels:
        if panel["type"] == "row":
            continue
        assert panel.get("targets"), f"panel {panel['title']!r} has no query"
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
    exprs = "\n".join(dashboard_exprs(doc))
    wanted = {
        "RPC rate": r"rate\(grpc_server_handled_total",
        "errors": r'grpc_code!~"\(\?i\)ok"',
        "p99 by method": r"histogram_quantile\(0\.99, sum by \(le, grpc_method\) "
                         r"\(rate\(grpc_server_handling_seconds_bucket",
        "active tables": r"belote_tables_active",
        "events/s": r"rate\(belote_events_appended_total",
        "bot decision p95": r"histogram_quantile\(0\.95, sum by \(le, level\) "
                            r"\(rate\(belote_bot_decision_seconds_bucket",
    }
    missing = [what for what, pattern in wanted.items() if not re.search(pattern, exprs)]
    assert not missing, f"the dashboard lacks: {missing}"
