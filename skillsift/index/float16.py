"""IEEE-754 binary16 conversion: float32 -> half with round-to-nearest-even, and back.

Two forms with one result:

* scalar functions in pure Python (:func:`half_bits_from_float32_bits` is the rule
  itself, bit by bit), used to pin encodings and to cross-check;
* array functions over numpy (:func:`to_half_bits`, :func:`from_half_bits`), used for
  whole vector matrices.  numpy's float32 -> float16 cast rounds to nearest, ties to
  even, including subnormals and the carry into the exponent (65520 -> Inf); NaNs are
  then rewritten to ``sign | 0x7e00`` so every NaN payload encodes the same way.

Half -> float32 is exact.
"""

from __future__ import annotations

import math
import struct

HALF_INF = 0x7C00
HALF_NAN = 0x7E00
HALF_SIGN = 0x8000
HALF_EXPONENT_MASK = 0x7C00


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


def to_half_bits(values):
    """Encode an array of float32 values as a uint16 array of binary16 bits (same shape)."""
    import numpy as np

    source = np.asarray(values, dtype=np.float32)
    with np.errstate(all="ignore"):
        bits = source.astype(np.float16).view(np.uint16).copy()
    nan = np.isnan(source)
    if nan.any():
        signs = (source.view(np.uint32)[nan] >> 16).astype(np.uint16) & np.uint16(HALF_SIGN)
        bits[nan] = signs | np.uint16(HALF_NAN)
    return bits


def from_half_bits(bits):
    """Decode a uint16 array of binary16 bits to float32 (exact, same shape)."""
    import numpy as np

    return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(np.float32)


def quantize(values):
    """Round float32 values to the nearest binary16 and back to float32."""
    return from_half_bits(to_half_bits(values))


def fits_half(bits) -> bool:
    """True when no encoded component is Inf or NaN (all exponents below the maximum)."""
    import numpy as np

    return not bool(np.any((np.asarray(bits, dtype=np.uint16) & HALF_EXPONENT_MASK) == HALF_EXPONENT_MASK))
