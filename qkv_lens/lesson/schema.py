"""The lesson as frozen, typed objects (what ``qkv_lens.lesson.load_lesson``
returns).  Numbers are exact Fractions; vectors are row vectors (y = x W)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

LANGUAGES = ("zh", "en")
# The lesson's `voice`: none (silent clips), espeak (a draft voice) or recorded (qkv_lens.voice).
VOICES = ("none", "espeak", "recorded")


class Written(Fraction):
    """An exact number the lesson wrote as a fraction (``"1/2"``): scenes
    that write numbers out show it, and what is computed from it, as a
    fraction rather than as a decimal (0.5)."""

    __slots__ = ()
    as_fraction = True


def written_as_fraction(values: Any) -> bool:
    """Whether any number in ``values`` (nested tuples) was written as a fraction."""
    if isinstance(values, (tuple, list)):
        return any(written_as_fraction(v) for v in values)
    return isinstance(values, Written)


class LessonError(ValueError):
    """A lesson file that cannot be used; ``str(err)`` is the whole message."""


@dataclass(frozen=True)
class Word:
    """A labelled point of the plane: its names and position [x, y]."""
    zh: str
    en: str
    at: tuple[Fraction, Fraction]

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class SpaceDeformationParams:
    words: tuple[Word, ...]
    rotation_degrees: Fraction
    stretch: tuple[Fraction, Fraction]
    shear: Fraction
    flatten_onto: tuple[Fraction, Fraction]
    svd_matrix: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True)
class WorkedExampleParams:
    x: tuple[Fraction, ...]
    W: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True)
class Named:
    """A thing with a Chinese and an English name (a token, a trait, a dimension)."""
    zh: str
    en: str

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class AttentionParams:
    """The sentence as embeddings X (n_tokens x n_traits, row vectors) and
    W_Q, W_K (n_traits x d_k), W_V (n_traits x d_v); ``focus`` is the token
    QKVProjection shows, ``query`` the row AttentionMatching follows."""
    tokens: tuple[Named, ...]
    traits: tuple[Named, ...]
    embeddings: tuple[tuple[Fraction, ...], ...]
    qk_dims: tuple[Named, ...]
    v_dims: tuple[Named, ...]
    W_Q: tuple[tuple[Fraction, ...], ...]
    W_K: tuple[tuple[Fraction, ...], ...]
    W_V: tuple[tuple[Fraction, ...], ...]
    focus: int
    query: int
    causal_mask: bool
    temperature: Fraction

    def arrays(self):
        """X (n_tokens, n_traits), W_Q, W_K, W_V as float arrays."""
        import numpy as np
        return tuple(np.array(m, dtype=float) for m in (self.embeddings, self.W_Q, self.W_K, self.W_V))


@dataclass(frozen=True)
class Lens:
    """A 2-D view of the word cloud: what it keeps and drops, the names of
    its two output axes, and its matrix (n_traits x 2, row vectors)."""
    keep: Named
    drop: Named
    axes: tuple[Named, Named]
    matrix: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True)
class ThreeLensesParams:
    traits: tuple[Named, ...]
    words: tuple[tuple[Named, tuple[Fraction, ...]], ...]
    lenses: tuple[Lens, ...]


@dataclass(frozen=True)
class ShadowParams:
    """A cube (centre, edge) in front of the wall n . x = 0 (n starts as
    [1, 0, 0] and turns about z by ``wall_turn_degrees``); parallel light
    along ``light`` tilting to ``light_end``; a point lamp at ``lamp``;
    ``ray_step``: how far up a light ray the second point sits."""
    cube_center: tuple[Fraction, Fraction, Fraction]
    cube_size: Fraction
    light: tuple[Fraction, Fraction, Fraction]
    light_end: tuple[Fraction, Fraction, Fraction]
    wall_turn_degrees: Fraction
    lamp: tuple[Fraction, Fraction, Fraction]
    ray_step: Fraction


@dataclass(frozen=True)
class UpProjectionParams:
    """point (2,) carried by W (2, 3) into 3-D; the contrast map is
    rotation(deg) @ stretch(sx, sy), a 2x2 same-dimension map."""
    point: tuple[Fraction, Fraction]
    W: tuple[tuple[Fraction, ...], ...]
    contrast_rotation_degrees: Fraction
    contrast_stretch: tuple[Fraction, Fraction]


@dataclass(frozen=True)
class PhotoFilterParams:
    """``picture``: the (h, w, 3) image in [0, 1] (generated, or the file
    named by ``image`` resized to ``size``); filters are (3, 3) matrices in
    the row convention, a pixel [r, g, b] @ M."""
    image: str
    size: tuple[int, int]
    pixel: tuple[int, int]
    tint_strength: Fraction
    darken_factor: Fraction
    downsample: int
    query_filter: tuple[tuple[Fraction, ...], ...]
    key_filter: tuple[tuple[Fraction, ...], ...]
    value_filter: tuple[tuple[Fraction, ...], ...]
    picture: Any = None


@dataclass(frozen=True)
class DotProductParams:
    vector_a: tuple[Fraction, Fraction]
    vector_b_length: Fraction
    scores: tuple[Fraction, ...]
    temperatures: tuple[Fraction, ...]
    d_k: tuple[int, ...]
    samples: int
    seed: int
    bins: int
    saturation_tokens: int


@dataclass(frozen=True)
class TrainingParams:
    """The matchmaking task and its training (scenes 10 and 11): ``jobs``
    names the professions (n_jobs), ``people`` per party; the rest are the
    arguments of ``qkv_math.train_matching``."""
    jobs: tuple[Named, ...]
    people: int
    seed: int
    steps: int
    learning_rate: Fraction
    batch: int
    heldout: int
    snapshots: int

    def run_args(self) -> dict:
        """Keyword arguments of ``qkv_math.train_matching`` (all but formula)."""
        return {"seed": self.seed, "steps": self.steps, "n_people": self.people,
                "n_jobs": len(self.jobs), "batch": self.batch,
                "learning_rate": float(self.learning_rate), "heldout": self.heldout,
                "snapshots": self.snapshots}


@dataclass(frozen=True)
class Lesson:
    path: Path
    language: str
    voice: str              # "none", "espeak" or "recorded" (qkv_lens.voice)
    space_deformation: SpaceDeformationParams
    worked_example: WorkedExampleParams
    attention: AttentionParams
    three_lenses: ThreeLensesParams
    shadow_projection: ShadowParams
    up_projection: UpProjectionParams
    photo_filter: PhotoFilterParams
    dot_product_softmax: DotProductParams
    training: TrainingParams
    sections: dict  # the merged raw sections, for cache keys
