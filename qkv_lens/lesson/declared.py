"""The scenes and the sections they declare, read from the scene modules'
source without importing them (the application never runs a scene's code:
scenes run in their own manim process).

A scene module declares its scene as a ``LessonScene`` subclass with
``chapter`` and ``number`` (its place in the storyboard) and a ``params``
annotation naming its section's ``Params`` class; that class, in the same
module or in ``scenes/kit/sections.py`` (sections several scenes share),
declares ``section`` and one ``Key`` per key (``qkv_lens.lesson.keys``).
Every value in these declarations must be a literal, a ``Key`` call, or a
name ``keys.LIMITS`` exports; anything else is a ``DeclarationError``
naming the file and line.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import keys as vocabulary

KEY_TYPES = {name: getattr(vocabulary, name) for name in
             ("Number", "Vector", "Matrix", "Integer", "Integers", "Flag", "Choice", "Text", "Name", "Names",
              "Index", "File", "Items", "Computed")}
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}
SCENE_BASES = {"LessonScene"}
PARAMS_BASES = {"Params"}


class DeclarationError(ValueError):
    """A scene module whose declarations cannot be read (one line)."""


@dataclass(frozen=True)
class DeclaredScene:
    """A scene as its module declares it."""
    name: str          # the class
    path: Path         # its module file
    chapter: int
    number: int
    params: str        # the name of its Params class
    splits: bool = False   # ``splits = True``: its renders may be cut into pieces (qkv_lens.app.segments)


@dataclass(frozen=True)
class DeclaredSection:
    """A lesson section as a Params class declares it."""
    cls: str
    section: str
    keys: dict[str, vocabulary.Key]
    doc: str
    path: Path


def _value(node: ast.AST, where: str) -> Any:
    """The value of a declaration expression: literals, Key calls, LIMITS names, + - * ** of numbers,
    f-strings of those."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in vocabulary.LIMITS:
        return vocabulary.LIMITS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand, where)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        a, b = _value(node.left, where), _value(node.right, where)
        if not all(isinstance(v, int) and abs(v) < 2**64 for v in (a, b)):
            raise DeclarationError(f"{where}: arithmetic on whole numbers only")
        return _OPERATORS[type(node.op)](a, b)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_value(e, where) for e in node.elts)
    if isinstance(node, ast.JoinedStr):      # f"... {MAX_LENS_TRAITS} ...": the same values, written in
        return "".join(str(_value(v.value if isinstance(v, ast.FormattedValue) else v, where))
                       for v in node.values)
    if isinstance(node, ast.Dict):
        return {_value(k, where): _value(v, where) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in KEY_TYPES:
        args = [_value(a, where) for a in node.args]
        kwargs = {k.arg: _value(k.value, where) for k in node.keywords if k.arg}
        try:
            return KEY_TYPES[node.func.id](*args, **kwargs)
        except TypeError as err:
            raise DeclarationError(f"{where}: {node.func.id}(...): {err}") from None
    raise DeclarationError(f"{where}: a declaration may hold only literals, Key calls "
                           f"({', '.join(KEY_TYPES)}) and the limits of qkv_lens.lesson.keys.LIMITS")


def _bases(cls: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in cls.bases if isinstance(b, (ast.Name, ast.Attribute))}


def read_module(path: Path) -> tuple[list[DeclaredScene], list[DeclaredSection]]:
    """The scenes and sections the module at ``path`` declares."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError) as err:
        raise DeclarationError(f"{path}: cannot read its declarations ({err})") from None
    scenes, sections = [], []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        bases = _bases(cls)
        attrs: dict[str, Any] = {}
        annotated: dict[str, ast.AST] = {}
        declared: dict[str, vocabulary.Key] = {}
        for stmt in cls.body:
            where = f"{path}:{stmt.lineno}"
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if stmt.targets[0].id in ("section", "chapter", "number", "splits"):
                    attrs[stmt.targets[0].id] = _value(stmt.value, where)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is None:
                    annotated[stmt.target.id] = stmt.annotation
                elif bases & PARAMS_BASES:
                    key = _value(stmt.value, where)
                    if not isinstance(key, vocabulary.Key):
                        raise DeclarationError(f"{where}: {stmt.target.id}: expected a Key (such as Number(...))")
                    declared[stmt.target.id] = key
        if bases & PARAMS_BASES:
            if not isinstance(attrs.get("section"), str):
                raise DeclarationError(f"{path}:{cls.lineno}: {cls.name} declares no section = \"...\"")
            sections.append(DeclaredSection(cls.name, attrs["section"], declared, ast.get_docstring(cls) or "",
                                            path))
        elif bases & SCENE_BASES and "params" in annotated:
            ann = annotated["params"]
            params = ann.id if isinstance(ann, ast.Name) else getattr(ann, "value", None)
            if not isinstance(params, str):
                raise DeclarationError(f"{path}:{cls.lineno}: {cls.name}.params: expected a Params class name")
            if not isinstance(attrs.get("chapter"), int) or not isinstance(attrs.get("number"), int):
                raise DeclarationError(f"{path}:{cls.lineno}: {cls.name} declares no chapter = N and number = N")
            splits = attrs.get("splits", False)
            if not isinstance(splits, bool):
                raise DeclarationError(f"{path}:{cls.lineno}: {cls.name}.splits: expected True or False")
            scenes.append(DeclaredScene(cls.name, path, attrs["chapter"], attrs["number"], params, splits))
    return scenes, sections


@dataclass(frozen=True)
class Declared:
    """Every scene (in storyboard order) and every section they read (in the
    order the scenes first read them), with each scene's section."""
    scenes: tuple[DeclaredScene, ...]
    sections: dict[str, DeclaredSection]
    section_of: dict[str, str]          # scene class -> the section it reads


@functools.cache
def package_dir(name: str) -> Path:
    """The folder of the installed package ``name`` (found, not imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {name} package of qkv-lens is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


SHARED_SECTIONS = Path("kit") / "sections.py"   # sections several scenes read, in the scenes folder


def params_of(scene, path: Path, own: list, shared: list, shared_name: str):
    """The section declaration ``scene.params`` names: one of its module's
    (``own``) or of the shared ``kit/sections.py``; DeclarationError otherwise."""
    decl = next((s for s in (*own, *shared) if s.cls == scene.params), None)
    if decl is None:
        raise DeclarationError(f"{path}: {scene.name}.params names {scene.params}, which neither "
                               f"{path.name} nor {shared_name} declares")
    return decl


@functools.cache
def discover(folder: Path | None = None) -> Declared:
    """The scenes and sections declared by the modules of the scenes folder
    (``folder``, default: the installed ``scenes`` package) and by its
    ``kit/sections.py``."""
    folder = folder or package_dir("scenes")
    shared = read_module(folder / SHARED_SECTIONS)[1] if (folder / SHARED_SECTIONS).is_file() else []
    scenes, sections, section_of = [], {}, {}
    for path in sorted(folder.glob("*.py")):
        found, own = read_module(path)
        for scene in found:
            decl = params_of(scene, path, own, shared, str(SHARED_SECTIONS))
            other = sections.get(decl.section)
            if other is not None and other.cls != decl.cls:
                raise DeclarationError(f"{path}: section [{decl.section}] is declared twice ({other.path}, "
                                       f"{decl.path})")
            scenes.append(scene)
            section_of[scene.name] = decl.section
            sections.setdefault(decl.section, decl)
    numbers = [s.number for s in scenes]
    if len(set(numbers)) != len(numbers):
        raise DeclarationError(f"{folder}: two scenes declare the same number")
    scenes.sort(key=lambda s: s.number)
    order = list(dict.fromkeys(section_of[s.name] for s in scenes))
    return Declared(tuple(scenes), {name: sections[name] for name in order}, section_of)


TEACHER_SCENES = "my_scenes"   # the teacher's folder of scene modules, beside the lesson file (never
#   "scenes": a folder of that name on sys.path would stand for the shipped scenes package)


def teacher_folder(lesson_dir: Path) -> Path:
    """The teacher's scene folder of the lesson in ``lesson_dir`` (it may not exist)."""
    return lesson_dir / TEACHER_SCENES


def discover_lesson(lesson_dir: Path | None) -> Declared:
    """The shipped scenes and sections, then those the teacher's folder
    beside the lesson declares (``teacher_folder``, unless it is a copy of
    qkv-lens's own, ``is_checkout``; each scene's ``params``
    names a class of its own module or of the shipped ``kit/sections.py``).
    A teacher's scene or section whose name a shipped one has is a
    DeclarationError (one line).  Read again whenever a module changes."""
    folder = teacher_folder(lesson_dir) if lesson_dir is not None else None
    if folder is None or not folder.is_dir() or is_checkout(folder):
        return discover()
    modules = sorted(p for p in folder.glob("*.py") if p.is_file())
    stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in modules)
    return _teacher(folder, stamp)


def is_checkout(folder: Path) -> bool:
    """Whether ``folder`` is qkv-lens's own scenes package (installed, or a
    copy of the checkout: a package with the kit), not a teacher's folder."""
    return (folder / "__init__.py").is_file() and (folder / SHARED_SECTIONS).is_file()


@functools.lru_cache(maxsize=8)
def _teacher(folder: Path, stamp: tuple) -> Declared:
    shipped = discover()
    if (folder / "__init__.py").exists():
        raise DeclarationError(f"{folder}: the teacher's scene folder is not a package: remove its __init__.py "
                               "(it would hide the shipped scenes package and its kit)")
    shared = read_module(package_dir("scenes") / SHARED_SECTIONS)[1]
    scenes, sections, section_of = list(shipped.scenes), dict(shipped.sections), dict(shipped.section_of)
    shipped_modules = {s.path.stem for s in shipped.scenes} | {"kit"}
    for path in sorted(folder.glob("*.py")):
        found, own = read_module(path)
        if found and path.stem in shipped_modules:
            raise DeclarationError(f"{path}: a shipped module is called {path.stem}; name the file otherwise")
        for scene in found:
            if scene.name in section_of:
                where = "a shipped scene" if scene.name in shipped.section_of else "another of your scenes"
                raise DeclarationError(f"{path}:{scene.name}: {where} has that name; rename the class")
            decl = params_of(scene, path, own, shared, "the kit's sections.py")
            other = sections.get(decl.section)
            if other is not None and other.cls != decl.cls:
                raise DeclarationError(f"{path}: section [{decl.section}] is already declared ({other.path}); "
                                       "name your section otherwise")
            scenes.append(scene)
            section_of[scene.name] = decl.section
            sections.setdefault(decl.section, decl)
    return Declared(tuple(scenes), sections, section_of)
