"""The vector index: construction, ``vectors.bin`` bytes, writing and verified loading.

An :class:`Index` is a :class:`~skillsift.index.manifest.Manifest` plus a read-only
float32 matrix, one L2-normalised row per manifest item, rows sorted by (domain, id).
:func:`load_index` is the one loader every reader uses (search, eval, the MCP server,
``list``, ``status``, ``validate``, the hooks, ``index``).  It checks every structural rule
and returns a :class:`LoadResult` whose ``index`` is None with a human ``reason`` for
anything damaged or foreign: a broken index means "no index" (lexical ranking), never a
crash.  Then each row is checked on its own (docs/index-format.md, "Row digests"): its
:func:`row_digest` (the model, the item, the row bytes), finite components, not zero, unit
length.  A row that fails is left out of the index and listed in ``LoadResult.refused``
with the reason: that skill ranks by words only, that known request is not used.  The
result is kept for the process while neither file changes, so the rows are checked once
per process, not per query.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace

import numpy as np

from ..catalog.embedtext import DOC_TEMPLATE_VERSION, resolve_body_chars
from ..diagnostics import SkillsiftError
from . import float16
from .atomic import AtomicWriteError, write_files_atomic
from .manifest import (
    DTYPE_FLOAT16,
    DTYPE_FLOAT32,
    DTYPES,
    EXAMPLE_KIND,
    ITEM_KIND,
    MANIFEST_FILE,
    MAX_DIMS,
    MAX_MANIFEST_BYTES,
    MAX_VECTORS_BYTES,
    ROWS_VERSION,
    VECTORS_FILE,
    WIDTHS,
    Manifest,
    ManifestInvalid,
    ManifestItem,
    parse_manifest,
    unusable_reason,
)
from .rows import (  # noqa: F401 - re-exported: the loader's names, where they always were
    UNIT_TOLERANCE,
    RefusedRow,
    refused_phrase,
    row_digest,
    row_problems,
    sealed,
    signature,
    squared_norms,
    vectors_digest,
)

REBUILD_HINT = "rebuild it with 'skillsift index --rebuild'"
ALREADY_UNIT = 1e-5  # a row whose sum of squares is this close to 1 is not rescaled


class IndexDataError(SkillsiftError, ValueError):
    """Vectors that cannot form an index (ragged, NaN/Inf, duplicate ids, float16 overflow)."""


class IndexReadError(SkillsiftError):
    """An I/O failure other than a missing or invalid file (for example, permission denied)."""


# --------------------------------------------------------------------------- vectors


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
    """The float32 matrix stored in ``vectors.bin`` bytes (float16 decoded exactly; float32 read in place)."""
    if dtype == DTYPE_FLOAT16:
        bits = np.frombuffer(data, dtype="<u2").reshape(rows, dims)
        return float16.from_half_bits(bits)
    return np.frombuffer(data, dtype="<f4").reshape(rows, dims).astype(np.float32, copy=False)


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
        return sealed(self.manifest, vectors).to_bytes(), vectors


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
        schema_version=ROWS_VERSION,
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
    index.manifest = sealed(manifest, encode_vectors(index.matrix, dtype))
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
    ``damaged``: the files were changed or broken after a build (a wrong size or digest, a
    manifest that does not parse), as opposed to an index of an older format (``outdated``),
    which is only out of date.  ``refused``: rows of a usable index that failed their own checks and were
    left out of it (:class:`RefusedRow`).
    """

    index: Index | None
    reason: str = ""
    found: bool = False
    hint: str = ""
    damaged: bool = False
    refused: tuple[RefusedRow, ...] = ()
    outdated: bool = False  # written in a format older than ROWS_VERSION: rebuild (not damage)

    @property
    def ok(self) -> bool:
        return self.index is not None

    def refused_summary(self, most: int = 5) -> str:
        """``row 3, the skill a: <reason>; ...`` for at most ``most`` refused rows, then ``and N more``."""
        shown = "; ".join(f"{r.label}: {r.reason}" for r in self.refused[:most])
        more = len(self.refused) - most
        return shown + (f"; and {more} more" if more > 0 else "")


def _no_index(path: str, reason: str) -> LoadResult:
    return LoadResult(None, f"{path}: {reason}", found=True, hint=REBUILD_HINT, damaged=True)


# (index directory) -> (signature of both files, result): each index is checked once per process
_LOADED: dict[str, tuple[tuple, LoadResult]] = {}
_LOADED_MAX = 16


def load_index(index_dir: str | os.PathLike) -> LoadResult:
    """Read, validate and verify the index in ``index_dir`` (module docstring).

    Never raises for missing, damaged or foreign files (they give ``index=None`` and a
    reason); only unexpected I/O failures on files that exist raise :class:`IndexReadError`.
    The result is remembered while both files keep their size, times and inode, so every
    reader in one process shares one check.
    """
    index_dir = os.fspath(index_dir)
    key = os.path.abspath(index_dir)
    paths = (os.path.join(index_dir, MANIFEST_FILE), os.path.join(index_dir, VECTORS_FILE))
    before = signature(*paths)
    kept = _LOADED.get(key)
    if before is not None and kept is not None and kept[0] == before:
        return kept[1]
    result = _load(index_dir)
    if before is not None and before == signature(*paths):  # unchanged while it was read
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = (before, result)
    return result


def _load(index_dir: str) -> LoadResult:
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
    if manifest.schema_version < ROWS_VERSION:
        return LoadResult(None, f"{manifest_path}: the index was written in format {manifest.schema_version}, "
                                "whose rows carry no digest, so its vectors cannot be verified (this version writes "
                                f"format {ROWS_VERSION})", found=True, hint=REBUILD_HINT, outdated=True)
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
    if len(data) != want:
        return _no_index(vectors_path, f"holds {len(data)} bytes, the manifest needs {want}")
    if vectors_digest(data) != manifest.vectors_digest:
        return _no_index(vectors_path, "does not match the manifest's vectors_digest")
    matrix = decode_vectors(data, manifest.dtype, rows, dims)
    problems = row_problems(manifest, matrix, data)
    if not problems:
        return LoadResult(Index(manifest, matrix), found=True)
    refused = tuple(RefusedRow(manifest.items[row].kind, manifest.items[row].domain, manifest.items[row].id, row,
                               why) for row, why in sorted(problems.items()))
    return LoadResult(without_rows(Index(manifest, matrix), problems), found=True, hint=REBUILD_HINT,
                      refused=refused)


def without_rows(index: Index, rows) -> Index:
    """``index`` less the rows ``rows`` (positions in it), the others renumbered in order."""
    drop = set(rows)
    keep = [row for row in range(len(index)) if row not in drop]
    manifest = index.manifest
    items = tuple(replace(manifest.items[row], row=position) for position, row in enumerate(keep))
    kept = index.matrix[keep] if keep else np.zeros((0, manifest.dims), dtype=np.float32)
    return Index(replace(manifest, items=items), kept)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise IndexReadError(f"cannot read {path}: {exc.strerror or exc}") from exc
