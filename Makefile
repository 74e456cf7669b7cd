# cardref: the two commands of the README do all the set-up on a fresh machine.
#   make demo   creates .venv, installs cardref, runs the main job
#   make test   creates .venv, installs cardref with the test extras, runs ruff and pytest
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
PIP     = $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt

.PHONY: demo demo-sim test install install-train install-test lint clean art browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e .
	touch $@

# Training (cardref train, retraining for your own deck): Ultralytics and PyTorch.
$(VENV)/.installed-train: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[train]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-test: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[test]'
	touch $@ $(VENV)/.installed $(VENV)/.installed-train

install: $(VENV)/.installed
install-train: $(VENV)/.installed-train
install-test: $(VENV)/.installed-test

# Replays the shipped sample game video through the camera referee (docs/camera.md).
DEMO = datasets/samples/royal_family_demo
demo: install
	$(BIN)/cardref replay $(DEMO)/video.mp4 --game royal_family --out out/demo --answers $(DEMO)/observations.jsonl

# One whole simulated Royal Family game, refereed, without a camera.
demo-sim: install
	$(BIN)/python -m referee.demo

# Card faces and table photos for the synthetic renderer (apt-get download + rsvg-convert, once).
art: install
	$(BIN)/python -m vision.synth.art

# Headless Chromium and its driver for the tests that check the pages (game-night screen,
# replay report) as a browser shows them; Debian packages, installed once.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get update -qq && \
	  $$sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver; }

lint: install-test
	$(BIN)/ruff check .

test: install-test art browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
