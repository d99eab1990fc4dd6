"""How many rows of a matrix are widened to float64 at a time, and the pages of a one-shot command's arrays
(no numpy at import).

The index checks (:mod:`skillsift.index.rows`), the centring and the screens of :mod:`skillsift.ranker` work
on float64 copies of a matrix's rows one block at a time, so no float64 copy of a whole index is made.  A
block is kept below the 2 MiB of a huge page: the kernel backs a larger fresh allocation with huge pages,
which it zeroes (and may compact memory for) each time one is made.  The blocks of 8,192 rows they used
before cost a one-shot search with 20,000 known requests 0.5 to 0.8 s of system time in the centred screen
alone (bench/results/2026-12-07-float64-blocks.md); a block this size is reused from the heap and stays in
the processor's cache.  Every row's arithmetic in those blocks is its own, so no result depends on the size.

The arrays a search keeps (the centred matrix, the known requests' int8 rows) are large too, and numpy asks
the kernel for huge pages for any array of 4 MiB or more.  A server that reads them for every query may gain
from that; a one-shot command reads them once or twice, and their zeroing and compaction were about 0.35 s of
system time in a one-shot search with 20,000 known requests: :func:`small_pages` turns numpy's request off in
such a command (``skillsift._one_shot``), never in a program that imports skillsift.
"""

from __future__ import annotations

import skillsift

FLOAT64_BLOCK_BYTES = 1 << 20


def float64_block_rows(dims: int) -> int:
    """Rows of ``dims`` float64 components in one block of :data:`FLOAT64_BLOCK_BYTES` (at least one)."""
    return max(1, FLOAT64_BLOCK_BYTES // (8 * max(1, int(dims))))


def small_pages() -> bool:
    """In a one-shot ``skillsift`` command, have numpy make its large arrays without asking for huge pages
    (numpy's own switch, ``_set_madvise_hugepage``, where this numpy has it); True when it is off now.

    Called before the vector side of a search makes its arrays (:func:`skillsift.ranker.setup.attach`).  A
    process that is not the command line keeps numpy's setting: a host application's choice is its own.
    """
    if not skillsift._one_shot:
        return False
    try:
        from numpy._core import multiarray
    except ImportError:  # numpy 1.x
        from numpy.core import multiarray  # type: ignore[no-redef]
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is None:
        return False
    switch(False)
    return True
