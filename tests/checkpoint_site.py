"""A renders folder with checkpoints, for the page's learner mode, the
presenter's reveal and the course package: tiny h264 clips (PyAV, no manim)
with beats files written by ``qkv_lens.beats`` itself, each checkpoint's
answer computed from the shipped lesson as a scene computes it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from qkv_lens.app import manifest
from qkv_lens.beats import Beat, Beats, Cue, ask
from qkv_lens.lesson import load_lesson
from qkv_math import softmax
from tests.helpers import LESSON

FPS, W, H = 10, 160, 90
QUALITY = "480p15"
LESSON_VALUES = load_lesson(LESSON)


def the_checkpoints(lesson=LESSON_VALUES) -> dict[str, dict[int, dict]]:
    """Per scene, per beat index: the checkpoint asked before that beat (``ask``'s arguments)."""
    x = np.array([float(v) for v in lesson.params["worked_example"].x])
    w = np.array([[float(v) for v in row] for row in lesson.params["worked_example"].W])
    att = lesson.params["attention"]
    names = [t.name("en") for t in att.tokens]
    emb = np.array([[float(v) for v in row] for row in att.embeddings])
    q = emb @ np.array([[float(v) for v in row] for row in att.W_Q])
    k = emb @ np.array([[float(v) for v in row] for row in att.W_K])
    weights = softmax(q[att.query] @ k.T / np.sqrt(k.shape[1]))
    return {
        "SpaceDeformation": {
            # the choices are a colleague's data: markup in them is text
            1: dict(key="which_key", question=f"Which key will '{names[att.query]}' attend to most?",
                    wrong="Its query matches the key with the largest score.",
                    choices=[f"<i>{names[0]}</i>", *names[1:]], answer=int(np.argmax(weights))),
            2: dict(key="det_flat", question="After the flatten, what is the determinant?",
                    wrong="A flattened plane has no area: 0.", number=0.0, places=0),
        },
        "WorkedExample": {
            2: dict(key="third_entry", question="[3, 4] × W: what is the third entry?",
                    wrong=f"Multiply x by W's <u>third</u> column<img src=x onerror=alert(1)>, entry by entry, "
                          f"and add: {(x @ w)[2]:g}.",
                    number=float((x @ w)[2]), places=0),
        },
    }


# scene -> (section, beat ends in seconds): each beat starts where the one before ends
CLIPS = {"SpaceDeformation": ("space_deformation", [1.0, 2.0, 3.0]),
         "WorkedExample": ("worked_example", [1.0, 2.0, 3.0, 4.0])}


def write_clip(path: Path, seconds: float, shade: int) -> None:
    """An h264 mp4 of ``seconds`` at FPS, a bar growing with time."""
    import av
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        s.codec_context.gop_size = 5
        n = round(seconds * FPS)
        for i in range(n):
            img = np.full((H, W, 3), shade, np.uint8)
            img[30:60, : max(1, W * (i + 1) // n)] = (242, 193, 78)
            for pkt in s.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                c.mux(pkt)
        for pkt in s.encode():
            c.mux(pkt)


def make_site(out: Path, lang: str = "en", described: dict[str, dict[int, tuple[str, float]]] | None = None) -> Path:
    """``out`` as a render folder of the two clips in ``lang``, with their
    checkpoints; ``described``: per scene, per beat index, the beat's
    description and its voice's length (seconds)."""
    from PIL import Image

    folder = out / lang / QUALITY
    folder.mkdir(parents=True, exist_ok=True)
    asked = the_checkpoints()
    for order, (scene, (_, ends)) in enumerate(CLIPS.items(), 1):
        write_clip(folder / f"{scene}.mp4", ends[-1], 40 * order)
        Image.new("RGB", (W, H), (20, 20, 60)).save(folder / f"{scene}.png")
        (folder / f"{scene}.vtt").write_text(f"WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n{scene}\n", encoding="utf-8")
        (folder / f"{scene}.srt").write_text(f"1\n00:00:00,000 --> 00:00:01,000\n{scene}\n\n", encoding="utf-8")
        beats, start = [], 0.0
        for i, end in enumerate(ends):
            say = f"Beat {i + 1} of {scene}."
            check = asked.get(scene, {}).get(i)
            describe, voice = (described or {}).get(scene, {}).get(i, ("", 0.0))
            beats.append(Beat(f"b{i + 1}", "x_say", start, end, say, (Cue(start, end, say),), voice,
                              ask=ask(**check) if check else None, describe=describe, changes=True))
            start = end
        (folder / f"{scene}.beats.json").write_text(Beats(scene, lang, "none", tuple(beats)).to_json(),
                                                    encoding="utf-8")
        files = [f"{lang}/{QUALITY}/{scene}.{x}" for x in ("mp4", "srt", "vtt", "beats.json", "png")]
        manifest.record(out, {"scene": scene, "order": order, "key": f"k{order}", "language": lang,
                              "quality": QUALITY, "format": "mp4", "voice": "none", "duration": ends[-1],
                              "width": W, "height": H, "files": files, "bytes": 1, "render_seconds": 0.1})
    return out
