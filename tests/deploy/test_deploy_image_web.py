"""deploy/Dockerfile builds @belote/client and the web page on it as `make install` does and puts it where `belote serve`
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


def test_the_npm_packages_come_from_the_lockfiles_as_make_install_installs_them():
    copies = _args("web", "COPY")
    assert "clients/ts/package.json clients/ts/package-lock.json ./" in copies, copies
    # The page's .npmrc (install-links) makes npm ci copy the package's packed files in, as
    # `make install` does: never a link to a folder the image does not keep.
    assert "clients/web/package.json clients/web/package-lock.json clients/web/.npmrc ./" in copies
    npm = "npm ci --ignore-scripts"
    for folder in ("clients/ts", "clients/web"):
        assert npm in _make_recipe(f"{folder}/node_modules"), folder
    assert len([run for run in _args("web", "RUN") if npm in run]) == 2, _args("web", "RUN")


def test_the_web_stage_builds_every_source_the_makefile_builds_from():
    assert STAGES["web"][0].startswith("node:")      # Node.js alone: no Python builds the page
    copies = _args("web", "COPY")
    copied = {source for c in copies if "--from=" not in c for source in c.split()[:-1]}
    # TS_SOURCES (src/*.ts, build.mjs, tsconfig.json, buf.gen.yaml) and the protos it generates
    # from; WEB_SOURCES (src/*.ts, static/*, build.mjs, tsconfig.json).
    for variable, paths in (
            ("TS_SOURCES", ("clients/ts/src/", "clients/ts/build.mjs", "clients/ts/tsconfig.json",
                            "clients/ts/buf.gen.yaml")),
            ("WEB_SOURCES", ("clients/web/src/", "clients/web/static/", "clients/web/build.mjs",
                             "clients/web/tsconfig.json"))):
        sources = re.search(rf"^{variable} := ((?:.*\\\n)*.*)", MAKEFILE, re.MULTILINE).group(1)
        for path in paths:
            assert path.rstrip("/") in sources, (variable, path)
            assert path in copied, f"the web stage does not copy {path}"
    assert "proto/" in copied
    # The same builds as `make install`, package first.
    assert "node build.mjs" in _make_recipe("clients/ts/dist/index.js")
    assert "node build.mjs" in _make_recipe("clients/web/dist/index.html")
    assert _args("web", "RUN").count("node build.mjs") == 2
    assert "PYTHON=" not in " ".join(_args("web", "RUN"))


def test_the_page_goes_to_the_directory_the_server_serves():
    assert STAGES["with-page"][0] == "build"
    assert _args("with-page", "COPY") == ["--from=web /src/clients/web/dist/ /tmp/web/"]
    runs = " ".join(_args("with-page", "RUN"))
    # The destination is the server's own STATIC_ROOT, asked of the installed package, and the
    # build fails unless index.html and the page's script (app.<hash>.js) are found there.
    assert "from belote.api.web import STATIC_ROOT; print(STATIC_ROOT)" in runs
    assert 'cp -R /tmp/web/. "$web_root"/' in runs
    assert "(STATIC_ROOT / 'index.html').is_file()" in runs
    assert "any(STATIC_ROOT.glob('app.*.js'))" in runs
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
    assert _args("runtime", "COPY") == [f"--from=with-page {VENV} {VENV}"]


def test_only_the_web_sources_enter_the_build_context():
    lines = [ln.strip() for ln in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    let_in = {ln[1:] for ln in lines if ln.startswith("!")}
    web = {p for p in let_in if p.startswith("clients/")}
    assert web == {"clients/ts/package.json", "clients/ts/package-lock.json",
                   "clients/ts/buf.gen.yaml", "clients/ts/build.mjs", "clients/ts/tsconfig.json",
                   "clients/ts/src",
                   "clients/web/.npmrc", "clients/web/package.json", "clients/web/package-lock.json",
                   "clients/web/build.mjs", "clients/web/tsconfig.json", "clients/web/src",
                   "clients/web/static"}
    # What a local `make install` generated stays out: node_modules/ and dist/ are never let
    # in, and src/gen/ is dropped after src/ is let in.
    for folder in ("clients/ts", "clients/web"):
        assert f"{folder}/src/gen" in lines[lines.index(f"!{folder}/src"):], folder
