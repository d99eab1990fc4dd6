"""How many rows of a matrix are widened to float64 at a time (no numpy at import).

The index checks (:mod:`skillsift.index.rows`), the centring and the screens of :mod:`skillsift.ranker` work
on float64 copies of a matrix's rows one block at a time, so no float64 copy of a whole index is made.  A
block is kept below the 2 MiB of a huge page: the kernel backs a larger fresh allocation with huge pages,
which it zeroes (and may compact memory for) each time one is made.  The blocks of 8,192 rows they used
before cost a one-shot search with 20,000 known requests 0.5 to 0.8 s of system time in the centred screen
alone (bench/results/2026-12-07-float64-blocks.md); a block this size is reused from the heap and stays in
the processor's cache.  Every row's arithmetic in those blocks is its own, so no result depends on the size.
"""

from __future__ import annotations

FLOAT64_BLOCK_BYTES = 1 << 20


def float64_block_rows(dims: int) -> int:
    """Rows of ``dims`` float64 components in one block of :data:`FLOAT64_BLOCK_BYTES` (at least one)."""
    return max(1, FLOAT64_BLOCK_BYTES // (8 * max(1, int(dims))))
