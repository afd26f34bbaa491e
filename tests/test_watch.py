"""``qkv-lens watch``: renders on an edit of the code, the lesson or its picture, not on reads."""
import shutil
import threading
import time

from tests.helpers import LESSON


def test_watch_renders_on_edit_and_not_on_reads(tmp_path, tree):
    from types import SimpleNamespace

    from qkv_lens.app.watch import watch

    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    calls = []
    stop = threading.Event()
    args = SimpleNamespace(lesson=str(lesson))
    # a copy of the code: other people's edits of the checkout must not count
    code = (tree / "scenes", tree / "qkv_math")
    t = threading.Thread(target=watch, args=(args, lambda a: calls.append(time.monotonic()), stop, code))
    t.start()
    try:
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(calls) == 1  # the first round at start
        time.sleep(1.0)
        lesson.read_text(encoding="utf-8")               # reading is not a change
        (tree / "scenes" / "worked_example.py").read_bytes()
        time.sleep(1.5)
        assert len(calls) == 1
        lesson.write_text(lesson.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        deadline = time.monotonic() + 10
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(calls) == 2
    finally:
        stop.set()
        t.join(timeout=10)
    assert not t.is_alive()


def test_watch_renders_on_an_edit_of_the_lessons_picture(tmp_path, tree):
    from types import SimpleNamespace

    import numpy as np
    from PIL import Image

    from qkv_lens.app.watch import watch

    (tmp_path / "pics").mkdir()
    recording = tmp_path / "voice" / "en" / "WorkedExample" / "intro.wav"
    recording.parent.mkdir(parents=True)
    recording.write_bytes(b"RIFF")
    named = tmp_path / "pics" / "x.png"
    beside = tmp_path / "y.jpg"
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(named)
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(beside)
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('[photo_filter]\nimage = "pics/x.png"\nsize = [8, 8]\n', encoding="utf-8")
    calls = []
    stop = threading.Event()
    code = (tree / "scenes", tree / "qkv_math")  # not the checkout others edit
    t = threading.Thread(target=watch, args=(SimpleNamespace(lesson=str(lesson)),
                                             lambda a: calls.append(time.monotonic()), stop, code))

    def wait_for(n):
        deadline = time.monotonic() + 10
        while len(calls) < n and time.monotonic() < deadline:
            time.sleep(0.1)
        return len(calls)

    t.start()
    try:
        assert wait_for(1) == 1  # the first round at start
        time.sleep(1.0)
        (tmp_path / "notes.txt").write_text("not part of the lesson", encoding="utf-8")
        named.read_bytes()
        time.sleep(1.5)
        assert len(calls) == 1
        Image.fromarray(np.full((8, 8, 3), 200, dtype=np.uint8)).save(named)  # the named picture
        assert wait_for(2) == 2
        time.sleep(1.2)
        Image.fromarray(np.full((8, 8, 3), 90, dtype=np.uint8)).save(beside)  # a picture beside it
        assert wait_for(3) == 3
        time.sleep(1.2)
        recording.write_bytes(b"RIFF again")                                   # a recording of a beat
        assert wait_for(4) == 4
    finally:
        stop.set()
        t.join(timeout=10)
    assert not t.is_alive()
