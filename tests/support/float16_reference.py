"""A scalar statement of the binary16 rule, bit by bit, that the tests check the package's
numpy conversion (``skillsift.index.float16``) against."""

from __future__ import annotations

import math
import struct

from skillsift.index.float16 import HALF_NAN, HALF_SIGN, from_half_bits, to_half_bits

HALF_INF = 0x7C00  # binary16 infinity: the exponent all ones, the fraction 0


def float32_bits(value: float) -> int:
    """The bits of ``value`` rounded to float32 (values beyond float32 range become ±Inf)."""
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        return 0xFF800000 if value < 0 else 0x7F800000


def float32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def half_bits_from_float32_bits(bits: int) -> int:
    """Encode the float32 with these bits as binary16 bits (round to nearest, ties to even)."""
    sign = (bits >> 16) & HALF_SIGN
    exponent = (bits >> 23) & 0xFF
    mantissa = bits & 0x7FFFFF
    if exponent == 0xFF:
        return sign | (HALF_INF if mantissa == 0 else HALF_NAN)
    if exponent > 142:  # 2^16 and above: beyond the largest half
        return sign | HALF_INF
    if exponent < 102:  # below 2^-25: rounds to zero
        return sign
    if exponent < 113:  # a subnormal half
        shift = 126 - exponent
        full = mantissa | (1 << 23)
        half = full >> shift
        rest = full & ((1 << shift) - 1)
        halfway = 1 << (shift - 1)
        if rest > halfway or (rest == halfway and half & 1):
            half += 1  # may carry into the smallest normal, which is right
        return sign | half
    half = sign | ((exponent - 112) << 10) | (mantissa >> 13)
    rest = mantissa & 0x1FFF
    if rest > 0x1000 or (rest == 0x1000 and half & 1):
        half += 1  # a carry into the exponent is right (65520 -> Inf)
    return half


def half_bits(value: float) -> int:
    """Encode ``value`` (first rounded to float32) as binary16 bits."""
    return half_bits_from_float32_bits(float32_bits(value))


def half_to_float(bits: int) -> float:
    """Decode binary16 bits; the result is exactly representable as a float32."""
    sign = -1.0 if bits & HALF_SIGN else 1.0
    exponent = (bits >> 10) & 0x1F
    mantissa = bits & 0x3FF
    if exponent == 0x1F:
        return sign * math.inf if mantissa == 0 else math.copysign(math.nan, sign)
    if exponent == 0:
        return sign * math.ldexp(mantissa, -24)
    return sign * math.ldexp(1024 + mantissa, exponent - 25)


def quantize(values):
    """Round float32 values to the nearest binary16 and back to float32."""
    return from_half_bits(to_half_bits(values))
