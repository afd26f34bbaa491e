"""The lesson's fixed colours (one meaning each, the same in every scene)."""
from manim import ManimColor

Q_GOLD: ManimColor = ManimColor("#F2C14E")      # query
K_TEAL: ManimColor = ManimColor("#2EC4B6")      # key
V_CORAL: ManimColor = ManimColor("#FF7F6B")     # value
EMBED: ManimColor = ManimColor("#A9BCD0")       # input embeddings (light grey-blue)
BASIS_I: ManimColor = ManimColor("#83C167")     # basis vector i (green)
BASIS_J: ManimColor = ManimColor("#FC6255")     # basis vector j (red)
AREA: ManimColor = ManimColor("#FFD166")        # the unit square, whose area is |det| (chapter 1)
FOCUS: ManimColor = ManimColor("#FFFFFF")       # emphasis: a box or mark around what a sentence names
#   (white: never one of Q gold, K teal, V coral, nor a colour whose meaning a reader must trust)
INK: ManimColor = ManimColor("#ECECEC")         # ordinary text
MUTED: ManimColor = ManimColor("#8A9BA8")       # secondary text, old grid
ALERT: ManimColor = ManimColor("#FF4D6D")       # information lost, wrong answers
BACKGROUND: ManimColor = ManimColor("#000000")  # the frame (manim's default), and the outline behind labels
PANEL: ManimColor = ManimColor("#111827")       # backing of readout panels

# The three roles of attention, in formula order: the one mapping every
# scene draws Q, K and V (and their matrices, their filters, their read-outs) from.
QKV: dict[str, ManimColor] = {"Q": Q_GOLD, "K": K_TEAL, "V": V_CORAL}
W_COLORS: dict[str, ManimColor] = {f"W_{role}": color for role, color in QKV.items()}

# Input entries of a worked product, one colour per ingredient.
INGREDIENTS: tuple[ManimColor, ...] = (
    ManimColor("#7FB3FF"), ManimColor("#C792EA"), ManimColor("#8BD3A5"),
    ManimColor("#FFB86B"), ManimColor("#F78FB3"), ManimColor("#9AD0EC"))
# Output columns of a worked product: light colours of their own, never the Q/K/V ones
# (gold, teal and coral mean Q, K and V and nothing else).
COLUMNS: tuple[ManimColor, ...] = (
    ManimColor("#E6EE9C"), ManimColor("#D7CCC8"), ManimColor("#B2EBF2"),
    ManimColor("#B39DDB"), ManimColor("#AED581"), ManimColor("#E1BEE7"))
# Three views of one input before Q, K and V exist (ThreeLenses' lenses, PhotoFilter's three filters):
# purple, green and beige, far from gold, teal and coral.
LENSES: tuple[ManimColor, ...] = (COLUMNS[3], COLUMNS[4], COLUMNS[1])
