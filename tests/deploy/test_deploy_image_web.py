"""deploy/Dockerfile builds the web page as `make install` does and puts it where `belote serve`
serves it from (belote.api.web.STATIC_ROOT), so that the image's web port serves the page, not
only the API. Read from the files: building the image needs a Docker daemon."""

from __future__ import annotations

import re
from pathlib import Path

import belote
from belote.api.web import STATIC_ROOT
from deploy_helpers import DEPLOY, ROOT, dockerfile_instructions, dockerfile_stages

STAGES = dockerfile_stages(dockerfile_instructions(DEPLOY / "Dockerfile"))
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
VENV = "/opt/belote"


def _args(stage: str, keyword: str) -> list[str]:
    return [args for kw, args in STAGES[stage][1] if kw == keyword]


def _make_recipe(target: str) -> str:
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE)
    assert match, f"Makefile: no target {target}"
    return match.group(1)


def test_the_npm_packages_come_from_the_lockfile_as_make_install_installs_them():
    copies = _args("web-deps", "COPY")
    assert copies == ["clients/web/package.json clients/web/package-lock.json ./"], copies
    npm = "npm ci --ignore-scripts"
    assert npm in _make_recipe("clients/web/node_modules")
    assert [run for run in _args("web-deps", "RUN") if npm in run], _args("web-deps", "RUN")


def test_the_web_stage_builds_every_source_the_makefile_builds_from():
    assert STAGES["web"][0] == "build"
    copies = _args("web", "COPY")
    assert "--from=web-deps /usr/local/bin/node /usr/local/bin/node" in copies
    assert "--from=web-deps /src/clients/web/node_modules/ node_modules/" in copies
    copied = {source for c in copies if "--from=" not in c for source in c.split()[:-1]}
    # WEB_SOURCES: src/*.ts, static/*, build.mjs, tsconfig.json (and package.json: "type").
    web_sources = re.search(r"^WEB_SOURCES := ((?:.*\\\n)*.*)", MAKEFILE, re.MULTILINE).group(1)
    for path in ("clients/web/src/", "clients/web/static/", "clients/web/build.mjs",
                 "clients/web/tsconfig.json"):
        assert path.rstrip("/") in web_sources, path
        assert path in copied, f"the web stage does not copy {path}"
    assert "clients/web/package.json" in copied
    # The same build as `make install`, with the build stage's Python running protoc.
    assert "node build.mjs" in _make_recipe("clients/web/dist/index.html")
    runs = " ".join(_args("web", "RUN"))
    assert f"PYTHON={VENV}/bin/python node build.mjs" in runs


def test_the_page_goes_to_the_directory_the_server_serves():
    runs = " ".join(_args("web", "RUN"))
    # The destination is the server's own STATIC_ROOT, asked of the installed package, and the
    # build fails unless index.html and app.js are found there.
    assert "from belote.api.web import STATIC_ROOT; print(STATIC_ROOT)" in runs
    assert 'cp -R dist/. "$web_root"/' in runs
    assert "(STATIC_ROOT / 'index.html').is_file()" in runs
    assert f'case "$web_root" in {VENV}/*)' in runs
    # STATIC_ROOT sits at most three levels above the package: for the image's install
    # (/opt/belote/lib/python3.11/site-packages/belote) that is inside /opt/belote, which is
    # what the runtime stage copies.
    package = Path(belote.__file__).resolve().parent
    levels_up = next(n for n, parent in enumerate(package.parents, 1) if parent in
                     STATIC_ROOT.parents)
    assert levels_up <= 3, (package, STATIC_ROOT)
    installed = Path(VENV, "lib/python3.11/site-packages/belote")
    assert str(installed.parents[levels_up - 1]).startswith(VENV)
    assert _args("runtime", "COPY") == [f"--from=web {VENV} {VENV}"]


def test_only_the_web_sources_enter_the_build_context():
    lines = [ln.strip() for ln in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    let_in = {ln[1:] for ln in lines if ln.startswith("!")}
    web = {p for p in let_in if p.startswith("clients/")}
    assert web == {"clients/web/package.json", "clients/web/package-lock.json",
                   "clients/web/build.mjs", "clients/web/tsconfig.json", "clients/web/src",
                   "clients/web/static"}
    # What a local `make install` generated stays out: node_modules/ and dist/ are never let
    # in, and src/gen/ is dropped after src/ is let in.
    assert "clients/web/src/gen" in lines[lines.index("!clients/web/src"):]
