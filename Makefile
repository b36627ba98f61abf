# Artemia build and test entry points. See README.md.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
ARGS   ?=

.PHONY: venv run test bench clean

venv: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml is newer than the stamp.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --disable-pip-version-check -q -e '.[test]'
	touch $@

run: venv
	$(PY) -m service.sandbox $(ARGS)

# pytest exits 5 when it collected no tests: that is a failure here, not a success.
test: venv
	@rc=0; tools/with-redis.sh $(PY) -m pytest -q $(ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests (exit 5)" >&2; fi; \
	exit $$rc

bench: venv
	tools/with-redis.sh $(PY) -m bench $(ARGS)

clean:
	rm -rf $(VENV) *.egg-info build dist .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
