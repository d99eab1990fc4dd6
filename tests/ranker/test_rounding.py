"""Rounding half away from zero, bit-exact with ``round(x * 10**n) / 10**n``."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.ranker.lexical import _round6, _round_positive
from skillsift.ranker.rounding import round_half_away, round_half_away_array, round_half_away_list


def _reference(x: float, ndigits: int) -> float:
    """The reference's formula with an exact half-away-from-zero step (Decimal is exact on a double)."""
    scale = 10.0**ndigits
    scaled = x * scale  # the same float64 multiplication
    if not math.isfinite(scaled):
        return scaled / scale
    whole = Decimal(scaled).quantize(Decimal(1), rounding=ROUND_HALF_UP)  # HALF_UP = away from zero
    return float(whole) / scale


@pytest.mark.parametrize(
    ("x", "ndigits", "expected"),
    [
        (2.5, 0, 3.0),
        (-2.5, 0, -3.0),
        (0.5, 0, 1.0),
        (1.5, 0, 2.0),  # Python's round(1.5) is 2 as well, but
        (2.5, 0, 3.0),  # round(2.5) is 2 (halves to even)
        (0.49999999999999994, 0, 0.0),  # adding 0.5 then flooring would give 1
        (0.1871140533592036, 6, 0.187114),
        (0.0000005, 6, 0.000001),
        (-0.0000005, 6, -0.000001),
        (0.12345, 4, 0.1235),  # 0.12345 * 1e4 is 1234.5 exactly in float64
        (1 / 62 + 1 / 61, 9, 0.032522475),
    ],
)
def test_known_values(x, ndigits, expected):
    assert round_half_away(x, ndigits) == expected
    assert round_half_away_array(np.array([x]), ndigits)[0] == expected


def test_differs_from_builtin_round_on_halves():
    assert round(2.5) == 2 and round_half_away(2.5) == 3
    assert float(np.round(0.5)) == 0.0 and round_half_away(0.5) == 1.0


def test_special_values_pass_through():
    assert math.isnan(round_half_away(float("nan"), 6))
    assert round_half_away(float("inf"), 6) == float("inf")
    assert round_half_away(-0.0000004, 6) == 0.0
    out = round_half_away_array(np.array([np.nan, np.inf, -np.inf]), 9)
    assert math.isnan(out[0]) and out[1] == np.inf and out[2] == -np.inf


def test_rejects_unsupported_digits():
    with pytest.raises(ValueError, match="ndigits"):
        round_half_away(1.0, -1)
    with pytest.raises(ValueError, match="ndigits"):
        round_half_away(1.0, 16)


_floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9),
    st.integers(-(10**12), 10**12).map(lambda i: (i + 0.5) / 1e6),  # halves at the 6th decimal
    st.integers(-(10**12), 10**12).map(lambda i: (i + 0.5) / 1e9),
)


@settings(max_examples=500, deadline=None)
@given(_floats, st.sampled_from([0, 4, 6, 9]))
def test_matches_reference_formula(x, ndigits):
    expected = _reference(x, ndigits)
    assert round_half_away(x, ndigits) == expected
    assert round_half_away_array(np.array([x]), ndigits)[0] == expected


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.floats(min_value=1e-12, max_value=1e4),
        st.integers(0, 10**10).map(lambda i: (i + 0.5) / 1e6),
        st.just(0.49999999999999994 / 1e6),
    )
)
def test_positive_fast_paths_match(x):
    expected = round_half_away(x, 6)
    assert _round6(x) == expected
    assert _round_positive(np, np.array([x]))[0] == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_floats, st.floats(min_value=-1e-7, max_value=0.0), st.just(-0.0),
                          st.sampled_from([math.inf, -math.inf])), max_size=40),
       st.sampled_from([0, 6, 9]))
def test_list_rounding_is_the_scalar_one_signed_zeros_included(values, ndigits):
    got = round_half_away_list(values, ndigits)
    want = [round_half_away(v, ndigits) for v in values]
    assert [repr(v) for v in got] == [repr(v) for v in want]  # repr tells -0.0 from 0.0
    assert all(isinstance(v, float) for v in got)


def test_list_rounding_keeps_the_sign_of_a_rounded_away_negative():
    assert repr(round_half_away_list([-1e-9, 1e-9], 6)) == repr([round_half_away(-1e-9, 6), 0.0]) == "[-0.0, 0.0]"
