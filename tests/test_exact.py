from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import qkv_math as qm


def test_article_example_by_hand():
    w = qm.worked_product([3, 4], [[1, 0, 2], [0, 1, -1]])
    assert w.exact
    assert w.result == (3, 4, 2)
    assert [(t.x, t.w, t.product) for t in w.columns[2].terms] == [(3, 2, 6), (4, -1, -4)]
    assert [c.total for c in w.columns] == [3 * 1 + 4 * 0, 3 * 0 + 4 * 1, 3 * 2 + 4 * (-1)]


def test_fractions_and_decimal_strings_stay_exact():
    w = qm.worked_product(["1/3", "0.5"], [["3", 1], ["-0.25", "2/7"]])
    assert w.exact
    assert w.result == (Fraction(1, 3) * 3 + Fraction(1, 2) * Fraction(-1, 4),
                        Fraction(1, 3) + Fraction(1, 2) * Fraction(2, 7))
    assert all(isinstance(v, Fraction) for v in w.result)
    assert w.result[0] == Fraction(7, 8)


rationals = st.fractions(max_denominator=50).filter(lambda q: abs(q) < 100)


@given(st.lists(rationals, min_size=1, max_size=4), st.data())
def test_exact_sum_matches_fraction_arithmetic(x, data):
    m = data.draw(st.integers(1, 4))
    W = [[data.draw(rationals) for _ in range(m)] for _ in x]
    w = qm.worked_product([str(v) for v in x], [[str(v) for v in r] for r in W])
    for j in range(m):
        assert w.result[j] == sum((x[i] * W[i][j] for i in range(len(x))), Fraction(0))


def test_floats_fall_back_to_float_arithmetic():
    w = qm.worked_product([0.1, 2], [[1.5], [1]])
    assert not w.exact
    assert isinstance(w.result[0], float)
    assert w.result[0] == pytest.approx(2.15)


@pytest.mark.parametrize("x, W", [([1, 2], [[1, 2]]), ([1], [[1, 2], [3]]), ([], [[1]]),
                                  ([1], [[]]), (["abc"], [[1]]), ([float("nan")], [[1]])])
def test_bad_inputs_refused(x, W):
    with pytest.raises(ValueError):
        qm.worked_product(x, W)
