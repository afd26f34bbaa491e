"""Shared visuals: text in the right font, titles and notes, matrices,
word points, live readouts, and fixing overlays in the frame of a 3-D scene."""
from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np
from manim import (
    DL,
    DOWN,
    DR,
    LEFT,
    ORIGIN,
    RIGHT,
    SCALE_FACTOR_PER_FONT_POINT,
    UL,
    UP,
    UR,
    Animation,
    DecimalNumber,
    Dot,
    MathTex,
    Matrix,
    Mobject,
    MobjectMatrix,
    ParsableManimColor,
    Text,
    UpdateFromAlphaFunc,
    ValueTracker,
    VGroup,
    VMobject,
)
from manim.mobject.text import numbers as manim_numbers
from manim.typing import Vector3D

from qkv_lens.fonts import font_for

from . import palette
from .moments import TEXT_TYPES, is_bracket
from .numbers import Number, tex_number

if TYPE_CHECKING:
    from manim import ThreeDScene

M = TypeVar("M", bound=Mobject)

TITLE_SIZE = 32      # every scene's title: one size ...
TITLE_BUFF = 0.35    # ... in the top-left corner, this far from the frame's edges
NOTE_SIZE = 22       # every note: a small explanatory line under what it explains


OUTLINE_WIDTH = 5    # the dark outline drawn behind every label, so grid lines do not cut through it


def outline_labels(*mobjects: Mobject) -> None:
    """Give every label under ``mobjects`` (Text, MathTex, numbers, matrix
    entries, not a matrix's brackets) a dark outline behind its glyphs, in
    the background colour; labels that have one already keep theirs."""
    for sub in _text_parts(mobjects):
        if not sub.get_stroke_width(background=True):
            sub.set_stroke(palette.BACKGROUND, width=OUTLINE_WIDTH, background=True)


def _text_parts(mobjects: Sequence[Mobject]) -> list[Mobject]:
    """The text mobjects under ``mobjects``, a matrix's brackets left out
    (a bracket is drawn in pieces: outlined, each piece would cut the next)."""
    return [sub for mob in mobjects for sub in mob.get_family()
            if isinstance(sub, TEXT_TYPES) and not is_bracket(sub)]


def text(content: str, lang: str, size: float = 28, color: ParsableManimColor = palette.INK,
         **kw: Any) -> Text:
    """A Pango Text in the lesson font for ``lang`` (CJK-capable)."""
    return Text(content, font=font_for(lang), font_size=size, color=color, **kw)


def title(content: str, lang: str, width: float | None = None) -> Mobject:
    """A scene's title, in the top-left corner.  With ``width`` it is
    wrapped to lines no wider than that (a title over a narrow side bar)."""
    if width is None:
        mob: Mobject = text(content, lang, size=TITLE_SIZE)
    else:
        from .wrap import wrapped_text  # wrap builds on text(): imported here, not at the top
        mob = wrapped_text(content, lang, size=TITLE_SIZE, width=width)
    return mob.to_corner(UL, buff=TITLE_BUFF)


def note(content: str, lang: str, color: ParsableManimColor = palette.MUTED,
         width: float | None = None) -> Mobject:
    """A note: a small explanatory line (muted unless ``color`` says
    otherwise).  With ``width`` it is wrapped to lines no wider than that (a
    VGroup of Text); without, it is one Text."""
    if width is None:
        return text(content, lang, size=NOTE_SIZE, color=color)
    from .wrap import wrapped_text
    return wrapped_text(content, lang, size=NOTE_SIZE, width=width, color=color)


@overload
def fix_in_frame(scene: ThreeDScene, mobject: M, /) -> M: ...
@overload
def fix_in_frame(scene: ThreeDScene, *mobjects: Mobject) -> tuple[Mobject, ...]: ...


def fix_in_frame(scene: ThreeDScene, *mobjects: Mobject) -> Mobject | tuple[Mobject, ...]:
    """Fix ``mobjects`` in the frame of a 3-D scene (drawn flat over the
    view, unmoved by the camera) and return them: the one mobject, or a
    tuple of several.  They are not on screen yet (manim's
    ``add_fixed_in_frame_mobjects`` also adds them; this takes them off
    again): the scene fades them in when it is ready."""
    scene.add_fixed_in_frame_mobjects(*mobjects)
    scene.remove(*mobjects)
    return mobjects[0] if len(mobjects) == 1 else mobjects


def matrix_mob(rows: Sequence[Sequence[Number]], row_colors: Sequence[ParsableManimColor] | None = None,
               col_colors: Sequence[ParsableManimColor] | None = None, font_size: float = 36,
               digits: int = 3, fractions: bool = False, gap: float | None = None) -> Matrix:
    """A bracketed matrix of exact numbers (each entry a ``number_tex``;
    floats rounded to ``digits`` decimals, see ``numbers.tex_number``).
    Columns are spaced for their number of characters; with ``gap``, for
    the widest entry as typeset, ``gap`` apart (at font size 48): a compact
    matrix for a row that must fit the frame."""
    entries = [[tex_number(v, digits, fractions=fractions) for v in row] for row in rows]
    widest = max(len(re.sub(r"\\tfrac|[{}()]", "", e)) for row in entries for e in row)
    h_buff = max(1.1, 0.6 + 0.25 * widest)
    if gap is not None:
        h_buff = min(h_buff, max(number_tex(e).width for row in entries for e in row) + gap)
    m = Matrix(entries, element_to_mobject=number_tex, element_alignment_corner=np.zeros(3),
               h_buff=h_buff, v_buff=0.75, bracket_h_buff=0.15)
    m.scale(font_size / 48)
    for i, row in enumerate(m.get_rows()):
        for j, entry in enumerate(row):
            if row_colors is not None:
                entry.set_color(row_colors[i])
            if col_colors is not None:
                entry.set_color(col_colors[j])
    return m


class LiveMatrix(MobjectMatrix):
    """A 2x2 readout of DecimalNumbers, updated in place by ``set_matrix``;
    row i is drawn in ``row_colors[i]`` (row i = where basis vector i lands)."""

    def __init__(self, M: np.ndarray | Sequence[Sequence[float]],
                 row_colors: Sequence[ParsableManimColor] = (palette.BASIS_I, palette.BASIS_J),
                 places: int = 2, font_size: float = 40, **kw: Any):
        M = np.asarray(M, dtype=float)
        # Lay the matrix out for the widest entry it shows (|v| < 10), then
        # show M: entries keep their right edges inside the brackets.
        self.numbers = [[FastDecimal(-8.88, num_decimal_places=places, font_size=font_size,
                                     color=row_colors[i], edge_to_fix=RIGHT)
                         for j in range(M.shape[1])] for i in range(M.shape[0])]
        super().__init__(self.numbers, h_buff=1.35, v_buff=0.7,
                         element_alignment_corner=RIGHT, **kw)
        self.set_matrix(M)

    def set_matrix(self, M: np.ndarray | Sequence[Sequence[float]]) -> LiveMatrix:
        M = np.asarray(M, dtype=float)
        for i, row in enumerate(self.numbers):
            for j, num in enumerate(row):
                set_shown(num, float(M[i, j]))
        return self

    def values(self) -> np.ndarray:
        """The values shown, as a float array."""
        return np.array([[n.get_value() for n in row] for row in self.numbers])


class WordPoint(VGroup):
    """A dot at plane coordinates ``coords`` with a text label beside it."""

    def __init__(self, name: str, coords: Sequence[float] | np.ndarray, lang: str,
                 color: ParsableManimColor = palette.EMBED, size: float = 24):
        self.dot = Dot(radius=0.07, color=color)
        self.label = text(name, lang, size=size, color=color)
        self.name = name
        self.coords = np.asarray(coords, dtype=float)
        self.side: Vector3D = UR
        super().__init__(self.dot, self.label)


_SIDES = (UR, UL, DR, DL, RIGHT, LEFT, UP, DOWN)


def bounds(mob: Mobject) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) of ``mob``: the box of its curves' anchors,
    as manim's get_left/get_bottom/... measure it, in one pass (each of those
    walks the whole family again; per frame that dominated live labels)."""
    anchors = [m.points[i::m.n_points_per_curve] if isinstance(m, VMobject) else m.points
               for m in mob.family_members_with_points()
               for i in ((0, m.n_points_per_curve - 1) if isinstance(m, VMobject) else (0,))]
    pts = np.concatenate(anchors) if anchors else mob.get_center()[None]
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return (lo[0], lo[1], hi[0], hi[1])


def _beside(anchor: tuple[float, ...], box: tuple[float, ...], side: np.ndarray,
            buff: float) -> np.ndarray:
    """The shift that puts ``box`` next to ``anchor`` (both boxes) on ``side``,
    ``buff`` apart, as ``Mobject.next_to`` does."""
    def edge(b, d):
        return np.array([(b[0] + b[2]) / 2 + d[0] * (b[2] - b[0]) / 2,
                         (b[1] + b[3]) / 2 + d[1] * (b[3] - b[1]) / 2])
    return edge(anchor, side) + buff * side[:2] - edge(box, -side)


def _shifted(box: tuple[float, ...], by: np.ndarray) -> tuple[float, float, float, float]:
    return (box[0] + by[0], box[1] + by[1], box[2] + by[0], box[3] + by[1])


def _overlap(a: tuple[float, ...], b: tuple[float, ...], pad: float = 0.04) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def place_labels(points: Sequence[WordPoint], avoid: Sequence[Mobject] = (),
                 inside: tuple[float, float, float, float] | None = None) -> None:
    """Put each label next to its dot on the first side (its previous side
    first) where it overlaps no earlier label and nothing in ``avoid``;
    if every side is taken, try again further from the dot.  Points sharing
    a spot so get their labels stacked apart.

    With ``inside`` (left, bottom, right, top: the free part of the frame),
    a label also stays inside it, stacked further above and below its dot
    when the sides are taken; a label whose dot is outside it, or that finds
    no free spot, is hidden (``show_label``) until it finds one again."""
    taken = [bounds(m) for m in avoid]
    for p in points:
        order = (p.side,) + tuple(s for s in _SIDES if s is not p.side)
        dot, label = bounds(p.dot), bounds(p.label)
        if inside is not None and not _within(((dot[0] + dot[2]) / 2,) * 2 + ((dot[1] + dot[3]) / 2,) * 2, inside):
            show_label(p, False)       # its dot has left the free frame
            continue
        # nearest first; only when every side is taken, move further out
        tries = [_beside(dot, label, side, buff) for buff in (0.08, 0.4, 0.75) for side in order]
        sides = [side for _ in (0.08, 0.4, 0.75) for side in order]
        if inside is not None:    # then stacked above and below, on either side of the dot
            step = label[3] - label[1] + 0.08
            tries += [_beside(dot, label, side, 0.08) + np.array([0.0, k * step])
                      for k in (1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7)
                      for side in (RIGHT, LEFT, UP if k > 0 else DOWN)]
        for i, shift in enumerate(tries):
            box = _shifted(label, shift)
            if not any(_overlap(box, t) for t in taken) and (inside is None or _within(box, inside)):
                if i < len(sides):
                    p.side = sides[i]
                break
        else:
            if inside is not None:
                show_label(p, False)   # no free spot: hidden rather than on top of another label
                continue
            shift = _beside(dot, label, p.side, 0.08)
        show_label(p, True)
        p.label.shift([shift[0], shift[1], 0.0])
        taken.append(_shifted(label, shift))


def _within(box: tuple[float, ...], inside: tuple[float, ...]) -> bool:
    return inside[0] <= box[0] and box[2] <= inside[2] and inside[1] <= box[1] and box[3] <= inside[3]


def show_label(point: WordPoint, shown: bool) -> None:
    """Show or hide a word point's label (its text and outline), once per change."""
    if getattr(point, "label_shown", True) != shown:
        point.label.set_opacity(1.0 if shown else 0.0)
        point.label_shown = shown


def _light_copy(mob: VMobject) -> VMobject:
    """A copy of a glyph with its own points, colour arrays and submobject
    list and every other attribute shared (none is changed in place on a
    glyph): manim's deep copy, or even a fresh VMobject, costs a millisecond
    per glyph, and live readouts rebuild glyphs every frame."""
    new = VMobject.__new__(VMobject)
    new.__dict__.update(mob.__dict__)
    new.points = mob.points.copy()
    for name in ("fill_rgbas", "stroke_rgbas", "background_stroke_rgbas"):
        if name in mob.__dict__:
            setattr(new, name, getattr(mob, name).copy())
    new.submobjects = [_light_copy(s) for s in mob.submobjects]
    new.updaters = []
    return new


NUMBER_GLYPHS = "0123456789.-"


def _number_glyphs() -> dict[str, MathTex]:
    """``MathTex(c)`` for each character of a plain number, all from one LaTeX
    run (each alone is a run of a quarter second): the same points (to 1e-14,
    tested), each centred at the origin with MathTex's ``font_size``."""
    batch = MathTex(*NUMBER_GLYPHS)
    size = batch.font_size
    parts, batch.submobjects = batch.submobjects, []
    glyphs = {}
    for char, part in zip(NUMBER_GLYPHS, parts):
        glyph = batch.copy()
        glyph.submobjects = [part]
        glyph.tex_string, glyph.tex_strings = char, [char]
        # its own part only: copies (manim's DecimalNumber copies a glyph per
        # character) must not drag the other eleven along
        glyph.matched_strings_and_ids = [(char, "unique000")]
        glyph.id_to_vgroup_dict = {"root": part, "unique000": part}
        glyph.move_to(ORIGIN)
        # as MathTex(char) sets it: its height at font size 1 / SCALE_FACTOR
        glyph.initial_height = glyph.height / (size * SCALE_FACTOR_PER_FONT_POINT)
        glyphs[char] = glyph
    return glyphs


def share_number_glyphs() -> None:
    """Typeset the number glyphs once (one LaTeX run) for every number drawn
    from glyphs: ``FastDecimal``'s and manim's own ``DecimalNumber`` (axis
    and bar-chart numbers), whose glyph cache, ``string_to_mob_map``, would
    otherwise hold ``MathTex(c)`` typeset one run per character.  Entries
    already there are kept."""
    if FastDecimal.glyph_key(MathTex, NUMBER_GLYPHS[0]) in FastDecimal._glyphs:
        return
    for char, glyph in _number_glyphs().items():
        FastDecimal._glyphs.setdefault(FastDecimal.glyph_key(MathTex, char), glyph)
        manim_numbers.string_to_mob_map.setdefault(char, glyph)


class FastDecimal(DecimalNumber):
    """DecimalNumber whose glyphs are light copies: same look, far cheaper
    ``set_value`` (used by every readout that changes each frame)."""

    _glyphs: dict = {}

    @staticmethod
    def glyph_key(mob_class: type, string: str, **kwargs: Any) -> tuple:
        return mob_class, string, tuple(sorted((k, str(v)) for k, v in kwargs.items()))

    def _string_to_mob(self, string, mob_class=None, **kwargs):
        mob_class = mob_class or self.mob_class
        key = self.glyph_key(mob_class, string, **kwargs)
        if key not in self._glyphs:
            share_number_glyphs()      # once a process: the digits, point and minus
        if key not in self._glyphs:
            self._glyphs[key] = mob_class(string, **kwargs)
        template = self._glyphs[key]
        mob = _light_copy(template)
        mob.scale(self._font_size / template.font_size)
        return mob

    _layouts: dict = {}

    def set_value(self, number: float) -> FastDecimal:
        """``DecimalNumber.set_value`` with the same result (points and
        colours; tested against it), far cheaper: each shown text is laid
        out once (manim arranges the glyphs anew every time), then copied
        with one scale and shift, keeping the number's height and its
        ``edge_to_fix`` as manim does; the glyphs take the number's own fill,
        stroke, outline and sheen, where manim's ``init_colors`` leaves them."""
        if self.unit is not None or self.show_ellipsis or self.include_background_rectangle or not self.submobjects:
            return super().set_value(number)
        edge = np.asarray(self.edge_to_fix, dtype=float)
        key = (self._get_num_string(number), self._font_size, self.digit_buff_per_font_unit, self.mob_class,
               tuple(edge))
        old_family = self.get_family()
        height, anchor = self.height, self.get_critical_point(edge)
        if key not in self._layouts:
            old = self.submobjects
            self._set_submobjects_from_number(number)          # manim's layout, at the base font size
            laid = VGroup(*self.submobjects)
            self._layouts[key] = (self.submobjects, laid.height, laid.get_critical_point(edge))
            self.submobjects = old
        glyphs, laid_height, laid_anchor = self._layouts[key]
        if laid_height <= 0:
            return super().set_value(number)
        k = height / laid_height
        self.number = number
        self.submobjects = [_light_copy(g) for g in glyphs]
        for mob in self.family_members_with_points():
            mob.points = (mob.points - laid_anchor) * k + anchor
        for mob in old_family:   # as manim does: the old glyphs, still in a running
            mob.points[:] = 0    # animation's list, draw nothing
        self.set_fill(self.fill_color, self.fill_opacity, family=False)
        self.set_stroke(self.stroke_color, self.stroke_width, self.stroke_opacity, family=False)
        self.set_background_stroke(color=self.background_stroke_color, width=self.background_stroke_width,
                                   opacity=self.background_stroke_opacity, family=False)
        style = {"fill_opacity": self.fill_opacity, "stroke_width": self.stroke_width,
                 "background_stroke_width": self.background_stroke_width, "sheen_factor": self.sheen_factor,
                 "sheen_direction": self.sheen_direction}
        for mob in self.get_family()[1:]:
            mob.fill_rgbas = self.fill_rgbas.copy()
            mob.stroke_rgbas = self.stroke_rgbas.copy()
            mob.background_stroke_rgbas = self.background_stroke_rgbas.copy()
            mob.__dict__.update(style)
        return self


_PLAIN_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")


class NumberTex(FastDecimal):
    """A plain decimal written in TeX ("0.87", "-1.25", "100") drawn as
    manim's DecimalNumber draws numbers: from one typeset glyph per
    character, shared by every number, so a grid of numbers costs no LaTeX
    run per number (each took a quarter second).  ``get_tex_string()``
    returns ``tex``, as MathTex's does.  Build one with ``number_tex``."""

    def __init__(self, tex: str, font_size: float = 48, **kw: Any):
        self.tex_string = tex
        super().__init__(float(tex), num_decimal_places=len(tex.partition(".")[2]), group_with_commas=False,
                         font_size=font_size, **kw)

    def get_tex_string(self) -> str:
        return self.tex_string


def number_tex(tex: str, **kw: Any) -> NumberTex | MathTex:
    """A lone number's TeX (from ``tex_number``) as a mobject: a NumberTex
    for a plain decimal, a MathTex for anything else (a fraction, -\\infty, a
    parenthesised negative, a number float cannot hold digit for digit).
    Takes MathTex's keywords (``font_size``, ``color``)."""
    if _PLAIN_DECIMAL.fullmatch(tex) and len(tex) <= 15 and f"{float(tex):.{len(tex.partition('.')[2])}f}" == tex:
        return NumberTex(tex, **kw)
    return MathTex(tex, **kw)


def set_shown(num: DecimalNumber, value: float) -> None:
    """Set a readout's value, rebuilding its glyphs only when the shown text
    changes (its ``edge_to_fix`` stays in place)."""
    if num._get_num_string(value) != num._get_num_string(num.get_value()):
        num.set_value(value)
    num.number = value  # what get_value() reads back


class Slots:
    """Labels at fixed places, rebuilt only when what they show changes.

    Each step, ``place(key, signature, make)`` every label: the label at
    ``key`` is kept if its ``signature`` is unchanged, else ``make()`` builds
    a new one.  ``commit()`` then returns (outgoing, incoming) lists, to
    crossfade; ``current`` maps each key to its (signature, label)."""

    def __init__(self) -> None:
        self.current: dict[Hashable, tuple[Hashable, Mobject]] = {}
        self.pending: dict[Hashable, tuple[Hashable, Mobject]] = {}

    def place(self, key: Hashable, signature: Hashable, make: Callable[[], Mobject]) -> Mobject:
        old = self.current.get(key)
        self.pending[key] = old if old is not None and old[0] == signature else (signature, make())
        return self.pending[key][1]

    def commit(self) -> tuple[list[Mobject], list[Mobject]]:
        kept = {id(m) for _, m in self.pending.values()} & {id(m) for _, m in self.current.values()}
        out = [m for _, m in self.current.values() if id(m) not in kept]
        new = [m for _, m in self.pending.values() if id(m) not in kept]
        self.current, self.pending = self.pending, {}
        return out, new


def crossfade(old: Mobject, new: Mobject, **kw: Any) -> Animation:
    """Fade ``old`` out while ``new`` fades in, without copying either (a
    Transform deep-copies whole groups of text, which dominates the cost of
    scenes that swap many labels).  The caller adds ``new`` to the scene
    before playing and removes ``old`` after."""
    outline_labels(new)   # before its opacities are read: the outline fades in with it

    def opacities(m):
        return [(part, part.get_fill_opacity(), part.get_stroke_opacity(),
                 part.get_stroke_opacity(background=True) if isinstance(part, VMobject) else 0.0)
                for part in m.family_members_with_points()]

    olds, news = opacities(old), opacities(new)

    def update(_, alpha):
        for parts, weight in ((olds, 1 - alpha), (news, alpha)):
            for part, fill, stroke, outline in parts:
                part.set_fill(opacity=fill * weight, family=False)
                part.set_stroke(opacity=stroke * weight, family=False)
                if isinstance(part, VMobject):
                    part.set_stroke(opacity=outline * weight, background=True, family=False)

    update(None, 0.0)
    return UpdateFromAlphaFunc(ValueTracker(0), update, **kw)
