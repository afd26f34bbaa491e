"""Exact mathematics of the qkv-lens lesson (numpy only, no manim).

Convention, everywhere in this package: vectors are **row vectors** and a
matrix acts on the right, ``y = x @ W``.  So for ``W`` of shape (n, m), row i
of ``W`` is where the i-th basis vector of the n-dimensional input lands, and
a stack of k inputs of shape (k, n) maps to an output of shape (k, m).
"""
from .attention import AttentionSteps, attention, attention_steps, causal_mask, project, softmax
from .exact import Term, WorkedColumn, WorkedProduct, to_exact, worked_product
from .filters import (
    Filtered,
    apply_color,
    apply_spatial,
    blur_matrix,
    darken,
    downsample_matrix,
    generated_picture,
    grayscale,
    patch_indices,
    sharpest_blur,
    warm_tint,
)
from .linear import (
    apply,
    collisions,
    determinant,
    flatten_onto,
    linear_path,
    rank,
    rotation,
    rotation_angle,
    rotation_path,
    shear,
    shear_path,
    stretch,
    stretch_path,
    svd_path,
    svd_stages,
)
from .projection import CUBE_EDGES, convex_hull_2d, cube_vertices, lamp_matrix, lamp_shadows, shadow_matrix, wall_basis
from .similarity import dot_and_angle, dot_product_samples, histogram, saturation
from .training import LEARNED_ACCURACY, Run, Snapshot, qk_shadow, readouts, train_matching

__all__ = [
    "apply", "collisions", "determinant", "rank",
    "rotation", "stretch", "shear", "flatten_onto", "rotation_angle",
    "rotation_path", "stretch_path", "shear_path", "linear_path",
    "svd_stages", "svd_path",
    "softmax", "causal_mask", "project", "attention", "attention_steps", "AttentionSteps",
    "dot_and_angle", "dot_product_samples", "histogram", "saturation",
    "shadow_matrix", "wall_basis", "lamp_matrix", "lamp_shadows", "cube_vertices", "CUBE_EDGES",
    "convex_hull_2d",
    "Filtered", "apply_color", "apply_spatial", "blur_matrix", "darken", "downsample_matrix",
    "generated_picture", "grayscale", "patch_indices", "sharpest_blur", "warm_tint",
    "train_matching", "readouts", "qk_shadow", "Run", "Snapshot", "LEARNED_ACCURACY",
    "Term", "WorkedColumn", "WorkedProduct", "to_exact", "worked_product",
]
