# PolyForge — two commands: `make start` serves everything on http://localhost:8080,
# `make test` runs every test. Both install what is missing first; re-running is cheap.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
STAMP_NODE := node_modules/.stamp-npm-ci
STAMP_VENV := $(VENV)/.stamp-engine
WEB_DIST := apps/web/dist/index.html
DOCS_DIST := docs/guide/.vitepress/dist/index.html

.PHONY: start test bootstrap web lint typecheck test-unit test-engine test-e2e test-fuzz chromium gromacs slurm clean

start: bootstrap web docs gromacs
	node --heap-growing-percent=100 --import tsx apps/server/src/main.ts

# The engine is installed editable, so pip byte-compiled none of its modules: compile them here, as
# an installed package's are (every engine job is a fresh process, and with PYTHONDONTWRITEBYTECODE
# set each would compile them again). Cheap when nothing changed.
bootstrap: $(STAMP_NODE) $(STAMP_VENV)
	$(VENV)/bin/python -m compileall -q engine/polyforge_engine

# A clean install from the lockfile, only when the lockfile changed since the last install.
# `npm install` (the same locked versions) where a registry mirror lacks one of the other platforms'
# optional packages the lockfile lists and `npm ci` refuses to go on.
$(STAMP_NODE): package-lock.json
	npm ci --no-audit --no-fund || npm install --no-audit --no-fund
	touch $@

# The engine's virtual environment (RDKit, OpenMM, AmberTools, ParmEd) at the versions of
# engine/constraints.txt — reinstalled when its pyproject, those versions or its compiled parts
# (construct/*.c and *.h, built in place by the editable install) change.
$(STAMP_VENV): engine/pyproject.toml engine/constraints.txt engine/setup.py $(wildcard engine/polyforge_engine/construct/*.[ch])
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -c engine/constraints.txt -e './engine[test]'
	@# OpenMM's CUDA platform is a separate package: installed, matching OpenMM, where a GPU answers.
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then \
	  $(VENV)/bin/pip install --quiet "OpenMM-CUDA-12==$$($(VENV)/bin/python -c 'from importlib.metadata import version; print(version("openmm"))')"; fi
	$(VENV)/bin/python -m polyforge_engine version
	touch $@

web: $(WEB_DIST)

$(WEB_DIST): $(STAMP_NODE) $(shell find apps/web/src apps/web/public apps/web/index.html packages/contracts/src -type f 2>/dev/null)
	npm run build -w apps/web

# The user guide (VitePress, Markdown in docs/guide), served by the server at /docs. Its screenshots
# are committed PNGs that e2e/tests/projects.spec.ts retakes.
.PHONY: docs
docs: $(DOCS_DIST)

$(DOCS_DIST): $(STAMP_NODE) $(shell find docs/guide -path '*/.vitepress/dist' -prune -o -path '*/.vitepress/cache' -prune -o -type f -print 2>/dev/null)
	npx vitepress build docs/guide

# Debian's Chromium for the browser tests (needs root, as on CI).
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# Debian's GROMACS: the MD engine on CPUs (POLYFORGE_MD_ENGINE=auto picks `gmx mdrun` where it is found
# and no GPU is), and what the engine tests run a bundle's commands with. Installing needs root (as on
# CI); elsewhere the dynamics run on OpenMM.
gromacs:
	@command -v gmx >/dev/null || [ "$$(id -u)" != 0 ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gromacs; }
	@command -v gmx >/dev/null || echo "gromacs: not installed (not root), so dynamics run on OpenMM"

# A one-node Slurm cluster for the Slurm executor's tests (apps/server/test/slurm.test.ts, e2e/tests/slurm.spec.ts): installs,
# configures and starts it as root, as on CI, and leaves it running (those tests skip where sbatch is absent).
slurm:
	@if [ "$$(id -u)" = 0 ]; then deploy/slurm/one-node-cluster.sh start; \
	else echo "slurm: not root, so no one-node cluster; the Slurm executor's tests will be skipped"; fi

# Import rules (.dependency-cruiser.cjs; the engine's in engine/pyproject.toml, lint-imports): any breach fails.
lint: $(STAMP_NODE) $(STAMP_VENV)
	npx biome check .
	npm run --silent lint:imports
	$(VENV)/bin/ruff check engine bench
	$(VENV)/bin/ruff format --check engine bench
	cd engine && ../$(VENV)/bin/mypy
	cd engine && ../$(VENV)/bin/lint-imports --no-logo

typecheck: $(STAMP_NODE)
	npm run typecheck --workspaces --if-present

test-unit: $(STAMP_NODE) $(STAMP_VENV) slurm
	npx vitest run

test-engine: $(STAMP_VENV) gromacs
	cd engine && ../$(VENV)/bin/python -m pytest -q

test-e2e: bootstrap web docs chromium slurm
	npm run test -w e2e

# A bounded schemathesis pass against the real server and its OpenAPI document (a few minutes).
test-fuzz: bootstrap
	apps/server/test/fuzz/run-schemathesis.sh

test: bootstrap lint typecheck test-unit test-engine test-e2e test-fuzz

clean:
	rm -rf node_modules apps/*/node_modules packages/*/node_modules apps/web/dist $(VENV)
