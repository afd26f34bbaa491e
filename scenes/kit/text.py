"""Every sentence the lesson shows or speaks, in Chinese and English.

One glossary keeps each term translated the same way: a text writes
``{g:query}`` and gets 查询 or "query".  Other ``{name}`` fields are filled
from qkv_math results by the scene (never typed in here).
"""
from __future__ import annotations

import re

GLOSSARY: dict[str, dict[str, str]] = {
    "projection_matrix": {"zh": "投影矩阵", "en": "projection matrix"},
    "linear_map": {"zh": "线性变换", "en": "linear map"},
    "matrix": {"zh": "矩阵", "en": "matrix"},
    "row_vector": {"zh": "行向量", "en": "row vector"},
    "basis_vector": {"zh": "基向量", "en": "basis vector"},
    "determinant": {"zh": "行列式", "en": "determinant"},
    "rank": {"zh": "秩", "en": "rank"},
    "rotation": {"zh": "旋转", "en": "rotation"},
    "stretch": {"zh": "拉伸", "en": "stretch"},
    "shear": {"zh": "剪切", "en": "shear"},
    "flatten": {"zh": "压扁", "en": "flattening"},
    "query": {"zh": "查询", "en": "query"},
    "key": {"zh": "键", "en": "key"},
    "value": {"zh": "值", "en": "value"},
}

TEXTS: dict[str, dict[str, str]] = {
    "zh": {
        # --- 1. SpaceDeformation ---------------------------------------
        "space_deformation.title": "{g:linear_map} = 空间变形",
        "space_deformation.intro": "平面上每个点都是一个词向量。{g:matrix}一次作用在整个平面上，把空间本身扭成新的样子。",
        "space_deformation.convention": "{g:row_vector}：M 的第 1 行是 i 的落点，第 2 行是 j 的落点",
        "space_deformation.convention_say": "我们一律用{g:row_vector}：y 等于 x 乘 M。M 的第一行告诉你 i 落在哪里，第二行告诉你 j 落在哪里。",
        "space_deformation.det_label": "面积倍数",
        "space_deformation.rotation": "{g:rotation}",
        "space_deformation.rotation_say": "先旋转：网格始终方方正正，所有的点绕着原点一起转，面积一点没变。",
        "space_deformation.stretch": "{g:stretch}",
        "space_deformation.stretch_say": "再拉伸：横向和纵向各乘一个倍数，面积跟着变成两个倍数的乘积。",
        "space_deformation.shear": "{g:shear}",
        "space_deformation.shear_say": "剪切：每一层横着错开，竖线被推斜了。形状歪了，面积却没有变。",
        "space_deformation.flatten": "{g:flatten}（{g:rank} 1）",
        "space_deformation.flatten_say": "最后把整个平面压到一条直线上。{g:determinant}降到 0，不同的词挤进同一个点，信息丢了，再也分不开。",
        "space_deformation.same_point": "同一个点！",
        "space_deformation.info_lost": "信息丢失",
        "space_deformation.svd": "任意矩阵 = 转 → 拉 → 转",
        "space_deformation.svd_say": "任何一个二乘二的矩阵都能拆成三步：先转一下，再沿坐标轴拉伸，最后再转一下。",
        "space_deformation.svd_a": "① 旋转 {angle}°",
        "space_deformation.svd_b": "② 拉伸 ×{sx}, ×{sy}",
        "space_deformation.svd_b_flip": "② 拉伸 ×{sx}, ×{sy}（负数 = 翻转）",
        "space_deformation.svd_c": "③ 再旋转 {angle}°",
        "space_deformation.svd_stage_say": "一步一步来：旋转，拉伸，再旋转。三步拼起来，正好就是 M。",
        "space_deformation.outro": "{g:matrix}就是空间变形说明书",
        "space_deformation.outro_say": "所以{g:matrix}就是一份空间变形的说明书：朝哪边转，拉多长，压多扁。",
        # --- 6. WorkedExample -------------------------------------------
        "worked_example.title": "数字例子：一算就懂",
        "worked_example.intro_say": "把输入{g:row_vector} x 乘上 {n} 行 {m} 列的{g:projection_matrix} W：{n} 维的输入变成 {m} 维的输出。",
        "worked_example.column": "第 {j} 个输出",
        "worked_example.column_say": "第 {j} 个输出：拿 W 的第 {j} 列，和 x 逐项相乘，再全部加起来。",
        "worked_example.result_say": "每一列算完，输出就是 {result}。",
        "worked_example.cocktail": "每个输出 = 一杯按配方调的酒",
        "worked_example.cocktail_say": "换个角度：每个输出维度像一杯鸡尾酒，按 W 那一列的比例混合输入的各种原料；负的比例就是把原料倒掉一些。",
        "worked_example.ingredient": "原料",
        "worked_example.glass": "第 {j} 杯",
        "worked_example.outro": "{g:projection_matrix} = 一份固定的配方",
        "worked_example.outro_say": "{g:projection_matrix}就是一份固定的配方：把输入按比例重新混合，调出一组新的数字。",
    },
    "en": {
        "space_deformation.title": "A {g:linear_map} deforms space",
        "space_deformation.intro": "Each point here is a word vector. A {g:matrix} acts on the whole plane at once: it bends space itself.",
        "space_deformation.convention": "{g:row_vector}s: row 1 of M is where i lands, row 2 is where j lands",
        "space_deformation.convention_say": "We use {g:row_vector}s: y = x M. Row 1 of M is where i lands, row 2 is where j lands.",
        "space_deformation.det_label": "area factor",
        "space_deformation.rotation": "Rotation",
        "space_deformation.rotation_say": "A rotation: the grid stays square, every point turns about the origin, and area is unchanged.",
        "space_deformation.stretch": "Stretch",
        "space_deformation.stretch_say": "A stretch: each axis is scaled by its own factor; area scales by their product.",
        "space_deformation.shear": "Shear",
        "space_deformation.shear_say": "A shear slides each row sideways: upright lines lean over, yet the area stays the same.",
        "space_deformation.flatten": "Flattening ({g:rank} 1)",
        "space_deformation.flatten_say": "Now the whole plane is squashed onto one line. The {g:determinant} hits zero, different words land on one point, and the information is gone for good.",
        "space_deformation.same_point": "same point!",
        "space_deformation.info_lost": "information lost",
        "space_deformation.svd": "Any matrix = rotate → stretch → rotate",
        "space_deformation.svd_say": "Any two-by-two matrix splits into three moves: turn, stretch along the axes, and turn again.",
        "space_deformation.svd_a": "① rotate {angle}°",
        "space_deformation.svd_b": "② stretch ×{sx}, ×{sy}",
        "space_deformation.svd_b_flip": "② stretch ×{sx}, ×{sy} (negative = flip)",
        "space_deformation.svd_c": "③ rotate again {angle}°",
        "space_deformation.svd_stage_say": "One move at a time: rotate, stretch, rotate. Put together, the three moves are exactly M.",
        "space_deformation.outro": "A {g:matrix} is a manual for deforming space",
        "space_deformation.outro_say": "A {g:matrix} is a manual for deforming space: which way to turn, how far to stretch, how flat to squash.",
        "worked_example.title": "A worked example",
        "worked_example.intro_say": "Multiply the input {g:row_vector} x by W, a {n}-by-{m} {g:projection_matrix}: {n} numbers in, {m} numbers out.",
        "worked_example.column": "output {j}",
        "worked_example.column_say": "Output {j}: take column {j} of W, multiply it entry by entry with x, and add everything up.",
        "worked_example.result_say": "Once every column is summed, the output is {result}.",
        "worked_example.cocktail": "Each output is a cocktail mixed by recipe",
        "worked_example.cocktail_say": "Another way to see it: each output is a cocktail that mixes the input ingredients in the proportions of one column of W; a negative amount pours some out.",
        "worked_example.ingredient": "ingredient",
        "worked_example.glass": "glass {j}",
        "worked_example.outro": "A {g:projection_matrix} is a fixed recipe",
        "worked_example.outro_say": "A {g:projection_matrix} is a fixed recipe: it remixes the inputs in set proportions to pour out a new list of numbers.",
    },
}

_GLOSS = re.compile(r"\{g:([a-z_]+)\}")


def tr(lang: str, key: str, **fields) -> str:
    """The text ``key`` in ``lang`` with glossary terms and ``fields`` filled."""
    try:
        template = TEXTS[lang][key]
    except KeyError:
        raise KeyError(f"no text {key!r} for language {lang!r}") from None
    text = _GLOSS.sub(lambda m: GLOSSARY[m.group(1)][lang], template)
    return text.format(**fields) if fields else text


def section_texts(lang: str, section: str) -> dict[str, str]:
    """All texts of one scene section in one language (for cache keys)."""
    prefix = section + "."
    return {k: v for k, v in TEXTS[lang].items() if k.startswith(prefix)}
