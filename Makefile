# lobrec: `make help` lists the targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help install test test-fast check lint format demo live-demo measure bench bench-quick record-fixtures golden clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@# bytecode as a wheel install has it (an editable install under PYTHONDONTWRITEBYTECODE has none)
	$(BIN)/python -m compileall -q src/lobrec > /dev/null
	@touch $(STAMP)

install: $(STAMP) ## Create .venv and install lobrec with its test extras

lint: $(STAMP) ## ruff: lint and format check
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

format: $(STAMP) ## ruff: fix what can be fixed and format
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

check: lint ## Lint, type-check (mypy --strict), check the suite, audit the committed cassettes
	$(BIN)/mypy
	$(BIN)/lobrec suite check suite/suite.json --against suite/history/1.2.0.json
	$(BIN)/lobrec audit fixtures/cassettes

demo: $(STAMP) ## Rescore the committed cassettes: leaderboard, out/results.json, out/report.md, out/report.html
	$(BIN)/lobrec rescore fixtures/cassettes --json out/results.json --markdown out/report.md --html out/report.html
	@echo "Wrote out/results.json (results), out/report.md (Markdown report), out/report.html (HTML report: open it in a browser)"

live-demo: $(STAMP) ## Start the fake gateway, record fixture/sloppy, rescore it (no key needed)
	$(BIN)/python scripts/live_demo.py

record-fixtures: $(STAMP) ## Re-record the committed fixture cassettes and their expected results
	$(BIN)/python scripts/record_fixtures.py

golden: $(STAMP) ## Rewrite the whole-output test files (tests/reports/golden/) from today's output
	LOBREC_REGENERATE_GOLDEN=1 $(BIN)/pytest tests/reports/test_golden.py
	@git status --short tests/reports/golden
	@echo "Review the change with: git diff tests/reports/golden"

measure: $(STAMP) ## The redesign's figures: complex blocks per 1,000 lines, modules over 600 lines, types
	$(BIN)/python scripts/measure.py
	$(BIN)/mypy

bench: $(STAMP) ## Benchmarks (live, rescore to 1,000 models, tiers, scale, start-up, HTML): bench/results.md; ~8 min
	$(BIN)/python -m bench.run

bench-quick: $(STAMP) ## Every benchmark once on tiny inputs (the smoke run CI can use): fails if one breaks
	$(BIN)/python -m bench.run --quick


# Tests run in parallel (pytest-xdist, work stealing); docs/testing.md has the measurements behind -n.
PYTEST_WORKERS ?= 2

test: check ## Set up if needed, lint, check the suite, run every test (CI runs this)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal

test-fast: $(STAMP) ## The inner loop: every test that starts no process and builds no package
	LOBREC_NO_PROCESSES=1 $(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal -m "not process"

clean: ## Remove the virtualenv and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
