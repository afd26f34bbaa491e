"""The shared kit: titles, notes, numbers, colours and 3-D overlays, each written once."""
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from manim import Dot, Square, Text, ThreeDScene, VGroup, config, tempconfig

from qkv_lens import numbers
from qkv_lens.numbers import about, percent, plain_number, plain_vector, sci, sci_text, tex_number
from qkv_lens.registry import SCENES
from qkv_lens.texts import TEXTS, tr
from scenes.kit import palette
from scenes.kit.layout import WordPoint, fix_in_frame
from scenes.kit.matrices import matrix_mob
from scenes.kit.text import NOTE_SIZE, TITLE_BUFF, TITLE_SIZE, note, title
from tests.helpers import SHARED_MEDIA, shown_number

SECTIONS = sorted({key.split(".")[0] for key in TEXTS["en"] if key.endswith(".title")} - {"lesson"})


# --- title and note ---------------------------------------------------------

def test_every_scene_has_a_title():
    assert len(SECTIONS) == len(SCENES) == 11


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("section", SECTIONS)
def test_title_sits_in_the_top_left_corner_inside_the_frame(section, lang):
    mob = title(tr(lang, f"{section}.title"), lang)
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    assert mob.get_left()[0] == pytest.approx(-half_w + TITLE_BUFF)
    assert mob.get_top()[1] == pytest.approx(half_h - TITLE_BUFF)
    assert mob.get_right()[0] < half_w - TITLE_BUFF          # the whole line fits
    assert mob.get_bottom()[1] > half_h - 1.0                 # one line, at the top
    assert isinstance(mob, Text) and mob.font_size == pytest.approx(TITLE_SIZE)


def test_a_title_given_a_width_wraps_and_keeps_its_corner():
    content = tr("en", "space_deformation.title") + " " + tr("en", "space_deformation.title")
    mob = title(content, "en", width=4.0)
    assert isinstance(mob, VGroup) and len(mob) >= 2
    assert all(line.width <= 4.0 + 1e-6 for line in mob)
    assert all(line.font_size == pytest.approx(TITLE_SIZE) for line in mob)
    assert mob.get_left()[0] == pytest.approx(-config.frame_width / 2 + TITLE_BUFF)
    assert mob.get_top()[1] == pytest.approx(config.frame_height / 2 - TITLE_BUFF)


def test_note_is_small_and_muted_unless_told():
    plain = note("a note", "en")
    assert isinstance(plain, Text) and plain.font_size == pytest.approx(NOTE_SIZE)
    assert NOTE_SIZE < TITLE_SIZE
    assert plain.get_color() == palette.MUTED
    assert note("a warning", "en", color=palette.ALERT).get_color() == palette.ALERT
    wrapped = note(tr("en", "shadow_projection.lamp_note"), "en", width=4.4)
    assert len(wrapped) >= 2 and all(line.width <= 4.4 + 1e-6 for line in wrapped)
    assert all(line.font_size == pytest.approx(NOTE_SIZE) and line.get_color() == palette.MUTED
               for line in wrapped)


# --- numbers ----------------------------------------------------------------

@pytest.mark.parametrize("value, tex", [
    (Fraction(1, 3), r"\tfrac{1}{3}"),
    (Fraction(-2, 3), r"-\tfrac{2}{3}"),
    (Fraction(1, 2), "0.5"),
    (Fraction(-3, 8), "-0.375"),          # exact: more digits than ``digits``, never rounded
    (Fraction(6, 2), "3"),
    (7, "7"),
    (Fraction(10 ** 30 + 1, 2), "500000000000000000000000000000.5"),   # a float would lose the .5
])
def test_tex_number_keeps_fractions_exact(value, tex):
    assert tex_number(value) == tex


def test_exact_values_in_plain_text():
    assert plain_number(Fraction(1, 3)) == "1/3"
    assert plain_number(Fraction(-1, 3)) == "-1/3"
    assert plain_number(Fraction(5, 4)) == "1.25"
    assert plain_vector([Fraction(3), Fraction(1, 2), Fraction(1, 3), 2.0]) == "[3, 0.5, 1/3, 2]"


@pytest.mark.parametrize("value, digits, shortest, padded", [
    (0.123456, 3, "0.123", "0.123"),
    (0.123456, 2, "0.12", "0.12"),
    (0.5, 2, "0.5", "0.50"),
    (2.0, 2, "2", "2.00"),
    (1.999, 2, "2", "2.00"),
    (-0.004, 2, "0", "0.00"),           # rounds to zero: never "-0"
    (-1.25, 1, "-1.3", "-1.3"),         # half away from zero, as by hand (Python's format gives -1.2)
    (0.75 * math.sin(math.pi / 6), 2, "0.38", "0.38"),   # 0.37499999999999994 is 0.375: float noise is off
    (-0.375, 2, "-0.38", "-0.38"),
    (2.675, 2, "2.68", "2.68"),         # the float just under 2.675 is written 2.675
    (10.0, 0, "10", "10"),
    (-math.inf, 2, r"-\infty", r"-\infty"),
])
def test_floats_round_to_the_given_digits(value, digits, shortest, padded):
    assert tex_number(value, digits) == shortest
    assert tex_number(value, digits, pad=True) == padded
    assert plain_number(value, digits) == shortest.replace(r"\infty", "∞")


def test_padding_an_exact_decimal_adds_zeros_only():
    assert tex_number(Fraction(1, 2), 2, pad=True) == "0.50"
    assert tex_number(Fraction(1, 8), 2, pad=True) == "0.125"
    assert tex_number(Fraction(1, 3), 2, pad=True) == r"\tfrac{1}{3}"


def test_negative_factors_in_parentheses():
    assert tex_number(-2.5, paren_negative=True) == "(-2.5)"
    assert tex_number(Fraction(-1, 3), paren_negative=True) == r"(-\tfrac{1}{3})"
    assert tex_number(-0.0001, paren_negative=True) == "0"
    assert tex_number(1.5, paren_negative=True) == "1.5"


def tex_value(tex: str) -> float:
    m = re.fullmatch(r"(-?[\d.]+)(?: \\times 10\^\{(-?\d+)\})?", tex)
    assert m, tex
    return float(m.group(1)) * 10 ** int(m.group(2) or 0)


@pytest.mark.parametrize("v", [4.4e-5, 2.6e-7, 0.0061, 0.044, 0.61, 1.28, 12345.0])
def test_sci_reads_back(v):
    assert tex_value(sci(v)) == pytest.approx(v, rel=0.05)
    assert shown_number(sci_text(v)) == pytest.approx(v, rel=0.05)


def test_sci_forms():
    assert sci(4.4e-5) == r"4.4 \times 10^{-5}"
    assert sci_text(4.4e-5) == "4.4×10⁻⁵"
    assert sci(0.42) == sci_text(0.42) == "0.42"
    assert sci(0.044) == "0.044"


def test_about_keeps_two_significant_digits():
    # "29,113 times smaller" is false precision: a ratio is said to two significant digits
    assert about(29113.4) == "29,000"
    assert about(35.4) == "35"
    assert about(99.6) == "100"
    assert about(3.14159) == "3.1"


def test_about_groups_thousands_as_the_language_does():
    """A Spanish reader takes 29,000 for twenty-nine: its row groups the
    thousands with a narrow space; decimals keep their point everywhere."""
    from qkv_lens.languages import language
    assert about(29113.4, thousands=language("es").thousands) == "29\u202f000"
    assert about(29113.4, thousands=language("en").thousands) == "29,000"
    assert about(3.14159, thousands=language("es").thousands) == "3.1"
    assert "," not in about(1234567.0, thousands=language("es").thousands)


def test_percent_is_a_whole_number():
    assert percent(0.953) == "95"
    assert percent(1.0) == "100"
    assert percent(0.0) == "0"


def test_one_module_formats_numbers():
    import scenes.kit.charts as charts
    for name in ("fmt", "sci", "sci_text"):
        assert not hasattr(charts, name), f"charts.{name} duplicates qkv_lens.numbers"
    assert {"tex_number", "plain_number", "plain_vector", "sci", "sci_text", "percent"} <= set(vars(numbers))


def test_matrix_entries_round_to_digits():
    with tempconfig({"tex_dir": str(SHARED_MEDIA / "Tex")}):
        m = matrix_mob([[0.876, Fraction(1, 3)], [2, -0.001]], digits=2)
    assert [e.get_tex_string() for e in m.get_entries()] == ["0.88", r"\tfrac{1}{3}", "2", "0"]


def typeset_log(monkeypatch) -> list[str]:
    """What each LaTeX source manim typesets from now on holds (manim's group
    markers and whitespace taken out), in order."""
    import manim.mobject.text.tex_mobject as tex_mobject
    typeset: list[str] = []
    real = tex_mobject.tex_to_svg_file
    monkeypatch.setattr(tex_mobject, "tex_to_svg_file", lambda expr, *a, **k: typeset.append(
        re.sub(r"\\special\{[^}]*\}|\s", "", expr)) or real(expr, *a, **k))
    return typeset


def test_a_plain_number_is_drawn_from_shared_glyphs_like_its_mathtex(monkeypatch):
    from manim import MathTex

    from scenes.kit.glyphs import NUMBER_GLYPHS, FastDecimal, NumberTex, number_tex
    monkeypatch.setattr(FastDecimal, "_glyphs", {})
    monkeypatch.setattr(FastDecimal, "_layouts", {})
    typeset = typeset_log(monkeypatch)
    shown = ["0.87", "-1.25", "100", "0.044", "13.9", "-0.5"]
    with tempconfig({"tex_dir": str(SHARED_MEDIA / "Tex")}):
        made = [number_tex(t, font_size=30) for t in shown]
        matrix = matrix_mob([[0.25, 2.5], [-1, 250]])
        # no number is typeset whole: one LaTeX run typesets every glyph a number
        # can use, once (the rest is the matrix's brackets)
        assert [t for t in typeset if not t.startswith(r"\left")] == [NUMBER_GLYPHS], typeset
        assert [e.get_tex_string() for e in matrix.get_entries()] == ["0.25", "2.5", "-1", "250"]
        for tex, mob in zip(shown, made):
            assert isinstance(mob, NumberTex) and mob.get_tex_string() == tex
            ref = MathTex(tex, font_size=30)
            assert mob.height == pytest.approx(ref.height, rel=0.03)   # the same glyph size
            assert mob.width == pytest.approx(ref.width, rel=0.1)      # spacing as DecimalNumber sets it
        # anything but a plain decimal is typeset whole
        for tex in (r"\tfrac{1}{3}", "(-0.5)", r"-\infty", "12345678901234567890"):
            mob = number_tex(tex)
            assert type(mob) is MathTex and mob.get_tex_string() == tex


# --- colours ----------------------------------------------------------------

def test_one_colour_per_role():
    assert list(palette.QKV) == ["Q", "K", "V"]
    assert len({c.to_hex() for c in palette.QKV.values()}) == 3
    assert palette.QKV == {"Q": palette.Q_GOLD, "K": palette.K_TEAL, "V": palette.V_CORAL}
    assert palette.W_COLORS == {"W_Q": palette.Q_GOLD, "W_K": palette.K_TEAL, "W_V": palette.V_CORAL}
    # the worked example's output columns never borrow the role colours
    roles = {c.to_hex() for c in palette.QKV.values()}
    assert not roles & {c.to_hex() for c in palette.COLUMNS}
    assert len({c.to_hex() for c in palette.COLUMNS}) == len(palette.COLUMNS)


def test_scenes_take_role_colours_from_the_palette():
    from scenes import qkv_projection, role_swap, roles_emerge, three_lenses
    assert [(n, w, c) for n, w, c in qkv_projection.ROLES] == [
        ("q", "W_Q", palette.Q_GOLD), ("k", "W_K", palette.K_TEAL), ("v", "W_V", palette.V_CORAL)]
    assert role_swap.NAMES == ("W_Q", "W_K", "W_V")
    assert [c for _, c in roles_emerge.READOUTS] == list(palette.QKV.values())
    assert not set(three_lenses.LENS_COLOURS) & set(palette.QKV.values())   # lenses are not Q, K or V
    assert not hasattr(role_swap, "COLORS")


# --- 3-D overlays -----------------------------------------------------------

def test_fix_in_frame_fixes_without_showing_and_returns_what_it_fixed():
    with tempconfig({"dry_run": True, "verbosity": "ERROR"}):
        scene = ThreeDScene()
        a, b, c = Dot(), Square(), Dot()
        assert fix_in_frame(scene, a) is a
        assert fix_in_frame(scene, b, c) == (b, c)
        fixed = scene.camera.fixed_in_frame_mobjects
        assert {a, b, c} <= fixed
        assert not {a, b, c} & set(scene.mobjects)       # the scene fades them in later
        before = np.array(a.get_center())
        scene.set_camera_orientation(phi=70 * math.pi / 180, theta=-0.5)
        drawn = scene.camera.transform_points_pre_display(a, a.points)
        assert np.allclose(drawn.mean(axis=0)[:2], before[:2], atol=1e-6)   # unmoved by the camera


@pytest.mark.parametrize("start, end", [
    ((0.0, 0.0, 0.0), (1.2, -0.7, 0.9)),
    ((0.3, 0.1, -0.2), (0.3, 0.1, 1.5)),       # along z
    ((0.0, 0.0, 0.0), (0.0, -2.0, 0.0)),       # x == 0, y < 0
    ((1.0, 1.0, 0.0), (-0.5, 1.2, -0.4)),      # x < 0
    ((0.0, 0.0, 0.0), (0.2, 0.1, 0.0)),        # short: the head shrinks
])
def test_an_aimed_solid_arrow_is_the_arrow_built_at_its_new_ends(start, end):
    from scenes.kit.three_d import aim_solid_arrow, solid_arrow
    start, end = np.array(start), np.array(end)
    built = solid_arrow(start, end, palette.BASIS_I, bold=1.6)
    aimed = aim_solid_arrow(solid_arrow(np.zeros(3), np.array([0.0, 1.0, 1.0]), palette.BASIS_I, bold=1.6),
                            start, end)
    pairs = list(zip(built.family_members_with_points(), aimed.family_members_with_points(), strict=True))
    assert len(pairs) > 20                                   # faces, ends, tail and tip
    for b, a in pairs:
        assert type(a) is type(b)
        assert np.allclose(a.points, b.points, atol=1e-9)
        assert np.array_equal(a.fill_rgbas, b.fill_rgbas)
    assert np.allclose(aimed.tail.get_center(), start) and np.allclose(aimed.tip.get_center(), end)


def test_a_live_map_attached_for_its_moves_only_draws_in_them_and_says_what_they_redrew():
    from manim import Scene, Square

    from scenes.kit.live import LiveMap
    with tempconfig({"dry_run": True, "verbosity": "ERROR"}):
        scene = Scene()
        square, other = Square(), Dot().set_z_index(1)
        drawn: list[float] = []
        live = LiveMap(lambda x: (drawn.append(x), square.move_to([x, 0, 0])), start=0.0, z=-1)
        scene.add(live.driver, square, other)
        live.attach(every_play=False)
        assert not live.driver.updaters
        scene.play(other.animate.shift([0, 1, 0]), run_time=0.5)
        assert not drawn                                      # another play: the map is not drawn ...
        assert square not in scene.moving_mobjects            # ... and stays in manim's still
        live.play(scene, lambda t: 2 * t, seconds=0.5)
        assert drawn and drawn[-1] == pytest.approx(2.0)      # its move drew it to the end
        assert np.allclose(square.get_center(), [2, 0, 0])
        assert square in live.redrawn and not live.driver.updaters


@pytest.mark.parametrize("content, lang, width", [
    ("行向量：M 的第 1 行是 i 的落点，第 2 行是 j 的落点", "zh", 4.6),
    ("影子落在斜面上", "zh", 2.3),                # greedy filling would leave 上 alone
    ("把三维空间压扁到一个斜面上，落点不再能分辨原来的高度。", "zh", 3.4),
    ("The point [3, 4, 2] lands on the tilted plane.", "en", 3.0),
])
def test_wrapped_lines_fit_and_never_orphan_or_split_a_term(content, lang, width):
    from qkv_lens.cues import is_orphan
    from scenes.kit.text import text, wrap_lines

    lines = wrap_lines(content, lang, 26, width)
    sep = "" if lang == "zh" else " "
    assert sep.join(lines).replace(" ", "") == content.replace(" ", "")      # nothing lost or added
    assert len(lines) > 1
    assert all(text(l, lang, size=26).width <= width + 1e-6 for l in lines)
    assert not any(is_orphan(l) for l in lines)
    for term in ("落点", "斜面", "三维", "[3, 4, 2]"):
        if term in content:
            assert any(term in l for l in lines), f"{term} split: {lines}"


def test_labels_added_to_a_lesson_scene_get_a_dark_outline(tmp_path):
    """Every label on screen at every key moment has the outline behind its glyphs."""
    from tests.helpers import dry_run
    s = dry_run("SpaceDeformation", tmp_path)
    labels = [lab for m in s.moments.values() for lab in m.labels if lab.kind != "ImageMobject"]
    assert labels and all(lab.outlined for lab in labels)


def test_outlines_go_on_entries_not_on_a_matrix_brackets():
    """A bracket is typeset in pieces; outlined, each piece would cut a gap into the next."""
    import numpy as np

    from scenes.kit.matrices import matrix_mob
    from scenes.kit.text import outline_labels
    m = matrix_mob(np.array([[1.0, -0.5], [0.25, 2.0]]), font_size=30, digits=2)
    outline_labels(m)
    pieces = [g for b in m.get_brackets() for g in b.family_members_with_points()]
    glyphs = [g for e in m.get_entries() for g in e.family_members_with_points()]
    assert len(pieces) >= 2 and glyphs
    assert all(g.get_stroke_width(background=True) > 0 for g in glyphs)
    assert not any(p.get_stroke_width(background=True) for p in pieces)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_label_placement_measures_as_manim_does(lang):
    """place_labels measures boxes in one pass and shifts arithmetically: it
    must put every label exactly where manim's next_to would."""
    from manim import DL, DOWN, DR, LEFT, RIGHT, UL, UP, UR, MathTex

    from scenes.kit.layout import WordPoint, beside, bounds
    from scenes.kit.text import text
    mobs = [text("苹果" if lang == "zh" else "apple", lang, size=30), MathTex(r"x_1 = \sqrt{2}"),
            Dot(radius=0.07), VGroup(Square(0.3), Text("Wg", font_size=40).shift(0.7 * UR))]
    for m in mobs:
        m.shift(np.array([0.37, -1.21, 0]))
        assert np.allclose(bounds(m), (m.get_left()[0], m.get_bottom()[1], m.get_right()[0], m.get_top()[1]))
    label, dot = mobs[0], mobs[2]
    for side in (UR, UL, DR, DL, RIGHT, LEFT, UP, DOWN):
        for buff in (0.08, 0.75):
            moved = label.copy().next_to(dot, side, buff=buff)
            shift = beside(bounds(dot), bounds(label), side, buff)
            assert np.allclose(moved.get_center()[:2], label.get_center()[:2] + shift)
    # a crowd of points at one spot: every label beside its dot, no two overlapping
    from scenes.kit.layout import overlaps, place_labels
    points = [WordPoint(w, (0, 0), lang) for w in ("苹果", "香蕉", "西瓜", "橘子")]
    place_labels(points)
    boxes = [bounds(p.label) for p in points]
    assert not any(overlaps(a, b, pad=0) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    for p in points:
        expected = p.label.copy().next_to(p.dot, p.side, buff=0)
        gap = np.abs(p.label.get_center() - expected.get_center())[:2]
        assert np.all(gap <= 0.75 + 1e-9) and np.any(gap >= 0.08 - 1e-9)


def test_unchanged_says_when_an_updater_can_skip_a_frame():
    from scenes.kit.live import Unchanged
    unchanged = Unchanged()
    m = np.array([[1.0, 0.5], [0.0, 2.0]])
    assert not unchanged(m, 0.3)            # the first frame always draws
    assert unchanged(m.copy(), 0.3)
    assert not unchanged(m, 0.31)
    m2 = m.copy()
    m2[1, 0] = 1e-12                        # any change at all redraws
    assert not unchanged(m2, 0.31)
    assert not unchanged(m2)                # fewer values: a different frame


def test_put_segment_moves_a_line_as_manim_does():
    from manim import Line

    from scenes.kit.live import put_segment
    a, b = np.array([1.0, 2.0, 3.0]), np.array([-2.0, 0.5, 1.0])
    ours, theirs = Line([0, 0, 0], [1, 0, 0]), Line([0, 0, 0], [1, 0, 0])
    put_segment(ours, a, b)
    theirs.put_start_and_end_on(a, b)
    assert np.allclose(ours.points, theirs.points)
    assert np.allclose(ours.get_start(), a) and np.allclose(ours.get_end(), b)


def test_forgetting_svg_sources_keeps_every_glyph_as_drawn():
    from manim import MathTex

    from qkv_lens.languages import font_for
    from scenes.kit.live import forget_svg_sources
    for mob in (MathTex(r"q_1 \cdot k_2 = \sqrt{d_k}"), Text("点积 softmax", font=font_for("zh"), font_size=30)):
        before = [(m.points.copy(), m.fill_rgbas.copy()) for m in mob.family_members_with_points()]
        assert any("path_obj" in m.__dict__ for m in mob.get_family())
        forget_svg_sources(mob)
        copy = mob.copy()
        assert not any("path_obj" in m.__dict__ for m in copy.get_family())
        after = [(m.points, m.fill_rgbas) for m in copy.family_members_with_points()]
        assert len(after) == len(before)
        assert all(np.array_equal(p, q) and np.array_equal(c, d) for (p, c), (q, d) in zip(before, after))


def test_aim_arrow_draws_the_arrow_manim_would_build():
    from manim import Arrow

    from scenes.kit.live import aim_arrow
    rng = np.random.default_rng(7)
    for settings in (dict(buff=0, stroke_width=6, max_tip_length_to_length_ratio=0.3), dict(buff=0)):
        arrow = Arrow([0, 0, 0], [1, 0, 0], **settings)
        for length in (0.01, 0.3, 1.0, 1.17, 1.2, 4.0):   # tip and stroke capped, or scaled with length
            a = np.array([*rng.normal(size=2), 0.0])
            turn = rng.uniform(-np.pi, np.pi)
            b = a + length * np.array([np.cos(turn), np.sin(turn), 0.0])
            built = Arrow(a, b, **settings)
            aim_arrow(arrow, a, b)
            assert np.allclose(arrow.points, built.points, atol=1e-9)
            assert np.allclose(arrow.tip.points, built.tip.points, atol=1e-9)
            assert arrow.get_stroke_width() == pytest.approx(built.get_stroke_width())
            assert np.allclose(arrow.get_end(), b) and np.allclose(arrow.get_start(), a)


def test_number_glyphs_from_one_run_equal_each_typeset_alone():
    from manim import MathTex

    from scenes.kit.glyphs import NUMBER_GLYPHS, _number_glyphs
    with tempconfig({"tex_dir": str(SHARED_MEDIA / "Tex")}):
        glyphs = _number_glyphs()
        assert list(glyphs) == list(NUMBER_GLYPHS)
        for char, glyph in glyphs.items():
            alone = MathTex(char)
            ours, its = glyph.family_members_with_points(), alone.family_members_with_points()
            assert len(ours) == len(its) == 1 and glyph.get_tex_string() == char
            # it holds no other glyph (a copy would copy them all)
            held = {id(m) for g in glyph.id_to_vgroup_dict.values() for m in g.get_family()}
            assert held <= {id(m) for m in glyph.get_family()}
            assert glyph.get_part_by_tex(char) is glyph.submobjects[0]
            assert np.allclose(ours[0].points, its[0].points, atol=1e-12), char
            assert glyph.font_size == pytest.approx(alone.font_size)
            glyph.font_size = alone.font_size = 30      # and both scale alike
            assert np.allclose(ours[0].points, its[0].points, atol=1e-12), char


def test_manims_axis_numbers_use_the_shared_glyphs(monkeypatch):
    import manim.mobject.text.numbers as manim_numbers
    from manim import NumberLine

    from scenes.kit.glyphs import NUMBER_GLYPHS, FastDecimal, share_number_glyphs
    monkeypatch.setattr(FastDecimal, "_glyphs", {})
    monkeypatch.setattr(manim_numbers, "string_to_mob_map", {"9": "kept"})   # (the line shows no 9)
    typeset = typeset_log(monkeypatch)
    with tempconfig({"tex_dir": str(SHARED_MEDIA / "Tex")}):
        share_number_glyphs()
        share_number_glyphs()     # once a process
        assert manim_numbers.string_to_mob_map["9"] == "kept"   # what manim has is kept
        line = NumberLine(x_range=[-1.5, 1.5, 0.5], include_numbers=True,
                          decimal_number_config={"num_decimal_places": 1})
    assert typeset == [NUMBER_GLYPHS]         # the axis numbers typeset nothing more
    assert len(line.numbers) == 7


def test_fast_decimal_set_value_draws_what_manims_decimal_number_draws(monkeypatch):
    import manim.mobject.text.numbers as manim_numbers
    from manim import BLACK, BLUE, RED, RIGHT, UP, DecimalNumber

    from scenes.kit.glyphs import FastDecimal
    monkeypatch.setattr(FastDecimal, "_glyphs", {})    # its glyphs from one LaTeX run, manim's each from its own
    monkeypatch.setattr(FastDecimal, "_layouts", {})
    monkeypatch.setattr(manim_numbers, "string_to_mob_map", {})

    def made(cls):
        with tempconfig({"tex_dir": str(SHARED_MEDIA / "Tex")}):
            n = cls(-8.88, num_decimal_places=2, font_size=40, color=RED, edge_to_fix=RIGHT)
        return n.set_stroke(BLACK, width=4, background=True)

    manims = made(DecimalNumber)   # first: manim fills its glyph cache with its own MathTex(c)
    ours = made(FastDecimal)
    steps = [lambda n: n.set_value(3.14), lambda n: n.set_color(BLUE), lambda n: n.set_value(-2.5),
             lambda n: n.scale(1.5).shift(UP), lambda n: n.set_value(10.25), lambda n: n.set_value(3.14),
             lambda n: n.set_fill(opacity=0.4), lambda n: n.set_value(0.5)]
    for step in steps:
        step(ours)
        step(manims)
        a, b = ours.family_members_with_points(), manims.family_members_with_points()
        assert len(a) == len(b) and ours.get_value() == manims.get_value()
        for x, y in zip(a, b):
            assert np.allclose(x.points, y.points, atol=1e-9)
            for name in ("fill_rgbas", "stroke_rgbas", "background_stroke_rgbas"):
                assert np.allclose(getattr(x, name), getattr(y, name)), name
            assert (x.stroke_width, x.background_stroke_width) == (y.stroke_width, y.background_stroke_width)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_labels_kept_in_the_free_frame_are_hidden_rather_than_outside_or_piled_up(lang):
    from scenes.kit.layout import WordPoint, bounds, overlaps, place_labels, within
    inside = (-2.0, -2.0, 2.0, 2.0)
    crowd = [WordPoint(("非" * 12 if lang == "zh" else "m" * 24)[:k + 3], (0, 0), lang) for k in range(8)]
    edge = WordPoint("苹果" if lang == "zh" else "apple", (0, 0), lang)
    gone = WordPoint("香蕉" if lang == "zh" else "banana", (0, 0), lang)
    for p, at in [(p, (0.0, 1.2)) for p in crowd] + [(edge, (1.9, 1.9)), (gone, (5.0, 0.0))]:
        p.dot.move_to([*at, 0.0])
    place_labels([*crowd, edge, gone], inside=inside)
    shown = [p for p in (*crowd, edge) if p.label.get_fill_opacity() > 0]
    assert gone.label.get_fill_opacity() == 0 and edge in shown and len(shown) >= 6
    boxes = [bounds(p.label) for p in shown]
    assert all(within(b, inside) for b in boxes)
    assert not any(overlaps(a, b, pad=0) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    gone.dot.move_to([0.0, -1.5, 0.0])      # back in the frame: shown again
    place_labels([gone], inside=inside)
    assert gone.label.get_fill_opacity() == 1 and within(bounds(gone.label), inside)


def test_the_deformable_grid_is_one_path_of_every_line_moved_by_the_matrix():
    from manim import NumberPlane, VMobject

    from scenes.kit.plane import DeformablePlane
    origin, unit = np.array([1.0, 0.5, 0.0]), 0.5
    with tempconfig({"tex_dir": str(SHARED_MEDIA / "Tex")}):
        plane = DeformablePlane([], origin, unit=unit, x_extent=4, y_extent=3)
    (merged,) = plane.grid.background_lines
    assert type(merged) is VMobject and merged.get_stroke_width() == 2
    M = np.array([[1.5, 0.5], [-0.25, 1.0]])
    plane.set_matrix(M)

    def segments(ends):
        return sorted(tuple(float(v) for v in np.round(np.concatenate([a, b]), 9)) for a, b in ends)

    drawn = segments((plane.p2c(path[0]), plane.p2c(path[-1])) for path in merged.get_subpaths())
    # the lines manim's own NumberPlane draws (axes apart), each end moved to coords @ M
    manims = NumberPlane(x_range=(-4, 4, 1), y_range=(-3, 3, 1), x_length=8 * unit, y_length=6 * unit,
                         faded_line_ratio=1).shift(origin)
    want = segments((plane.p2c(line.get_start()) @ M, plane.p2c(line.get_end()) @ M)
                    for line in manims.background_lines)
    assert len(drawn) == len(manims.background_lines) > 10 and drawn == want


def test_a_beat_pulses_what_it_animated_last_unless_that_is_too_small_to_see():
    from manim import RIGHT

    from scenes.kit.scene import MIN_FOCUS, pick_focus
    big, bigger, speck = Square(side_length=1.0), Square(side_length=2.5), Dot(radius=0.05)
    assert pick_focus([big], [bigger, big]) == [big]               # large enough: what came last
    assert pick_focus([speck], [big, bigger, speck]) == [bigger]   # a speck: the largest of the beat
    assert pick_focus([speck], [speck]) == [speck]                 # nothing larger: still the speck
    assert pick_focus([], [big]) == []
    # a group counts by its reach together: two specks far apart are large enough
    far = Dot(radius=0.05).shift(RIGHT * (MIN_FOCUS + 0.5))
    assert pick_focus([speck, far], [bigger]) == [speck, far]


def test_emphasize_scales_and_keeps_every_colour():
    from manim import RED, Square, VGroup

    from scenes.kit.motion import Emphasize
    from scenes.kit.text import text

    mob = VGroup(Square(color=RED), text("wrong", "en", color=RED))
    before = [(m.get_fill_color().to_hex(), m.get_stroke_color().to_hex()) for m in mob.family_members_with_points()]
    width = mob.width
    anim = Emphasize(mob)
    anim.begin()
    anim.interpolate(0.5)       # the peak of there-and-back-with-pause
    assert mob.width > width * 1.05
    assert [(m.get_fill_color().to_hex(), m.get_stroke_color().to_hex())
            for m in mob.family_members_with_points()] == before
    anim.interpolate(1.0)
    anim.finish()
    assert abs(mob.width - width) < 1e-9


def test_place_labels_with_own_never_names_another_point():
    """With ``own``, a label covers no other dot and stands nearer its own
    dot than any other: two points side by side, the first's label is kept
    off the second's side (without ``own`` it took its usual upper right,
    over the second point)."""
    import numpy as np
    from manim import RIGHT

    from scenes.kit.layout import WordPoint, bounds, box_distance, place_labels

    def pair():
        a, b = WordPoint("apple", [0, 0], "en"), WordPoint("banana", [0, 0], "en")
        b.dot.move_to(0.45 * RIGHT + 0.2 * np.array([0, 1, 0]))
        return a, b

    a, b = pair()
    place_labels([a, b])
    assert box_distance(bounds(a.label), b.dot.get_center()) < box_distance(bounds(a.label), a.dot.get_center()) + 0.1
    a, b = pair()
    place_labels([a, b], own=0.1)
    for p, q in ((a, b), (b, a)):
        box = bounds(p.label)
        assert box_distance(box, q.dot.get_center()) >= box_distance(box, p.dot.get_center()) + 0.1


def test_a_refitted_plane_draws_the_same_plane_framed_anew():
    """``refit`` moves the origin and the scale: every part is where the
    matrix puts it in the new frame, grid, square, arrows and words alike."""
    import numpy as np

    from scenes.kit.layout import WordPoint
    from scenes.kit.plane import DeformablePlane

    w = WordPoint("apple", [2, 1], "en")
    plane = DeformablePlane([w], [1.0, 0.5, 0.0], unit=0.8)
    M = np.array([[1.0, 1.0], [-0.5, 1.5]])
    plane.set_matrix(M)
    plane.refit([-1.0, 1.0, 0.0], 0.5)
    assert np.allclose(plane.c2p([0, 0]), [-1.0, 1.0, 0.0])
    assert np.allclose(plane.word_coords(), [[2, 1] @ M])
    assert np.allclose(w.dot.get_center(), [-1.0, 1.0, 0.0] + 0.5 * np.array([*([2, 1] @ M), 0.0]))
    assert np.allclose(plane.p2c(plane.i_arrow.get_end()), M[0], atol=1e-6)
    corners = [plane.p2c(v) for v in plane.square.get_vertices()]
    assert np.allclose(corners, np.array([[0, 0], [1, 0], [1, 1], [0, 1]]) @ M, atol=1e-6)
    assert np.allclose(plane.p2c(plane.grid.x_axis.get_end()) / 16, M[0], atol=1e-6)


def test_a_word_point_is_named_by_its_word():
    """Mobject.__init__ sets ``name`` to the class's name: a WordPoint must keep its word."""
    assert WordPoint("apple", (1, 2), "en").name == "apple"


def test_a_text_is_typeset_once_and_copied(monkeypatch):
    """kit.text: the same words, font, size and colour are typeset once; each
    call gets its own copy, equal to a Text typeset anew; another colour is
    another text."""
    from manim import RED, RIGHT

    from qkv_lens.languages import font_for
    from scenes.kit import text as kit_text

    monkeypatch.setattr(kit_text, "_typeset", {})
    first = kit_text.text("teacher 学", "zh", 24)
    first.shift(RIGHT).set_color(RED)                      # what a scene does with its copy
    second = kit_text.text("teacher 学", "zh", 24)
    fresh = Text("teacher 学", font=font_for("zh"), font_size=24, color=kit_text.palette.INK)
    assert second is not first and len(kit_text._typeset) == 1
    glyphs = list(zip(second.family_members_with_points(), fresh.family_members_with_points(), strict=True))
    assert len(glyphs) >= 8
    for ours, theirs in glyphs:
        assert np.array_equal(ours.points, theirs.points)
        assert np.array_equal(ours.fill_rgbas, theirs.fill_rgbas)
    red = kit_text.text("teacher 学", "zh", 24, color=RED)
    assert len(kit_text._typeset) == 2 and not np.array_equal(red[0].fill_rgbas, second[0].fill_rgbas)


def test_centre_is_manims_centre_to_the_bit():
    """layout.centre: get_center's value from one pass, for a dot off in 3-D,
    a label, a group of both and a mobject with no points."""
    from manim import Dot3D, MathTex, Mobject

    from scenes.kit.layout import centre

    dot = Dot(point=[1.37, -2.11, 0.0]).shift([0.1, 0.2, 0.7]).rotate(0.3, axis=[1, 1, 0])
    label = MathTex(r"x\,P", font_size=40).shift([-3.3, 1.01, 0.0])
    for mob in (dot, label, VGroup(dot, label), Dot3D([0.5, 0.25, -1.0]), Mobject()):
        assert centre(mob).tolist() == mob.get_center().tolist(), mob


def test_a_crossfade_sets_what_manims_setters_set():
    """At every point of a crossfade each part's fill, stroke and outline
    colours and opacities are what manim's ``set_fill``/``set_stroke`` give
    (the kit writes the alpha columns itself); a part with a sheen, whose
    colours manim's setters resize, is left to them."""
    from scenes.kit.motion import crossfade
    from scenes.kit.text import outline_labels

    def state(mob):
        return [(p.fill_rgbas.copy(), p.stroke_rgbas.copy(), p.background_stroke_rgbas.copy(),
                 p.fill_opacity, p.stroke_opacity, p.background_stroke_opacity)
                for p in mob.family_members_with_points()]

    def made():
        old = VGroup(Text("old", color="#33AAFF"), Square().set_fill("#FFAA33", opacity=0.8).set_stroke(opacity=0.5))
        new = VGroup(Text("new"), Dot().set_sheen(0.3, np.array([1, 0, 0])))
        outline_labels(old)
        return old, new

    old, new = made()
    fade = crossfade(old, new)
    ref_old, ref_new = made()
    outline_labels(ref_new)
    start = [(p, p.get_fill_opacity(), p.get_stroke_opacity(), p.get_stroke_opacity(background=True))
             for m in (ref_old, ref_new) for p in m.family_members_with_points()]
    for alpha in (0.0, 0.35, 1.0):
        fade.interpolate(alpha)
        eased = fade.rate_func(alpha)
        for part, fill, stroke, outline in start:
            weight = 1 - eased if any(part is q for q in ref_old.family_members_with_points()) else eased
            part.set_fill(opacity=fill * weight, family=False)
            part.set_stroke(opacity=stroke * weight, family=False)
            part.set_stroke(opacity=outline * weight, background=True, family=False)
        for got, want in zip(state(old) + state(new), state(ref_old) + state(ref_new), strict=True):
            for a, b in zip(got, want, strict=True):
                assert np.array_equal(a, b), (alpha, a, b)
    assert len(new[1].fill_rgbas) == 2          # the sheened dot: manim's setter made its light colour


def test_a_family_is_the_list_manim_reads():
    """Importing the kit makes ``get_family`` its one-walk ``family``; on
    random trees with shared members and loops it lists what manim's own
    walk lists (nested generators, repeats dropped keeping the last)."""
    import random

    from manim import Mobject
    from manim.utils.iterables import remove_list_redundancies

    from scenes.kit.family import family

    def manims(mob):
        return remove_list_redundancies(list(mob._iter_family(set())))

    assert Mobject.get_family is family
    rng = random.Random(5)
    repeats = loops = 0
    for _ in range(200):
        nodes = [VGroup() for _ in range(rng.randint(1, 30))]
        for node in nodes[1:]:
            rng.choice(nodes[:nodes.index(node)]).submobjects.append(node)
        for _ in range(rng.randint(0, 4)):           # a member shared by two groups, or a group inside itself
            a, b = rng.choice(nodes), rng.choice(nodes)
            a.submobjects.append(b)
        root = nodes[0]
        want = manims(root)
        assert family(root) == want and root.get_family() == want
        listed = [m for m in root._iter_family(set())]
        repeats += len(set(listed)) < len(listed)
        loops += any(m in m.submobjects or any(m in s.get_family() for s in m.submobjects) for m in nodes)
    assert repeats and loops                            # both kinds of tree were met
    label = Text("a b", color="#33AAFF")
    assert family(label) == manims(label) and len(family(label)) > 2
