"""Building the vector index: the plan (no provider calls) and the build (the calls).

:func:`plan_build` decides, per served skill, whether its stored vector is reused, its
text is sent, or it is kept back:

* an old index is reused only when it loads and was built for the same provider, model,
  text template and embedded text (fields, body);
* a skill reuses the old row for its (domain, id) when the text digest is the same, or
  any old row with that text digest (a renamed skill keeps its vector when the renamed
  part is not embedded); ``force`` names skills to re-embed anyway (``--items``);
* a skill whose text would be sent and holds a secret is withheld (AR9D3) when a scanner
  is given, which the caller does for providers whose text leaves the process;
* a skill whose embedded text is empty cannot be embedded and is left out;
* each known request (``examples``) is planned the same way, as an item of kind
  ``example`` (:func:`plan_request`): reused by its text digest, withheld when it holds a
  secret.  :func:`skillsift.secrets.egress.secret_scan` is that scan and :func:`withhold_requests` applies it to known
  requests outside a build: ``tune`` and a search's in-memory refresh use them, so no path
  sends a request the build would withhold.

:func:`build_index` sends the texts in plan order (shortest first for a provider that pads
its batches, see :mod:`skillsift.embed.order`), one call per batch of
``min(batch_size, provider.max_batch)``, and assembles the new :class:`~.store.Index`:

* a refused batch (the provider's error has ``rejected`` set) is split in halves, first
  half first, until the refused skill stands alone; it is recorded and the build goes
  on, unless five skills in a row were refused alone;
* any other provider error stops the build; finished batches are kept, but a build that
  stopped before any new vector came back builds nothing (the provider could not run:
  the old index stays as it is, docs/vector-index.md);
* a wrong vector count, vectors of changing width and NaN/Inf components are hard
  errors (:class:`BuildError`): nothing is built.

Nothing here touches the disk; the command writes the result.

Longer than 450 lines because the plan and the build cover the skills and their known
requests alike, and every provider failure mode has its own path here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..catalog.embedtext import embedded_text, resolve_body_chars, resolve_fields, text_digest
from ..diagnostics import SkillsiftError
from ..embed.base import EmbedError
from ..embed.order import length_order
from ..secrets.scan import redact
from ..words import plural
from .manifest import EXAMPLE_KIND, ManifestItem
from .store import Index, encode_vectors, new_index, vectors_digest

if TYPE_CHECKING:
    from numpy import ndarray

    from .store import Index

REUSE = "reuse"
EMBED = "embed"
WITHHELD = "withheld"
EMPTY = "empty"

DEFAULT_BATCH_SIZE = 64
MAX_REJECTED_IN_A_ROW = 5
INTERRUPTED = "the build was interrupted"


class BuildError(SkillsiftError):
    """A provider answer that cannot be trusted: nothing is written."""


def estimate_tokens(text: str) -> int:
    """Prompt tokens of one text, estimated as one per three UTF-8 bytes (rounded up)."""
    return (len(text.encode("utf-8")) + 2) // 3


def cost_of(tokens: int, price_per_mtok: float | None) -> float | None:
    """``tokens`` x price per million, or None when the price is unknown."""
    if price_per_mtok is None:
        return None
    return tokens * price_per_mtok / 1e6


def effective_batch_size(batch_size: int | None, max_batch: int | None) -> int:
    """``batch_size`` (non-positive or None: 64), lowered to the provider's ``max_batch``."""
    size = batch_size if batch_size and batch_size > 0 else DEFAULT_BATCH_SIZE
    if max_batch and max_batch > 0:
        size = min(size, max_batch)
    return size


def withhold_requests(requests, scan) -> tuple[list[tuple[str, str]], list[PlannedItem]]:
    """``(kept, withheld)``: the known ``requests`` (``(skill, text)`` pairs) a build would send, in
    their order, and those ``scan`` finds a secret in, planned as :func:`plan_build` plans them
    (one per distinct request).  Without a scan every request is kept."""
    if scan is None:
        return list(requests), []

    kept: list[tuple[str, str]] = []
    withheld: dict[tuple[str, str], PlannedItem] = {}
    for name, text in requests:
        item = plan_request(name, text, scan)
        if item.action == WITHHELD:
            withheld.setdefault((name, text_digest(text)), item)
        else:
            kept.append((name, text))
    return kept, list(withheld.values())


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class PlannedItem:
    """One served skill and what the build does with it."""

    id: str
    domain: str
    item_digest: str  # the skill file's digest now
    text: str
    text_digest: str
    action: str  # reuse | embed | withheld | empty
    old_row: int = -1  # the reused row of the old index
    secret: str = ""  # the kind of secret that withheld it
    kind: str = "skill"  # or "example": a known request of the skill ``id``; "query": a case's query (tune)

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))


@dataclass(frozen=True)
class Plan:
    """What a build would do; computed without calling the provider."""

    items: tuple[PlannedItem, ...]
    provider: str
    model: str
    fields: tuple[str, ...]
    index_body: bool
    body_chars: int
    old: Index | None = None  # the reusable old Index, or None
    rebuild_reason: str = ""  # why an existing index cannot be reused ("" when it can or there is none)
    price_per_mtok: float | None = None

    def _with(self, action: str) -> tuple[PlannedItem, ...]:
        return tuple(item for item in self.items if item.action == action)

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def reused(self) -> tuple[PlannedItem, ...]:
        return self._with(REUSE)

    @property
    def to_embed(self) -> tuple[PlannedItem, ...]:
        return self._with(EMBED)

    @property
    def withheld(self) -> tuple[PlannedItem, ...]:
        return self._with(WITHHELD)

    @property
    def empty(self) -> tuple[PlannedItem, ...]:
        return self._with(EMPTY)

    @property
    def bytes(self) -> int:
        """UTF-8 bytes of the texts to embed."""
        return sum(item.bytes for item in self.to_embed)

    @property
    def tokens(self) -> int:
        """Estimated prompt tokens of the texts to embed."""
        return sum(estimate_tokens(item.text) for item in self.to_embed)

    @property
    def cost_usd(self) -> float | None:
        return cost_of(self.tokens, self.price_per_mtok)


def plan_build(
    skills,
    old=None,
    *,
    provider,
    fields=(),
    index_body: bool = False,
    body_chars: int = 0,
    rebuild: bool = False,
    force=(),
    scan=None,
    price_per_mtok: float | None = None,
    old_problem: str = "",
    examples=(),
) -> Plan:
    """Plan a build of ``skills`` (catalog order) against the ``old`` index (or None).

    ``provider`` supplies ``fingerprint`` and ``model``; it is not called.  ``force``
    holds skill names to re-embed even when their text is unchanged.  ``scan(text)``
    returns the kind of secret a text holds, or None; without it nothing is withheld.
    ``old_problem`` is why an index on disk did not load (reported as the rebuild reason).
    ``examples``: the known requests, ``(skill name, request)`` pairs, one row each.
    """

    fields = resolve_fields(fields)
    body_chars = resolve_body_chars(body_chars)
    forced = set(force)
    reason = old_problem
    reusable = None
    if old is not None:
        reason = old.unusable_reason(provider=provider.fingerprint, model=provider.model, fields=fields,
                                     index_body=index_body, body_chars=body_chars)
        if not reason and not rebuild:
            reusable = old
    by_key: dict[tuple[str, str], tuple[int, str]] = {}
    by_text: dict[str, int] = {}
    if reusable is not None:
        for row, item in enumerate(reusable.items):
            if item.kind != EXAMPLE_KIND:
                by_key[(item.domain, item.id)] = (row, item.text_digest)
            by_text.setdefault(item.text_digest, row)
    planned = []
    for skill in skills:
        text = embedded_text(skill, fields, index_body, body_chars)
        digest = text_digest(text)
        common = dict(id=skill.name, domain=skill.domain, item_digest=skill.digest, text=text, text_digest=digest)
        row = -1
        if reusable is not None and skill.name not in forced:
            same = by_key.get((skill.domain, skill.name))
            row = same[0] if same and same[1] == digest else by_text.get(digest, -1)
        if row >= 0:
            planned.append(PlannedItem(action=REUSE, old_row=row, **common))
        elif not text:
            planned.append(PlannedItem(action=EMPTY, **common))
        else:
            # the name too, embedded or not: a skill that holds a secret anywhere sent or shown
            # with it is kept back whole (docs/secrets.md)
            kind = (scan(text) or scan(skill.name)) if scan is not None else None
            if kind:
                planned.append(PlannedItem(action=WITHHELD, secret=kind, **common))
            else:
                planned.append(PlannedItem(action=EMBED, **common))
    seen: set[tuple[str, str]] = set()
    for name, text in examples:
        digest = text_digest(text)
        if not text.strip() or (name, digest) in seen:
            continue
        seen.add((name, digest))
        row = by_text.get(digest, -1) if reusable is not None else -1
        planned.append(plan_request(name, text, scan, row))
    return Plan(
        items=tuple(planned),
        provider=provider.fingerprint,
        model=provider.model,
        fields=tuple(fields),
        index_body=bool(index_body),
        body_chars=body_chars,
        old=reusable,
        rebuild_reason=reason,
        price_per_mtok=price_per_mtok,
    )


def plan_request(name: str, text: str, scan=None, old_row: int = -1) -> PlannedItem:
    """One known request of skill ``name``: reused when ``old_row`` holds it, else withheld when
    ``scan`` finds a secret in it (AR9D3), else to embed."""

    kind = "" if old_row >= 0 or scan is None else (scan(text) or "")
    action = REUSE if old_row >= 0 else WITHHELD if kind else EMBED
    return PlannedItem(id=name, domain="", item_digest="", text=text, text_digest=text_digest(text), action=action,
                       old_row=old_row if old_row >= 0 else -1, secret=kind, kind=EXAMPLE_KIND)


# --------------------------------------------------------------------------- the build


@dataclass
class BuildResult:
    """What a build did.  ``index`` is None when no vector exists at all."""

    plan: Plan
    index: Index | None = None
    embedded: list[str] = field(default_factory=list)  # ids, in the order they were embedded
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (id, reason)
    stopped: str = ""  # why the build stopped early ("" when it ran to the end)
    stop_error: BaseException | None = None
    call_sizes: list[int] = field(default_factory=list)
    tokens: int = 0  # estimated tokens of every text sent (refused calls included)

    @property
    def calls(self) -> int:
        return len(self.call_sizes)

    @property
    def reused(self) -> int:
        return len(self.plan.reused)

    @property
    def cost_usd(self) -> float | None:
        return cost_of(self.tokens, self.plan.price_per_mtok)

    @property
    def missing(self) -> list[str]:
        """Served skills without a vector in the new index, sorted."""
        present = set() if self.index is None else {(item.domain, item.id) for item in self.index.items
                                                    if item.kind == "skill"}
        return sorted(item.id for item in self.plan.items
                      if item.kind == "skill" and (item.domain, item.id) not in present)

    @property
    def complete(self) -> bool:
        return not self.stopped and not self.rejected


class _Stop(Exception):
    def __init__(self, reason: str, error: BaseException | None = None):
        super().__init__(reason)
        self.reason = reason
        self.error = error


class _Builder:
    def __init__(self, provider, progress):
        self.provider = provider
        self.progress = progress
        self.vectors: dict[int, ndarray] = {}  # position in the to-embed list -> row
        self.dims: int | None = None
        self.rejected: list[tuple[int, str]] = []
        self.streak = 0
        self.call_sizes: list[int] = []
        self.tokens = 0

    def send(self, todo, start: int, stop: int) -> None:
        texts = [item.text for item in todo[start:stop]]
        self.call_sizes.append(len(texts))
        self.tokens += sum(estimate_tokens(text) for text in texts)
        try:
            rows = self.provider.embed(texts)
        except EmbedError as exc:
            if exc.hard:
                raise BuildError(f"{_message(exc)}; nothing was written") from None
            if not getattr(exc, "rejected", False):
                raise _Stop(_message(exc), exc) from None
            if stop - start > 1:
                middle = start + (stop - start) // 2
                self.send(todo, start, middle)
                self.send(todo, middle, stop)
                return
            self.rejected.append((start, _message(exc)))
            self.streak += 1
            self.progress(1)
            if self.streak >= MAX_REJECTED_IN_A_ROW:
                raise _Stop(f"the provider rejected {MAX_REJECTED_IN_A_ROW} skills in a row") from None
            return
        except KeyboardInterrupt:
            raise _Stop(INTERRUPTED) from None
        self.streak = 0
        self.accept(todo, start, texts, rows)
        self.progress(len(texts))

    def accept(self, todo, start: int, texts, rows) -> None:
        import numpy as np

        if rows is None or len(rows) != len(texts):
            got = 0 if rows is None else len(rows)
            raise BuildError(f"the provider returned {plural(got, 'vector')} for {plural(len(texts), 'text')}; "
                             "nothing was written",
                             hint="the embedding provider is misbehaving; check its configuration or version")
        for offset, raw in enumerate(rows):
            item = todo[start + offset]
            try:
                with np.errstate(all="ignore"):
                    row = np.asarray(raw, dtype=np.float32)
            except (TypeError, ValueError):
                raise BuildError(f'the provider returned something that is not a vector for skill "{item.id}"; '
                                 "nothing was written") from None
            if row.ndim != 1 or row.size == 0:
                raise BuildError(f'the provider returned a malformed vector for skill "{item.id}"; '
                                 "nothing was written")
            if self.dims is None:
                self.dims = int(row.size)
            elif row.size != self.dims:
                raise BuildError(
                    f'the provider returned {row.size} dimensions for skill "{item.id}" after {self.dims}: '
                    "the model changed mid-build, nothing was written",
                    hint="check the provider's model, then run 'skillsift index --rebuild'",
                )
            if not np.isfinite(row).all():
                raise BuildError(f'the provider returned a NaN or infinite component for skill "{item.id}"; '
                                 "nothing was written")
            self.vectors[start + offset] = row


def _message(exc: BaseException) -> str:
    return redact(getattr(exc, "message", None) or str(exc) or type(exc).__name__)


def build_index(plan: Plan, provider, *, dtype: str = "float32", batch_size: int | None = None,
                progress=None) -> BuildResult:
    """Embed what ``plan`` says with ``provider`` and assemble the new index.

    ``batch_size`` is the configured batch size (None or 0: 64), lowered to the
    provider's ``max_batch``.  ``progress(n)`` is called with the number of skills each
    finished call settled.  Raises :class:`BuildError` for a hard error and when there is
    nothing to index at all; a stop or refusals are reported in the result.
    """

    planned = plan.to_embed
    # Texts go out shortest first when the provider pads its batches (a local model): each
    # call then holds texts of similar length.  Results are put back in plan order below.
    order = length_order(provider, [item.text for item in planned])
    todo = tuple(planned[i] for i in order)
    old = plan.old
    builder = _Builder(provider, progress or (lambda n: None))
    if old is not None and plan.reused:
        builder.dims = old.dims
    size = effective_batch_size(batch_size, getattr(provider, "max_batch", None))
    result = BuildResult(plan=plan)
    try:
        for start in range(0, len(todo), size):
            builder.send(todo, start, min(start + size, len(todo)))
    except _Stop as stop:
        result.stopped = stop.reason
        result.stop_error = stop.error
    result.call_sizes = builder.call_sizes
    result.tokens = builder.tokens
    result.rejected = [(todo[position].id, reason) for position, reason in builder.rejected]
    builder.vectors = {order[position]: row for position, row in builder.vectors.items()}
    result.embedded = [planned[position].id for position in sorted(builder.vectors)]
    if not builder.vectors and result.stopped:
        return result  # the provider could not run: nothing is built, the old index stays
    if not builder.vectors and not plan.reused:
        if result.rejected:
            result.stopped = "the provider rejected every skill: " + ", ".join(sorted(i for i, _ in result.rejected))
            return result
        raise BuildError("nothing to index: no skill has text that can be embedded",
                         hint="check [search] fields and the skills' frontmatter")
    result.index = _assemble(plan, builder, dtype)
    return result


def _assemble(plan: Plan, builder: _Builder, dtype: str):
    """The new index: reused rows copied bit for bit, new rows normalised (and quantised)."""
    import numpy as np

    old = plan.old
    items: list[ManifestItem] = []
    vectors: list[np.ndarray] = []
    exact: dict[tuple, np.ndarray] = {}
    todo_position = {id(item): position for position, item in enumerate(plan.to_embed)}
    for item in plan.items:
        if item.action == REUSE:
            assert old is not None  # the plan reuses rows only of an old index
            vector = old.vector(item.old_row)
            if old.manifest.dtype == dtype:
                exact[_key(item)] = vector
        elif item.action == EMBED and todo_position[id(item)] in builder.vectors:
            vector = builder.vectors[todo_position[id(item)]]
        else:
            continue
        items.append(ManifestItem(item.id, item.domain, item.item_digest, item.text_digest, kind=item.kind))
        vectors.append(np.asarray(vector, dtype=np.float32))
    index = new_index(provider=plan.provider, model=plan.model, items=items, vectors=vectors, dims=builder.dims,
                      dtype=dtype, fields=plan.fields, index_body=plan.index_body, body_chars=plan.body_chars)
    if not exact:
        return index
    # Stored rows are kept exactly as they were (normalising a float16 row again could move it).
    matrix = np.array(index.matrix, dtype=np.float32, copy=True)
    for row, stored in enumerate(index.items):
        kept = exact.get(stored.key)
        if kept is not None:
            matrix[row] = kept
    from dataclasses import replace

    rebuilt = Index(index.manifest, matrix)
    rebuilt.manifest = replace(index.manifest, vectors_digest=vectors_digest(encode_vectors(matrix, dtype)))
    return rebuilt


def _key(item: PlannedItem) -> tuple:
    """The manifest key the planned ``item`` gets (:attr:`~.manifest.ManifestItem.key`)."""
    return (item.kind, item.domain, item.id, item.text_digest if item.kind == "example" else "")
