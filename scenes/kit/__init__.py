"""The shared visual vocabulary of the scenes, each thing written once.

``palette`` the colours (``QKV``/``W_COLORS``: one colour per role);
``numbers`` how numbers are written (``tex_number``, ``plain_number``,
``sci``/``sci_text``, ``percent``); ``displays`` text, ``title``, ``note``,
lone numbers (``number_tex``), matrices, word points, live readouts and
``fix_in_frame`` for 3-D scenes;
``charts`` bars, heat-maps and number grids; ``plane`` the deformable plane;
``wrap`` line wrapping; ``moments`` key moments read back for tests.
"""
