"""Shared fixtures: every scene dry-run once per language and test process.

A scene's test module names its scene (``SCENE = "WorkedExample"``) and asks
for ``scene``: the dry-run scene in each language (``zh``, ``en``), made once
per process and shared with ``test_scenes.py``.  Each scene's tests (its own
module and its rows of ``test_scenes.py``) carry an ``xdist_group`` mark of
the scene's name, so under ``pytest -n 2 --dist loadgroup`` they run on one
worker and the dry runs are made once."""
from __future__ import annotations

import os
import shutil

import pytest
from _pytest.nodeid import NodeId

from qkv_lens.app import render as render_mod
from qkv_lens.app import segments
from qkv_lens.registry import SCENES
from tests.helpers import BROWSER_ARGS, CHROMIUM, ROOT, SHARED_MEDIA, FakeRenderer, dry_run

LANGS = ("zh", "en")

# The suite renders drafts: `render` and `export` default to 720p30 for class (qkv_lens.app.cli.
# default_quality), which QKV_QUALITY overrides, here and in every child the tests start.
# tests/test_render_jobs.py checks the default itself with the variable unset.
os.environ["QKV_QUALITY"] = "l"
_DRY: dict[tuple[str, str], object] = {}


@pytest.fixture(scope="session", autouse=True)
def own_typesetting_folders():
    """Each test process typesets in its own folders (``SHARED_MEDIA``), also
    outside a dry run (a test's own ``MathTex``): manim's default, media/Tex
    under the working folder, is shared by the xdist workers, and two
    typesetting one formula at once write and delete the same temporary SVG."""
    from manim import config
    config.tex_dir = str(SHARED_MEDIA / "Tex")
    config.text_dir = str(SHARED_MEDIA / "texts")


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


# Modules whose module-scoped fixture renders for real: the tests that use
# such a fixture share one worker, so it (the whole lesson, in test_render) is
# made once, not once per worker; their other tests go to whichever is free.
ONE_WORKER = ("test_render", "test_cluster", "test_voice", "test_outputs", "test_wheel")


def shares_a_module_fixture(item: pytest.Item) -> bool:
    return any(d.scope == "module" for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs)


def group(item: pytest.Item, name: str) -> None:
    """Put ``item`` in the xdist group ``name``: its mark, and the ``@name``
    its node id ends with in a ``--dist loadgroup`` worker, which is what
    the scheduler groups by.  xdist 3.8 writes that suffix into
    ``item._nodeid``, which pytest 9 no longer reads (a node's id is
    ``item._id``): without this every group was spread over both workers
    and each worker made the group's fixtures (the whole lesson) again."""
    item.add_marker(pytest.mark.xdist_group(name))
    if getattr(item.config.option, "loadgroup", False) and not item.nodeid.endswith(f"@{name}"):
        item._id = NodeId.parse(f"{item.nodeid}@{name}")


def pytest_collection_modifyitems(items):
    by_module = {f"test_{s.module}": s.name for s in SCENES}
    for item in items:
        module = item.module.__name__.rpartition(".")[2]
        if module in ONE_WORKER:
            if shares_a_module_fixture(item):
                group(item, module)
            continue
        name = by_module.get(module)
        if name is None and hasattr(item, "callspec"):
            info = item.callspec.params.get("info")
            name = getattr(info, "name", None)
        if name is not None:
            group(item, name)


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


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, through Playwright: one per test module."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield b
        b.close()


@pytest.fixture
def context(browser):
    """Makes browser contexts (1000 x 700; ``init_script`` runs first in each of its pages),
    closed after the test; the test fails on any error a page raised."""
    contexts, errors = [], []

    def make(init_script: str | None = None, **kwargs):
        c = browser.new_context(viewport={"width": 1000, "height": 700}, **kwargs)
        c.on("weberror", lambda e: errors.append(str(e.error)))
        if init_script:
            c.add_init_script(init_script)
        contexts.append(c)
        return c

    yield make
    for c in contexts:
        c.close()
    assert not errors, errors
