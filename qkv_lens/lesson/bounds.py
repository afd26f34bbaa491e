"""How far every value of a lesson may go: each number has a kind with a
range, each list and name a length, the costly products a cap, the files a
size.  Every accepted lesson renders every scene in bounded time and memory."""
from __future__ import annotations

import re

# Every number of a lesson has a KIND; a kind is the range a scene can draw
# (or compute) in bounded time and memory, with room to spare around the
# shipped values.  (lo, hi, lo_open): lo_open means "> lo" rather than ">= lo".
KINDS: dict[str, tuple[int, int, bool]] = {
    # a point on SpaceDeformation's plane, UpProjection's x: the grid shows about +-5 cells
    "plane": (-5, 5, False),
    # stretch and shear factors, entries of the 2x2 and 2x3 maps of the plane: the
    # deformed grid stays within 4 times its size
    "plane_map": (-4, 4, False),
    # only the direction counts (flatten_onto, the light): non-zero is checked apart
    "direction": (-100, 100, False),
    "angle": (-360, 360, False),                 # degrees
    # the worked example writes each number out (exactly) and scales its glasses
    "entry": (-100, 100, False),
    # attention embeddings and W_*, three_lenses traits and lens matrices: drawn as
    # bars at about one scene unit per 1.0 (q = x W sums up to 12 such products)
    "weight": (-4, 4, False),
    "colour": (-4, 4, False),                    # photo colour filters act on [0, 1] pixels
    "tint": (-1, 1, False),                      # warm tint: diag(1 + s, 1, 1 - s)
    "darken": (0, 4, True),
    "arrow": (-3, 3, False),                     # dot_product_softmax.vector_a on its +-3 plane
    "arrow_length": (0, 3, True),
    "score": (-10, 10, False),                   # shown as bars of exp(score)
    "temperature": (0, 100, True),
    "space": (-10, 10, False),                   # cube centre and lamp, 3-D scene units
    "cube_size": (0, 3, True),
    "ray_step": (0, 5, True),
    "learning_rate": (0, 1, True),
}
# A number is a text of at most MAX_NUMBER_TEXT characters: an optional sign,
# digits with an optional decimal point, an optional exponent of at most two
# digits, or p/q; and its exact value needs a denominator of at most
# MAX_DENOMINATOR (6 decimal places, or a fraction such as 1/7): finer values
# are not drawable and make exact arithmetic (the worked example) unreadable.
MAX_NUMBER_TEXT = 24
MAX_DENOMINATOR = 10**6
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?|[+-]?[0-9]+/[0-9]+")

# tomllib takes time and memory quadratic in the parts of one dotted key
# (x.x.x... of 32000 parts: 26 s, 4 GB), so longer chains are refused first by
# a scan that stays linear whatever the text: the alternatives of a part never
# overlap, and a part starts only after a character that cannot precede one
# (so no stretch of the text is scanned from many starts).  Any text with more
# than MAX_KEY_PARTS dotted parts is refused, even in a comment or a string,
# where no accepted value could hold it.
MAX_KEY_PARTS = 16
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_LONG_KEY = re.compile(
    rf"(?<![-A-Za-z0-9_\\])(?:{_KEY_PART}[ \t]*\.[ \t]*){{{MAX_KEY_PARTS},}}")

# Names are drawn as labels of about 0.3 to 0.5 scene units per character on a
# 14.2 x 8 frame: at most NAME_WIDTH columns (a Chinese character takes 2).
NAME_WIDTH = 24
MAX_TEXT = 256            # any text at all (the picture's file name, ...)
# Unicode categories refused in every text: control (newlines, tabs, escapes),
# format (bidi overrides, zero-width marks), surrogates, line/paragraph separators.
_BAD_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}

# How many of each list a scene lays out.
MAX_TOKENS = 6           # the attention grids are laid out (and tested) up to this size
MAX_TRAITS = 12          # QKVProjection's bars shrink their rows down to this many
MAX_DIMS = 4             # each of attention.qk_dims and attention.v_dims
# What the attention scenes write out: every entry of q, k and v (rows of X W_Q,
# X W_K, X W_V) within +-MAX_PROJECTED (one digit before the point: the q, k and
# v rows of six tokens and four dimensions stand beside the score grid), and
# every score q . k within +-MAX_SCORE (two digits: a cell of the grid holds it).
MAX_PROJECTED = 9.99
MAX_SCORE = 99.99
# How wide (in letters, ``widths.letters_wide``) the attention names may be.  A
# token's name stands beside its row and over its column of AttentionMatching's
# score grid (the more tokens, the narrower the columns); a trait's name beside
# its bar in QKVProjection, left of W's heat-map; a dimension's name over a
# column of the heat-map and beside a bar of q, k or v.
TOKEN_LETTERS = {1: 14, 2: 14, 3: 14, 4: 12, 5: 10, 6: 9}
TRAIT_LETTERS = 16
DIM_LETTERS = 12
MAX_WORDS = 8            # space_deformation.words
# three_lenses: its upper band (2.65 of the frame's 8 units) holds the table of words and the
# worked product x M (M has a row per trait) at a readable size; the lens panels are 4.3 wide
MAX_LENS_TRAITS = 4      # three_lenses.traits: rows of each lens matrix, terms of the worked product
MAX_LENS_WORDS = 6       # three_lenses.words: rows of the table
LENS_NAME_WIDTH = 12     # the words, axes and what a lens keeps and drops, beside points and in panels
LENS_TRAIT_WIDTH = 8     # the traits: the table's four column heads side by side
LENS_DIGITS = 2          # significant digits of a trait value or a lens matrix entry (like 0.25 or -1.5)
MAX_ENTRIES = 6          # the most columns a matrix of numbers may have (unless a section says fewer)
# worked_example: the frame holds the 4 rows of W above the arithmetic of 4 outputs at a
# readable size, every number written out in full (its digits are not rounded away)
WORKED_ROWS = 4           # entries of x (rows of W)
WORKED_COLUMNS = 4        # columns of W (outputs)
WORKED_DIGITS = 8         # digits of every number written: entries, products x_i W_ij, outputs
# ... and the row x W = y across the frame: each matrix's widest number, once per column
# (a fraction's characters count for its width), at most this many characters in all
WORKED_ROW_CHARACTERS = 80
MAX_PEOPLE = 6           # rows of the RolesEmerge table
MIN_PEOPLE = 3           # with 2 guests each has one candidate: nothing to learn
MAX_JOBS = 12
# How wide (in letters, ``widths.letters_wide``: a Chinese character counts as 2)
# a profession's name may be, by the number of guests: a row of RolesEmerge's
# party table holds three names across (the guest over what they seek, K's
# read-out over Q's, V's) beside its row of the attention grid, the shadow
# plane left of it; with five or six guests five names across, one line a
# row (the shipped "programador" is 12.4 letters wide).
JOB_LETTERS = {3: 13, 4: 13, 5: 13, 6: 13}
# Products that cost time or memory (defaults: 2000 x 68 and 800 x 16).
MAX_SAMPLED = 2_000_000  # dot_product_softmax.samples x sum(d_k): 2 arrays of that many floats
MAX_PARTIES = 64_000     # training.steps x training.batch: about 4 s per formula
# Files.
MAX_CHAPTERS = 12          # headings of a lesson
MAX_LESSON_SCENES = 48     # scenes of a lesson, over all its chapters
MAX_CHAPTER_TITLE = 60     # characters of a chapter's title: one line of the page and the deck
MAX_LESSON_BYTES = 1 << 20
MAX_PICTURE_BYTES = 50 << 20
MAX_PICTURE_PIXELS = 40_000_000
