"""The Kubernetes manifests against the real API schemas (kubernetes-validate, pinned in
pyproject.toml, ships the OpenAPI schemas of each Kubernetes version), strictly: a misspelt or
misplaced field is an error, as `kubectl apply` would refuse it."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest
from deploy_helpers import K8S, load_yaml, load_yaml_all

# The oldest Kubernetes deploy/README.md supports (native gRPC probes), and the newest schemas
# the pinned package knows.
VERSIONS = ("1.27.0", kubernetes_validate.latest_version())
MANIFESTS = [*load_yaml(K8S / "kustomization.yaml")["resources"], "secret.example.yaml"]


def _documents(name: str) -> list[dict]:
    docs = load_yaml_all(K8S / name)
    assert docs, name
    return docs


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", MANIFESTS)
def test_manifest_matches_the_kubernetes_schema(name: str, version: str):
    for doc in _documents(name):
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            pytest.fail(f"{name} ({doc['kind']}) against Kubernetes {version}: {err.message} "
                        f"at {'/'.join(map(str, err.path))}", pytrace=False)


def test_the_validator_refuses_what_kubectl_would():
    # The check above is not vacuous: the same Deployment with one field misspelt, or a port
    # given as a name where the schema wants a number, is refused.
    deployment = _documents("deployment.yaml")[0]
    misspelt = copy.deepcopy(deployment)
    probe = misspelt["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]
    probe["grpc"]["sevrice"] = probe["grpc"].pop("service")
    with pytest.raises(kubernetes_validate.ValidationError, match="'sevrice' was unexpected"):
        kubernetes_validate.validate(misspelt, VERSIONS[0], strict=True)
    named_port = copy.deepcopy(deployment)
    named_port["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"]["port"] = \
        "grpc"
    with pytest.raises(kubernetes_validate.ValidationError, match="is not of type 'integer'"):
        kubernetes_validate.validate(named_port, VERSIONS[0], strict=True)
