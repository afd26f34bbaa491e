"""Rendering one stretch of a scene (a segment), so a long scene can be
split across cores and machines and joined again exactly.

The render pipeline (``qkv_lens.app.segments``) sets QKV_SEGMENT to
``"start,end"`` in scene seconds and QKV_SEGMENT_OUT to a JSON file.  The
scene then renders only the plays that start in ``[start, end)``: the
plays before them run in manim's skip mode (their state is computed, no
frame is drawn), and the scene ends at the first play that starts at or
after ``end``.  A cut may fall inside a beat: the subtitles, beats and
voice of a split render are the last segment's, which passes every beat.

A skipped play advances the scene clock by exactly the frames a rendered
play writes (``frames_of``), so cues, beats and the boundaries fall on the
same times in every segment and in a whole render: each segment sees the
same plays start at the same times, so the play at which one ends is the
play at which the next begins.

Whether a segment starts in the state the previous one ended in cannot be
assumed (an updater that integrates ``dt`` does not give the same result
in one skipped step as in one step a frame).  So each segment records the
scene's state (``state``) at its two boundaries; the pipeline joins two
segments only when the first one's end state equals the second one's start
state, and renders the scene whole otherwise.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from manim import Scene, ThreeDScene, VMobject, config

from qkv_lens.store import write_atomic

SLACK = 5e-4   # seconds: a cut given as a beats file's time (rounded to 1 ms) still falls on its play


def frames_of(duration: float, frozen: bool) -> tuple[int, float]:
    """(frames, seconds a frame) a rendered play of ``duration`` seconds
    writes: a still wait writes ``int(duration / dt)`` copies of one frame,
    an animation one frame per step of ``np.arange(0, duration, dt)`` (what
    manim's Cairo renderer does)."""
    dt = 1 / config.frame_rate
    if frozen:
        return int(duration / dt), dt
    return len(np.arange(0, duration, 1 / config["frame_rate"])), dt


def advance_like_frames(start: float, duration: float, frozen: bool) -> float:
    """The scene clock after a rendered play that began at ``start``: the
    same float additions manim makes frame by frame (so a skipped play
    ends on the very same time, to the last bit)."""
    frames, dt = frames_of(duration, frozen)
    t = start
    if frozen:
        return t + frames * dt if frames else t
    for _ in range(frames):
        t += dt
    return t


def state(scene: Scene) -> tuple[str, np.ndarray]:
    """What the next frames are drawn from, as (structure, values): every
    mobject on screen (in drawing order) with its points, colours, stroke
    widths and depth, the camera (its angles and frame for a 3-D scene)
    and the scene clock.  ``structure`` is a digest of the kinds and sizes,
    ``values`` every number in order (compared within a tolerance by the
    pipeline: a coordinate may differ by a rounding, 1e-15, between a
    drawn and a skipped play).  Not covered: state an updater keeps in a
    Python closure, and Python's and numpy's global random generators
    (manim seeds them from the clock unless ``--seed`` is given; the scenes
    draw only from seeded ``numpy.random.Generator`` objects)."""
    shape = hashlib.sha256()
    values: list[np.ndarray] = []

    def add(name: str, data) -> None:
        a = np.asarray(data, dtype=float).ravel()
        shape.update(f"{name}:{a.size};".encode())
        values.append(a)

    add("clock", [scene.renderer.time])
    for mob in [*scene.mobjects, *scene.foreground_mobjects]:
        for m in mob.get_family():
            add(type(m).__name__, m.points)
            add("z", [m.z_index])
            if isinstance(m, VMobject):
                add("fill", m.fill_rgbas)
                add("stroke", m.stroke_rgbas)
                add("outline", m.background_stroke_rgbas)
                add("widths", [m.stroke_width, m.background_stroke_width])
            else:
                add("colour", m.get_color().to_rgba())
    camera = scene.renderer.camera
    if isinstance(scene, ThreeDScene):
        add("angles", [camera.get_phi(), camera.get_theta(), camera.get_gamma(), camera.get_zoom(),
                       camera.get_focal_distance()])
        add("centre", camera.frame_center)
    add("frame", [camera.frame_width, camera.frame_height])
    return shape.hexdigest(), np.concatenate(values)


@dataclass
class Segment:
    """The stretch of the scene this process renders, and what it records."""
    start: float
    end: float
    out: Path
    rendering: bool = False
    record: dict = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Segment | None:
        spec, out = os.environ.get("QKV_SEGMENT"), os.environ.get("QKV_SEGMENT_OUT")
        if not spec or not out:
            return None
        start, end = (float(x) for x in spec.split(","))
        if not (0 <= start < end):
            raise ValueError(f"QKV_SEGMENT={spec!r}: expected 'start,end' with 0 <= start < end")
        return cls(start, end, Path(out), rendering=start == 0)

    def at_play(self, scene: Scene) -> bool:
        """Called before every play: start rendering when the play starts
        in this segment; False when it starts at or after its end (the
        scene stops there)."""
        t = scene.renderer.time
        self.record.setdefault("plays", []).append([t, time.process_time()])   # what each stretch cost
        if t >= self.end - SLACK:
            self._boundary("end", scene)
            return False
        if not self.rendering and t >= self.start - SLACK:
            self.rendering = True
            self._boundary("start", scene)
        return True

    def _boundary(self, which: str, scene: Scene) -> None:
        """Record the clock and the state (``state``; its values in
        ``<record>-<which>.npy`` beside the record)."""
        structure, values = state(scene)
        name = f"{self.out.stem}-{which}.npy"
        buffer = io.BytesIO()
        np.save(buffer, values, allow_pickle=False)
        write_atomic(self.out.with_name(name), buffer.getvalue())
        self.record[which] = {"time": scene.renderer.time, "structure": structure, "values": name}

    def save(self, scene: Scene) -> None:
        """Write the record: the boundaries, and ``plays``: [scene time, CPU
        seconds] at each play's start and at the end (where the pipeline
        learns what each stretch of the scene costs to draw or skip)."""
        self.record.setdefault("plays", []).append([scene.renderer.time, time.process_time()])
        write_atomic(self.out, json.dumps(self.record, indent=1).encode("utf-8"))
