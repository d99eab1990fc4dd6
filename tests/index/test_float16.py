"""float32 <-> binary16 conversion (docs/index-format.md, float16 vectors)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from skillsift.index.float16 import fits_half, from_half_bits, to_half_bits
from tests.support.float16_reference import (
    float32_bits,
    float32_from_bits,
    half_bits,
    half_bits_from_float32_bits,
    half_to_float,
    quantize,
)

TWO_M25 = 2.9802322387695312e-08  # 2^-25, exactly halfway between 0 and the smallest subnormal half

PINNED = [
    (0.0, 0x0000),
    (-0.0, 0x8000),
    (1.0, 0x3C00),
    (-2.0, 0xC000),
    (1 / 3, 0x3555),
    (65504.0, 0x7BFF),
    (65519.99, 0x7BFF),
    (65520.0, 0x7C00),
    (6.103515625e-05, 0x0400),
    (6.097555160522461e-05, 0x03FF),
    (5.960464477539063e-08, 0x0001),
    (TWO_M25, 0x0000),
    (float32_from_bits(float32_bits(TWO_M25) + 1), 0x0001),
    (float32_from_bits(float32_bits(TWO_M25) - 1), 0x0000),
    (4.470348358154297e-08, 0x0001),
    (-5.960464477539063e-08, 0x8001),
    (1e-30, 0x0000),
    (math.inf, 0x7C00),
    (-math.inf, 0xFC00),
    (math.nan, 0x7E00),
]


@pytest.mark.parametrize(("value", "expected"), PINNED)
def test_pinned_encodings(value, expected):
    assert half_bits(value) == expected
    assert int(to_half_bits(np.float32(value))) == expected


def test_pinned_encodings_as_one_array():
    values = np.array([v for v, _ in PINNED], dtype=np.float32)
    assert to_half_bits(values).tolist() == [e for _, e in PINNED]


def test_neighbours_of_two_to_the_minus_25_are_what_they_claim():
    assert float32_bits(TWO_M25) == 0x33000000
    above = float32_from_bits(0x33000001)
    below = float32_from_bits(0x32FFFFFF)
    assert below < TWO_M25 < above


@pytest.mark.parametrize(
    ("value", "tolerance"),
    [(0.0, 0), (1.0, 0), (-2.5, 0), (0.333333, 3e-4), (65504.0, 0), (1e-7, 1e-7), (6.1e-5, 1e-7)],
)
def test_round_trip_within_tolerance(value, tolerance):
    got = half_to_float(half_bits(value))
    assert abs(got - np.float32(value)) <= tolerance + 1e-9
    assert float(quantize(np.float32(value))) == got


def test_round_trip_specials():
    assert half_to_float(half_bits(1e9)) == math.inf
    assert float(quantize(np.float32(1e9))) == math.inf
    assert math.isnan(half_to_float(half_bits(math.nan)))
    assert math.isnan(float(quantize(np.float32(math.nan))))
    # 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa, 1
    assert half_to_float(half_bits(1 + 2**-11)) == 1.0
    assert float(quantize(np.float32(1 + 2**-11))) == 1.0
    assert half_to_float(half_bits(1 + 3 * 2**-11)) == 1 + 2**-9  # the other tie rounds up to even


def test_nan_payloads_and_signs_encode_to_one_quiet_nan():
    cases = [(0x7F800001, 0x7E00), (0x7FC00000, 0x7E00), (0xFFC00001, 0xFE00), (0x7FFFFFFF, 0x7E00)]
    for bits, expected in cases:
        assert half_bits_from_float32_bits(bits) == expected
        array = np.array([bits], dtype=np.uint32).view(np.float32)
        assert to_half_bits(array).tolist() == [expected]


def test_every_finite_half_decodes_and_re_encodes_to_itself():
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    decoded = from_half_bits(every)
    assert decoded.dtype == np.float32
    finite = (every & 0x7C00) != 0x7C00
    assert np.array_equal(to_half_bits(decoded[finite]), every[finite])
    for bits in range(1 << 16):
        value = half_to_float(bits)
        if (bits & 0x7C00) == 0x7C00:
            assert math.isinf(value) if bits & 0x3FF == 0 else math.isnan(value)
            continue
        assert half_bits(value) == bits
        assert value == float(decoded[bits])
        assert math.copysign(1.0, value) == math.copysign(1.0, float(decoded[bits]))


def test_numpy_path_matches_the_rule_bit_for_bit():
    rng = np.random.default_rng(20260610)
    random_bits = rng.integers(0, 1 << 32, size=60_000, dtype=np.uint64).astype(np.uint32)
    # every exponent where rounding is delicate: subnormal halves, the normal boundary, overflow
    exponents = np.concatenate([np.arange(98, 116), np.arange(140, 145)]).astype(np.uint32)
    mantissas = rng.integers(0, 1 << 23, size=400, dtype=np.uint64).astype(np.uint32)
    ties = np.array([0, 1, 0x1000, 0x1FFF, 0x2000, 0x3000, 0x7FFFFF, 0x7FE000, 0x7FF000], dtype=np.uint32)
    banded = ((exponents[:, None] << 23) | np.concatenate([mantissas, ties])[None, :]).reshape(-1)
    for sign in (0, 0x80000000):
        candidates = np.concatenate([random_bits, banded | np.uint32(sign)])
        got = to_half_bits(candidates.view(np.float32))
        want = [half_bits_from_float32_bits(int(b)) for b in candidates]
        assert got.tolist() == want


def test_struct_half_format_agrees_on_finite_values():
    rng = np.random.default_rng(7)
    values = rng.normal(scale=100.0, size=2000).astype(np.float32)
    values = np.concatenate([values, rng.uniform(-1e-4, 1e-4, size=2000).astype(np.float32)])
    for value in values:
        want = struct.unpack("<H", struct.pack("<e", float(value)))[0]
        assert half_bits(float(value)) == want


def test_values_beyond_float32_range_become_infinite():
    assert float32_bits(1e39) == 0x7F800000
    assert float32_bits(-1e39) == 0xFF800000
    assert half_bits(-1e39) == 0xFC00


def test_fits_half():
    assert fits_half(to_half_bits(np.array([0.5, -65504.0], dtype=np.float32)))
    assert not fits_half(to_half_bits(np.array([0.5, 65520.0], dtype=np.float32)))
    assert not fits_half(to_half_bits(np.array([math.nan], dtype=np.float32)))


def test_array_shape_is_kept():
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    bits = to_half_bits(matrix)
    assert bits.shape == (3, 4) and bits.dtype == np.uint16
    assert quantize(matrix).shape == (3, 4)
    assert np.array_equal(quantize(quantize(matrix)), quantize(matrix))
