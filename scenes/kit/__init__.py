"""The shared visual vocabulary of the scenes, each thing written once.

``palette`` the colours (``QKV``/``W_COLORS``: one colour per role);
``text`` text in the lesson's font, ``title``, ``note``, ``wrapped_text``;
``glyphs`` numbers drawn from shared glyphs (``number_tex``, ``FastDecimal``);
``matrices`` matrices of exact numbers and a live 2x2 readout;
``layout`` boxes, the free frame, labels placed beside their points,
``fix_in_frame`` for 3-D scenes; ``legible`` the 24 px floor labels shrink to;
``motion`` label swaps (``Slots``, ``crossfade``); ``live`` live maps;
``charts`` bars, heat-maps and number grids; ``grids`` vector rows and the
score grid; ``boards`` the loss axes; ``worked`` the worked product's column
reveal; ``colour`` the colour cube and swatches; ``three_d`` arrows and
shading Cairo draws in 3-D; ``plane`` the deformable plane;
``scene`` ``LessonScene``; ``sections`` the lesson sections two scenes share;
``moments`` key moments read back for tests; ``drawing`` draws a frame with
less Python, ``held`` converts a still wait's frame once, ``family`` reads a mobject's family
with less Python.  Numbers are written by
``qkv_lens.numbers`` (``tex_number``, ``plain_number``), which the loader
shares to measure what a scene will write.  Importing the kit bounds every
LaTeX run of manim's ``MathTex`` and ``Tex`` in time (``qkv_lens.latex``)
and makes ``Mobject.get_family`` the kit's (``family``: the same list).
"""
from qkv_lens.latex import bound_manim

from .family import fast_families

bound_manim()   # every formula a scene typesets runs LaTeX under a time bound (qkv_lens.latex)
fast_families()     # every family is read by one walk (scenes/kit/family.py): the same lists
