"""IEEE-754 binary16 conversion of whole vector matrices: float32 -> half with
round-to-nearest-even, and back (docs/index-format.md).

numpy's float32 -> float16 cast rounds to nearest, ties to even, including subnormals and
the carry into the exponent (65520 -> Inf); NaNs are then rewritten to ``sign | 0x7e00`` so
every NaN payload encodes the same way.  Half -> float32 is exact.  The tests check these
array functions bit for bit against a scalar statement of the rule.
"""

from __future__ import annotations

HALF_NAN = 0x7E00
HALF_SIGN = 0x8000
HALF_EXPONENT_MASK = 0x7C00


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


def fits_half(bits) -> bool:
    """True when no encoded component is Inf or NaN (all exponents below the maximum)."""
    import numpy as np

    return not bool(np.any((np.asarray(bits, dtype=np.uint16) & HALF_EXPONENT_MASK) == HALF_EXPONENT_MASK))
