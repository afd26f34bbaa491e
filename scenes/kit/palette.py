"""The lesson's fixed colours (one meaning each, the same in every scene)."""
from manim import ManimColor

Q_GOLD = ManimColor("#F2C14E")      # query
K_TEAL = ManimColor("#2EC4B6")      # key
V_CORAL = ManimColor("#FF7F6B")     # value
EMBED = ManimColor("#A9BCD0")       # input embeddings (light grey-blue)
BASIS_I = ManimColor("#83C167")     # basis vector i (green)
BASIS_J = ManimColor("#FC6255")     # basis vector j (red)
AREA = ManimColor("#FFD166")        # the unit square, whose area is |det|
INK = ManimColor("#ECECEC")         # ordinary text
MUTED = ManimColor("#8A9BA8")       # secondary text, old grid
ALERT = ManimColor("#FF4D6D")       # information lost, wrong answers
PANEL = ManimColor("#111827")       # backing of readout panels

# Input entries of a worked product, one colour per ingredient.
INGREDIENTS = (ManimColor("#7FB3FF"), ManimColor("#C792EA"), ManimColor("#8BD3A5"),
               ManimColor("#FFB86B"), ManimColor("#F78FB3"), ManimColor("#9AD0EC"))
# Output columns of a worked product.
COLUMNS = (Q_GOLD, K_TEAL, V_CORAL, ManimColor("#B39DDB"), ManimColor("#80CBC4"), ManimColor("#E6EE9C"))
