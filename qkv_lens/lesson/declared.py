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

A teacher's module (``my_scenes/*.py``) comes with a colleague's lesson, so
it is read as input: a regular file (a symlink only when it stays inside the
lesson's folder) of at most ``MAX_MODULE`` bytes, parsed with its depth
bounded; its scenes, sections and file name may not take a shipped one's
name in any case (``Workedexample`` is not a second ``WorkedExample``).
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import operator
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qkv_lens.store import Unsafe, inside, read_regular, shown

from . import keys as vocabulary

KEY_TYPES = {name: getattr(vocabulary, name) for name in
             ("Number", "Vector", "Matrix", "Integer", "Integers", "Flag", "Choice", "Text", "Name", "Names",
              "Index", "File", "Items", "Computed")}
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}
SCENE_BASES = {"LessonScene"}
PARAMS_BASES = {"Params"}
MAX_MODULE = 1 << 20     # bytes of a scene module (the shipped ones are a few dozen KiB)
MODULE_NAME = re.compile(r"[a-z][a-z0-9_]*")    # a teacher's scene module: its name prefixes its texts' keys


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
    # the texts its module names: each key after "<module>." that a literal
    # ``self.beat(key, ...)``, ``self.tr(key, ...)``, ``self.describe(key, ...)`` or
    # ``self.checkpoint(key, ...)`` (and its ``<key>_wrong``) names, with the fields
    # the call passes (None: any, a ``**`` call); "*": what the other calls
    # of ``beat`` or ``tr`` pass (a key computed at run time, another receiver)
    texts: tuple[tuple[str, frozenset[str] | None], ...] = ()
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
            raise DeclarationError(f"{where}: {node.func.id}(...): {shown(str(err))}") from None
    raise DeclarationError(f"{where}: a declaration may hold only literals, Key calls "
                           f"({', '.join(KEY_TYPES)}) and the limits of qkv_lens.lesson.keys.LIMITS")


def _bases(cls: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in cls.bases if isinstance(b, (ast.Name, ast.Attribute))}


def read_module(path: Path, within: Path | None = None) -> tuple[list[DeclaredScene], list[DeclaredSection]]:
    """The scenes and sections the module at ``path`` declares.  It must be
    a regular file of at most MAX_MODULE bytes (inside the folder ``within``,
    symlinks followed, when given); its source is parsed and read with
    Python's recursion bound: too deep an expression is a DeclarationError
    naming the file, like a syntax error."""
    try:
        real = inside(within, os.path.relpath(path, within), "scene module") if within is not None else \
            Path(os.path.realpath(path))
        source = read_regular(real, MAX_MODULE, "scene module").decode("utf-8")
        return _declarations(ast.parse(source, filename=str(path)), path)
    except (DeclarationError, Unsafe) as err:   # Unsafe: one line naming the file
        raise DeclarationError(str(err)) from None
    except RecursionError:
        raise DeclarationError(f"{shown(path)}: cannot read its declarations (nested too deeply)") from None
    except MemoryError:
        raise DeclarationError(f"{shown(path)}: cannot read its declarations (out of memory)") from None
    except SyntaxError as err:
        raise DeclarationError(f"{shown(path)}: cannot read its declarations (a syntax error at line "
                               f"{err.lineno}: {shown(err.msg)})") from None
    except (OSError, ValueError) as err:    # ValueError: not UTF-8, or a NUL byte
        reason = getattr(err, "strerror", None) or " ".join(str(err).split())
        raise DeclarationError(f"{shown(path)}: cannot read its declarations ({shown(reason)})") from None


def _declarations(tree: ast.Module, path: Path) -> tuple[list[DeclaredScene], list[DeclaredSection]]:
    scenes, sections = [], []
    texts = tuple(sorted(_texts(tree).items(), key=lambda kv: kv[0]))
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        bases = _bases(cls)
        attrs: dict[str, Any] = {}
        annotated: dict[str, ast.AST] = {}
        declared: dict[str, vocabulary.Key] = {}
        for stmt in cls.body:
            where = f"{shown(path)}:{stmt.lineno}"
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
                raise DeclarationError(f"{shown(path)}:{cls.lineno}: {cls.name} declares no section = \"...\"")
            sections.append(DeclaredSection(cls.name, attrs["section"], declared, ast.get_docstring(cls) or "",
                                            path))
        elif bases & SCENE_BASES and "params" in annotated:
            ann = annotated["params"]
            params = ann.id if isinstance(ann, ast.Name) else getattr(ann, "value", None)
            if not isinstance(params, str):
                raise DeclarationError(f"{shown(path)}:{cls.lineno}: {cls.name}.params: expected a Params class name")
            if not isinstance(attrs.get("chapter"), int) or not isinstance(attrs.get("number"), int):
                raise DeclarationError(f"{shown(path)}:{cls.lineno}: {cls.name} declares no chapter = N and number = N")
            splits = attrs.get("splits", False)
            if not isinstance(splits, bool):
                raise DeclarationError(f"{shown(path)}:{cls.lineno}: {cls.name}.splits: expected True or False")
            scenes.append(DeclaredScene(cls.name, path, attrs["chapter"], attrs["number"], params, texts, splits))
    return scenes, sections


TEXT_CALLS = ("beat", "tr", "checkpoint", "describe")   # LessonScene's methods that read a text of the scene's module
# ``checkpoint``'s own parameters (not fields of its texts); its feedback text ``<key>_wrong`` may also use
# ``{answer}``, the right answer as written
CHECKPOINT_ARGS = frozenset({"choices", "answer", "number", "places"})
VERB_ARGS = {"beat": frozenset({"focus", "names_change"}), "checkpoint": CHECKPOINT_ARGS,
             "describe": frozenset({"places", "fractions"})}   # each verb's own parameters


def _texts(tree: ast.Module) -> dict[str, frozenset[str] | None]:
    """The texts a module's calls name (``DeclaredScene.texts``): a
    checkpoint names two, its question and ``<key>_wrong``."""
    found: dict[str, frozenset[str] | None] = {}

    def add(key: str, names: frozenset[str] | None) -> None:
        before = found.get(key, frozenset())
        found[key] = None if before is None or names is None else before | names

    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in TEXT_CALLS and node.args):
            continue
        key = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
        own = isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
        key = key if isinstance(key, str) and own else "*"     # another receiver: its key is not known
        verb = VERB_ARGS.get(node.func.attr, frozenset())
        names = None if any(k.arg is None for k in node.keywords) else \
            frozenset(k.arg for k in node.keywords if k.arg not in verb)
        add(key, names)
        if node.func.attr == "checkpoint":
            add(f"{key}_wrong" if key != "*" else key, None if names is None else names | {"answer"})
    return found


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
        raise DeclarationError(f"{shown(path)}: {scene.name}.params names {scene.params}, which neither "
                               f"{shown(path.name)} nor {shared_name} declares")
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
                raise DeclarationError(f"{shown(path)}: section [{shown(decl.section)}] is declared twice "
                                       f"({shown(other.path)}, {shown(decl.path)})")
            scenes.append(scene)
            section_of[scene.name] = decl.section
            sections.setdefault(decl.section, decl)
    numbers = [s.number for s in scenes]
    if len(set(numbers)) != len(numbers):
        raise DeclarationError(f"{shown(folder)}: two scenes declare the same number")
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
    A teacher's scene, section or module file whose name a shipped one (or
    another of the teacher's) has, in any case, is a DeclarationError (one
    line), as is a module that is not a regular file inside the lesson's
    folder (``read_module``).  Read again whenever a module changes."""
    folder = teacher_folder(lesson_dir) if lesson_dir is not None else None
    if folder is None or not folder.is_dir() or is_checkout(folder):
        return discover()
    return _teacher(folder, tuple(_stamp(p) for p in sorted(folder.glob("*.py"))))


def _stamp(path: Path) -> tuple:
    """What changes when the module at ``path``, or where it links, changes."""
    try:
        st = os.stat(path)
    except OSError:
        return (path.name,)
    return path.name, os.path.realpath(path), st.st_mode, st.st_ino, st.st_mtime_ns, st.st_size


def is_checkout(folder: Path) -> bool:
    """Whether ``folder`` is qkv-lens's own scenes package (installed, or a
    copy of the checkout: a package with the kit), not a teacher's folder."""
    return (folder / "__init__.py").is_file() and (folder / SHARED_SECTIONS).is_file()


@functools.lru_cache(maxsize=8)
def _teacher(folder: Path, stamp: tuple) -> Declared:
    shipped = discover()
    if (folder / "__init__.py").exists():
        raise DeclarationError(f"{shown(folder)}: the teacher's scene folder is not a package: remove its "
                               "__init__.py (it would hide the shipped scenes package and its kit)")
    shared = read_module(package_dir("scenes") / SHARED_SECTIONS)[1]
    scenes, sections, section_of = list(shipped.scenes), dict(shipped.sections), dict(shipped.section_of)
    modules = {s.path.stem.casefold(): s.path for s in shipped.scenes} | {"kit": package_dir("scenes") / "kit"}
    classes = {name.casefold(): name for name in section_of}
    named = {name.casefold(): decl for name, decl in sections.items()}
    for path in sorted(folder.glob("*.py")):
        found, own = read_module(path, within=folder.parent)
        if found and not MODULE_NAME.fullmatch(path.stem):
            raise DeclarationError(f"{shown(path)}: a scene's module is named like its texts' keys (its name is "
                                   "their prefix): lower-case letters, digits and _, like my_scene.py")
        if found and path.stem.casefold() in modules:
            mine = not modules[path.stem.casefold()].is_relative_to(package_dir("scenes"))
            raise DeclarationError(f"{shown(path)}: {'another of your modules' if mine else 'a shipped module'} "
                                   f"is called {shown(modules[path.stem.casefold()].stem)}; name the file otherwise")
        for scene in found:
            other_name = classes.get(scene.name.casefold())
            if other_name is not None:
                where = "a shipped scene" if other_name in shipped.section_of else "another of your scenes"
                spelt = "" if other_name == scene.name else f" ({other_name}: names are compared in any case)"
                raise DeclarationError(f"{shown(path)}:{scene.name}: {where} has that name{spelt}; rename the class")
            decl = params_of(scene, path, own, shared, "the kit's sections.py")
            other = named.get(decl.section.casefold())
            if other is not None and other.cls != decl.cls:
                raise DeclarationError(f"{shown(path)}: section [{shown(decl.section)}] is already declared "
                                       f"({shown(other.path)}); name your section otherwise")
            scenes.append(scene)
            section_of[scene.name] = decl.section
            sections.setdefault(decl.section, decl)
            classes[scene.name.casefold()] = scene.name
            named.setdefault(decl.section.casefold(), decl)
        if found:
            modules[path.stem.casefold()] = path
    return Declared(tuple(scenes), sections, section_of)
