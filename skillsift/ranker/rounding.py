"""Decimal rounding that halves away from zero, the way the reference rounds.

Python's built-in ``round`` rounds halves to even and numpy's ``np.round`` does too;
the reference computes ``round(x * 10**n) / 10**n`` with a half-away-from-zero
``round``.  Both helpers below reproduce that arithmetic bit for bit: the scaled
value is split into integral and fractional parts exactly, so ``0.49999999999999994``
rounds to 0 (adding 0.5 and flooring would give 1).

Precisions used across skillsift: lexical scores and cosines 6 digits
(:data:`SCORE_DIGITS`), fused scores 9 (:data:`FUSED_DIGITS`); metrics are rounded to 4
where they are reported.
"""

from __future__ import annotations

import math

SCORE_DIGITS = 6
FUSED_DIGITS = 9

_SCALES = {n: 10.0**n for n in range(0, 16)}


def _scale(ndigits: int) -> float:
    try:
        return _SCALES[ndigits]
    except (KeyError, TypeError):
        raise ValueError(f"ndigits must be an integer from 0 to 15, got {ndigits!r}") from None


def round_half_away(x: float, ndigits: int = 0) -> float:
    """Round ``x`` to ``ndigits`` decimals, halves away from zero (``2.5 -> 3``, ``-2.5 -> -3``).

    Computed as ``round(x * 10**ndigits) / 10**ndigits`` in float64, so the result is
    the same double the reference produces.  NaN and infinities pass through.
    """
    scale = _scale(ndigits)
    frac, whole = math.modf(x * scale)
    if frac >= 0.5:
        whole += 1.0
    elif frac <= -0.5:
        whole -= 1.0
    return whole / scale


def round_half_away_array(values, ndigits: int = 0):
    """:func:`round_half_away` applied element-wise to a float64 numpy array (a new array)."""
    import numpy as np

    scale = _scale(ndigits)
    scaled = np.asarray(values, dtype=np.float64) * scale
    whole = np.trunc(scaled)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, which compares false below
        frac = scaled - whole  # exact: the low bits of ``scaled``
    whole += frac >= 0.5
    whole -= frac <= -0.5
    return whole / scale


def round_half_away_list(values, ndigits: int = 0) -> list[float]:
    """``[round_half_away(v, ndigits) for v in values]`` computed on a numpy array: the same doubles,
    signed zeros included (``-1e-9`` rounds to ``-0.0`` as it does one value at a time)."""
    import numpy as np

    scale = _scale(ndigits)
    scaled = np.asarray(values, dtype=np.float64) * scale
    whole = np.trunc(scaled)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, which compares false below
        frac = scaled - whole
    whole = np.where(frac >= 0.5, whole + 1.0, np.where(frac <= -0.5, whole - 1.0, whole))
    return (whole / scale).tolist()
