# The two commands: `make render` and `make test`. Each bootstraps first.
VENV := .venv
PY := $(VENV)/bin/python
QUALITY ?= l

.PHONY: bootstrap render test lint list lesson watch bench clean

bootstrap:
	@bash tools/bootstrap.sh

render: bootstrap
	$(VENV)/bin/qkv-lens render --lang all -q $(QUALITY)

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
	$(VENV)/bin/qkv-lens watch --lang all

bench: bootstrap
	$(PY) tools/bench.py $(BENCH_ARGS)

clean:
	rm -rf renders media
