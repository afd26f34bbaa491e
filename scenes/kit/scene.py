"""LessonScene: the base of every scene (lesson, language, narration, key moments)."""
from __future__ import annotations

import functools
import json
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from manim import Animation, Group, Mobject, Scene, ValueTracker, Wait, config
from manim.utils.exceptions import EndSceneEarlyException

from qkv_lens.beats import KEY, MAX_TEXT, Ask, Beat, Beats, CheckpointError, Cue, ask
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.languages import LanguageError, check_fonts, offered
from qkv_lens.lesson import Lesson, LessonError, Params, default_lesson_path, load_lesson
from qkv_lens.registry import SceneInfo, by_class
from qkv_lens.spoken import SpokenError, spoken
from qkv_lens.store import write_atomic
from qkv_lens.texts import tr, use_lesson_texts
from qkv_lens.voice import VoiceError, stray_recordings, voice_clip, voice_mode, warn

from .drawing import lean_drawing
from .glyphs import share_number_glyphs
from .held import held_frames
from .live import forget_svg_sources
from .moments import Moment, collect_labels, drawn_box
from .motion import Emphasize
from .segments import Segment, advance_like_frames
from .text import outline_labels

# A highlight eases in and out, so its first and last fifths look still on a
# frame-to-frame comparison: a pause of HOLD plus those ends stays well under
# the 6 s a clip may hold.
HOLD = 3.0          # seconds: the longest pause a beat's filler leaves
PULSE = 1.0         # seconds: one highlight of the beat's focus
MIN_FOCUS = 0.6     # scene units (80 px at 1080p): a smaller focus pulses too few pixels to see
VOICE_PAUSE = 0.4   # seconds of quiet after a beat's voice


def beats_path(scene: Scene) -> Path | None:
    """Where the beats file goes: QKV_BEATS_OUT if set (also for a dry run,
    so ``qkv-lens script`` can read a scene's timing without rendering it),
    else beside the video as ``<Scene>.beats.json``; None for a dry run."""
    env = os.environ.get("QKV_BEATS_OUT")
    if env:
        return Path(env)
    movie = getattr(scene.renderer.file_writer, "movie_file_path", None)
    if config.dry_run or not movie:
        return None
    return Path(movie).with_name(f"{type(scene).__name__}.beats.json")


def fail_clearly(message: str, status: int = 2):
    """Print ``message`` as one error line and exit with ``status`` (no traceback)."""
    print(f"qkv-lens: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def lesson_or_exit() -> Lesson:
    """The validated lesson (QKV_LESSON / QKV_LANG honoured) with its texts
    in use, or a clear exit 2."""
    try:
        use_lesson_texts(default_lesson_path().parent)   # the teacher's texts.toml, before the lesson's checks
        lesson = load_lesson()
        check_fonts(lesson.language)
    except (LessonError, LanguageError) as err:
        fail_clearly(str(err))
    return lesson


# manim's default folders (head, tail): the language goes between them
LANGUAGE_DIRS = {"video_dir": ("{media_dir}/videos/{module_name}", "/{quality}"),
                 "images_dir": ("{media_dir}/images/{module_name}", "")}


def media_dirs_by_language(lang: str) -> None:
    """Put manim's default video and image folders under the language
    (media/videos/<module>/<lang>/480p15/...), so a scene's renders in two languages with the plain manim CLI do not
    overwrite each other.  Folders the
    user chose (--video_dir, manim.cfg) are left alone.  Must run before
    Scene.__init__, which fixes the output paths."""
    for key, (head, tail) in LANGUAGE_DIRS.items():
        if config[key] in {head + tail, *(f"{head}/{l}{tail}" for l in offered())}:
            config[key] = f"{head}/{lang}{tail}"


class LessonScene(Scene):
    """A scene of the lesson.  Its entry in ``qkv_lens.registry`` (found by
    the class name) gives ``section``, its text-table prefix, and the
    lesson.toml section whose frozen values are ``self.params``."""

    info: SceneInfo
    params: Params            # each scene narrows it: ``params: WorkedExampleParams``
    # key moments whose content may cover less than half of the frame, and why
    # (the layout check asks every other moment to use the frame)
    sparse_moments: dict[str, str] = {}
    # A teacher's scene sets ``splits = True`` once its renders in pieces are shown to equal its whole
    # render frame for frame (state kept outside the mobjects, such as a count in a closure, breaks that);
    # until then it renders whole.  The shipped scenes split: their tests compare the frames.
    splits: bool = False

    def __init_subclass__(cls, **kwargs):
        """A scene's ``construct`` ends by checking that no checkpoint is
        left without the beat that answers it (``checkpoint``)."""
        super().__init_subclass__(**kwargs)
        body = cls.__dict__.get("construct")
        if body is None:
            return

        @functools.wraps(body)
        def construct(self, *args, **kw):
            self._constructing = getattr(self, "_constructing", 0) + 1
            try:
                body(self, *args, **kw)
            finally:
                self._constructing -= 1
            if not self._constructing and self._asking is not None:   # the whole construct ran
                fail_clearly(f"{type(self).__name__}: checkpoint {self._asking.key!r} comes after the last beat; "
                             "a checkpoint goes before the beat that shows its answer")
        cls.construct = construct   # type: ignore[method-assign]

    def __init__(self, *args, **kwargs):
        self.lesson = lesson_or_exit()
        self.info = by_class(type(self).__name__, self.lesson.path.parent)   # shipped, or the teacher's
        media_dirs_by_language(self.lesson.language)
        if config.dry_run:      # nothing is drawn, so nothing is rendered: each play jumps to its end
            kwargs["skip_animations"] = True
        super().__init__(*args, **kwargs)

    def setup(self):
        super().setup()
        self.lang = self.lesson.language
        self.params = self.params_class().of(self.lesson.params[self.info.lesson_section])
        self.moments: dict[str, Moment] = {}
        self.said: list[tuple[str, str]] = []   # (text key, sentence) of every narration, in order
        self.beats: list[Beat] = []
        self.voice = voice_mode(self.lesson.voice)
        self._last_animated: list[Mobject] = []   # a beat's default focus (see play)
        self._beat_animated: list[Mobject] = []   # all the current beat has animated
        self._focus: list[Mobject] = []           # set by focus_on
        self._asking: Ask | None = None           # a checkpoint waiting for the beat that answers it
        self._in_beat = False
        self._described: list[str] = []           # the current beat's descriptions (describe)
        self._changed = False                     # whether the current beat changed the picture
        self.sounds: list[dict] = []              # every add_sound: {"file", "time"}, skipped plays too
        self.segment = Segment.from_env()         # QKV_SEGMENT: render one stretch (kit/segments.py)
        self._unseen = False                      # a play whose frames nobody sees: nothing rasterised
        if self.segment is not None or config.dry_run:   # the only renders with such plays
            draw = self.renderer.update_frame

            def update_frame(scene, *args, **kwargs):
                if not self._unseen:
                    draw(scene, *args, **kwargs)
            self.renderer.update_frame = update_frame
        share_number_glyphs()   # every number's glyphs from one LaTeX run, manim's axis numbers too
        lean_drawing(self.renderer.camera)   # fewer, larger Cairo draws (kit/drawing.py)
        held_frames(self.renderer.file_writer)   # a still wait's frame converted once (kit/held.py)

    @classmethod
    def params_class(cls) -> type[Params]:
        """The ``Params`` class the scene declares (``params: XParams``)."""
        for klass in cls.__mro__:
            name = klass.__dict__.get("__annotations__", {}).get("params")
            if name is not None:
                found = name if isinstance(name, type) else vars(sys.modules[klass.__module__])[name]
                return found
        raise TypeError(f"{cls.__name__} declares no params: XParams")

    @property
    def section(self) -> str:
        return self.info.section

    def tr(self, key: str, **fields) -> str:
        return tr(self.lang, f"{self.section}.{key}", **fields)

    @contextmanager
    def beat(self, key: str, focus: Mobject | None = None, names_change: bool = False, **fields):
        """One beat: narration step ``key`` of the text table, filled with
        ``fields``, over the animations played inside the block.
        ``names_change``: the sentence itself names what the beat changes in
        the picture (with its values), so it needs no description
        (``describe``); the beats file records it, and the coverage test
        (``tests/test_descriptions.py``) tells it from a change left
        undescribed.

        The beat is a manim section (``--save_sections`` gives one clip per
        beat).  It lasts as long as its subtitle cues need at the reading
        speed (``qkv_lens.cues``) or its voice needs, whichever is longer; when
        the animations are shorter, ``focus`` (default: what the block animated
        last) is highlighted every few seconds, so the picture never stands
        still while the text is read.  The cues share the beat's time in
        proportion to their length."""
        sentence = self.tr(key, **fields)
        beat_id = self._beat_id(key)
        self.said.append((key, sentence))
        asked, self._asking = self._asking, None     # a checkpoint before this beat: the beat answers it
        self._in_beat = True
        self._described, self._changed = [], False
        self.next_section(name=beat_id)
        self._beat_animated = []
        start = self.renderer.time
        try:
            clip = voice_clip(self.voice, self.info.name, beat_id, sentence, self.lang, self.lesson.path.parent)
        except VoiceError as err:   # a recording that is not audio, no espeak-ng: one line, status 2
            fail_clearly(str(err))
        if clip.path is not None:
            self.add_sound(str(clip.path))
        try:
            yield sentence
        finally:
            self._in_beat = False
        cues = split_cues(sentence, self.lang)
        weights = [cue_seconds(c, self.lang) for c in cues]   # each cue's reading time
        need = max(sum(weights), clip.seconds + VOICE_PAUSE if clip.path is not None else 0.0)
        named = [focus] if focus is not None else list(self._focus)   # what the sentence names, if said
        self._fill(need - (self.renderer.time - start), focus)
        end = self.renderer.time
        # the cues share the beat in proportion to their reading time
        t, timed = start, []
        for cue, w in zip(cues, weights):
            length = (end - start) * w / sum(weights)
            timed.append((t, t + length, cue))
            t += length
        for a, b, cue in timed:
            self.add_subcaption(cue, duration=b - a, offset=a - end)
        box = drawn_box(self._on_screen(named), self.renderer.camera) if named else None   # frame units, 3-D too
        self.beats.append(Beat(beat_id, key, start, end, sentence, tuple(Cue(*c) for c in timed), clip.seconds,
                               box, asked, " ".join(self._described), names_change, self._changed))

    def describe(self, key: str, *, places: int = 3, fractions: bool = False, **values) -> None:
        """Describe what the current beat's picture shows that its sentence
        does not say (an audio description: WCAG 1.2.3, 1.2.5): the text
        ``<section>.<key>`` of every language, each field filled with its
        value said aloud (``qkv_lens.spoken``: a number as shown, with
        ``places`` decimals and, with ``fractions``, every exact
        non-integer as a fraction; "minus 1", "one half"; a vector's
        entries; a matrix's shape and rows, "W is two by three: first row
        1, 0, 2; second row 0, 1, minus 1"; a text as it is).  Pass the
        values the scene draws (from ``qkv_math``), so the description
        follows an edit of the lesson.  Call it inside ``with
        self.beat(...)``; several calls in one beat are read one after
        another.  The page speaks it in the beat's quiet part (after its
        voice), pausing the clip while it runs past the beat's end; the
        exports mix it into a described audio track and the handout prints
        it.  Refused (one line, exit status 2): outside a beat, a value that
        cannot be said, a description longer than MAX_TEXT."""
        name = type(self).__name__
        if not self._in_beat:
            fail_clearly(f"{name}: describe {key!r} outside a beat; call it inside the `with self.beat(...)` "
                         "whose picture it describes")
        if not isinstance(key, str) or not KEY.fullmatch(key):
            fail_clearly(f"{name}: describe {key!r}: a text key of lower-case letters, digits and _ expected")
        said = {}
        for field, value in values.items():
            try:
                said[field] = spoken(value, self.lang, places, fractions)
            except SpokenError as err:
                fail_clearly(f"{name}: describe {key!r}: {field}: {err}")
        text = self.tr(key, **said)
        if len(" ".join([*self._described, text])) > MAX_TEXT:
            fail_clearly(f"{name}: describe {key!r}: the beat's description is longer than {MAX_TEXT} characters")
        self._described.append(text)

    def checkpoint(self, key: str, *, choices=None, answer=None, number=None, places=None, **fields) -> None:
        """A question the learner answers before the next beat plays; that
        beat shows the answer.  Call it in ``construct`` between two beats.

        ``key`` names two texts of the scene's section, filled with
        ``fields``: the question (``<section>.<key>``) and one sentence of
        feedback for a wrong answer (``<section>.<key>_wrong``, which may
        also use ``{answer}``, the right answer as written).  Either
        ``choices`` (2 to 8 distinct texts, names or numbers as the scene
        shows them) and ``answer``, the index of the right one, computed by
        ``qkv_math`` from the lesson's values; or ``number``, the value
        (from ``qkv_math``), and ``places``, the decimals a learner gives
        it to (right within that rounding).  The page, the presenter, the
        exports and a course package ask it; a lesson may turn checkpoints
        off (``checkpoints = false``), which re-renders nothing.  Refused
        (one line, exit status 2): inside a beat, a second checkpoint before
        the same beat, one after the last beat, an answer that is not one of
        the choices."""
        name = type(self).__name__
        if self._in_beat:
            fail_clearly(f"{name}: checkpoint {key!r} inside a beat; call it between two beats, before the beat "
                         "that shows its answer")
        if self._asking is not None:
            fail_clearly(f"{name}: checkpoint {key!r} after checkpoint {self._asking.key!r} with no beat between "
                         "them; one checkpoint a beat")
        try:
            question = self.tr(key, **fields)
            asked = ask(key, question, question, choices, answer, number, places)
            self._asking = ask(key, question, self.tr(f"{key}_wrong", **fields, answer=asked.shown), choices,
                               answer, number, places)
        except CheckpointError as err:
            fail_clearly(f"{name}: {err}")

    def _beat_id(self, key: str) -> str:
        base = key.removesuffix("_say")
        taken = {b.id for b in self.beats}
        n, beat_id = 1, base
        while beat_id in taken:
            n += 1
            beat_id = f"{base}-{n}"
        return beat_id

    def add(self, *mobjects: Mobject):
        """Scene.add, and every label added gets the dark outline (``outline_labels``)."""
        outline_labels(*mobjects)
        if getattr(self, "_in_beat", False) and _draws(mobjects):
            self._changed = True
        return super().add(*mobjects)

    def remove(self, *mobjects: Mobject):
        """Scene.remove (inside a beat, a change of the picture when it removes something drawn)."""
        if getattr(self, "_in_beat", False) and _draws(mobjects):
            self._changed = True
        return super().remove(*mobjects)

    def play(self, *animations, **kwargs):
        if self.segment is not None:  # where a segment starts or ends (kit/segments.py)
            if not self.segment.at_play(self):
                raise EndSceneEarlyException()
            # manim skips a play whose number is below from_animation_number
            config.from_animation_number = self.renderer.num_plays + 1 if self.skipping_in else 0
        # animations copy what they move (and their targets): glyphs without
        # their SVG sources copy seven times faster
        forget_svg_sources(*self.mobjects, *[m for a in animations for m in
                                             (getattr(a, "mobject", None), getattr(a, "target_mobject", None))
                                             if isinstance(m, Mobject)])
        start = self.renderer.time
        self.skip_animation_preview = self.skipping_in    # its frames stepped, not drawn
        # a play a segment skips, or any in a dry run, writes no frame: manim would still draw its
        # still background (and a wait's frame) each play; not the first (the Cairo context is made then)
        self._unseen = (self.skipping_in or config.dry_run) and self.renderer.num_plays > 0
        try:
            super().play(*animations, **kwargs)
        finally:
            self.skip_animation_preview = self._unseen = False
        if self.renderer.skip_animations:   # as if its frames were drawn (kit/segments.py):
            frozen = self.is_current_animation_frozen_frame()
            if not frozen:                  # the updaters' last pass a drawn play ends with
                self.update_mobjects(0)
            self.renderer.time = advance_like_frames(start, self.duration, frozen)   # and its clock
        # what was animated last and is still on screen (not a pause, not a
        # flash that removed itself, not the camera): a beat's default focus
        if self._in_beat and any(not isinstance(a, (Wait, Emphasize)) for a in self.animations or []):
            self._changed = True     # a beat's change of the picture: anything but a pause or a pulse
        moved = [a.mobject for a in self.animations or []
                 if not isinstance(a, Wait) and getattr(a, "mobject", None) is not None]
        if self._on_screen(moved):
            self._last_animated = moved
            self._beat_animated += moved
        self._focus = []

    def get_time_progression(self, run_time, description, n_iterations=None, override_skip_animations=False):
        """manim's frame times; a play a segment skips steps through every
        frame time too (undrawn: ``skip_animation_preview``) while anything
        has an updater, so updaters that keep history (a label's side, a dt
        integral) end where a drawn play leaves them; without updaters it
        jumps to its end.  A dry run jumps to each play's end."""
        stepped = self.skipping_in and self._updated()
        return super().get_time_progression(run_time, description, n_iterations,
                                            override_skip_animations or stepped)

    def _updated(self) -> bool:
        """Whether the scene, or a mobject on screen or in this play, has
        an updater (what can make a play's end depend on its frames)."""
        if self.updaters:
            return True
        moved = [a.mobject for a in self.animations or [] if isinstance(getattr(a, "mobject", None), Mobject)]
        return any(m.updaters for root in [*self.mobjects, *self.foreground_mobjects, *moved]
                   for m in root.get_family())

    @property
    def drawing(self) -> bool:
        """False while the updaters of a play nobody sees run (a play a
        segment skips, any play of a dry run; never the process's first
        play, which makes the Cairo context): an updater may then do only
        what later frames depend on (state it carries from frame to frame)
        and leave the rest to the play's last pass, where it is True, as in
        every drawn frame."""
        return not self._unseen

    @property
    def skipping_in(self) -> bool:
        """Whether this play comes before the first play of the segment
        being rendered (``kit/segments.py``): skipped, its frames stepped
        through while anything has an updater."""
        return self.segment is not None and not self.segment.rendering

    def add_sound(self, sound_file, time_offset=0, gain=None, **kwargs):
        """Scene.add_sound, and the sound is recorded (also in a skipped
        play, where manim drops it): the pipeline mixes the voice track from
        these records, the same way for a whole render and a split one."""
        self.sounds.append({"file": str(sound_file), "time": self.renderer.time + time_offset})
        super().add_sound(sound_file, time_offset, gain, **kwargs)

    def focus_on(self, *mobjects: Mobject) -> None:
        """What the rest of the current beat highlights while its text is
        read (instead of what was animated last); call it after the beat's
        last ``play``."""
        self._focus = list(mobjects)

    # -- pacing: changes in step with the sentence's cues ---------------------------

    def cue_starts(self, sentence: str) -> list[float]:
        """When each cue of ``sentence`` (the beat's, as ``beat`` yields it)
        starts, in scene time, counted from now: the cues share the beat by
        their reading time, as the subtitles do."""
        weights = [cue_seconds(c, self.lang) for c in split_cues(sentence, self.lang)]
        t0 = self.renderer.time
        return [t0 + sum(weights[:k]) for k in range(len(weights))]

    def cue_at(self, sentence: str, *fractions: float) -> list[float]:
        """When the cue being read at each fraction of ``sentence`` (by its
        characters; ``cue_starts``) starts: a picture in step with the words
        in either language, however each splits its cues."""
        cues = split_cues(sentence, self.lang)
        starts = self.cue_starts(sentence)
        ends = np.cumsum([len(c.replace("\n", "")) for c in cues])
        return [starts[min(int(np.searchsorted(ends, f * ends[-1], side="right")), len(cues) - 1)]
                for f in fractions]

    def phrase_at(self, sentence: str, phrase: str, t0: float) -> float:
        """When ``phrase`` of ``sentence`` (the beat's, its reading started at
        scene time ``t0``) is read; ``t0`` when the sentence does not hold it
        (a teacher's own wording): a picture in step with its very words."""
        at = sentence.find(phrase)
        return t0 if at < 0 else self.char_at(sentence, at, t0)

    def char_at(self, sentence: str, at: int, t0: float) -> float:
        """When character ``at`` of ``sentence`` (read from scene time ``t0``)
        is read: its cue's start plus its share of that cue's reading time,
        by characters (spaces and line breaks aside), as the subtitles pace it."""
        cues = split_cues(sentence, self.lang)
        at = len(re.sub(r"\s", "", sentence[:at]))
        t = t0
        for cue in cues:
            chars = len(re.sub(r"\s", "", cue))
            if at < chars:
                return t + cue_seconds(cue, self.lang) * at / max(1, chars)
            at -= chars
            t += cue_seconds(cue, self.lang)
        return t0

    def wait_until(self, t: float, focus: Mobject) -> None:
        """Let time run to scene time ``t`` (a cue's start), pulsing ``focus``
        (``Emphasize``: no colour changes) every few seconds so the frame is
        never still for long."""
        while t - self.renderer.time > 2.5:
            self.play(Emphasize(focus, scale_factor=1.06), run_time=1.0)
            self.wait(min(1.2, t - self.renderer.time - 1.0))
        if t - self.renderer.time > 0.05:
            self.wait(t - self.renderer.time)

    def reveal(self, steps: list[tuple[float, list[Animation]]], focus: Mobject, run_time: float = 0.8) -> None:
        """Play each step's animations when its time comes (``(t, animations)``,
        times from ``cue_starts``): what a cue names appears as it is read."""
        for t, animations in steps:
            self.wait_until(t, focus)
            self.play(*animations, run_time=run_time)

    def _fill(self, rest: float, focus: Mobject | None) -> None:
        """Spend ``rest`` seconds without a still frame longer than HOLD: a
        short highlight of ``focus`` (or of what ``focus_on`` named, or of
        what was animated last and is still on screen), then a pause, again
        and again.  What was animated last is passed over when it is under
        MIN_FOCUS across (a pulse of a few pixels leaves the picture still):
        the largest thing the beat animated is pulsed instead."""
        if rest <= 0.02:
            return
        if focus is not None or self._focus:
            targets = self._on_screen([focus] if focus is not None else self._focus)
        else:
            targets = pick_focus(self._on_screen(self._last_animated), self._on_screen(self._beat_animated))
        if rest <= HOLD or not targets:
            self.wait(rest)
            return
        while True:            # pulse, pause, pulse ...: every pause is followed by a pulse
            pulse = min(PULSE, rest)
            self.play(*[self._pulse(m) for m in targets], run_time=pulse)
            rest -= pulse
            if rest <= HOLD:
                if rest > 0.02:
                    self.wait(rest)
                return
            pause = min(HOLD - 0.5, rest - PULSE)
            self.wait(pause)
            rest -= pause

    def _on_screen(self, mobjects: list[Mobject]) -> list[Mobject]:
        """Those of ``mobjects`` with something drawn on screen now (a
        ValueTracker has points but draws nothing)."""
        shown = set(self.get_mobject_family_members())
        return [m for m in mobjects if not isinstance(m, ValueTracker)
                and any(s in shown and s.has_points() for s in m.get_family())]

    def _pulse(self, target: Mobject) -> Animation:
        """A highlight that leaves ``target`` as it was, and recolours nothing."""
        return Emphasize(target, scale_factor=1.06)

    def tear_down(self) -> None:
        super().tear_down()
        if self.voice == "recorded":     # a misnamed recording is never silently ignored
            for line in stray_recordings(self.lesson.path.parent, self.lang, self.info.name,
                                         [b.id for b in self.beats]):
                warn(line)
        path = beats_path(self)
        if path is not None:
            write_atomic(path, self.beats_record().to_json().encode("utf-8"))
            if self.sounds and not os.environ.get("QKV_BEATS_OUT"):    # beside the video
                write_atomic(path.with_name(f"{type(self).__name__}.sounds.json"),
                             json.dumps(self.sounds).encode("utf-8"))
        if self.segment is not None:
            self.segment.save(self)

    def beats_record(self) -> Beats:
        """The beats as played: what ``<Scene>.beats.json`` holds (``qkv_lens.beats``)."""
        return Beats(self.info.name, self.lang, self.voice, tuple(self.beats))

    def key_moment(self, name: str, **probes) -> None:
        """Record what is on screen now (labels and the scene's probes)."""
        camera = self.renderer.camera
        self.moments[name] = Moment(name, collect_labels(self.mobjects, camera), probes,
                                    drawn_box(self.mobjects, camera), self.renderer.time)


def _draws(mobjects) -> bool:
    """Whether any of ``mobjects`` draws something (a wait's empty mobject, a ValueTracker do not)."""
    return any(not isinstance(m, ValueTracker) and any(s.has_points() for s in m.get_family()) for m in mobjects)


def pick_focus(last: list[Mobject], animated: list[Mobject]) -> list[Mobject]:
    """What a beat's filler pulses by default: ``last`` (what was animated
    last), unless it reaches under MIN_FOCUS across; then the largest of
    ``animated`` (all the beat animated), if that is larger."""
    reach = _extent(last) if last else MIN_FOCUS
    if reach >= MIN_FOCUS or not animated:
        return last
    largest = max(animated, key=lambda m: _extent([m]))
    return [largest] if _extent([largest]) > reach else last


def _extent(mobjects: list[Mobject]) -> float:
    """How far ``mobjects`` reach together: the larger side of their box, in scene units."""
    group = Group(*mobjects)
    return max(group.width, group.height)
