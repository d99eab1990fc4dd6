"""``manifest.json``: the description of a vector index, its exact bytes and its parsing.

The manifest is deterministic: fixed key order, 2-space indent, a trailing newline,
``<``, ``>``, ``&``, U+2028 and U+2029 escaped as ``\\u003c``-style sequences, items
sorted by (domain, id), and no timestamp, so rebuilding unchanged inputs gives the same
bytes and a committed index diffs cleanly.  No numpy here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from ..catalog.embedtext import DOC_TEMPLATE_VERSION, resolve_body_chars, resolve_fields

SCHEMA_VERSION = 1  # an index without known requests: the reference's format (read, no longer written)
#: Format 2 added known requests (example rows) (docs/index-format.md).
EXAMPLES_VERSION = 2
#: Format 3, the one written: every item carries ``row_digest``, the digest of its row
#: (:func:`skillsift.index.store.row_digest`), checked by every reader before a row is used.
ROWS_VERSION = 3
READABLE_VERSIONS = (SCHEMA_VERSION, EXAMPLES_VERSION, ROWS_VERSION)
DTYPE_FLOAT32 = "float32"
DTYPE_FLOAT16 = "float16"
DTYPES = (DTYPE_FLOAT32, DTYPE_FLOAT16)
WIDTHS = {DTYPE_FLOAT32: 4, DTYPE_FLOAT16: 2}
ITEM_KIND = "skill"
EXAMPLE_KIND = "example"  # a known request of the skill ``id`` (format 2, docs/index-format.md)

MAX_DIMS = 16384
MAX_ROWS = 1_000_000
MAX_MANIFEST_BYTES = 64 << 20
MAX_VECTORS_BYTES = 100 << 20

MANIFEST_FILE = "manifest.json"
VECTORS_FILE = "vectors.bin"


@dataclass(frozen=True)
class ManifestItem:
    """One indexed skill: identity, digests and its row in ``vectors.bin``.

    ``item_digest`` is the skill's file digest at index time (drift reporting only);
    ``text_digest`` is the digest of the embedded text, which keys vector reuse.  An
    ``example`` item is one known request of the skill ``id``: its ``text_digest`` is the
    digest of the request, which tells the examples of one skill apart.
    """

    id: str
    domain: str = ""
    item_digest: str = ""
    text_digest: str = ""
    row: int = 0
    kind: str = ITEM_KIND
    row_digest: str = ""  # format 3: sha256 over the model, the item and its row bytes

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.kind, self.domain, self.id, self.text_digest if self.kind == EXAMPLE_KIND else "")

    @property
    def order(self) -> tuple[bool, str, str, str]:
        """Row order: the skills by (domain, id), then the examples by (domain, id, text digest)."""
        return (self.kind == EXAMPLE_KIND, self.domain, self.id, self.text_digest)


@dataclass(frozen=True)
class Manifest:
    provider: str = ""
    model: str = ""
    dims: int = 0
    dtype: str = DTYPE_FLOAT32
    fields: tuple[str, ...] = ()
    index_body: bool = False
    body_chars: int = 0
    vectors_digest: str = ""
    items: tuple[ManifestItem, ...] = ()
    schema_version: int = SCHEMA_VERSION
    doc_template_version: int = 1
    normalized: bool = True

    @property
    def width(self) -> int:
        """Bytes per stored component (4 for float32, 2 for float16)."""
        return WIDTHS[self.dtype]

    def to_json_dict(self) -> dict:
        """The manifest as an ordered dict, keys in file order (``body_chars`` omitted when 0)."""
        out: dict = {
            "schema_version": self.schema_version,
            "doc_template_version": self.doc_template_version,
            "provider": self.provider,
            "model": self.model,
            "dims": self.dims,
            "dtype": self.dtype,
            "normalized": self.normalized,
            "fields": list(self.fields),
            "index_body": self.index_body,
        }
        if self.body_chars:
            out["body_chars"] = self.body_chars
        out["vectors_digest"] = self.vectors_digest
        out["items"] = [
            {
                "id": it.id,
                "kind": it.kind,
                "domain": it.domain,
                "item_digest": it.item_digest,
                "text_digest": it.text_digest,
                "row": it.row,
                **({"row_digest": it.row_digest} if self.schema_version >= ROWS_VERSION else {}),
            }
            for it in self.items
        ]
        return out

    def to_bytes(self) -> bytes:
        """The exact bytes of ``manifest.json``."""
        return encode_json(self.to_json_dict())


_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _clean(value):
    """Replace lone surrogates (not encodable as UTF-8) by U+FFFD, recursively."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def encode_json(value) -> bytes:
    """Pretty JSON as the reference writes it: 2-space indent, UTF-8, HTML-safe, final newline."""
    text = json.dumps(_clean(value), indent=2, ensure_ascii=False, allow_nan=False)
    # The keys are fixed ASCII words, so these characters can only sit inside string values.
    for char, escape in _HTML_ESCAPES.items():
        text = text.replace(char, escape)
    return (text + "\n").encode("utf-8")


class ManifestInvalid(ValueError):
    """The manifest bytes do not describe an index this version can read."""


def _take(obj: dict, key: str, kind: type, default, where: str):
    """``obj[key]`` checked against ``kind``; missing or null gives ``default``."""
    value = obj.get(key)
    if value is None:
        return default
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise ManifestInvalid(f"{where}{key} must be {kind.__name__}, not {json.dumps(value)[:40]}")
    return value


def parse_manifest(raw: bytes) -> Manifest:
    """Parse and check manifest bytes; raises :class:`ManifestInvalid` with a human reason.

    Unknown keys are ignored; a missing or null key takes its zero value (so a manifest
    whose ``schema_version`` key is damaged reads as version 0 and is refused).
    """
    from ..jsonio import JSONDocumentError, read_json

    try:
        data = read_json(raw, source=MANIFEST_FILE, max_bytes=MAX_MANIFEST_BYTES)
    except JSONDocumentError as exc:
        raise ManifestInvalid(str(exc)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ManifestInvalid("manifest.json must hold a JSON object")
    fields_raw = _take(data, "fields", list, [], "")
    if not all(isinstance(f, str) for f in fields_raw):
        raise ManifestInvalid("fields must be a list of strings")
    items_raw = _take(data, "items", list, [], "")
    manifest = Manifest(
        schema_version=_take(data, "schema_version", int, 0, ""),
        doc_template_version=_take(data, "doc_template_version", int, 0, ""),
        provider=_take(data, "provider", str, "", ""),
        model=_take(data, "model", str, "", ""),
        dims=_take(data, "dims", int, 0, ""),
        dtype=_take(data, "dtype", str, "", ""),
        normalized=_take(data, "normalized", bool, False, ""),
        fields=tuple(fields_raw),
        index_body=_take(data, "index_body", bool, False, ""),
        body_chars=_take(data, "body_chars", int, 0, ""),
        vectors_digest=_take(data, "vectors_digest", str, "", ""),
        items=(),
    )
    check_header(manifest, len(items_raw))
    items = []
    for position, entry in enumerate(items_raw):
        if type(entry) is dict:  # an entry as the writer makes it: every field present with its type, read at once
            get = entry.get
            name, kind, domain, item, text, row, digest = (get("id"), get("kind"), get("domain"), get("item_digest"),
                                                           get("text_digest"), get("row"), get("row_digest"))
            if (type(row) is int and type(name) is str and type(kind) is str and type(domain) is str
                    and type(item) is str and type(text) is str and type(digest) is str):
                items.append(ManifestItem(id=name, kind=kind, domain=domain, item_digest=item, text_digest=text,
                                          row=row, row_digest=digest))
                continue
        items.append(_item(entry, position))
    check_items(items, manifest.schema_version)
    return replace(manifest, items=tuple(items))


def _item(entry, position: int) -> ManifestItem:
    """The item of ``items[position]`` field by field: a missing or null field takes its zero value, a field of
    another type is refused by name."""
    if entry is None:
        entry = {}
    if not isinstance(entry, dict):
        raise ManifestInvalid(f"items[{position}] must be a JSON object")
    where = f"items[{position}]."
    return ManifestItem(
        id=_take(entry, "id", str, "", where),
        kind=_take(entry, "kind", str, "", where),
        domain=_take(entry, "domain", str, "", where),
        item_digest=_take(entry, "item_digest", str, "", where),
        text_digest=_take(entry, "text_digest", str, "", where),
        row=_take(entry, "row", int, 0, where),
        row_digest=_take(entry, "row_digest", str, "", where),
    )


def check_header(manifest: Manifest, n_items: int) -> None:
    """The structural rules on the manifest's header, in the reference's order."""
    if manifest.schema_version not in READABLE_VERSIONS:
        raise ManifestInvalid(
            f"manifest schema_version is {manifest.schema_version}, this version reads "
            f"{' and '.join(str(v) for v in READABLE_VERSIONS)}"
        )
    if manifest.dtype not in DTYPES:
        raise ManifestInvalid(f"manifest dtype {json.dumps(manifest.dtype)} is not float32 or float16")
    if manifest.dims <= 0 or manifest.dims > MAX_DIMS:
        raise ManifestInvalid(f"manifest dims {manifest.dims} is out of range (1..{MAX_DIMS})")
    if n_items > MAX_ROWS:
        raise ManifestInvalid(f"manifest holds {n_items} rows, the limit is {MAX_ROWS}")


def check_items(items, manifest_version: int = EXAMPLES_VERSION) -> None:
    """Every item's row equals its position; skills before examples (format 2 only); no key twice."""
    seen = set()
    examples = False
    for position, item in enumerate(items):
        if item.kind == EXAMPLE_KIND:
            examples = True
            if manifest_version < EXAMPLES_VERSION:
                raise ManifestInvalid(f"manifest format {manifest_version} cannot hold known requests "
                                      f"(the example rows of {json.dumps(item.id)})")
            if not item.text_digest:
                raise ManifestInvalid(f"manifest example of {json.dumps(item.id)} has no text_digest")
        elif examples:
            raise ManifestInvalid(f"manifest item {json.dumps(item.id)}: skills come before examples")
        if item.row != position:
            raise ManifestInvalid(f"manifest item {json.dumps(item.id)} has row {item.row}, want {position}")
        if item.key in seen:
            raise ManifestInvalid(f"manifest lists {json.dumps(item.id)} twice")
        seen.add(item.key)


def unusable_reason(
    manifest,
    *,
    provider: str = "",
    model: str = "",
    fields=(),
    index_body: bool = False,
    body_chars: int = 0,
    dims: int | None = None,
) -> str:
    """Why an index built as ``manifest`` cannot serve the current setup; ``""`` when it can.

    ``manifest`` may be a :class:`Manifest` or anything with a ``manifest`` attribute
    (a loaded index).  ``provider`` / ``model`` / ``dims`` are only compared when given; ``fields``
    and ``body_chars`` are resolved the way the embedded text resolves them.  The checks
    run in a fixed order and the first difference is the reason.
    """

    m = getattr(manifest, "manifest", manifest)
    if m.doc_template_version != DOC_TEMPLATE_VERSION:
        return f"the text template changed (index {m.doc_template_version}, build {DOC_TEMPLATE_VERSION})"
    if provider and m.provider != provider:
        return f"the provider changed (index {_quote(m.provider)}, config {_quote(provider)})"
    if model and m.model != model:
        return f"the model changed (index {_quote(m.model)}, config {_quote(model)})"
    if dims and m.dims != dims:
        return f"the dimensions differ (index {m.dims}, the provider's vectors have {dims})"
    if ",".join(m.fields) != ",".join(resolve_fields(fields)):
        return "the embedded fields changed"
    if m.index_body != bool(index_body) or (index_body and m.body_chars != resolve_body_chars(body_chars)):
        return "index_body or body_chars changed"
    return ""


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)
