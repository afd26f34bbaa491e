"""AttentionMatching: every grid cell, weight and output equals the math."""
import math

import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from tests.helpers import ROOT, assert_clean_layout, assert_readable_beats, dry_run
from tests.test_attention import reference_attention


def reference(lesson_path=ROOT / "lesson.toml"):
    a = load_lesson(lesson_path).attention
    X = np.array(a.embeddings, dtype=float)
    Q, K, V = (X @ np.array(getattr(a, n), dtype=float) for n in ("W_Q", "W_K", "W_V"))
    n, d = len(X), Q.shape[1]
    mask = [[-math.inf if j > i else 0.0 for j in range(n)] for i in range(n)] if a.causal_mask else None
    out, w = reference_attention(Q.tolist(), K.tolist(), V.tolist(), mask, None, float(a.temperature))
    scores = np.array([[float(np.dot(Q[i], K[j])) for j in range(n)] for i in range(n)])
    return a, scores, scores / math.sqrt(d), w, out


def as_text(M):
    return [[r"-\infty" if v == -math.inf else f"{v:.2f}".replace("-0.00", "0.00") for v in row] for row in M]


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("AttentionMatching", tmp_path_factory.mktemp("am"), lang=request.param)


def test_every_cell_at_every_step(scene):
    a, scores, scaled, w, out = reference()
    assert scene.moments["scores"].probes["shown"] == as_text(scores)
    assert scene.moments["scaled"].probes["shown"] == as_text(scaled)
    assert scene.moments["weights"].probes["shown"] == as_text(w)
    assert scene.moments["weights"].probes["sums"] == ["1.00"] * len(w)


def test_lines_and_output_of_the_query_row(scene):
    a, _, _, w, out = reference()
    probes = scene.moments["output"].probes
    assert np.allclose(probes["line_weights"], np.maximum(w[a.query], 0.5 / 14), atol=1e-6)
    assert np.allclose(probes["output"], out[a.query], atol=1e-6)


def test_eat_finds_apple(scene):
    # the article's story: the query of 吃 matches the key of 苹果
    best = scene.moments["output"].probes["best"]
    assert best in ("苹果", "apples")


def test_layout(scene):
    assert_clean_layout(scene)


def test_beats_are_readable(scene):
    assert_readable_beats(scene)


def test_six_tokens_causal_mask_and_temperature(tmp_path):
    lesson = tmp_path / "l.toml"
    toks = ", ".join(f'{{zh="词{i}", en="word{i}"}}' for i in range(6))
    lesson.write_text(f"""[attention]
tokens = [{toks}]
traits = [{{zh="甲", en="a"}}, {{zh="乙", en="b"}}]
embeddings = [[1, 0], [0, 1], [1, 1], [0.5, -1], [-1, 0.5], [2, 0]]
qk_dims = [{{zh="丙", en="c"}}, {{zh="丁", en="d"}}]
v_dims = [{{zh="戊", en="e"}}]
W_Q = [[1, 0], [0, 1]]
W_K = [[1, 0.5], [0, 1]]
W_V = [[1], [-1]]
focus = 0
query = 5
causal_mask = true
temperature = 0.5
""", encoding="utf-8")
    s = dry_run("AttentionMatching", tmp_path, lesson=lesson, lang="en")
    a, scores, scaled, w, out = reference(lesson)
    masked = np.where(np.triu(np.ones((6, 6)), 1) > 0, -math.inf, scaled)
    assert s.moments["masked"].probes["shown"] == as_text(masked)
    assert s.moments["weights"].probes["shown"] == as_text(w)
    assert np.allclose(s.moments["output"].probes["output"], out[5], atol=1e-6)
    assert_clean_layout(s)
