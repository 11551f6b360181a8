# Two commands a fresh clone needs: `make run` (the main job) and `make test` (the whole suite).
# Each builds its own virtual environment in .venv first; torch is the CPU wheel torch==2.13.0.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
EXTRAS := train,bench,render,multiagent,distributed,dev,fast
STAMP := $(VENV)/.installed

export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export SDL_VIDEODRIVER := dummy
export SDL_AUDIODRIVER := dummy

.PHONY: run test install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m scripts.benchmark

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
