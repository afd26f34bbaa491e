"""The lesson's colours read on its backgrounds (issue 42, WCAG 1.4.3): every
colour of ``scenes/kit/palette.py`` a label may be drawn in, against the
frame (``BACKGROUND``, also the dark outline behind every label, so it is
what a label's glyphs stand on over any fill) and the readout panels
(``PANEL``), at 4.5:1 or more; Q gold, K teal and V coral among them.
Each scene's labels as drawn are checked in ``tests/test_scenes.py``."""
from __future__ import annotations

import pytest
from manim import BLUE_E, PURPLE_E, ManimColor

from scenes.kit import palette
from tests.helpers import MIN_CONTRAST, contrast

TEXT_COLOURS = {name: value for name, value in vars(palette).items()
                if isinstance(value, ManimColor) and name not in ("BACKGROUND", "PANEL")}
TEXT_COLOURS.update({f"INGREDIENTS[{i}]": c for i, c in enumerate(palette.INGREDIENTS)})
TEXT_COLOURS.update({f"COLUMNS[{i}]": c for i, c in enumerate(palette.COLUMNS)})


def test_the_check_knows_a_dim_colour_from_a_readable_one():
    """WCAG's own examples: white on black 21:1, #777 on white 4.48:1; manim's dark blue and violet fail."""
    assert contrast("#FFFFFF", "#000000") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert contrast(BLUE_E, palette.BACKGROUND) < MIN_CONTRAST and contrast(PURPLE_E, palette.BACKGROUND) < MIN_CONTRAST


@pytest.mark.parametrize("name", sorted(TEXT_COLOURS))
@pytest.mark.parametrize("behind", ["BACKGROUND", "PANEL"])
def test_every_palette_colour_reads_on_the_lessons_backgrounds(name, behind):
    ratio = contrast(TEXT_COLOURS[name], getattr(palette, behind))
    assert ratio >= MIN_CONTRAST, f"{name} on {behind}: {ratio:.2f}:1"


def test_q_k_and_v_keep_their_hues():
    """Gold, teal and coral stay the lesson's code for Q, K and V."""
    hues = {role: ManimColor(c).to_hsv()[0] * 360 for role, c in palette.QKV.items()}
    assert 35 <= hues["Q"] <= 50 and 165 <= hues["K"] <= 185 and 0 <= hues["V"] <= 15, hues


def test_a_label_in_a_dim_colour_or_half_faded_is_caught():
    """``faint_labels``, which tests/test_scenes.py runs on every scene's key moments: a label's ink at its
    opacity over the dark outline behind it."""
    from types import SimpleNamespace

    from scenes.kit.moments import Label, Moment
    from tests.helpers import faint_labels

    dim = palette.MUTED.interpolate(palette.BACKGROUND, 0.45)      # a muted colour dimmed further
    labels = [Label("Text", "dim", (0, 0, 1, 1), inks=((dim.to_hex(), 1.0),)),
              Label("MathTex", "faded", (2, 0, 3, 1), inks=((palette.INK.to_hex(), 0.2),)),
              Label("Text", "fine", (4, 0, 5, 1), inks=((palette.INK.to_hex(), 1.0), (palette.Q_GOLD.to_hex(), 0.9)))]
    found = faint_labels(SimpleNamespace(moments={"m": Moment("m", labels)}))
    assert [line.split(" ")[2] for line in found] == ["'dim'", "'faded'"]
