# Two commands on a fresh machine:  make run   |   make test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)

.PHONY: run test setup bench-structure bench-ingest clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch first, pinned: the CPU build on this machine's disk, not a multi-GB CUDA build
	$(PY) -m pip install --disable-pip-version-check -q torch==2.13.0
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(VENV)/bin/streamlit run app.py

test: setup
	$(PY) -m pytest

bench-structure: setup
	$(PY) bench/structure_report.py

bench-ingest: setup
	$(PY) bench/ingest.py

clean:
	rm -rf $(VENV) data/store .pytest_cache
