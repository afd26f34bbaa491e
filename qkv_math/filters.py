"""Photo filters as linear maps (row vectors: a pixel [r, g, b] @ M).

Colour filters act on each pixel with a (3, 3) matrix; blur and
down-sampling act on the whole flattened image (per channel) with a
(h*w, h'*w') matrix.  Results are returned unclipped together with how many
values fall outside [0, 1], so clipping is reported, never hidden.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

LUMA = np.array([0.299, 0.587, 0.114])  # Rec. 601 grey weights


@dataclass(frozen=True)
class Filtered:
    """``raw``: the linear result (any values); ``image``: clipped to [0, 1];
    ``clipped``: how many values were outside [0, 1]."""
    raw: Array
    image: Array
    clipped: int


def _report(raw: Array, tol: float = 1e-9) -> Filtered:
    # rounding (an average of ones is 0.9999999999999999 or 1.0000000000000002) is not clipping
    clipped = int(np.count_nonzero((raw < -tol) | (raw > 1 + tol)))
    return Filtered(raw, np.clip(raw, 0.0, 1.0), clipped)


def warm_tint(strength: float = 0.15) -> Array:
    """(3, 3) warm tint: more red, less blue (a diagonal map)."""
    return np.diag([1 + strength, 1.0, 1 - strength])


def darken(factor: float = 0.6) -> Array:
    """(3, 3) darkening: every channel times ``factor`` (a scalar matrix)."""
    return float(factor) * np.eye(3)


def grayscale(weights: ArrayLike = LUMA) -> Array:
    """(3, 3) grey-scale of rank 1: every output channel is the weighted sum
    w . [r, g, b], so every colour lands on the grey axis."""
    w = np.asarray(weights, dtype=float)
    return np.outer(w, np.ones(3))


def apply_color(image: ArrayLike, M: ArrayLike) -> Filtered:
    """Apply the (3, 3) colour matrix M to every pixel of an (h, w, 3) image."""
    image = np.asarray(image, dtype=float)
    M = np.asarray(M, dtype=float)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"image must have shape (h, w, 3), got {image.shape}")
    if M.shape != (3, 3):
        raise ValueError(f"a colour filter is a (3, 3) matrix, got {M.shape}")
    return _report(image @ M)


def blur_matrix(h: int, w: int) -> Array:
    """(h*w, h*w) 3x3 box blur of a flattened (row-major) channel: output
    pixel j is the mean of the pixels in its 3x3 neighbourhood (fewer at the
    edges).  Row convention: blurred = flat @ B."""
    B = np.zeros((h * w, h * w))
    for r in range(h):
        for c in range(w):
            nb = [(rr, cc) for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
                  if 0 <= rr < h and 0 <= cc < w]
            for rr, cc in nb:
                B[rr * w + cc, r * w + c] = 1.0 / len(nb)
    return B


def downsample_matrix(h: int, w: int, factor: int) -> Array:
    """(h*w, (h/f)*(w/f)) averaging of f x f blocks: fewer numbers out than
    in (h and w must be multiples of f)."""
    if factor < 1 or h % factor or w % factor:
        raise ValueError(f"h={h} and w={w} must be multiples of the factor {factor}")
    H, W = h // factor, w // factor
    D = np.zeros((h * w, H * W))
    for r in range(h):
        for c in range(w):
            D[r * w + c, (r // factor) * W + c // factor] = 1.0 / factor ** 2
    return D


def patch_indices(w: int, r0: int, c0: int, rows: int, cols: int) -> NDArray[np.int64]:
    """Indices, in a flattened (row-major) picture ``w`` pixels wide, of the
    ``rows`` x ``cols`` pixels whose top left is (r0, c0), read row by row:
    the slice of the long vector (and of a spatial matrix's rows or columns)
    that a patch of the picture is."""
    r, c = np.mgrid[r0:r0 + rows, c0:c0 + cols]
    return (r * w + c).reshape(-1).astype(np.int64)


def sharpest_blur(image: ArrayLike, near: tuple[int, int], reach: int = 3) -> tuple[int, int]:
    """The pixel within ``reach`` of ``near`` (not on the picture's border)
    whose red value the 3x3 blur changes most (ties: the nearest; then the
    first): where the blur's averaging is seen.  Pictures need h, w >= 3."""
    image = np.asarray(image, dtype=float)
    h, w, _ = image.shape
    blurred = apply_spatial(image, blur_matrix(h, w), (h, w)).raw
    best, key = (1, 1), None
    for r in range(max(1, near[0] - reach), min(h - 1, near[0] + reach + 1)):
        for c in range(max(1, near[1] - reach), min(w - 1, near[1] + reach + 1)):
            k = (-round(abs(blurred[r, c, 0] - image[r, c, 0]), 9), abs(r - near[0]) + abs(c - near[1]))
            if key is None or k < key:
                best, key = (r, c), k
    if key is None:   # ``near`` too far from the inside: the nearest inside pixel
        best = (min(max(near[0], 1), h - 2), min(max(near[1], 1), w - 2))
    return best


def apply_spatial(image: ArrayLike, A: Array, out_shape: tuple[int, int]) -> Filtered:
    """Apply a linear map A (h*w, h'*w') to each channel of an (h, w, 3)
    image; returns an (h', w', 3) result."""
    image = np.asarray(image, dtype=float)
    h, w, _ = image.shape
    if A.shape[0] != h * w or A.shape[1] != out_shape[0] * out_shape[1]:
        raise ValueError(f"the map has shape {A.shape}, which does not fit a {h}x{w} image "
                         f"going to {out_shape[0]}x{out_shape[1]}")
    flat = image.reshape(h * w, 3)          # one row per pixel
    out = A.T @ flat                        # per channel: channel_row @ A
    return _report(out.reshape(out_shape[0], out_shape[1], 3))


def generated_picture(h: int = 24, w: int = 32) -> Array:
    """A small (h, w, 3) picture in [0, 1] the lesson draws itself: sky,
    sun, grass and a red apple.  Deterministic."""
    y, x = np.mgrid[0:h, 0:w] / np.array([h, w])[:, None, None]
    img = np.zeros((h, w, 3))
    img[...] = np.stack([0.45 + 0.3 * y, 0.7 + 0.2 * y, 0.95 - 0.1 * y], axis=-1)   # sky
    grass = y > 0.68
    img[grass] = [0.25, 0.62, 0.25]
    sun = (x - 0.8) ** 2 + ((y - 0.2) * h / w) ** 2 < 0.012
    img[sun] = [1.0, 0.85, 0.3]
    apple = (x - 0.35) ** 2 + ((y - 0.62) * h / w) ** 2 < 0.018
    img[apple] = [0.85, 0.12, 0.1]
    stem = (np.abs(x - 0.35) < 0.012) & (y > 0.42) & (y < 0.5)
    img[stem] = [0.35, 0.2, 0.05]
    return img
