"""The house's floors: every module imports on its own in a fresh interpreter,
no two modules import each other in a loop (counting imports made inside
functions, so a lazy import cannot hide a cycle), and the arrows point one
way: ``scenes`` -> ``qkv_lens`` -> ``qkv_math``, with the lesson loader a
leaf of the application (it imports only itself, ``qkv_math`` and the
modules of ``qkv_lens`` that import nothing else of it)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

PACKAGES = ("qkv_math", "qkv_lens", "scenes")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports anywhere in its file (top level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def test_no_module_imports_itself_back_through_others():
    g = graph()
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(g[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(g):
        if node not in state:
            visit(node, [node])
    # a package's __init__ handing on its own modules' names is not a loop
    real = [c for c in cycles if not any(a.startswith(b + ".") or b.startswith(a + ".") for a, b in zip(c, c[1:]))]
    assert not real, "import cycles: " + "; ".join(" -> ".join(c) for c in real)


def test_arrows_point_one_way():
    for name, targets in graph().items():
        floor = name.split(".")[0]
        for t in targets:
            above = {"qkv_math": {"qkv_lens", "scenes"}, "qkv_lens": {"scenes"}, "scenes": set()}[floor]
            assert t.split(".")[0] not in above, f"{name} imports {t}, a floor above it"


def test_the_lesson_loader_is_a_leaf():
    """Outside its package the loader imports only leaves of qkv_lens: modules
    that import nothing of qkv_lens but other leaves (store imports nothing
    of it; languages uses store's ``shown``; numbers)."""
    g = graph()
    leaves: set[str] = set()
    while True:
        more = {n for n, targets in g.items() if n.startswith("qkv_lens.") and not n.startswith("qkv_lens.lesson")
                and all(t in leaves for t in targets if t.startswith("qkv_lens"))} - leaves
        if not more:
            break
        leaves |= more
    for name, targets in g.items():
        if name.startswith("qkv_lens.lesson"):
            outside = {t for t in targets if t.startswith("qkv_lens.") and not t.startswith("qkv_lens.lesson")}
            above = outside - leaves
            assert not above, f"{name} imports {sorted(above)}, which import more of the application"


# Imports each module named on stdin in a child forked from one interpreter that has imported only
# the third-party libraries (none of the project's modules): each child starts as a fresh interpreter
# would for the project's own modules, without paying for manim's import again (91 interpreters
# took 90 worker-seconds). Prints "name<TAB>0" or "name<TAB>1<TAB>the error's last line" per module.
FORKS = r"""
import os, sys, traceback
import manim, numpy
assert not [m for m in sys.modules if m.split('.')[0] in {packages!r}], 'the parent imported the project'
for name in sys.stdin.read().split():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            __import__(name)
            code, said = 0, ''
        except BaseException:
            code, said = 1, traceback.format_exc().strip().splitlines()[-1]
        os.write(write, said.encode())
        os._exit(code)
    os.close(write)
    with os.fdopen(read, 'rb') as pipe:
        said = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    print(name, os.waitstatus_to_exitcode(status), said, sep='\t', flush=True)
"""


def test_every_module_imports_on_its_own_in_a_fresh_interpreter():
    names = [n for n in modules() if not n.endswith("__main__")]   # an entry point runs when imported
    p = subprocess.run([sys.executable, "-c", FORKS.format(packages=set(PACKAGES))], cwd=ROOT, input=" ".join(names),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    assert [r[0] for r in rows] == names, p.stderr      # every module was tried
    failed = [r for r in rows if r[1] != "0"]
    assert not failed, "\n".join(f"{r[0]}: {r[-1]}" for r in failed)


def test_what_a_scene_runs_of_qkv_lens_is_outside_its_app_folder():
    """The cache key hashes qkv_lens without qkv_lens/app (``app.cache``): every
    qkv_lens module a scene imports, directly or through others, must lie
    outside app/, and app/ must hold the command and the pipeline only."""
    g = graph()
    seen, todo = set(), [m for m in g if m.startswith("scenes")]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(g[m])
    ran = sorted(m for m in seen if m.startswith("qkv_lens"))
    assert ran and not [m for m in ran if m.startswith("qkv_lens.app")], ran
