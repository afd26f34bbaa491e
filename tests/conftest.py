"""Shared fixtures: every scene dry-run once per language and test process.

A scene's test module names its scene (``SCENE = "WorkedExample"``) and asks
for ``scene``: the dry-run scene in each language (``zh``, ``en``), made once
per process and shared with ``test_scenes.py``.  Each scene's tests (its own
module and its rows of ``test_scenes.py``) carry an ``xdist_group`` mark of
the scene's name, so under ``pytest -n 2 --dist loadgroup`` they run on one
worker and the dry runs are made once."""
from __future__ import annotations

import shutil

import pytest

from qkv_lens.app import render as render_mod
from qkv_lens.app import segments
from qkv_lens.registry import SCENES
from tests.helpers import ROOT, FakeRenderer, dry_run

LANGS = ("zh", "en")
_DRY: dict[tuple[str, str], object] = {}


@pytest.fixture(scope="session")
def dry(tmp_path_factory):
    """``dry(scene, lang)``: the scene dry-run with the shipped lesson, made once a process."""
    def get(name: str, lang: str):
        if (name, lang) not in _DRY:
            _DRY[name, lang] = dry_run(name, tmp_path_factory.mktemp(f"{name}-{lang}"), lang=lang)
        return _DRY[name, lang]
    return get


@pytest.fixture(params=LANGS)
def scene(request, dry):
    """The requesting module's scene (``SCENE``), dry-run, in each language."""
    return dry(request.module.SCENE, request.param)


# Modules whose module-scoped fixture renders for real: their tests share one
# worker, so the fixture (the whole lesson, in test_render) is made once, not
# once per worker.
ONE_WORKER = ("test_render", "test_cluster", "test_voice", "test_outputs", "test_wheel")


def pytest_collection_modifyitems(items):
    by_module = {f"test_{s.module}": s.name for s in SCENES}
    for item in items:
        module = item.module.__name__.rpartition(".")[2]
        if module in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(module))
            continue
        name = by_module.get(module)
        if name is None and hasattr(item, "callspec"):
            info = item.callspec.params.get("info")
            name = getattr(info, "name", None)
        if name is not None:
            item.add_marker(pytest.mark.xdist_group(name))


@pytest.fixture
def tree(tmp_path):
    """A copy of the code tree whose files the test may edit."""
    shutil.copytree(ROOT / "scenes", tmp_path / "scenes", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "qkv_math", tmp_path / "qkv_math", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "qkv_lens", tmp_path / "qkv_lens", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


@pytest.fixture
def fake(monkeypatch):
    f = FakeRenderer()
    monkeypatch.setattr(render_mod, "render_job", f)
    monkeypatch.setattr(segments, "render_split", lambda job, opts, pieces: f(job, opts))   # one scene, --jobs 2
    return f
