# Two commands a fresh clone needs: `make run` (the main job) and `make test` (the whole suite).
# Each builds its own virtual environment in .venv first; torch is the CPU wheel of constraints.txt.
# No thread variables are set here on purpose: the code limits its own threads (war_env/support/threads.py),
# and the tests must see what a user's plain shell gives.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
EXTRAS := train,bench,render,multiagent,distributed,dev,fast,zoo,web,torchrl,docs
STAMP := $(VENV)/.installed

export SDL_VIDEODRIVER := dummy
export SDL_AUDIODRIVER := dummy

.PHONY: run test test-fast test-durations lint docs install browser clean

install: $(STAMP)

# Said as it goes: a first build fills about 2.5 GB (torch is most of it) and takes minutes.
$(STAMP): pyproject.toml constraints.txt
	@echo "make: building the virtual environment $(VENV) (once: about 2.5 GB on disk, several minutes)"
	@echo "make: [1/3] creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	@echo "make: [2/3] upgrading pip"
	$(PY) -m pip install --quiet --upgrade pip
	@echo "make: [3/3] installing war-env with its extras ($(EXTRAS)): the long step, quiet until it ends"
	$(PY) -m pip install --quiet -c constraints.txt -e '.[$(EXTRAS)]'
	touch $(STAMP)
	@echo "make: $(VENV) is ready"

run: $(STAMP)
	@echo "make: war-bench plays the default league (a progress bar), then writes its report (a line per stage)"
	$(VENV)/bin/war-bench

# Every core up to 4 (pytest-xdist, dev extra); docs/results/test-durations.md says how long each module takes.
test: $(STAMP)
	$(PY) -m pytest --numprocesses=auto --maxprocesses=4

# ruff (pyproject.toml's [tool.ruff]): the lint rules, line length included, and the formatting.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The documentation site (docs/conf.py) into docs/_build/html. Warnings are errors (-W), all of them reported
# (--keep-going): a broken link, a page outside every table of contents or a missing include fails the build.
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

# Every module's fast tests, the ones not marked slow (docs/results/test-durations.md lists both kinds), on every core
# up to 4: the quick check before a commit. The whole suite stays `make test` (CI).
test-fast: $(STAMP)
	$(PY) -m pytest --numprocesses=auto --maxprocesses=4 -m "not slow"

# The whole suite once, then docs/results/test-durations.md from its JUnit XML (docs/durations.py): the slowest tests,
# and every module's time, all of it and its fast part. NOTE="..." says what else the machine was doing.
test-durations: $(STAMP)
	@start=$$(date +%s); $(PY) -m pytest --numprocesses=auto --maxprocesses=4 -q --junitxml=.pytest-durations.xml; \
	  status=$$?; $(PY) docs/durations.py .pytest-durations.xml docs/results/test-durations.md \
	    --wall $$(( $$(date +%s) - start )) --note "$(NOTE)"; exit $$status

# The real-browser test (tests/test_web_browser.py) drives the machine's own Chromium. `make test` installs
# no system package; CI (.ci/run) calls this target first. Elsewhere the test skips with a reason naming it.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { command -v apt-get >/dev/null && apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; } || \
	  echo "make: Chromium could not be installed here; the real-browser test will be skipped"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist .pytest-durations.xml docs/_build
