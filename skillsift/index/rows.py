"""Row digests and the checks of each row of a loaded index (docs/index-format.md, "Format 3: row digests").

:func:`row_digest` is what a writer stores per item and a reader recomputes; :func:`row_problems`
says which rows a reader must not use and why (a digest that does not match, a NaN or infinite
component, all zeros, not unit length); :class:`RefusedRow` is one such row as the readers report
it.  Used by :mod:`skillsift.index.store`, the one loader.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, replace

import numpy as np

from ..blocks import float64_block_rows
from .manifest import EXAMPLE_KIND, ROWS_VERSION, WIDTHS, Manifest, ManifestItem

UNIT_TOLERANCE = {4: 1e-3, 2: 1e-2}  # allowed |norm - 1| of a stored row, by component width


def vectors_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


ROW_DIGEST_TAG = b"skillsift-row-digest-1"


def _utf8(text: str) -> bytes:
    """``text`` as manifest.json stores it (a lone surrogate reads back as U+FFFD), in UTF-8."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")


def _framed(*parts: bytes) -> bytes:
    return b"".join(len(part).to_bytes(8, "big") + part for part in parts)


def _model_hash(manifest: Manifest):
    """The sha256 state after the tag and the model fingerprint (shared by every row of one manifest)."""
    return hashlib.sha256(_framed(ROW_DIGEST_TAG, _utf8(manifest.provider), _utf8(manifest.model),
                                  str(manifest.dims).encode(), manifest.dtype.encode()))


def _row_digest(model, item: ManifestItem, row_bytes) -> str:
    h = model.copy()
    h.update(_framed(_utf8(item.kind), _utf8(item.domain), _utf8(item.id), _utf8(item.text_digest)))
    h.update(len(row_bytes).to_bytes(8, "big"))
    h.update(row_bytes)  # bytes or a memoryview of vectors.bin: not copied
    return "sha256:" + h.hexdigest()


def row_digest(manifest: Manifest, item: ManifestItem, row_bytes: bytes) -> str:
    """``sha256:<hex>`` of one row: the model fingerprint (provider, model, dims, dtype), the item
    (kind, domain, id, text digest) and the row's bytes as ``vectors.bin`` stores them.

    Each part is length-prefixed (8 bytes, big-endian), so no two different inputs share their
    bytes.  A row moved to another item, a manifest naming another model, or a changed component
    gives another digest.
    """
    return _row_digest(_model_hash(manifest), item, row_bytes)


def sealed(manifest: Manifest, data: bytes) -> Manifest:
    """``manifest`` in the written format, with ``vectors_digest`` and each item's ``row_digest`` of ``data``."""
    stride = manifest.dims * manifest.width
    header = replace(manifest, schema_version=ROWS_VERSION)
    model = _model_hash(header)
    items = tuple(replace(item, row_digest=_row_digest(model, item, data[i * stride:(i + 1) * stride]))
                  for i, item in enumerate(manifest.items))
    return replace(header, items=items, vectors_digest=vectors_digest(data))


@dataclass(frozen=True)
class RefusedRow:
    """A row :func:`load_index` left out of the index, and why (docs/index-format.md, "Row digests")."""

    kind: str  # "skill" or "example" (a known request of the skill ``id``)
    domain: str
    id: str
    row: int  # its row in vectors.bin
    reason: str

    @property
    def label(self) -> str:
        what = "the known request" if self.kind == EXAMPLE_KIND else "the skill"
        of = " of" if self.kind == EXAMPLE_KIND else ""
        domain = f" (domain {self.domain})" if self.domain else ""
        return f"row {self.row},{' ' + what}{of} {self.id}{domain}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "name": self.id, "domain": self.domain, "row": self.row, "reason": self.reason}


def refused_phrase(n: int) -> str:
    """``1 row fails its checks and is`` / ``N rows fail their checks and are``."""
    return "1 row fails its checks and is" if n == 1 else f"{n} rows fail their checks and are"


def signature(*paths: str) -> tuple | None:
    out = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            return None
        out.append((info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_mode))
    return tuple(out)


def row_problems(manifest: Manifest, matrix: np.ndarray, data: bytes) -> dict[int, str]:
    """Row -> why it cannot be used: a digest that does not match, a NaN or infinite component, all
    zeros, or not unit length.  The first failing check of a row is its reason."""
    out: dict[int, str] = {}
    if matrix.size == 0:
        return out
    width = WIDTHS[manifest.dtype]
    stride = manifest.dims * width
    model = _model_hash(manifest)
    view = memoryview(data)
    for row, item in enumerate(manifest.items):
        if item.row_digest != _row_digest(model, item, view[row * stride:(row + 1) * stride]):
            out[row] = ("its row_digest does not match its bytes, its item or the manifest's model "
                        "(changed after 'skillsift index' wrote it)")
    finite_components = np.isfinite(matrix)
    finite = finite_components.all(axis=1)
    with np.errstate(all="ignore"):
        sums = squared_norms(matrix if finite.all() else np.where(finite_components, matrix, 0))
    norms = np.sqrt(sums)
    for row in np.flatnonzero(~finite).tolist():
        out.setdefault(row, "it holds a NaN or infinite component")
    for row in np.flatnonzero(finite & (sums == 0)).tolist():
        out.setdefault(row, "it is all zeros")
    bad = finite & (sums != 0) & (np.abs(norms - 1.0) > UNIT_TOLERANCE[width])
    for row in np.flatnonzero(bad).tolist():
        out.setdefault(row, f"it is not unit length (norm {_g4(float(norms[row]))})")
    return out


def squared_norms(matrix, *, chunk_rows: int | None = None) -> np.ndarray:
    """Per-row sum of squares, accumulated left to right in float64 (as the reference does).

    The running sum is sequential (``cumsum``), not numpy's pairwise summation, so the
    result is bit-identical to a plain loop; rows are processed in chunks (default
    :func:`~skillsift.blocks.float64_block_rows`) to bound memory.
    """
    rows = np.asarray(matrix, dtype=np.float32)
    sums = np.zeros(rows.shape[0], dtype=np.float64)
    if rows.shape[1] == 0:
        return sums
    chunk_rows = chunk_rows or float64_block_rows(rows.shape[1])
    for start in range(0, rows.shape[0], chunk_rows):
        block = rows[start : start + chunk_rows].astype(np.float64)
        np.multiply(block, block, out=block)
        sums[start : start + chunk_rows] = np.cumsum(block, axis=1)[:, -1]
    return sums


def _g4(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)
