"""LessonScene: the base of every scene (lesson, language, narration, key moments)."""
from __future__ import annotations

import sys
from contextlib import contextmanager

from manim import Scene, config

from qkv_lens.fonts import FontMissing, font_for
from qkv_lens.lesson import LANGUAGES, Lesson, LessonError, load_lesson
from qkv_lens.registry import SceneInfo, by_class
from qkv_lens.texts import tr

from .moments import Moment, collect_labels

# Reading speeds for subtitles: characters per second.
READING_RATE = {"zh": 7.0, "en": 19.0}


def fail_clearly(message: str, status: int = 2):
    """Print ``message`` as one error line and exit with ``status`` (no traceback)."""
    print(f"qkv-lens: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def lesson_or_exit() -> Lesson:
    """The validated lesson (QKV_LESSON / QKV_LANG honoured), or a clear exit 2."""
    try:
        lesson = load_lesson()
        font_for(lesson.language)
    except (LessonError, FontMissing) as err:
        fail_clearly(str(err))
    return lesson


# manim's default folders (head, tail): the language goes between them
LANGUAGE_DIRS = {"video_dir": ("{media_dir}/videos/{module_name}", "/{quality}"),
                 "images_dir": ("{media_dir}/images/{module_name}", "")}


def media_dirs_by_language(lang: str) -> None:
    """Put manim's default video and image folders under the language
    (media/videos/<module>/<lang>/480p15/...), so the zh and en renders of a
    scene with the plain manim CLI do not overwrite each other.  Folders the
    user chose (--video_dir, manim.cfg) are left alone.  Must run before
    Scene.__init__, which fixes the output paths."""
    for key, (head, tail) in LANGUAGE_DIRS.items():
        if config[key] in {head + tail, *(f"{head}/{l}{tail}" for l in LANGUAGES)}:
            config[key] = f"{head}/{lang}{tail}"


class LessonScene(Scene):
    """A scene of the lesson.  Its entry in ``qkv_lens.registry`` (found by
    the class name) gives ``section``, its text-table prefix, and the
    lesson.toml section whose frozen values are ``self.params``."""

    info: SceneInfo

    def __init__(self, *args, **kwargs):
        self.info = by_class(type(self).__name__)
        self.lesson = lesson_or_exit()
        media_dirs_by_language(self.lesson.language)
        super().__init__(*args, **kwargs)

    def setup(self):
        super().setup()
        self.lang = self.lesson.language
        self.params = getattr(self.lesson, self.info.lesson_section)
        self.moments: dict[str, Moment] = {}
        self.said: list[tuple[str, str]] = []   # (text key, sentence) of every narration, in order

    @property
    def section(self) -> str:
        return self.info.section

    def tr(self, key: str, **fields) -> str:
        return tr(self.lang, f"{self.section}.{key}", **fields)

    def reading_time(self, sentence: str) -> float:
        return max(1.5, len(sentence) / READING_RATE[self.lang])

    @contextmanager
    def narration(self, key: str, **fields):
        """Narrate text ``key`` as a subcaption over the animations played
        inside the block; waits at the end if the text needs longer to read."""
        sentence = self.tr(key, **fields)
        self.said.append((key, sentence))
        start = self.renderer.time
        yield sentence
        rest = self.reading_time(sentence) - (self.renderer.time - start)
        if rest > 0.05 and not self.renderer.skip_animations:
            self.wait(rest)
        now = self.renderer.time
        self.add_subcaption(sentence, duration=max(now - start, 0.5), offset=start - now)

    def key_moment(self, name: str, **probes) -> None:
        """Record what is on screen now (labels and the scene's probes)."""
        self.moments[name] = Moment(name, collect_labels(self.mobjects, self.renderer.camera), probes)
