"""``lesson.pdf`` (``qkv-lens export --pdf``): a handout, one A4 page per scene.

Each page holds the scene's title, the question to think about first, the
questions the clip asks while it plays (its checkpoints, numbered through the
lesson, with their choices; their answers on a last page, the answer key), its
key frame (the picture at the end of its last beat), its summary, its key
formula typeset by LaTeX from the text tables' ``[formulas]`` (the
same way the scenes typeset theirs, drawn as vector outlines), what the
clip says, beat by beat, in two columns, and what its pictures show that
the narration does not say (its beats' descriptions, numbered as the beats).  Texts too long for the page
(each may have 1000 characters) flow on, line by line, onto continuation
pages headed by the scene's title; the footer is on every page, below all
text.  Text is real PDF text (cairo's PDF
surface with the lesson's fonts), so the handout is searchable and prints
sharp.  Drawing goes through cairo contexts, so the same pages can be drawn
onto images to look at (``page_pngs``).

Coordinates are PDF points (1/72 inch), y down, on an A4 page.
"""
from __future__ import annotations

import io
import logging
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from qkv_lens.languages import font_file, font_for
from qkv_lens.texts import FORMULAS, tr

A4 = (595.0, 842.0)
MARGIN = 42.0
FORMULA_PT = 30.0     # the key formula's height, at most
GREY, INK, AMBER = (0.42, 0.45, 0.5), (0.07, 0.09, 0.15), (0.71, 0.33, 0.04)
NOT_A_CHAR = "\U0010fffd"   # drawn as the font's "missing glyph" box
QUOTES = "“”‘’"
# a word: a wide (CJK) character with the punctuation that may not start a line, or a run
# of other characters with the spaces after it
_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"
WORDS = re.compile(f"[“‘（「]*[{_CJK}][，。、；：！？）」”’]*|[^\\s{_CJK}]+[，。、；：！？）」”’]*\\s*|\\s+")


def _wide(ch: str) -> bool:
    import unicodedata
    return unicodedata.east_asian_width(ch) in "WF"


@cache
def _families(lang: str) -> tuple[str, ...]:
    try:
        first = font_for(lang)
    except Exception:   # noqa: BLE001 - no font for the language: fontconfig's choice
        first = "sans"
    return (first, "DejaVu Sans")


@cache
def _lacks(family: str, ch: str) -> bool:
    """Whether ``family`` draws ``ch`` as its missing-glyph box (Noto Sans CJK has no ᵀ)."""
    from PIL import ImageFont

    file, index = font_file(family)
    try:
        font = ImageFont.truetype(file, 20, index=index)
    except OSError:
        return False
    return bytes(font.getmask(ch)) == bytes(font.getmask(NOT_A_CHAR))


class Writer:
    """Real text on a cairo context in the lesson's font for ``lang``; a
    character the font lacks is drawn in DejaVu Sans."""

    def __init__(self, ctx: Any, lang: str):
        self.ctx, self.lang = ctx, lang
        self.families = _families(lang)

    def _runs(self, text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for k, ch in enumerate(text):
            near = text[max(0, k - 1):k + 2]
            # a CJK font draws curly quotes full width: in Latin text they come from the fallback
            latin_quote = ch in QUOTES and not any(_wide(c) for c in near if c != ch)
            lacks = not ch.isspace() and _lacks(self.families[0], ch)
            family = self.families[1 if latin_quote or lacks else 0]
            if out and out[-1][1] == family:
                out[-1] = (out[-1][0] + ch, family)
            else:
                out.append((ch, family))
        return out

    def _face(self, family: str, size: float, bold: bool) -> None:
        import cairo
        weight = cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL
        self.ctx.select_font_face(family, cairo.FONT_SLANT_NORMAL, weight)
        self.ctx.set_font_size(size)

    def width(self, text: str, size: float, bold: bool = False) -> float:
        total = 0.0
        for piece, family in self._runs(text):
            self._face(family, size, bold)
            total += self.ctx.text_extents(piece).x_advance
        return total

    def show(self, x: float, y: float, text: str, size: float, colour=INK, bold: bool = False) -> float:
        """Write ``text`` with its baseline at ``y``; return where it ends."""
        self.ctx.set_source_rgb(*colour)
        for piece, family in self._runs(text):
            self._face(family, size, bold)
            self.ctx.move_to(x, y)
            self.ctx.show_text(piece)
            x += self.ctx.text_extents(piece).x_advance
        return x

    def lines(self, text: str, width: float, size: float, bold: bool = False) -> list[str]:
        """``text`` filled into lines at most ``width`` wide, as a paragraph is:
        each line takes as many words as fit (a CJK character is a word and
        keeps its closing punctuation; a word wider than a line is cut)."""
        out: list[str] = []
        line = ""
        for word in WORDS.findall(text):
            if line.strip() and self.width((line + word).rstrip(), size, bold) > width:
                out.append(line.rstrip())
                line = word.lstrip()
            else:
                line += word
            while len(line.strip()) > 1 and self.width(line.rstrip(), size, bold) > width:
                cut = max([k for k in range(1, len(line)) if self.width(line[:k], size, bold) <= width] or [1])
                out.append(line[:cut])
                line = line[cut:]
        if line.strip():
            out.append(line.rstrip())
        return out

    def block(self, x: float, y: float, text: str, width: float, size: float, colour=INK,
              bold: bool = False, leading: float = 1.35) -> float:
        """A paragraph from the top ``y``; return the y under it."""
        for line in self.lines(text, width, size, bold):
            y += size * leading
            self.show(x, y - 0.3 * size, line, size, colour, bold)
        return y


# -- formulas ----------------------------------------------------------------

def typeset(latex: str) -> Outline:
    """``latex`` in display math, typeset as manim's MathTex does (its
    template, latex and dvisvgm, through the shared typesetting cache), each
    run bounded in time (``qkv_lens.latex``), as outlines; nothing is left on
    disk but the cache's SVG.  LatexFailed (one line) when it cannot be."""
    from manim import config, logger

    from qkv_lens import latex as tex
    from qkv_lens.app import texcache

    logger.setLevel(logging.WARNING)      # manim logs every formula it writes

    with tempfile.TemporaryDirectory(prefix="qkv-handout-") as tmp:
        texcache.seed(Path(tmp))
        config.media_dir = tmp
        formula = outline(tex.typeset(latex, environment="align*"))
        texcache.publish(Path(tmp))
    return formula


@dataclass(frozen=True)
class Outline:
    """A typeset formula: its outlines (cairo path commands) and its box."""
    paths: tuple[tuple[tuple[str, tuple[float, ...]], ...], ...]
    box: tuple[float, float, float, float]     # x, y, width, height in SVG units


def outline(svg: Path) -> Outline:
    """The filled outlines of an SVG (dvisvgm's glyphs and rules), as cairo commands."""
    import svgelements as se

    doc = se.SVG.parse(str(svg))
    paths, boxes = [], []
    for element in doc.elements():
        if not isinstance(element, se.Shape) or isinstance(element, se.Group):
            continue
        commands: list[tuple[str, tuple[float, ...]]] = []
        here = (0.0, 0.0)
        for seg in se.Path(element).segments():
            if isinstance(seg, se.Move):
                commands.append(("move_to", (seg.end.x, seg.end.y)))
            elif isinstance(seg, se.Line):
                commands.append(("line_to", (seg.end.x, seg.end.y)))
            elif isinstance(seg, se.CubicBezier):
                commands.append(("curve_to", (seg.control1.x, seg.control1.y, seg.control2.x, seg.control2.y,
                                              seg.end.x, seg.end.y)))
            elif isinstance(seg, se.QuadraticBezier):      # as the cubic it is
                q, e = seg.control, seg.end
                commands.append(("curve_to", (here[0] + 2 / 3 * (q.x - here[0]), here[1] + 2 / 3 * (q.y - here[1]),
                                              e.x + 2 / 3 * (q.x - e.x), e.y + 2 / 3 * (q.y - e.y), e.x, e.y)))
            elif isinstance(seg, se.Close):
                commands.append(("close_path", ()))
            if getattr(seg, "end", None) is not None:
                here = (seg.end.x, seg.end.y)
        if commands:
            paths.append(tuple(commands))
            boxes.append(se.Path(element).bbox())
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    return Outline(tuple(paths), (x0, y0, max(b[2] for b in boxes) - x0, max(b[3] for b in boxes) - y0))


def draw_outline(ctx: Any, formula: Outline, x: float, y: float, height: float, max_width: float) -> float:
    """Fill ``formula`` with its top left at (x, y), ``height`` tall at most
    (less when it would be wider than ``max_width``); return its width."""
    bx, by, bw, bh = formula.box
    scale = min(height / bh, max_width / bw)
    ctx.save()
    ctx.translate(x, y)
    ctx.scale(scale, scale)
    ctx.translate(-bx, -by)
    ctx.set_source_rgb(*INK)
    for path in formula.paths:
        for name, args in path:
            getattr(ctx, name)(*args)
        ctx.fill()
    ctx.restore()
    return bw * scale


# -- the page ----------------------------------------------------------------

@dataclass(frozen=True)
class Question:
    """A checkpoint as the handout lists it: its number in the lesson, the
    question, and its choices (lettered) or how its number is given."""
    number: int
    text: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class PageContent:
    """What one handout page shows (texts already in the lesson's language)."""
    lesson: str
    title: str
    question: str
    picture: bytes | None      # PNG of the key frame
    summary: str
    formula_words: str
    formula: Outline | None
    sayings: tuple[str, ...]   # what the clip says, beat by beat
    footer: str
    questions: tuple[Question, ...] = ()   # the clip's checkpoints
    descriptions: tuple[tuple[int, str], ...] = ()   # what the pictures show: (beat number, description)


FOOT = A4[1] - MARGIN - 22        # text ends above this line; the footer is below it
FOOTER_Y = A4[1] - MARGIN + 8     # the footer's baseline
SIZES = (10.5, 10, 9.5, 9, 8.5, 8, 7.5, 7, 6.5)   # the transcript's sizes, tried in turn to fit its page
FLOW_SIZE = 9.0                   # the transcript's size when it fits at none: it flows on


def draw_page(page: PageContent, lang: str, new_page: Callable[[], Any]) -> int:
    """Draw one scene's handout, A4 in points, on as many pages as its texts
    need (``new_page()`` gives the cairo context of each next page); return
    how many.  Each piece goes below the last, and one that would reach the
    footer goes on a continuation page headed by the scene's title again;
    every page has the footer, and no text reaches it."""
    sheet = Sheet(page, lang, new_page)
    sheet.question()
    if page.questions:
        sheet.heading(tr(lang, "export.checkpoints"))
        for q in page.questions:
            sheet.paragraph(f"{q.number}. {q.text}", 10.5)
            for line in q.lines:
                sheet.paragraph(f"    {line}", 10)
            sheet.y += 4
        sheet.y += 6
    if page.picture is not None:
        sheet.picture(page.picture)
    sheet.heading(tr(lang, "export.summary"))
    sheet.paragraph(page.summary, 10.5, after=8)
    sheet.heading(tr(lang, "export.formula"))
    if page.formula_words:
        sheet.paragraph(page.formula_words, 10.5)
    if page.formula is not None:
        sheet.formula(page.formula)
    sheet.y += 8
    if page.sayings:
        sheet.heading(tr(lang, "export.transcript"))
        sheet.transcript(page.sayings)
    if page.descriptions:       # after the transcript, numbered as its beats
        sheet.y += 8
        sheet.heading(tr(lang, "export.descriptions"))
        for n, text in page.descriptions:
            sheet.paragraph(f"{n}. {text}", 9.5, after=2)
    return sheet.pages


class Sheet:
    """The pages of one scene as they are drawn: where the next piece goes
    (``y``), and turning to a continuation page when it would not fit."""

    def __init__(self, page: PageContent, lang: str, new_page: Callable[[], Any]):
        self.page, self.lang, self.new_page = page, lang, new_page
        self.width = A4[0] - 2 * MARGIN
        self.pages = 0
        self.turn()

    def turn(self) -> None:
        """Start the next page: the lesson's name, the scene's title and the footer."""
        self.ctx = self.new_page()
        self.w = Writer(self.ctx, self.lang)
        self.pages += 1
        self.w.show(MARGIN, MARGIN, self.page.lesson, 9, GREY)
        self.y = self.top = self.w.block(MARGIN, MARGIN + 4, self.page.title, self.width, 19, INK, bold=True,
                                         leading=1.3)
        self.w.show(MARGIN, FOOTER_Y, self.page.footer, 9, GREY)

    def room(self, height: float) -> None:
        """Turn the page unless ``height`` more fits above the footer (a fresh page takes it anyway)."""
        if self.y + height > FOOT and self.y > self.top:
            self.turn()

    def paragraph(self, text: str, size: float, colour=INK, bold: bool = False, after: float = 0.0) -> None:
        """``text`` filled into lines, line by line onto the next page when the page is full."""
        lead = size * 1.35
        for line in self.w.lines(text, self.width, size, bold):
            self.room(lead)
            self.y += lead
            self.w.show(MARGIN, self.y - 0.3 * size, line, size, colour, bold)
        self.y += after

    def heading(self, text: str) -> None:
        """A section's name, kept on the page of the line after it."""
        self.room(11 * 1.35 + 10.5 * 1.35)
        self.paragraph(text, 11, AMBER, bold=True)

    def question(self) -> None:
        """The question on a pale band, "Think first:" before its first line."""
        think, size = tr(self.lang, "page.think"), 10.5
        lead = size * 1.4
        lines = self.w.lines(self.page.question, self.width - 16 - self.w.width(think, size, True) - 6, size)
        done = 0
        while True:
            self.room(8 + 12 + lead)
            part = lines[done:done + max(1, int((FOOT - self.y - 8 - 12) // lead))]
            band = lead * len(part) + 12
            self.ctx.set_source_rgb(1.0, 0.97, 0.9)
            self.ctx.rectangle(MARGIN, self.y + 8, self.width, band)
            self.ctx.fill()
            x = MARGIN + 8 + self.w.width(think, size, True) + 6
            if done == 0:
                self.w.show(MARGIN + 8, self.y + 8 + 6 + size, think, size, AMBER, bold=True)
            for i, line in enumerate(part):
                self.w.show(x, self.y + 8 + 6 + size + i * lead, line, size)
            self.y += 8 + band
            done += len(part)
            if done >= len(lines):
                break
            self.turn()
        self.y += 10

    def picture(self, png: bytes) -> None:
        """The key frame across the page (smaller when even a fresh page has no room for it)."""
        import cairo

        image = cairo.ImageSurface.create_from_png(io.BytesIO(png))
        scale = self.width / image.get_width()
        self.room(image.get_height() * scale + 12)
        scale = min(scale, (FOOT - self.y - 12) / image.get_height())
        self.ctx.save()
        self.ctx.translate(MARGIN + (self.width - image.get_width() * scale) / 2, self.y)
        self.ctx.scale(scale, scale)
        self.ctx.set_source_surface(image, 0, 0)
        self.ctx.get_source().set_filter(cairo.FILTER_BEST)
        self.ctx.paint()
        self.ctx.restore()
        self.y += image.get_height() * scale + 12

    def formula(self, formula: Outline) -> None:
        """The key formula, centred, FORMULA_PT tall at most."""
        bx, by, bw, bh = formula.box
        scale = min(FORMULA_PT / bh, self.width / bw)
        self.room(8 + bh * scale + 6)
        draw_outline(self.ctx, formula, MARGIN + (self.width - bw * scale) / 2, self.y + 8, FORMULA_PT, self.width)
        self.y += 8 + bh * scale + 6

    def transcript(self, sayings: Sequence[str]) -> None:
        """The numbered sentences in two columns: balanced on this page at the
        largest of SIZES at which they fit, else at FLOW_SIZE down the left
        column, the right one, and on over continuation pages."""
        gap = 16.0
        column = (self.width - gap) / 2
        for size in SIZES:
            lead = size * 1.3
            blocks = [self.w.lines(f"{i + 1}. {s}", column, size) for i, s in enumerate(sayings)]
            heights = [len(b) * lead + size * 0.5 for b in blocks]
            split, run = len(blocks), 0.0
            for k, h in enumerate(heights):
                if run + h > sum(heights) / 2 and k:
                    split = k
                    break
                run += h
            if max(sum(heights[:split]), sum(heights[split:])) <= FOOT - self.y - 2:
                for col, part in enumerate((blocks[:split], blocks[split:])):
                    cy = self.y + 2
                    for b in part:
                        for line in b:
                            cy += lead
                            self.w.show(MARGIN + col * (column + gap), cy - 0.3 * size, line, size)
                        cy += size * 0.5
                self.y += 2 + max(sum(heights[:split]), sum(heights[split:]))
                return
        size = FLOW_SIZE
        lead = size * 1.3
        col, top = 0, self.y + 2
        cy = bottom = top
        for i, saying in enumerate(sayings):
            for line in self.w.lines(f"{i + 1}. {saying}", column, size):
                if cy + lead > FOOT:
                    if col == 0:
                        col, cy = 1, top
                    else:
                        self.turn()
                        col, top = 0, self.y + 2
                        cy = bottom = top
                cy += lead
                bottom = max(bottom, cy)
                self.w.show(MARGIN + col * (column + gap), cy - 0.3 * size, line, size)
            cy += size * 0.5
        self.y = bottom


def draw_key(lesson: str, lang: str, key: Sequence[str], new_page: Callable[[], Any]) -> int:
    """The answer key (one line per checkpoint: its number, its scene, its
    answer) on pages of its own, headed like a scene's; how many pages."""
    sheet = Sheet(PageContent(lesson, tr(lang, "export.answer_key"), "", None, "", "", None, (), ""), lang, new_page)
    for line in key:
        sheet.paragraph(line, 10.5, after=2)
    return sheet.pages


def write_pdf(pages: Sequence[PageContent], lang: str, dest: Path, title: str, key: Sequence[str] = ()) -> None:
    """The handout as a PDF of A4 pages with real text; ``key`` (the
    checkpoints' answers, a line each) on the last pages."""
    import cairo

    surface = cairo.PDFSurface(str(dest), *A4)
    surface.set_metadata(cairo.PDF_METADATA_TITLE, title)
    surface.set_metadata(cairo.PDF_METADATA_CREATOR, "qkv-lens")
    ctx = cairo.Context(surface)
    started = False

    def new_page() -> Any:
        nonlocal started
        if started:
            ctx.show_page()
        started = True
        return ctx

    for page in pages:
        draw_page(page, lang, new_page)
    if key and pages:
        draw_key(pages[0].lesson, lang, key, new_page)
    if started:
        ctx.show_page()
    surface.finish()


def page_pngs(page: PageContent, lang: str, scale: float = 2.0) -> list[bytes]:
    """One scene's pages drawn as PNGs (``scale`` pixels a point), to look at."""
    import cairo

    surfaces = []

    def new_page() -> Any:
        surface = cairo.ImageSurface(cairo.FORMAT_RGB24, round(A4[0] * scale), round(A4[1] * scale))
        surfaces.append(surface)
        ctx = cairo.Context(surface)
        ctx.set_source_rgb(1, 1, 1)
        ctx.paint()
        ctx.scale(scale, scale)
        return ctx

    draw_page(page, lang, new_page)
    out = []
    for surface in surfaces:
        buf = io.BytesIO()
        surface.write_to_png(buf)
        out.append(buf.getvalue())
    return out


def key_frame(video: Path, at: float) -> bytes:
    """The frame shown at ``at`` seconds (the last one starting at or before it), as PNG."""
    import av

    picked = None
    with av.open(str(video)) as c:
        stream = c.streams.video[0]
        for frame in c.decode(stream):
            if frame.time is not None and frame.time > at + 1e-6 and picked is not None:
                break
            picked = frame
    if picked is None:
        raise ValueError(f"{video}: no frame")
    buf = io.BytesIO()
    picked.to_image().save(buf, format="PNG")
    return buf.getvalue()


def formula_for(section: str) -> Outline | None:
    """The typeset key formula of a scene, if the text table has one."""
    latex = FORMULAS.get(section)
    return typeset(latex) if latex else None


def key_time(duration: float, beat_ends: Sequence[float], fps: Fraction) -> float:
    """When the key frame is: the end of the last beat, one frame before it
    (the clip's end when there are no beats)."""
    end = beat_ends[-1] if beat_ends else duration
    return max(0.0, min(end, duration) - float(1 / fps))
