"""``qkv-lens watch``: renders on an edit of the code, the lesson or its picture, not on reads."""
import shutil
import time

from tests.helpers import LESSON, watching


def test_watch_renders_on_edit_and_not_on_reads(tmp_path, tree):
    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    # a copy of the code: other people's edits of the checkout must not count
    with watching(lesson, (tree / "scenes", tree / "qkv_math")) as wait_for:
        assert wait_for(1) == 1  # the first round at start
        time.sleep(1.0)
        lesson.read_text(encoding="utf-8")               # reading is not a change
        (tree / "scenes" / "worked_example.py").read_bytes()
        time.sleep(1.5)
        assert wait_for(1) == 1
        lesson.write_text(lesson.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        assert wait_for(2) == 2


def test_watch_renders_on_an_edit_of_the_lessons_picture(tmp_path, tree):
    import numpy as np
    from PIL import Image

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
    with watching(lesson, (tree / "scenes", tree / "qkv_math")) as wait_for:   # not the checkout others edit
        assert wait_for(1) == 1  # the first round at start
        time.sleep(1.0)
        (tmp_path / "notes.txt").write_text("not part of the lesson", encoding="utf-8")
        named.read_bytes()
        time.sleep(1.5)
        assert wait_for(1) == 1
        Image.fromarray(np.full((8, 8, 3), 200, dtype=np.uint8)).save(named)  # the named picture
        assert wait_for(2) == 2
        time.sleep(1.2)
        Image.fromarray(np.full((8, 8, 3), 90, dtype=np.uint8)).save(beside)  # a picture beside it
        assert wait_for(3) == 3
        time.sleep(1.2)
        recording.write_bytes(b"RIFF again")                                   # a recording of a beat
        assert wait_for(4) == 4
