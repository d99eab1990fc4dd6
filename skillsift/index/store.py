"""The vector index: construction, ``vectors.bin`` bytes, writing and validated loading.

An :class:`Index` is a :class:`~skillsift.index.manifest.Manifest` plus a read-only
float32 matrix, one L2-normalised row per manifest item, rows sorted by (domain, id).
Loading checks every structural rule and returns a :class:`LoadResult` whose ``index``
is None with a human ``reason`` for anything damaged or foreign: a broken index means
"no index" (lexical ranking), never a crash.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
from dataclasses import dataclass, replace

import numpy as np

from ..diagnostics import SkillsiftError
from . import float16
from .atomic import AtomicWriteError, write_files_atomic
from .manifest import (
    DTYPE_FLOAT16,
    DTYPE_FLOAT32,
    DTYPES,
    EXAMPLE_KIND,
    EXAMPLES_VERSION,
    ITEM_KIND,
    MANIFEST_FILE,
    MAX_DIMS,
    MAX_MANIFEST_BYTES,
    MAX_VECTORS_BYTES,
    SCHEMA_VERSION,
    VECTORS_FILE,
    WIDTHS,
    Manifest,
    ManifestInvalid,
    ManifestItem,
    parse_manifest,
    unusable_reason,
)

REBUILD_HINT = "rebuild it with 'skillsift index --rebuild'"
UNIT_TOLERANCE = {4: 1e-3, 2: 1e-2}  # allowed |norm - 1| of a stored row, by component width
ALREADY_UNIT = 1e-5  # a row whose sum of squares is this close to 1 is not rescaled


class IndexDataError(SkillsiftError, ValueError):
    """Vectors that cannot form an index (ragged, NaN/Inf, duplicate ids, float16 overflow)."""


class IndexReadError(SkillsiftError):
    """An I/O failure other than a missing or invalid file (for example, permission denied)."""


# --------------------------------------------------------------------------- vectors


def squared_norms(matrix, *, chunk_rows: int = 8192) -> np.ndarray:
    """Per-row sum of squares, accumulated left to right in float64 (as the reference does).

    The running sum is sequential (``cumsum``), not numpy's pairwise summation, so the
    result is bit-identical to a plain loop; rows are processed in chunks to bound memory.
    """
    rows = np.asarray(matrix, dtype=np.float32)
    sums = np.zeros(rows.shape[0], dtype=np.float64)
    if rows.shape[1] == 0:
        return sums
    for start in range(0, rows.shape[0], chunk_rows):
        block = rows[start : start + chunk_rows].astype(np.float64)
        np.multiply(block, block, out=block)
        sums[start : start + chunk_rows] = np.cumsum(block, axis=1)[:, -1]
    return sums


def normalize_rows(matrix) -> np.ndarray:
    """L2-normalise float32 rows the way an index is built.

    Scale by ``float32(1 / sqrt(sum))`` with float32 products; rows already unit length
    (sum of squares within 1e-5 of 1) and all-zero rows are returned unchanged.
    """
    out = np.array(matrix, dtype=np.float32, copy=True)
    if out.size == 0:
        return out
    sums = squared_norms(out)
    scale = (sums != 0) & (np.abs(sums - 1.0) >= ALREADY_UNIT)
    if scale.any():
        inverse = (1.0 / np.sqrt(sums[scale])).astype(np.float32)
        out[scale] = out[scale] * inverse[:, None]
    return out


def encode_vectors(matrix, dtype: str) -> bytes:
    """``vectors.bin`` bytes: little-endian, row-major float32 or binary16.

    A float16 component that would become Inf (or is NaN/Inf) is an error.
    """
    values = np.ascontiguousarray(matrix, dtype=np.float32)
    if dtype == DTYPE_FLOAT32:
        return values.astype("<f4", copy=False).tobytes()
    if dtype == DTYPE_FLOAT16:
        bits = float16.to_half_bits(values)
        bad = (bits & float16.HALF_EXPONENT_MASK) == float16.HALF_EXPONENT_MASK
        if bad.any():
            component = float(values[bad][0])
            raise IndexDataError(f"component {component:g} does not fit float16")
        return bits.astype("<u2", copy=False).tobytes()
    raise IndexDataError(f"unknown dtype {dtype!r}: use float32 or float16")


def decode_vectors(data: bytes, dtype: str, rows: int, dims: int) -> np.ndarray:
    """The float32 matrix stored in ``vectors.bin`` bytes (float16 decoded exactly)."""
    if dtype == DTYPE_FLOAT16:
        bits = np.frombuffer(data, dtype="<u2").reshape(rows, dims)
        return float16.from_half_bits(bits)
    return np.frombuffer(data, dtype="<f4").reshape(rows, dims).astype(np.float32)


def vectors_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- the index


class Index:
    """A loaded or freshly built vector index (treat as immutable)."""

    def __init__(self, manifest: Manifest, matrix: np.ndarray):
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        matrix.setflags(write=False)
        self.manifest = manifest
        self.matrix = matrix
        self._rows = {item.key: position for position, item in enumerate(manifest.items)}

    def __len__(self) -> int:
        return len(self.manifest.items)

    def __repr__(self) -> str:
        m = self.manifest
        return f"Index({m.provider!r}, {m.model!r}, {len(self)} rows x {m.dims} {m.dtype})"

    @property
    def items(self) -> tuple[ManifestItem, ...]:
        return self.manifest.items

    @property
    def dims(self) -> int:
        return self.manifest.dims

    def row(self, domain: str, id: str) -> int:
        """The row of skill ``id`` in ``domain`` ("" for root), or -1."""
        return self._rows.get((ITEM_KIND, domain, id, ""), -1)

    @property
    def schema_version(self) -> int:
        return self.manifest.schema_version

    def example_items(self) -> list[tuple[int, ManifestItem]]:
        """``(row, item)`` of every known-request row (format 2), in row order."""
        return [(row, item) for row, item in enumerate(self.manifest.items) if item.kind == EXAMPLE_KIND]

    def vector(self, row: int) -> np.ndarray:
        """One stored row (read-only float32)."""
        return self.matrix[row]

    def unusable_reason(self, **setup) -> str:
        """:func:`~skillsift.index.manifest.unusable_reason` of this index's manifest."""
        return unusable_reason(self.manifest, **setup)

    def info(self) -> dict:
        """Provider, model, dims, dtype, rows and the size of ``vectors.bin`` in bytes."""
        m = self.manifest
        return {"provider": m.provider, "model": m.model, "dims": m.dims, "dtype": m.dtype,
                "rows": len(self), "bytes": len(self) * m.dims * m.width}

    def to_bytes(self) -> tuple[bytes, bytes]:
        """The exact ``(manifest.json, vectors.bin)`` bytes of this index."""
        vectors = encode_vectors(self.matrix, self.manifest.dtype)
        manifest = replace(self.manifest, vectors_digest=vectors_digest(vectors))
        return manifest.to_bytes(), vectors


def new_index(
    *,
    provider: str,
    model: str,
    items,
    vectors,
    dims: int | None = None,
    dtype: str = DTYPE_FLOAT32,
    fields=(),
    index_body: bool = False,
    body_chars: int = 0,
    doc_template_version: int | None = None,
) -> Index:
    """Build an index from ``items[i]`` (:class:`ManifestItem`) and ``vectors[i]``.

    Vectors are rounded to float32, checked (every row ``dims`` long, finite), L2-normalised,
    and for float16 quantised to half precision so the index in memory ranks exactly like
    the one loaded from disk.  Rows are sorted by (domain, id) and renumbered, the skills
    first, then the known requests (kind ``example``) by (domain, skill, text digest).
    ``dims`` defaults to the length of the first vector.  ``body_chars``
    is recorded only with ``index_body`` (a non-positive value resolves to 1200).
    Raises :class:`IndexDataError` on ragged, NaN/Inf or duplicate input.
    """
    from ..catalog.embedtext import DOC_TEMPLATE_VERSION, resolve_body_chars

    items = list(items)
    if dtype not in DTYPES:
        raise IndexDataError(f"unknown dtype {dtype!r}: use float32 or float16")
    matrix = _as_matrix(vectors, items, dims)
    dims = matrix.shape[1]
    matrix = normalize_rows(matrix)
    order = sorted(range(len(items)), key=lambda i: items[i].order)
    sorted_items = []
    seen = set()
    for position, i in enumerate(order):
        src = items[i]
        kind = EXAMPLE_KIND if src.kind == EXAMPLE_KIND else ITEM_KIND
        item = ManifestItem(src.id, src.domain, src.item_digest, src.text_digest, position, kind)
        if item.key in seen:
            what = "a known request of" if kind == EXAMPLE_KIND else ""
            raise IndexDataError(f"{what} {item.id!r} is indexed twice (domain {item.domain or 'root'!r})".strip())
        seen.add(item.key)
        sorted_items.append(item)
    matrix = matrix[order] if order else matrix
    if dtype == DTYPE_FLOAT16 and len(matrix):
        bits = float16.to_half_bits(matrix)
        if not float16.fits_half(bits):
            encode_vectors(matrix, dtype)  # raises with the offending component
        matrix = float16.from_half_bits(bits)
    manifest = Manifest(
        schema_version=EXAMPLES_VERSION if any(i.kind == EXAMPLE_KIND for i in sorted_items) else SCHEMA_VERSION,
        doc_template_version=DOC_TEMPLATE_VERSION if doc_template_version is None else doc_template_version,
        provider=provider,
        model=model,
        dims=dims,
        dtype=dtype,
        normalized=True,
        fields=tuple(fields),
        index_body=bool(index_body),
        body_chars=resolve_body_chars(body_chars) if index_body else 0,
        items=tuple(sorted_items),
    )
    index = Index(manifest, matrix)
    index.manifest = replace(manifest, vectors_digest=vectors_digest(encode_vectors(index.matrix, dtype)))
    return index


def _as_matrix(vectors, items, dims: int | None) -> np.ndarray:
    """Check the input vectors against ``items`` and ``dims``; return them as one float32 matrix.

    Values beyond float32 range become Inf and are refused with the NaNs.
    """
    with np.errstate(all="ignore"):
        if isinstance(vectors, np.ndarray) and vectors.ndim == 2:
            rows = None
            matrix = vectors.astype(np.float32, copy=False)
            count, width = matrix.shape
        else:
            rows = [_as_row(vector) for vector in vectors]
            count, width = len(rows), (rows[0].size if rows else None)
    if len(items) != count:
        raise IndexDataError(f"{len(items)} items but {count} vectors")
    if dims is None:
        if width is None:
            raise IndexDataError("an index without vectors needs dims")
        dims = width
    if dims <= 0 or dims > MAX_DIMS:
        raise IndexDataError(f"dims {dims} is out of range (1..{MAX_DIMS})")
    if rows is not None:
        for item, row in zip(items, rows, strict=True):
            if row.size != dims:
                raise IndexDataError(f"the vector of {item.id!r} has {row.size} dimensions, want {dims}")
        matrix = np.stack(rows) if rows else np.zeros((0, dims), dtype=np.float32)
    elif width != dims:
        raise IndexDataError(f"the vectors have {width} dimensions, want {dims}")
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        item = items[int(np.argmin(finite))]
        raise IndexDataError(f"the vector of {item.id!r} holds a NaN or infinite component")
    return matrix


def _as_row(vector) -> np.ndarray:
    try:
        row = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise IndexDataError(f"a vector is not a list of numbers: {exc}") from None
    if row.ndim != 1:
        raise IndexDataError("a vector must be a flat list of numbers")
    return row


# --------------------------------------------------------------------------- disk


def write_index(index_dir: str | os.PathLike, index: Index, *, force: bool | None = None) -> bool:
    """Write ``vectors.bin`` then ``manifest.json`` atomically; False when both were unchanged.

    Both temporary files are written and flushed before ``vectors.bin`` is renamed into
    place, immediately followed by ``manifest.json``, so a failure while writing (a full
    disk) leaves the previous files as they were.  The directory is created with mode
    0750.  Raises :class:`~skillsift.index.atomic.AtomicWriteError`, or
    :class:`IndexDataError` for a float16 overflow (before anything is written).  Each file
    keeps its mode; a read-only one is refused unless ``force`` (``skillsift index --force``).
    """
    manifest_bytes, vector_bytes = index.to_bytes()
    index_dir = os.fspath(index_dir)
    try:
        os.makedirs(index_dir, mode=0o750, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or exc
        raise AtomicWriteError(f"cannot create the index directory {index_dir}: {reason}") from exc
    written = write_files_atomic(
        [
            (os.path.join(index_dir, VECTORS_FILE), vector_bytes),
            (os.path.join(index_dir, MANIFEST_FILE), manifest_bytes),
        ],
        force=force,
    )
    return any(written)


@dataclass(frozen=True)
class LoadResult:
    """The outcome of :func:`load_index`.

    ``index`` is None when there is no usable file pair; ``reason`` then says why, and
    ``found`` tells an absent index (False) from a damaged or foreign one (True).
    """

    index: Index | None
    reason: str = ""
    found: bool = False
    hint: str = ""

    @property
    def ok(self) -> bool:
        return self.index is not None


def _no_index(path: str, reason: str) -> LoadResult:
    return LoadResult(None, f"{path}: {reason}", found=True, hint=REBUILD_HINT)


def load_index(index_dir: str | os.PathLike) -> LoadResult:
    """Read and validate the index in ``index_dir``.

    Never raises for missing, damaged or foreign files (they give ``index=None`` and a
    reason); only unexpected I/O failures on files that exist raise :class:`IndexReadError`.
    """
    index_dir = os.fspath(index_dir)
    manifest_path = os.path.join(index_dir, MANIFEST_FILE)
    vectors_path = os.path.join(index_dir, VECTORS_FILE)
    try:
        info = os.stat(manifest_path)
    except (FileNotFoundError, NotADirectoryError):
        return LoadResult(None, f"no index in {index_dir} ({MANIFEST_FILE} is missing)",
                          hint="run 'skillsift index'")
    except OSError as exc:
        raise IndexReadError(f"cannot read {manifest_path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        return _no_index(manifest_path, "is not a regular file")
    if info.st_size > MAX_MANIFEST_BYTES:
        return _no_index(manifest_path, f"is {info.st_size} bytes, the limit is {MAX_MANIFEST_BYTES}")
    raw = _read(manifest_path)
    try:
        manifest = parse_manifest(raw)
    except ManifestInvalid as exc:
        return _no_index(manifest_path, str(exc))
    width = WIDTHS[manifest.dtype]
    rows, dims = len(manifest.items), manifest.dims
    want = rows * dims * width
    try:
        vinfo = os.stat(vectors_path)
    except OSError as exc:
        return _no_index(vectors_path, f"cannot be read ({exc.strerror or exc})")
    if not stat.S_ISREG(vinfo.st_mode):
        return _no_index(vectors_path, "is not a regular file")
    if vinfo.st_size != want or want > MAX_VECTORS_BYTES:
        return _no_index(
            vectors_path,
            f"is {vinfo.st_size} bytes, the manifest needs {want} "
            f"({rows} rows x {dims} dims x {width} bytes; limit {MAX_VECTORS_BYTES})",
        )
    data = _read(vectors_path)
    if vectors_digest(data) != manifest.vectors_digest:
        return _no_index(vectors_path, "does not match the manifest's vectors_digest")
    matrix = decode_vectors(data, manifest.dtype, rows, dims)
    problem = _row_problem(matrix, width)
    if problem:
        return _no_index(vectors_path, problem)
    return LoadResult(Index(manifest, matrix), found=True)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise IndexReadError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _row_problem(matrix: np.ndarray, width: int) -> str:
    """The first row that is not finite or not unit length (zero rows pass), or ""."""
    if matrix.size == 0:
        return ""
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        return f"row {row} holds a NaN or infinite component"
    sums = squared_norms(matrix)
    norms = np.sqrt(sums)
    bad = (sums != 0) & (np.abs(norms - 1.0) > UNIT_TOLERANCE[width])
    if bad.any():
        row = int(np.argmax(bad))
        return (f"row {row} is not unit length (norm {_g4(norms[row])}); "
                "the index was not written by 'skillsift index'")
    return ""


def _g4(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)
