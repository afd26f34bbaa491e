"""Scene 6, WorkedExample: y = x W written out term by term, exactly.

It opens on the answer the scene before showed (x W, faint in y) and asks
where it comes from.  For each output column j of W the products x_i * W_ij
and their sum come from ``qkv_math.worked_product`` (Fractions when the
lesson's numbers are rational), said with their own numbers; then each
output is shown as a glass mixing the inputs in the proportions of W's
column, and the chapter ends on attention's three recipes.  Outputs wear
neutral colours (gold, teal and coral are Q, K and V, from chapter 2 on).
Row vectors: x has shape (n,), W (n, m).

    manim -ql scenes/worked_example.py WorkedExample
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Line,
    MathTex,
    Mobject,
    MoveToTarget,
    Rectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

import qkv_math as qm
from qkv_lens.cues import LINE_WIDTH
from qkv_lens.lesson import written_as_fraction
from qkv_lens.lesson.keys import WORKED_COLUMNS, WORKED_ROWS, Matrix, Params, Vector
from qkv_lens.numbers import plain_number, plain_vector, tex_number
from scenes.kit import palette
from scenes.kit.legible import least_scale, shrink_to_fit
from scenes.kit.matrices import matrix_mob
from scenes.kit.scene import LessonScene
from scenes.kit.text import text, title
from scenes.kit.worked import slide_column, term_line, write_column

LINES_BOTTOM = -2.95   # lowest the block of arithmetic lines may reach (above the subtitles)
BASELINE = -2.4        # bottom of the glasses: their recipes go below, above the subtitles
GLASS_HEIGHT = 2.8     # tallest stack of a glass, in scene units
WIDTH = 13.8           # the widest a row of the example is drawn (the frame is 14.2 wide)
LINES_GAP = 0.6        # between the row x W = y and the lines under it
MIN_GLASS_ROOM = 1.6   # the least height the glasses are given (the row x W = y shrinks for it)
SEEN = 0.5             # y's entries before their column is worked: faint (yet 4.6:1 on the background, WCAG AA)
OUTPUT = palette.INK   # what the outputs wear (their lines, y, the glasses' levels and values): neutral


class WorkedExampleParams(Params):
    """[worked_example]: y = x W written out term by term (row vectors)."""
    section = "worked_example"
    x: tuple[Fraction, ...] = Vector(
        "entry", most=WORKED_ROWS, doc="the input row vector",
        room=f"a frame holds the {WORKED_ROWS} rows of W above the arithmetic at a readable size")
    W: tuple[tuple[Fraction, ...], ...] = Matrix(
        "entry", rows="x", most_cols=WORKED_COLUMNS, doc="one row per entry of x, one column per output",
        room=f"a frame holds the arithmetic of {WORKED_COLUMNS} outputs at a readable size")


@dataclass
class _Stage:
    """What the beats share."""
    work: qm.WorkedProduct
    frac: bool                 # numbers written as fractions in the lesson ("1/2") stay fractions on screen
    ing: list                  # a colour per input (row of W)
    cols: list                 # a colour per output (column of W)
    heading: VGroup
    x_mat: VGroup
    w_mat: VGroup
    y_mat: VGroup
    eq: MathTex
    product: VGroup            # the row x W = y
    names: VGroup              # x, W and y under their matrices
    top: VGroup                # the row and its names
    top_floor: float           # the least scale the row reads at
    top_scale: float = 1.0     # the row's scale now, of its natural size
    lines: VGroup = field(default_factory=VGroup)   # one line of arithmetic per output
    gap: float = LINES_GAP     # between the row and the lines
    one_at_a_time: bool = False   # each output's line in the place of the last
    clearance: float = 0.0     # above the glasses' values (as the last ``_glasses`` laid them out)
    baseline: float = BASELINE   # the glasses' bottom (likewise)


@dataclass
class _Glass:
    """One output as a glass (``WorkedExample._glass``)."""
    glass: VGroup
    add: VGroup                # the positive products, stacked up from the bottom
    remove: VGroup             # the negative ones, dashed blocks poured out from the top
    level: Line                # at the sum
    value: MathTex             # y_j = total, above the glass
    recipe: MathTex            # W's column, under the glass
    amounts: VGroup            # beside each layer, its amount


class WorkedExample(LessonScene):
    params: WorkedExampleParams
    chapter = 1
    number = 6
    sparse_moments = {"start": "y = x W opens alone at the top; the glasses fill the space below from the next beat"}

    def construct(self):
        self.s = self._stage()
        self._fit_lines()
        self._intro()
        self._columns()
        glasses, levels, unit = self._pour()
        cocktail = self._cocktail(glasses, levels, unit)
        self._outro(cocktail, glasses)

    def _stage(self) -> _Stage:
        """The product x W = y, worked out, and its row of matrices under the title."""
        x, W = self.params.x, self.params.W
        work = qm.worked_product(x, W)
        frac = written_as_fraction((x, W))
        n, m = len(x), len(W[0])
        ing = [palette.INGREDIENTS[i % len(palette.INGREDIENTS)] for i in range(n)]
        cols = [OUTPUT] * m

        heading = title(self.tr("title"), self.lang)
        x_mat, w_mat, y_mat, eq, product = self._product(x, W, work.result, ing, cols, frac)
        if product.width > WIDTH:     # long numbers: the columns as close as they can read
            x_mat, w_mat, y_mat, eq, product = self._product(x, W, work.result, ing, cols, frac, gap=0.45)
        names = VGroup(*[MathTex(s, font_size=40, color=palette.MUTED) for s in "xWy"])
        top = VGroup(product, names)
        return _Stage(work, frac, ing, cols, heading, x_mat, w_mat, y_mat, eq, product, names, top,
                      least_scale(product))

    def _fit_lines(self) -> None:
        """The lines under the row x W = y, as large as they fit: each output on
        one row, else on two (factors, then sums); closer under the row, and
        that row smaller, while they would still be too small; failing that,
        one output's line at a time, each in the place of the last."""
        s = self.s
        natural = self._place_top(max(s.top_floor, min(1.0, WIDTH / s.product.width)))
        for split, gap in ((False, LINES_GAP), (True, LINES_GAP), (True, 0.3)):
            lines = self._lines(s.work, s.cols, s.frac, split=split)
            if self._lines_scale(lines, s.top, gap) >= least_scale(lines):
                break
        while self._lines_scale(lines, s.top, gap) < least_scale(lines) and s.top_scale > s.top_floor:
            self._place_top(max(s.top_floor, s.top_scale * 0.95))
        if self._lines_scale(lines, s.top, gap) < least_scale(lines):
            s.one_at_a_time = True
            self._place_top(natural)
            lines = self._lines(s.work, s.cols, s.frac, split=False)
            if WIDTH / max(line.width for line in lines) < least_scale(lines):
                lines = self._lines(s.work, s.cols, s.frac, split=True)
            for line in lines[1:]:
                line.move_to(lines[0], aligned_edge=UP)
            gap = LINES_GAP
        s.lines, s.gap = lines, gap
        for entry in s.y_mat.get_entries():
            entry.set_opacity(SEEN)

    def _intro(self) -> None:
        """x W = y with y's entries faint: the answer the scene before showed.
        As the sentence says that each output takes one column, a box walks
        W's columns with one on y's entries."""
        s = self.s
        result_text = plain_vector(s.work.result, fractions=s.frac)
        y_entries, w_cols = s.y_mat.get_entries(), s.w_mat.get_columns()
        boxes = VGroup(SurroundingRectangle(w_cols[0], color=palette.FOCUS, buff=0.1),
                       SurroundingRectangle(y_entries[0], color=palette.FOCUS, buff=0.1))
        with self.beat("intro_say", result=result_text, focus=s.y_mat) as said:
            at = self.cue_at(said, 0.6)[0]        # "each output takes one column of W"
            self.play(Write(s.heading), run_time=0.8)
            self.play(FadeIn(s.x_mat), FadeIn(s.w_mat), FadeIn(s.eq), FadeIn(s.y_mat), FadeIn(s.names),
                      run_time=1.2)
            self.wait_until(at, s.y_mat)
            self.play(Create(boxes), run_time=0.5)
            for j in range(1, len(w_cols)):
                self.play(boxes[0].animate.move_to(w_cols[j]), boxes[1].animate.move_to(y_entries[j]), run_time=0.6)
            self.play(FadeOut(boxes), run_time=0.4)
            self.describe("describe_intro", x=self.params.x, W=self.params.W, y=s.work.result, fractions=s.frac)
        self.key_moment("start", x=[e.tex_string for e in s.x_mat.get_entries()],
                        W=[[e.tex_string for e in row] for row in s.w_mat.get_rows()],
                        y=[e.tex_string for e in y_entries], y_opacity=[e.get_fill_opacity() for e in y_entries],
                        y_colors=[e.get_fill_color().to_hex() for e in y_entries])

    # --- one output column at a time -----------------------------------
    def _columns(self) -> None:
        s = self.s
        lines = s.lines
        lines.next_to(s.top, DOWN, buff=s.gap)
        room = lines.get_top()[1] - LINES_BOTTOM
        if lines.height > room or lines.width > WIDTH:
            lines.scale(max(least_scale(lines), min(room / lines.height, WIDTH / lines.width)), about_edge=UP)
        lines.set_x(0)
        if s.one_at_a_time:
            for line in lines:
                line.align_to(lines, LEFT)

        free = lines.get_bottom()[1] - LINES_BOTTOM     # the room left under the lines: half of it above them
        if free > 0:
            lines.shift(DOWN * free / 2)

        y_entries = s.y_mat.get_entries()
        x_entries = s.x_mat.get_entries()
        w_cols = s.w_mat.get_columns()
        for j, col in enumerate(s.work.columns):
            box_w = SurroundingRectangle(w_cols[j], color=palette.FOCUS, buff=0.1)
            box_x = SurroundingRectangle(x_entries, color=palette.FOCUS, buff=0.1)
            label, line = lines[j]
            with self.beat("column_say", focus=lines[j], j=j + 1, **self._said(col)):
                self.play(FadeIn(box_w), FadeIn(box_x), FadeIn(label), run_time=0.6)
                if s.one_at_a_time and j:
                    self.play(FadeOut(lines[j - 1]), run_time=0.4)
                landed: list = []
                if hasattr(line, "terms"):      # each x_i slides onto w_ij, the pair drops into the line
                    landed = slide_column(self, line, list(x_entries), list(w_cols[j]), y_entries[j],
                                          slide_time=0.6, sum_time=0.8, land_time=0.7,
                                          avoid=list(s.w_mat.get_entries()) + list(s.w_mat.get_brackets()))
                else:
                    write_column(self, line, y_entries[j], 1.6, 0.8)
                self.play(FadeOut(box_w), FadeOut(box_x), run_time=0.4)
                self.describe("describe_column", j=j + 1, column=[t.w for t in col.terms], total=col.total,
                              fractions=s.frac)
            self.key_moment(f"column_{j + 1}", line=line.tex_string,
                            entry=y_entries[j].tex_string, shown=y_entries[j].get_fill_opacity(),
                            parts=[part.tex_string for part in line],
                            colors=[glyph.get_fill_color().to_hex() for part in line for glyph in part], landed=landed,
                            box_colors=[box_w.get_stroke_color().to_hex(), box_x.get_stroke_color().to_hex()],
                            split=bool(line[-1].get_y() < line[0].get_y() - 0.1))
        self.key_moment("columns", lines=[l[1].tex_string for l in s.lines],
                        result=[e.tex_string for e in y_entries if e.get_fill_opacity() > SEEN])

    def _num(self, v) -> str:
        """A number as the narration says it: as the lesson's lines write it."""
        return plain_number(v, fractions=self.s.frac)

    def _said(self, col: qm.WorkedColumn) -> dict:
        """The fields of one output's sentence: its own arithmetic said as the
        language reads it (``3 times 2 plus 4 times -1``), the products
        added up when two or more are not zero and they fit a subtitle line
        (``, that is 6 minus 4``; else nothing), and the total; the numbers
        written as the line writes them."""
        num = self._num
        terms = [self.tr("term", x=num(t.x), w=num(t.w)) for t in col.terms]
        said = terms[0]
        for t in terms[1:]:
            said = self.tr("then", a=said, b=t)
        nonzero = [t.product for t in col.terms if t.product != 0]
        step = ""
        if len(nonzero) >= 2:
            step = num(nonzero[0])
            for v in nonzero[1:]:
                step = self.tr("minus", a=step, b=num(-v)) if v < 0 else self.tr("plus", a=step, b=num(v))
            step = self.tr("step", step=step)
            if len(step) > LINE_WIDTH[self.lang]:     # numbers unbroken by any word: said only when they fit
                step = ""                              # a subtitle line (the line on screen still shows them)
        return {"terms": said, "step": step, "total": num(col.total)}

    # --- each output is a glass mixed by W's column --------------------
    def _pour(self) -> tuple[list[_Glass], list[float], float]:
        """The lines go; the glasses are laid out under the row x W = y, which
        shrinks first (as far as it reads) when a tall W leaves them too little room."""
        s = self.s
        self.play(FadeOut(s.lines), run_time=0.6)
        glasses, levels, unit = self._glasses(below=s.top.get_bottom()[1],
                                              taken=tuple(_box(mob) for mob in (*s.product, *s.names)))
        if self._glass_room() < MIN_GLASS_ROOM and s.top_scale > s.top_floor:
            s.top.save_state()
            while self._glass_room() < MIN_GLASS_ROOM and s.top_scale > s.top_floor:
                self._place_top(max(s.top_floor, s.top_scale * 0.92))
            s.top.generate_target()
            s.top.restore()
            self.play(MoveToTarget(s.top), run_time=0.6)
            glasses, levels, unit = self._glasses(below=s.top.get_bottom()[1],
                                                  taken=tuple(_box(mob) for mob in (*s.product, *s.names)))
        return glasses, levels, unit

    def _cocktail(self, glasses: list[_Glass], levels: list[float], unit: float) -> Mobject:
        """The glasses fill, one after another, with what each input pours in;
        then the negative amounts are poured out, in a sentence of their own
        that says the first of them with its numbers.  Returns the glasses'
        heading."""
        s = self.s
        heading = text(self.tr("cocktail"), self.lang, size=32, color=palette.FOCUS)
        heading.to_corner(UP + RIGHT, buff=0.35)
        poured = [g for g in glasses if len(g.remove)]
        poured_at = None
        with self.beat("cocktail_say", focus=VGroup(*[g.glass for g in glasses])):
            self.play(FadeIn(heading), run_time=0.6)
            for g in glasses:
                self.play(FadeIn(g.glass), FadeIn(g.recipe), run_time=0.4)
                if len(g.add):     # a column whose products are all zero or negative pours nothing in
                    self.play(*[GrowFromEdge(layer, DOWN) for layer in g.add],
                              *[FadeIn(a) for a in g.amounts if not a.poured], run_time=0.8)
                if not len(g.remove):
                    self.play(FadeIn(g.level), FadeIn(g.value), run_time=0.4)
            self.describe("describe_cocktail", heading=self.tr("cocktail"))
            for j, (g, col) in enumerate(zip(glasses, s.work.columns)):    # what each glass holds so far
                recipe, poured_in = [t.w for t in col.terms], [t.product for t in col.terms if t.product > 0]
                if not poured_in:
                    self.describe("describe_glass_none", j=j + 1, recipe=recipe, fractions=s.frac)
                elif len(g.remove):
                    self.describe("describe_glass_open", j=j + 1, recipe=recipe, amounts=poured_in, fractions=s.frac)
                else:
                    self.describe("describe_glass", j=j + 1, recipe=recipe, amounts=poured_in, total=col.total,
                                  fractions=s.frac)
        if poured:      # "a negative amount pours some out: 4 times -1 takes 4 away", in a sentence of its own
            term = next(t for t in s.work.columns[glasses.index(poured[0])].terms if t.product < 0)
            with self.beat("pour_say", focus=poured[0].remove, x=self._num(term.x), w=self._num(term.w),
                           amount=self._num(-term.product)):
                poured_at = self.renderer.time
                self.play(*[FadeIn(g.remove) for g in poured],
                          *[FadeIn(a) for g in poured for a in g.amounts if a.poured], run_time=0.8)
                self.play(*[FadeIn(m) for g in poured for m in (g.level, g.value)], run_time=0.5)
                for g in poured:
                    j = glasses.index(g)
                    self.describe("describe_pour", j=j + 1, total=s.work.columns[j].total,
                                  amounts=[-t.product for t in s.work.columns[j].terms if t.product < 0],
                                  fractions=s.frac)
        anchors = {f"layer {j + 1}.{k + 1}": layer.get_center()[:2]
                   for j, g in enumerate(glasses) for k, layer in enumerate([*g.add, *g.remove])}
        anchors.update({f"top {j + 1}": g.glass.get_top()[:2] for j, g in enumerate(glasses)})
        anchors.update({f"foot {j + 1}": g.glass.get_bottom()[:2] for j, g in enumerate(glasses)})
        labelled = [(a.tex_string, _box(a), f"layer {j + 1}.{k + 1}") for j, g in enumerate(glasses)
                    for a in g.amounts for k, layer in enumerate([*g.add, *g.remove]) if a.block is layer or
                    (len(layer) == 2 and a.block is layer[0])]
        labelled += [(g.value.tex_string, _box(g.value), f"top {j + 1}") for j, g in enumerate(glasses)]
        labelled += [(g.recipe.tex_string, _box(g.recipe), f"foot {j + 1}") for j, g in enumerate(glasses)]
        self.key_moment("cocktail", levels=levels, heading=heading.get_color().to_hex(),
                        values=[g.value.tex_string for g in glasses],
                        amounts=[[(a.tex_string, a.get_color().to_hex()) for a in g.amounts]
                                 for g in glasses],
                        layers=[[(r.height / unit, r.get_fill_color().to_hex()) for r in g.add]
                                for g in glasses],
                        recipes=[g.recipe.tex_string for g in glasses], poured_at=poured_at,
                        level_colors=[g.level.get_stroke_color().to_hex() for g in glasses],
                        value_colors=[g.value.get_fill_color().to_hex() for g in glasses],
                        anchors=anchors, labelled=labelled)
        return heading

    def _outro(self, cocktail: Mobject, glasses: list[_Glass]) -> None:
        """The recipe is W: each column of W flies down into its glass's
        recipe; then, as the chapter ends, attention's three recipes are named."""
        s = self.s
        outro = text(self.tr("outro"), self.lang, size=30, color=palette.FOCUS)
        ahead = VGroup(text(self.tr("next"), self.lang, size=30, color=palette.FOCUS),
                       MathTex(r"W_Q,\ W_K,\ W_V", font_size=40, color=palette.INK)).arrange(RIGHT, buff=0.25)
        room = 6.75 - (s.heading.get_right()[0] + 0.5)     # right of the title, clear of the frame's edge
        for heading in (outro, ahead):
            shrink_to_fit(heading, width=room)
            heading.to_corner(UP + RIGHT, buff=0.45)
        w_cols = s.w_mat.get_columns()
        boxes = VGroup(*[SurroundingRectangle(col, color=palette.FOCUS, buff=0.08) for col in w_cols])
        with self.beat("outro_say", focus=s.w_mat) as said:
            remix, names = self.cue_at(said, 0.3, 0.8)    # "it remixes its inputs"; "in attention, ... W_Q"
            self.play(FadeOut(cocktail), FadeIn(outro), run_time=0.8)
            self.play(Create(boxes), run_time=0.6)
            self.wait_until(remix, boxes)
            self.play(*[TransformFromCopy(w_cols[j][i], g.recipe[2 * i])
                        for j, g in enumerate(glasses) for i in range(len(w_cols[j]))], run_time=1.4)
            self.wait_until(names, boxes)
            self.play(FadeOut(outro), FadeIn(ahead, shift=0.2 * UP), run_time=0.8)
            self.focus_on(ahead, *[g.recipe for g in glasses])
            self.describe("describe_outro", outro=self.tr("outro"), ahead=self.tr("next"))
        self.key_moment("end", boxes=[_box(b) for b in boxes], columns=[_box(c) for c in w_cols],
                        recipes=[g.recipe.tex_string for g in glasses])

    @staticmethod
    def _product(x, W, result, ing, cols, frac: bool, gap: float | None = None):
        """x W = y as matrices in a row (y's entries in their columns' colours)."""
        x_mat = matrix_mob([x], col_colors=ing, font_size=52, fractions=frac, gap=gap)
        w_mat = matrix_mob(W, font_size=52, fractions=frac, gap=gap)
        y_mat = matrix_mob([result], col_colors=cols, font_size=52, fractions=frac, gap=gap)
        eq = MathTex("=", font_size=56)
        product = VGroup(x_mat, w_mat, eq, y_mat).arrange(RIGHT, buff=0.3)
        return x_mat, w_mat, y_mat, eq, product

    def _place_top(self, scale: float) -> float:
        """Scale the row x W = y to ``scale`` of its natural size (its names
        keep theirs, under their matrices) and put it under the title, centred."""
        s = self.s
        by = scale / s.top_scale
        if by != 1.0:
            s.product.scale(by)
        s.top_scale = scale
        for name, mob in zip(s.names, (s.product[0], s.product[1], s.product[3])):
            name.next_to(mob, DOWN, buff=0.15)
        VGroup(s.product, s.names).next_to(s.heading, DOWN, buff=0.35).set_x(0)
        return scale

    def _lines(self, work: qm.WorkedProduct, cols, frac: bool, split: bool) -> VGroup:
        """One line per output: its name, then its arithmetic (``split``: the
        factors on one row, the sums under them)."""
        lines = VGroup()
        for j, col in enumerate(work.columns):
            label = text(self.tr("column", j=j + 1), self.lang, size=32, color=cols[j])
            line = term_line(col, 52, cols[j], frac, split=split)   # split: factors, then sums under them
            lines.add(VGroup(label, line).arrange(RIGHT, buff=0.4))
        return lines.arrange(DOWN, aligned_edge=LEFT, buff=0.3)

    @staticmethod
    def _lines_scale(lines, top, gap: float) -> float:
        """The scale the lines are drawn at ``gap`` under ``top``: as large as fits the width and the room below."""
        room = top.get_bottom()[1] - gap - LINES_BOTTOM
        return min(1.0, room / lines.height, WIDTH / lines.width)

    def _glasses(self, below: float, taken: tuple = ()) -> tuple[list[_Glass], list[float], float]:
        """One glass per output (``_glass``).  Returns the glasses, the level
        of each (in value units, read back from the drawing) and the scene
        units per value unit.  The values stay below ``below``; an amount
        that would cover another label (or one of the boxes ``taken``) is
        left out: the recipe still names it."""
        s = self.s
        work, cols, fractions = s.work, s.cols, s.frac
        m = len(work.columns)
        spacing = min(3.2, 12.0 / m)
        width = min(1.3, spacing - 0.6)
        xs = np.linspace(-(m - 1) / 2, (m - 1) / 2, m) * spacing
        values = [self._value(j, col, cols[j], fractions, spacing - 0.2) for j, col in enumerate(work.columns)]
        recipes = [self._recipe(col, s.ing, cols[j], fractions, spacing - 0.25) for j, col in enumerate(work.columns)]
        # recipes on two rows lift the glasses off their usual baseline
        baseline = max(BASELINE, LINES_BOTTOM + 0.15 + max(r.height for r in recipes))
        ceiling = below - max(0.6, max(v.height for v in values) + 0.2)
        pos = [sum(float(t.product) for t in c.terms if t.product > 0) for c in work.columns]
        low = [min(0.0, float(c.total)) for c in work.columns]
        span = max(max(pos), 1e-9) - min(low)
        unit = min(GLASS_HEIGHT, ceiling - 0.15 - baseline) / span
        base = baseline - min(low) * unit
        s.clearance, s.baseline = below - ceiling, baseline
        glasses, levels = [], []
        for j, col in enumerate(work.columns):
            g = self._glass(j, col, xs[j], width, base, unit, max(pos), values[j], recipes[j], baseline)
            glasses.append(g)
            levels.append((g.level.get_center()[1] - base) / unit)
        self._fit_amounts(glasses, taken)
        return glasses, levels, unit

    def _glass(self, j: int, col, cx: float, width: float, base: float, unit: float, full: float,
               value: MathTex, recipe: MathTex, baseline: float) -> _Glass:
        """Output ``j``'s glass at ``cx``, its bottom at ``base``, ``full`` value
        units tall: positive products stacked up from the bottom, negative
        ones drawn as dashed 'poured out' blocks from the top down; a level
        line at the sum; beside each layer, its amount; above the glass
        ``value``, under ``baseline`` its ``recipe``."""
        ing, fractions = self.s.ing, self.s.frac
        add, remove, amounts = VGroup(), VGroup(), VGroup()
        top = 0.0
        for i, t in enumerate(col.terms):
            p = float(t.product)
            if p > 0:
                layer = Rectangle(width=width, height=p * unit, stroke_width=0,
                                  fill_color=ing[i], fill_opacity=0.85)
                add.add(layer.move_to([cx, base + (top + p / 2) * unit, 0]))
                # how much of ingredient i goes in, on the glass's left
                amounts.add(self._amount(t.product, ing[i], fractions, layer, LEFT))
                amounts[-1].poured = False
                top += p
        cur = top
        for i, t in enumerate(col.terms):
            p = float(t.product)
            if p < 0:
                block = Rectangle(width=width, height=-p * unit, stroke_width=0,
                                  fill_color=palette.PANEL, fill_opacity=0.75)
                block.move_to([cx, base + (cur + p / 2) * unit, 0])
                edge = DashedVMobject(Rectangle(width=width, height=-p * unit,
                                                color=ing[i], stroke_width=3).move_to(block))
                remove.add(VGroup(block, edge))
                # how much is poured out, on the glass's right
                amounts.add(self._amount(t.product, ing[i], fractions, block, RIGHT))
                amounts[-1].poured = True
                cur += p
        # amounts too close to fit one above the other are left out (the recipe still names them)
        kept = VGroup()
        for a in amounts:
            if all(abs(a.get_y() - b.get_y()) > (a.height + b.height) / 2 + 0.05
                   or np.sign(a.get_x() - cx) != np.sign(b.get_x() - cx) for b in kept):
                kept.add(a)
        level_y = base + float(col.total) * unit
        glass = VGroup(Line([cx - width / 2 - 0.08, base + full * unit + 0.15, 0],
                            [cx - width / 2 - 0.08, base, 0]),
                       Line([cx - width / 2 - 0.08, base, 0], [cx + width / 2 + 0.08, base, 0]),
                       Line([cx + width / 2 + 0.08, base, 0],
                            [cx + width / 2 + 0.08, base + full * unit + 0.15, 0]))
        glass.set_stroke(palette.INK, 3)
        level = Line([cx - width / 2 - 0.2, level_y, 0], [cx + width / 2 + 0.2, level_y, 0],
                     color=self.s.cols[j], stroke_width=5)
        value.next_to(glass, UP, buff=0.12)
        recipe.next_to([cx, baseline, 0], DOWN, buff=0.15)
        return _Glass(glass, add, remove, level, value, recipe, kept)

    @staticmethod
    def _fit_amounts(glasses: list[_Glass], taken: tuple) -> None:
        """An amount over a neighbouring glass, beside a neighbour's amount, value
        or recipe, or out of the frame, is drawn smaller, closer to its glass;
        if it still does not fit, it is left out."""
        boxes = [_box(m) for g in glasses for m in (g.value, g.recipe)] + list(taken)
        for g in glasses:
            others = [_box(h.glass) for h in glasses if h is not g]
            kept = VGroup()
            for a in g.amounts:
                for _ in range(2):
                    box = _box(a)
                    if _inside(box) and not any(_covers(box, b) for b in boxes + others):
                        kept.add(a)
                        boxes.append(box)
                        break
                    a.scale(least_scale(a)).next_to(a.block, a.side, buff=0.12)
            g.amounts = kept

    def _glass_room(self) -> float:
        """How tall the glasses may be drawn under the row x W = y (as the last ``_glasses`` laid them out)."""
        s = self.s
        return s.top.get_bottom()[1] - s.clearance - 0.15 - s.baseline

    @staticmethod
    def _value(j: int, col, colour, fractions: bool, most: float) -> MathTex:
        """``y_j = total`` over a glass, no wider than ``most`` (as far as it stays readable)."""
        value = MathTex(f"y_{{{j + 1}}} = {tex_number(col.total, fractions=fractions)}", font_size=40,
                        color=colour)
        if value.width > most:
            value.scale(max(least_scale(value), most / value.width))
        return value

    @staticmethod
    def _recipe(col, ing, colour, fractions: bool, most: float) -> MathTex:
        """The recipe under a glass: W's column, each weight before its
        ingredient in the ingredient's colour; no wider than ``most``, on
        two rows when one would be too small to read."""
        parts: list[str] = []
        for i, t in enumerate(col.terms):
            parts += [("+ " if i else "") + tex_number(t.w, paren_negative=i > 0, fractions=fractions) + r"\,",
                      f"x_{{{i + 1}}}"]
        recipe = MathTex(*parts, font_size=36, color=colour)
        for i in range(len(col.terms)):
            recipe[2 * i + 1].set_color(ing[i])
        n, floor = len(col.terms), least_scale(recipe)
        for k in range(2, n + 1):     # the fewest rows (of terms) that fit
            if most / recipe.width >= floor:
                break
            per = -(-n // k)
            rows = [VGroup(*recipe[2 * i:2 * min(i + per, n)]) for i in range(0, n, per)]
            for above, row in zip(rows, rows[1:]):
                row.next_to(above, DOWN, aligned_edge=LEFT, buff=0.15)
                row.align_to(rows[0], LEFT).shift(0.3 * RIGHT)
        if recipe.width > most:
            recipe.scale(max(least_scale(recipe), most / recipe.width))
        return recipe

    @staticmethod
    def _amount(product, colour, fractions: bool, block, side) -> MathTex:
        """The amount ``product`` written beside ``block`` (on ``side``) in the ingredient's colour."""
        tex = tex_number(product, fractions=fractions)
        size = 48 if r"\tfrac" in tex else 40     # as large as the values over the glasses (a fraction's
        #                                             digits are smaller)
        amount = MathTex(tex, font_size=size, color=colour).next_to(block, side, buff=0.3)
        amount.block, amount.side = block, side
        return amount


def _box(mob) -> tuple[float, float, float, float]:
    return (mob.get_left()[0], mob.get_bottom()[1], mob.get_right()[0], mob.get_top()[1])


def _covers(a, b, pad: float = 0.03) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def _inside(box) -> bool:
    """Inside the frame, above the subtitle band."""
    return -6.95 < box[0] and box[2] < 6.95 and LINES_BOTTOM < box[1] and box[3] < 3.95
