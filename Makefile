# The two commands: `make render` and `make test`. Each bootstraps first.
VENV := .venv
PY := $(VENV)/bin/python
# make render: the lesson's own language at 720p30 (class quality); LANG=all every language,
# QUALITY=l a quick draft. (LANG counts only when given on the command line: the shell's LANG is
# the locale.)
QUALITY ?= m
LANG_ARG := $(if $(filter command line,$(origin LANG)),--lang $(LANG))

.PHONY: bootstrap render test lint list lesson watch bench clean

bootstrap:
	@bash tools/bootstrap.sh

render: bootstrap
	$(VENV)/bin/qkv-lens render $(LANG_ARG) -q $(QUALITY)

test: bootstrap lint
	$(PY) -m pytest -q -n 2 --dist loadgroup  # two workers; a scene's tests (its dry runs) on one of them

lint: bootstrap
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

list: bootstrap
	@$(VENV)/bin/qkv-lens list

lesson: bootstrap
	$(VENV)/bin/qkv-lens lesson

watch: bootstrap
	$(VENV)/bin/qkv-lens watch $(LANG_ARG)

bench: bootstrap
	$(PY) tools/bench.py $(BENCH_ARGS)

clean:
	rm -rf renders media
