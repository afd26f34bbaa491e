"""A bad lesson is refused before anything renders: one printable line naming
the file, the key path, what was expected and what was found; in bounded
time whatever the text; nothing written.  Every test feeds real files (a
FIFO, /dev/zero, a directory, a real 20000x20000 PNG) or real TOML text."""
from __future__ import annotations

import copy
import os
import struct
import subprocess
import sys
import threading
import time
import warnings
import zlib
from pathlib import Path

import pytest

from qkv_lens.lesson import LessonError, load_lesson, parse_lesson
from tests.helpers import LESSON, ROOT

try:
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

SHIPPED_TEXT = (LESSON).read_text(encoding="utf-8")
SHIPPED = tomllib.loads(SHIPPED_TEXT)
# seconds: the most any refusal may take, in this process's CPU time (time.process_time): what
# the loader's work costs, never the wall time another test process on the same cores holds it
# up for (a 5 ms parse once took 1.1 s of wall time beside the other xdist worker)
FAST = 1.0


def check_message(message: str, file) -> None:
    assert "\n" not in message and "\r" not in message
    assert message.isprintable(), f"unescaped characters in {message!r}"
    assert message.startswith(f"{file}: "), message


def refused(tmp_path: Path, content, name: str = "bad.toml") -> str:
    """The message load_lesson gives for ``content`` (text, or bytes as is)."""
    bad = tmp_path / name
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content, encoding="utf-8")
    t0 = time.process_time()
    with pytest.raises(LessonError) as err:
        load_lesson(bad)
    assert time.process_time() - t0 < FAST
    check_message(str(err.value), bad)
    return str(err.value)


def png_of_zeros(width: int, height: int, rows_per_block: int = 100) -> bytes:
    """A real, valid 8-bit grey PNG of zeros, built in a fraction of a second
    however large: after a full flush deflate repeats one compressed unit."""
    assert height % rows_per_block == 0
    block = (b"\0" * (width + 1)) * rows_per_block
    n = height // rows_per_block
    z = zlib.compressobj(9)
    first = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    unit = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    adler = 1
    for _ in range(n):
        adler = zlib.adler32(block, adler)
    stream = (first + unit * (n - 1) + z.flush(zlib.Z_FINISH))[:-4] + struct.pack(">I", adler)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", stream) + chunk(b"IEND", b""))


# --- 1. any value of any wrong type, anywhere -------------------------------

CUE = "a\n--> 00:00"
WRONG = [5, "x", [], {}, [1, 2], True, -1, 1e308, "1e400", "w" * 5000, [[[[1]]]], CUE, 10**60]


def _paths(node, path=()):
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield path + (key,)
        yield from _paths(value, path + (key,))


def _dotted(path) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def _replaced(raw, path, value):
    """``raw`` with the item at ``path`` replaced (copies only along the path)."""
    if not path:
        return value
    new = copy.copy(raw)
    new[path[0]] = _replaced(raw[path[0]], path[1:], value)
    return new


def test_every_path_of_the_shipped_lesson_with_every_wrong_value():
    """Each leaf and subtree of lesson.toml replaced by each wrong value:
    parse_lesson accepts it or raises LessonError with one printable line
    that starts with the file and the section; texts too long or holding
    control characters are refused at exactly their key path."""
    problems = []
    cases = 0
    parse_lesson(SHIPPED, Path("t.toml"))    # once untimed: the first measures the fonts' widths
    for path in _paths(SHIPPED):
        for value in WRONG:
            cases += 1
            raw = _replaced(SHIPPED, path, value)
            t0 = time.process_time()
            try:
                parse_lesson(raw, Path("t.toml"))
            except LessonError as err:
                message = str(err)
                if "\n" in message or not message.isprintable():
                    problems.append(f"{_dotted(path)} = {value!r:.30}: not one printable line: {message!r}")
                if not message.startswith(f"t.toml: {path[0]}"):
                    problems.append(f"{_dotted(path)} = {value!r:.30}: names another key: {message}")
                bad_text = isinstance(value, str) and len(value) > 256 or value == CUE
                if bad_text and not message.startswith(f"t.toml: {_dotted(path)}: expected a text"):
                    problems.append(f"{_dotted(path)} = {value!r:.30}: not refused at its key: {message}")
            except Exception as err:  # noqa: BLE001 - any other exception is the failure
                problems.append(f"{_dotted(path)} = {value!r:.30}: {type(err).__name__}: {err}")
            if time.process_time() - t0 > FAST:
                problems.append(f"{_dotted(path)} = {value!r:.30}: took {time.process_time() - t0:.1f} s of CPU")
    assert cases > 5000
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("content, where, found", [
    ("worked_example = 5\n", "worked_example", "found 5"),
    ("training = [1, 2]\n", "training", "found a list of 2 numbers"),
    ('attention = "x"\n', "attention", "found 'x'"),
    ("[attention]\ntokens = [\"我\", \"想\"]\n", "attention.tokens[0]", "expected a table, found '我'"),
    ("[attention]\ntraits = [{zh = \"甲\", en = 5}]\n", "attention.traits[0].en", "found 5"),
    ("[three_lenses]\nlenses = [1, 2, 3]\n", "three_lenses.lenses[0]", "expected a table, found 1"),
    ("[three_lenses]\nlenses = [{keep = 5}, {}, {}]\n", "three_lenses.lenses[0]", 'missing key "drop"'),
    ("[photo_filter]\nsize = 5\n", "photo_filter.size", "[height, width] in pixels, found 5"),
    ('[photo_filter]\npixel = "a"\n', "photo_filter.pixel", "found 'a'"),
    ("[photo_filter]\nsize = [8, \"8\"]\n", "photo_filter.size[1]", "whole number from 4 to 64, found '8'"),
    ("[space_deformation]\nwords = 5\n", "space_deformation.words", "found 5"),
    ("[space_deformation]\nwords = [5]\n", "space_deformation.words[0]", "expected a table, found 5"),
    ("[worked_example]\nW = [[1, 2, 3], []]\n", "worked_example.W[1]", "found an empty row"),
    ("[worked_example]\nW = [[], []]\n", "worked_example.W[0]", "found an empty row"),
    ("[worked_example]\nW = [[1, 2], [3]]\n", "worked_example.W[1]", "found a list of 1 number"),
    ("[worked_example]\nx = 1979-05-27\n", "worked_example.x", "found a date or time"),
    ("[dot_product_softmax]\nd_k = 64\n", "dot_product_softmax.d_k", "found 64"),
])
def test_wrong_types_give_one_line(tmp_path, content, where, found):
    message = refused(tmp_path, content)
    assert message.startswith(f"{tmp_path / 'bad.toml'}: {where}: ")
    assert found in message
    assert "<" not in message and "None" not in message


# --- 2. numbers: bounded by kind, checked in bounded time ---------------------

@pytest.mark.parametrize("text, part", [
    ('"1e400"', "found '1e400'"),
    ('"1e100000000"', "found '1e100000000'"),
    ('"0.1234567890123"', "at most 6 decimal places"),
    ('"1/987654321"', "denominator up to 1000000"),
    ("0.1234567890123", "at most 6 decimal places"),
    ("1e308", "expected a number from -100 to 100, found 1e+308"),
    ("1e400", "found inf"),
    ("-1e-300", "at most 6 decimal places"),
    ("480", "expected a number from -100 to 100, found 480"),
    ("1" + "0" * 4000, "found a whole number of about 4001 digits"),
    ('"1_000"', "found '1_000'"),
    ('"١"', "found '١'"),
    ('"1/0"', "found '1/0'"),
    ('"' + "9" * 30 + '"', "found '" + "9" * 30 + "'"),
])
def test_numbers_beyond_their_kind_are_refused_quickly(tmp_path, text, part):
    message = refused(tmp_path, f"[worked_example]\nx = [{text}, 1]\n")
    assert message.startswith(f"{tmp_path / 'bad.toml'}: worked_example.x[0]: expected ")
    assert part in message


def test_integer_of_thousands_of_digits_is_a_toml_error(tmp_path):
    """Python's int() refuses over 4300 digits inside tomllib (a ValueError)."""
    message = refused(tmp_path, "[worked_example]\nx = [" + "7" * 5000 + ", 1]\n")
    assert "TOML syntax error" in message


@pytest.mark.parametrize("content, part", [
    ("[space_deformation]\nrotation_degrees = 1000\n", "from -360 to 360, found 1000"),
    ("[space_deformation]\nwords = [{zh = \"甲\", en = \"a\", at = [50, 0]}]\n", "from -5 to 5, found 50"),
    ("[space_deformation]\nsvd_matrix = [[1e6, 0], [0, 1]]\n", "from -4 to 4, found 1000000.0"),
    ("[attention]\ntemperature = 1000\n", "> 0 and at most 100, found 1000"),
    ("[dot_product_softmax]\ntemperatures = [0.5, 200]\n", "> 0 and at most 100, found 200"),
    ("[dot_product_softmax]\nscores = [1, 800]\n", "from -10 to 10, found 800"),
    ("[dot_product_softmax]\nvector_a = [0, 0]\n", "a non-zero vector"),
    ("[shadow_projection]\ncube_center = [1000, 0, 0]\n", "from -10 to 10, found 1000"),
    ("[shadow_projection]\nlight = [-1, 50, 0]\n", "at least 6 degrees off the wall"),
    ("[shadow_projection]\nlamp = [2.7, 1.5, 2.2]\n", "further from the wall"),
    ("[training]\nlearning_rate = \"1e-9\"\n", "at most 6 decimal places"),
    ("[photo_filter]\ndarken_factor = 100\n", "> 0 and at most 4, found 100"),
])
def test_bounds_by_kind(tmp_path, content, part):
    assert part in refused(tmp_path, content)


def test_every_shipped_number_is_inside_its_bounds():
    parse_lesson(SHIPPED, Path("t.toml"))
    load_lesson(LESSON)


# --- 3. lists, names and costly products --------------------------------------

def _names(n: int, width: int = 1) -> str:
    return "[" + ", ".join(f'{{zh = "名{i}", en = "{"n" * width}{i}"}}' for i in range(n)) + "]"


@pytest.mark.parametrize("content, where, part", [
    ("[dot_product_softmax]\nsamples = 200000\nd_k = [4096]\n", "dot_product_softmax.samples",
     "found 200000 x 4096 = 819200000"),
    ("[training]\nsteps = 20000\nbatch = 512\n", "training.batch", "found 20000 x 512 = 10240000"),
    (f"[attention]\ntraits = {_names(200)}\n", "attention.traits", "(at most 12), found a list of 200 tables"),
    (f"[attention]\nqk_dims = {_names(50)}\n", "attention.qk_dims", "found a list of 50 tables"),
    (f"[attention]\nv_dims = {_names(5)}\n", "attention.v_dims", "(at most 4)"),
    ("[space_deformation]\nwords = [" + ", ".join(['{zh = "甲", en = "a", at = [1, 1]}'] * 300) + "]\n",
     "space_deformation.words", "found a list of 300 tables"),
    (f"[three_lenses]\ntraits = {_names(40)}\n", "three_lenses.traits", "found a list of 40 tables"),
    ("[worked_example]\nx = [" + ", ".join(["1"] * 100) + "]\n", "worked_example.x",
     "found a list of 100 numbers"),
    ("[worked_example]\nx = [1]\nW = [[" + ", ".join(["1"] * 100) + "]]\n", "worked_example.W[0]",
     "a row of 1 to 4 numbers"),
    ('[attention]\ntokens = [{zh = "' + "字" * 200 + '", en = "a"}]\n', "attention.tokens[0].zh",
     "a name of 1 to 24 letters"),
    ('[training]\njobs = [{zh = "甲", en = "' + "a" * 250 + '"}]\n', "training.jobs[0].en",
     "(250 characters)"),
    ('[training]\njobs = [{zh = "甲", en = "' + "a" * 10000 + '"}]\n', "training.jobs[0].en",
     "a text of at most 256 characters"),
])
def test_lists_names_and_products_are_capped(tmp_path, content, where, part):
    message = refused(tmp_path, content)
    assert message.startswith(f"{tmp_path / 'bad.toml'}: {where}: expected ")
    assert part in message


# What a frame can draw at a readable size: refused in one line naming the key and why.
DRAWABLE = [
    ("[worked_example]\nx = [1, 2, 3, 4, 5]\nW = [[1], [1], [1], [1], [1]]\n", "worked_example.x",
     "at most 4 entries: a frame holds the 4 rows of W"),
    ("[worked_example]\nx = [1]\nW = [[1, 2, 3, 4, 5]]\n", "worked_example.W[0]",
     "a row of 1 to 4 numbers: a frame holds the arithmetic of 4 outputs"),
    ('[worked_example]\nx = ["1/3", 0.123457]\nW = [[1], [1]]\n', "worked_example.x[1]",
     "a number of at most 8 digits: the worked example writes every number out in full, found 123457/1000000"),
    ("[worked_example]\nx = [0.12345]\nW = [[0.12345]]\n", "worked_example.W[0][0]",
     "a product x[0] × W[0][0] of at most 8 digits"),
    ("[worked_example]\nx = [99.99, 99.99]\nW = [[99.99], [99.99]]\n", "worked_example.W",
     "an output (y[0] = x times column 0 of W) of at most 8 digits"),
    ("[worked_example]\nx = [1, 0, 0, 0]\nW = [" + ", ".join(["[-99.999999, -99.999999, -99.999999, -99.999999]"] * 4)
     + "]\n", "worked_example.W", "x W = y to fit across the frame at a readable size: at most 80 characters"),
    (f"[three_lenses]\ntraits = {_names(5)}\n", "three_lenses.traits", "at most 4 traits: each lens matrix has a row"),
    ("[three_lenses]\nwords = [" + ", ".join(['{zh = "甲", en = "a", traits = [1, 0, 0, 0]}'] * 7) + "]\n",
     "three_lenses.words", "a list of 1 to 6 words: the table shows a row per word"),
    ('[three_lenses]\ntraits = [{zh = "甲", en = "sweetness"}, {zh = "乙", en = "b"}, {zh = "丙", en = "c"}, '
     '{zh = "丁", en = "d"}]\n', "three_lenses.traits[0].en", "a name of at most 8 letters"),
    ('[three_lenses]\nwords = [{zh = "甲", en = "extraordinarily", traits = [1, 0, 0, 0]}]\n',
     "three_lenses.words[0].en", "a name of at most 12 letters (a Chinese character counts as 2): each lens panel"),
    ('[[three_lenses.lenses]]\nkeep = {zh = "甲", en = "a"}\ndrop = {zh = "乙", en = "incomprehensibly vast"}\n'
     'axes = [{zh = "丙", en = "x"}, {zh = "丁", en = "y"}]\nmatrix = [[1, 0], [0, 1], [0, 0], [0, 0]]\n'
     + '[[three_lenses.lenses]]\nkeep = {zh = "甲", en = "a"}\ndrop = {zh = "乙", en = "b"}\n'
     'axes = [{zh = "丙", en = "x"}, {zh = "丁", en = "y"}]\nmatrix = [[1, 0], [0, 1], [0, 0], [0, 0]]\n' * 2,
     "three_lenses.lenses[0].drop.en", "words of at most 12 letters"),
    ('[three_lenses]\nwords = [{zh = "甲", en = "a", traits = [1, 0.125, 0, 0]}]\n', "three_lenses.words[0].traits[1]",
     "a number of at most 2 significant digits (like 0.5, -1.5, 0.25 or 3): the scene writes every product"),
    ('[three_lenses]\nwords = [{zh = "甲", en = "a", traits = [1, "1/3", 0, 0]}]\n', "three_lenses.words[0].traits[1]",
     "found 1/3"),
]


@pytest.mark.parametrize("content, where, part", DRAWABLE, ids=[w + ":" + p[:20] for _, w, p in DRAWABLE])
def test_what_a_frame_cannot_draw_is_refused_naming_the_key(tmp_path, content, where, part):
    message = refused(tmp_path, content)
    assert message.startswith(f"{tmp_path / 'bad.toml'}: {where}: expected ") and part in message, message


def test_caps_leave_the_shipped_lesson_room():
    lesson = load_lesson(LESSON)
    assert lesson.params["dot_product_softmax"].samples * sum(lesson.params["dot_product_softmax"].d_k) * 10 < 2_000_000
    assert lesson.params["training"].steps * lesson.params["training"].batch * 4 < 64_000


# --- 4. control characters in every text -------------------------------------

@pytest.mark.parametrize("content, where", [
    ('[attention]\ntokens = [{zh = "我", en = "I\\n\\n2\\n00:00:01,000 --> 00:00:09,000\\nforged"}]\n',
     "attention.tokens[0].en"),
    ('[photo_filter]\nimage = "a\\u001b[2Jb.png"\n', "photo_filter.image"),
    ('[space_deformation]\nwords = [{zh = "甲\\u2028", en = "a", at = [1, 1]}]\n', "space_deformation.words[0].zh"),
    ('[training]\njobs = [{zh = "甲", en = "\\u202eevil"}]\n', "training.jobs[0].en"),
    ('[three_lenses]\ntraits = [{zh = "甲", en = "a\\tb"}]\n', "three_lenses.traits[0].en"),
    ('language = "zh\\u200b"\n', "language"),
    ('[unknown]\nx = "\\u0007"\n', "unknown.x"),
])
def test_control_characters_are_refused_in_every_text(tmp_path, content, where):
    message = refused(tmp_path, content)
    assert message.startswith(f"{tmp_path / 'bad.toml'}: {where}: expected a text without control characters")


def test_keys_with_control_characters_are_shown_escaped(tmp_path):
    message = refused(tmp_path, '[worked_example]\n"W\\u001b[31m" = 1\n')
    assert "\\x1b" in message and "\x1b" not in message


# --- 5. found values escaped, cut short and in plain words -------------------

@pytest.mark.parametrize("content, part", [
    ('language = "\\u001b[31mred"\n', "found '\\x1b[31mred'"),
    ('[worked_example]\nx = ["' + "1" * 100 + '"]\n', "found '" + "1" * 40 + "'… (100 characters)"),
    ("[photo_filter]\nsize = [480, 640]\n", "from 4 to 64, found 480"),
    ("[worked_example]\nW = [[1, 0, 2]]\n", "found 1 row"),
    ("[space_deformation]\nstretch = [1, 2, 3]\n", "expected a list of 2 numbers, found a list of 3 numbers"),
    ("[attention]\nfocus = \"2\"\n", "found '2'"),
    ("[attention]\ncausal_mask = 1\n", "true or false, found 1"),
])
def test_found_values_are_plain_and_escaped(tmp_path, content, part):
    message = refused(tmp_path, content)
    assert part in message
    assert "<" not in message and "NoneType" not in message


# --- 6. a byte-order mark ------------------------------------------------------

def test_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + SHIPPED_TEXT.encode("utf-8"))
    assert load_lesson(path).params["worked_example"].x == (3, 4)


def test_file_not_utf8(tmp_path):
    assert "not UTF-8" in refused(tmp_path, b"language = \"\xff\"\n")


# --- 7. a party of two learns nothing ------------------------------------------

def test_two_guests_are_refused(tmp_path):
    message = refused(tmp_path, "[training]\npeople = 2\n")
    assert "training.people: expected a whole number from 3 to 6 (with 2 guests each has one " \
           "candidate, so there is nothing to match), found 2" in message


# --- 8. files: regular, bounded in bytes and pixels ------------------------------

def _load_with_timeout(path: Path, fifo: Path | None = None, seconds: float = 5.0):
    """load_lesson(path) in a thread; if it blocks (a FIFO opened for
    reading), unblock it by opening the FIFO for writing, and fail."""
    result = {}

    def run():
        try:
            load_lesson(path)
            result["ok"] = True
        except BaseException as err:  # noqa: BLE001
            result["err"] = err
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
        pytest.fail(f"load_lesson({path}) blocked")
    assert "ok" not in result, "accepted"
    err = result["err"]
    assert isinstance(err, LessonError), repr(err)
    return str(err)


def test_a_fifo_as_the_lesson_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "lesson.toml"
    os.mkfifo(fifo)
    message = _load_with_timeout(fifo, fifo)
    check_message(message, fifo)
    assert "expected a lesson file (a regular file), found a pipe (FIFO)" in message


def test_a_directory_as_the_lesson(tmp_path):
    message = _load_with_timeout(tmp_path)
    check_message(message, tmp_path)
    assert "found a directory" in message


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_as_the_lesson():
    message = _load_with_timeout(Path("/dev/zero"))
    check_message(message, "/dev/zero")
    assert "found a character device" in message


def test_unreadable_names_give_one_line(tmp_path):
    for path, part in (("a\0b", "embedded null byte"), (tmp_path / ("x" * 300), "too long"),
                       (tmp_path / "nope" / "l.toml", "not found")):
        message = _load_with_timeout(Path(path))
        assert "\n" not in message and message.isprintable() and part in message


def test_a_lesson_over_one_mebibyte(tmp_path):
    message = refused(tmp_path, "# " + "x" * (1 << 20) + "\n")
    assert "at most 1 MiB" in message


@pytest.mark.parametrize("key", ["x" + ".x" * 200000, '"x"' + '."x"' * 100000, "[x" + ".x" * 200000 + "]",
                                 "y = {x" + ".x" * 200000])
def test_long_dotted_keys_are_refused_before_tomllib(tmp_path, key):
    """tomllib is quadratic in the parts of one key (32000 parts: 26 s, 4 GB)."""
    assert "a dotted key of more than 16 parts (at line 2)" in refused(tmp_path, f"# a lesson\n{key} = 1\n")


def test_short_dotted_keys_still_work(tmp_path):
    path = tmp_path / "dotted.toml"
    path.write_text('attention.temperature = 2\n[training]\njobs.x = 1\n', encoding="utf-8")
    with pytest.raises(LessonError, match=r"training\.jobs: expected a non-empty list"):
        load_lesson(path)
    path.write_text('attention.temperature = 2\n', encoding="utf-8")
    assert load_lesson(path).params["attention"].temperature == 2


def test_deep_nesting_is_a_toml_error(tmp_path):
    assert "TOML syntax error" in refused(tmp_path, "x = " + "[" * 100000 + "]" * 100000 + "\n")


def _picture_lesson(tmp_path: Path, image: str) -> Path:
    lesson = tmp_path / "pic.toml"
    lesson.write_text(f'[photo_filter]\nimage = "{image}"\nsize = [8, 8]\npixel = [0, 0]\ndownsample = 2\n',
                      encoding="utf-8")
    return lesson


@pytest.mark.parametrize("make, part", [
    ("fifo", "(a regular file), found a pipe (FIFO)"),
    ("dir", "(a regular file), found a directory"),
    ("zero", "leads outside"),      # a symlink to /dev/zero: out of the lesson's folder
    ("bomb", "expected a picture of at most 40 megapixels, found a larger one"),
    ("big", "expected a picture of at most 40 megapixels, found 8000x6000 pixels"),
    ("text", "cannot read"),
])
def test_bad_pictures_are_refused(tmp_path, make, part):
    target = tmp_path / "p.png"
    if make == "fifo":
        os.mkfifo(target)
    elif make == "dir":
        target.mkdir()
    elif make == "zero":
        target.symlink_to("/dev/zero")
    elif make == "bomb":
        target.write_bytes(png_of_zeros(20000, 20000))
    elif make == "big":
        target.write_bytes(png_of_zeros(8000, 6000))
    else:
        target.write_text("not a picture")
    lesson = _picture_lesson(tmp_path, "p.png")
    t0 = time.perf_counter()
    message = _load_with_timeout(lesson, target if make == "fifo" else None)
    assert time.perf_counter() - t0 < 2 * FAST
    check_message(message, lesson)
    assert message.startswith(f"{lesson}: photo_filter.image: ")
    assert message.count(str(lesson)) == 1
    assert part in message


def test_a_large_legal_picture_loads_quickly_without_warnings(tmp_path):
    (tmp_path / "p.png").write_bytes(png_of_zeros(6000, 4000))
    lesson = _picture_lesson(tmp_path, "p.png")
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        picture = load_lesson(lesson).params["photo_filter"].picture
    assert time.process_time() - t0 < 3 * FAST
    assert picture.shape == (8, 8, 3) and picture.max() == 0


# --- 9. the real command line ------------------------------------------------------

@pytest.mark.parametrize("case", ["not_a_table", "forged_cue", "bomb", "fifo"])
def test_cli_refuses_with_one_line_and_writes_nothing(tmp_path, case):
    bad = tmp_path / "bad.toml"
    if case == "not_a_table":
        bad.write_text("worked_example = 5\n", encoding="utf-8")
    elif case == "forged_cue":
        bad.write_text('[attention]\ntokens = [{zh = "我", en = "I\\n\\n1\\n00:00:00,000 --> 00:00:09,000"}]\n',
                       encoding="utf-8")
    elif case == "bomb":
        (tmp_path / "p.png").write_bytes(png_of_zeros(20000, 20000))
        bad.write_text('[photo_filter]\nimage = "p.png"\n', encoding="utf-8")
    else:
        os.mkfifo(bad)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "qkv_lens", "render", "--lesson", str(bad), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and proc.stderr.endswith("\n"), proc.stderr
    assert lines[0].startswith(f"qkv-lens: error: {bad}: ")
    assert not out.exists()
