# Artemia build and test entry points. See README.md.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
ARGS   ?=

.PHONY: venv engine run test quick lint bench clean soak lock

venv: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml or the lock is newer than the stamp. The dependencies come from the lock,
# every file checked against its hash (requirements-dev.lock: the runtime and the test extras); the project itself
# is then installed editable without resolving anything again.
$(STAMP): pyproject.toml requirements-dev.lock | $(PY)
	$(PY) -m pip install --disable-pip-version-check -q --require-hashes -r requirements-dev.lock
	$(PY) -m pip install --disable-pip-version-check -q --no-deps -e .
	touch $@

# The rules engine compiled with mypyc (tools/build_engine.py), rebuilt whenever one of its sources is newer; the
# package refuses to import a build older than its sources. ENGINE=source runs the sources instead (no C compiler
# needed; the engine is then ~2.7x slower).
ENGINE ?= compiled
ENGINE_BUILT := service/game/compiled-from.txt
ifeq ($(ENGINE),source)
engine: venv
	$(PY) tools/build_engine.py --clean
else
engine: $(ENGINE_BUILT)
endif

$(ENGINE_BUILT): $(wildcard service/game/*.py service/game/rules/*.py) tools/build_engine.py $(STAMP)
	$(PY) tools/build_engine.py

run: engine
	$(PY) -m service.sandbox $(ARGS)

# Lint (ruff), types (mypy) and the architecture's contracts (import-linter, pyproject.toml), then the tests.
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# Every test, on WORKERS pytest-xdist workers (tests/conftest.py gives each its own redis-server). pytest exits 5
# when it collected no tests: that is a failure here, not a success.
WORKERS ?= 2
test: engine lint
	@rc=0; tools/with-redis.sh $(PY) -m pytest -q -n $(WORKERS) $(ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests (exit 5)" >&2; fi; \
	exit $$rc

# The loop while working: lint, types, contracts, and every test that needs no real process (no redis-server, RQ
# worker, other Python or browser: the tests marked integration are left out).
quick: engine lint
	@rc=0; $(PY) -m pytest -q -n $(WORKERS) -m "not integration" $(ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make quick: pytest collected no tests (exit 5)" >&2; fi; \
	exit $$rc

bench: engine
	tools/with-redis.sh $(PY) -m bench $(ARGS)

clean:
	if [ -x $(PY) ]; then $(PY) tools/build_engine.py --clean; fi
	rm -rf $(VENV) *.egg-info build dist .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# The long runs (docs/BENCHMARKS.md): >100,000 fuzz inputs, the secrets audit over 200 games (24 in make test), the
# load generator, the soak with faults under appendfsync always and everysec. Bounded in time (SOAK_SECONDS per soak
# run); figures in .soak/.
SOAK_SECONDS ?= 1800
soak: engine
	@mkdir -p .soak; rm -f .soak/fuzz-counts.tsv
	FUZZ_EXAMPLES=30000 FUZZ_REPORT=.soak/fuzz-counts.tsv tools/with-redis.sh $(PY) -m pytest -q -s -p no:cacheprovider tests/test_fuzz_commands.py tests/test_fuzz_telegram.py tests/test_fuzz_sms.py
	@awk -F'\t' '{n += $$2} END {print "fuzz inputs in all: " n}' .soak/fuzz-counts.tsv
	ARTEMIA_AUDIT_GAMES=200 tools/with-redis.sh $(PY) -m pytest -q -s -p no:cacheprovider tests/e2e/test_e2e_secrets.py
	tools/with-redis.sh $(PY) -m bench.load --games 60 --timeout 900 --json .soak/load.json
	$(PY) -m bench.soak --games 500 --fsync always --duration $(SOAK_SECONDS) --json .soak/soak-always.json
	$(PY) -m bench.soak --games 500 --fsync everysec --duration $(SOAK_SECONDS) --json .soak/soak-everysec.json

# Regenerate both locks from pyproject.toml after changing a dependency (pip-tools; hashes of every file).
LOCK_FLAGS := --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
lock: venv
	$(PY) -m pip install --disable-pip-version-check -q pip-tools
	$(VENV)/bin/pip-compile $(LOCK_FLAGS) -o requirements.lock pyproject.toml
	$(VENV)/bin/pip-compile $(LOCK_FLAGS) --extra test -o requirements-dev.lock pyproject.toml
	$(MAKE) requirements.txt

# requirements.txt for Procfile platforms (pip install -r requirements.txt): the lock under a header
# (tests/test_requirements.py checks it matches).
requirements.txt: requirements.lock
	{ sed -n '1,3p' $@ 2>/dev/null | grep '^#' || true; cat requirements.lock; } > $@.tmp && mv $@.tmp $@
