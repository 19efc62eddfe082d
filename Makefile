# Everything runs from the project's own virtualenv in .venv/, which `install` builds.
# `make test` and `make run` on a fresh clone install what they need by themselves.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

PROTO_DIR := proto
PROTOS := $(wildcard $(PROTO_DIR)/belote/v1/*.proto)
# One generated module per .proto (plus _pb2_grpc.py and .pyi beside it).
GENERATED := $(patsubst $(PROTO_DIR)/%.proto,service/%_pb2.py,$(PROTOS))

# Build stamps live in the venv: removing .venv/ starts everything afresh.
DEPS_STAMP := $(VENV)/.deps-installed

# @belote/client (clients/ts/), the typed TypeScript package the web and Node.js clients (and any
# front-end: docs/frontend.md) are built on: npm packages exactly as its package-lock.json pins
# them, TypeScript generated from proto/ by buf with protoc-gen-es (clients/ts/buf.gen.yaml; no
# Python), compiled by tsc into clients/ts/dist/. Built first: the two clients install it
# (file:../ts, copied by their npm ci as its tarball would be), so they are installed again
# whenever it is rebuilt.
TS_CLIENT := $(if $(wildcard clients/ts/package.json),clients/ts/dist/index.js)
TS_SOURCES := $(wildcard clients/ts/src/*.ts) clients/ts/build.mjs clients/ts/tsconfig.json \
	clients/ts/buf.gen.yaml

# The web client (clients/web/), which `belote serve` serves at / on its web port: npm packages
# exactly as its package-lock.json pins them (@belote/client among them) and
# the page bundled by esbuild into clients/web/dist/. Without npm, a note: the server then serves
# a page saying the client was not built, and the browser tests skip (or fail when CI is set).
WEB_CLIENT := $(if $(wildcard clients/web/package.json),clients/web/dist/index.html)
WEB_SOURCES := $(wildcard clients/web/src/*.ts clients/web/static/*) clients/web/build.mjs \
	clients/web/tsconfig.json

# The Node.js client (clients/node/): @belote/client over @connectrpc/connect-node, type-checked
# and bundled by esbuild into clients/node/dist/. Without npm, a note, and its tests in
# tests/clients/ skip (or fail when CI is set).
NODE_CLIENT := $(if $(wildcard clients/node/package.json),clients/node/dist/play.mjs)
NODE_SOURCES := $(wildcard clients/node/src/*.ts) clients/node/build.mjs clients/node/tsconfig.json

.PHONY: install install-unlocked proto tools run test bench lint clean

# `make run` and `make test` started together on a fresh clone would both build .venv/ (and one
# fail halfway through pip): the build runs under a lock, and whoever waited for it finds the
# stamps fresh and does nothing. flock comes with util-linux; without it, no lock.
INSTALL_LOCK := $(VENV)/.install.lock
FLOCK := $(if $(shell command -v flock 2>/dev/null),flock $(INSTALL_LOCK),)

install:
	@mkdir -p $(VENV)
	@$(FLOCK) $(MAKE) --no-print-directory install-unlocked

install-unlocked: $(DEPS_STAMP) $(GENERATED) $(TS_CLIENT) $(WEB_CLIENT) $(NODE_CLIENT)
	@:

# Re-run when pyproject.toml changes.
$(DEPS_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

define gen_proto
	rm -f service/belote/v1/*_pb2.py service/belote/v1/*_pb2.pyi service/belote/v1/*_pb2_grpc.py
	$(BIN)/python -m grpc_tools.protoc -I$(PROTO_DIR) --python_out=service --pyi_out=service \
		--grpc_python_out=service $(PROTO_DIR)/belote/v1/*.proto
endef

# Re-run when any .proto changes (or a generated file is missing).
$(GENERATED) &: $(PROTOS) $(DEPS_STAMP)
	$(gen_proto)
	touch $(GENERATED)

proto: $(DEPS_STAMP)
	$(gen_proto)

run: install
	$(BIN)/belote serve

# Tools outside Python that the tests use: promtool (Debian package prometheus) for
# tests/deploy/, and Chromium (Debian package chromium, driven headless by Playwright; never a
# browser Playwright downloads) for the pages' tests in tests/review/ and tests/web/. Each is
# installed when missing and we are root with apt-get; otherwise a note, and those tests skip
# (or fail when CI is set).
# $(call apt_tool,TEST,PACKAGE,TOOL,TESTS): install Debian's PACKAGE unless the shell TEST passes.
define apt_tool
	@if $(1); then \
		:; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing $(3) (Debian package $(2))"; \
		apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(2); \
	else \
		echo "note: $(3) not found; install the Debian package $(2) (as root:" \
			"apt-get install --no-install-recommends $(2)) or the tests in" \
			"$(4) that need it skip (and fail when CI is set)"; \
	fi
endef

tools:
	$(call apt_tool,command -v promtool >/dev/null 2>&1,prometheus,promtool,tests/deploy/)
	$(call apt_tool,[ -x /usr/bin/chromium ],chromium,/usr/bin/chromium,tests/review/ and tests/web/)

# @belote/client's dependencies (clients/ts/), exactly as its package-lock.json pins them.
clients/ts/node_modules: clients/ts/package.json clients/ts/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/ts && npm ci --ignore-scripts --no-audit --no-fund && touch node_modules; \
	fi

clients/ts/dist/index.js: clients/ts/node_modules $(TS_SOURCES) $(PROTOS)
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/ts && node build.mjs; \
	else \
		echo "note: npm not found; install Node.js 20+ with npm to build @belote/client" \
			"(clients/ts/), which the web and Node.js clients are built on"; \
	fi

# The Node.js client's dependencies (clients/node/), exactly as its package-lock.json pins them;
# again when @belote/client was rebuilt (npm ci copies it in).
clients/node/node_modules: clients/node/package.json clients/node/package-lock.json $(TS_CLIENT)
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/node && npm ci --ignore-scripts --no-audit --no-fund && touch node_modules; \
	fi

clients/node/dist/play.mjs: clients/node/node_modules $(NODE_SOURCES)
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/node && node build.mjs; \
	else \
		echo "note: npm not found; install Node.js 20+ with npm, or the tests of the Node.js" \
			"client in tests/clients/ skip (and fail when CI is set)"; \
	fi

clients/web/node_modules: clients/web/package.json clients/web/package-lock.json $(TS_CLIENT)
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/web && npm ci --ignore-scripts --no-audit --no-fund && touch node_modules; \
	fi

clients/web/dist/index.html: clients/web/node_modules $(WEB_SOURCES)
	@if command -v npm >/dev/null 2>&1; then \
		cd clients/web && node build.mjs; \
	else \
		echo "note: npm not found; install Node.js 20+ with npm to build the web client" \
			"(clients/web/): belote serve then says on its web port that it was not built," \
			"and the browser tests in tests/web/ skip (and fail when CI is set)"; \
	fi

test: install tools proto/node_modules
	$(BIN)/pytest -q

bench: install
	$(BIN)/python -m belote.bench

# buf (proto/package.json pins the npm package @bufbuild/buf): `buf lint` with the rules of
# proto/buf.yaml, and `buf breaking` against proto/belote-v1.binpb, the image of belote.v1 as it
# was frozen (issue 19): a change that breaks v1's wire or JSON form fails here and needs a
# belote.v2 package instead. Without npm, a note (and a failure when CI is set).
BUF := proto/node_modules/.bin/buf

proto/node_modules: proto/package.json proto/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd proto && npm ci --ignore-scripts --no-audit --no-fund && touch node_modules; \
	fi

lint: install proto/node_modules
	$(BIN)/ruff check service tests
	@if [ -x $(BUF) ]; then \
		$(BUF) lint proto && $(BUF) breaking proto --against proto/belote-v1.binpb && \
		echo "buf: lint and breaking clean"; \
	else \
		echo "note: npm not found; install Node.js 18+ with npm for buf lint and buf breaking"; \
		[ -z "$$CI" ]; \
	fi
	$(BIN)/mypy

clean:
	rm -rf $(VENV) service/belote/v1/*_pb2.py service/belote/v1/*_pb2.pyi service/belote/v1/*_pb2_grpc.py
	rm -rf clients/node/node_modules clients/node/dist proto/node_modules
	rm -rf clients/web/node_modules clients/web/dist clients/web/src/gen
	rm -rf clients/ts/node_modules clients/ts/dist clients/ts/src/gen
