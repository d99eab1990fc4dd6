"""Result types shared by every ranking mode (pure data, no I/O)."""

from __future__ import annotations

from ..records import field, record


@record(frozen=True)
class TermContribution:
    """One query term's share of a lexical score."""

    term: str
    idf: float
    tf: float  # weighted term frequency over all fields
    points: float  # this term's BM25F points (unrounded)
    fields: tuple[tuple[str, int], ...] = ()  # (field, raw occurrences) where the term occurs


@record(frozen=True)
class LexicalExplanation:
    score: float
    length: float  # weighted document length L
    avg_length: float
    n_docs: int
    terms: tuple[TermContribution, ...] = ()


@record(slots=True)
class Hit:
    """One ranked skill.  Treat as immutable (slots, not frozen: rankings build thousands)."""

    name: str
    score: float
    description: str = ""
    domain: str = ""
    digest: str = ""
    lexical_rank: int = 0  # 1-based; 0 = not in the lexical list
    vector_rank: int = 0  # 1-based; 0 = not in the vector list
    vector_sim: float | None = None
    stale_vector: bool = False
    explanation: LexicalExplanation | None = None
    known_request: tuple[str, float] | None = None  # --explain: the closest known request and its cosine
    # --explain: each channel's share of the score; derived from the rest, so not compared
    channels: tuple[tuple[str, float], ...] | None = field(default=None, compare=False)


@record(frozen=True)
class SearchResult:
    query: str
    ranking: str  # "lexical" | "hybrid" | "vector"
    hits: tuple[Hit, ...] = ()
    # no_index | provider_unavailable | timeout | budget | network_disabled | secret_withheld
    degraded: str | None = None
    abstained: bool = False
    top_sim: float = 0.0
    embedded: bool = False  # an embedding call was made for the query
    embed_tokens: int = 0
    embed_ms: float = 0.0
    stopword_only: bool = False  # the query had no searchable term
    notes: tuple[str, ...] = field(default=())

    @property
    def names(self) -> list[str]:
        return [h.name for h in self.hits]

    @classmethod
    def lexical(cls, query: str, hits: tuple[Hit, ...], stopword_only: bool = False) -> SearchResult:
        """``SearchResult(query=query, ranking="lexical", hits=hits, stopword_only=stopword_only)``.

        Made by filling the instance's attributes at once: a frozen dataclass's ``__init__``
        sets each of its 12 fields through ``object.__setattr__``, a third of what a
        lexical search of a small catalog spends outside the ranking (docs/ranking-speed.md).
        """
        result = object.__new__(cls)
        result.__dict__.update(_SEARCH_RESULT_DEFAULTS, query=query, ranking="lexical", hits=hits,
                               stopword_only=stopword_only)
        return result


# Every field in declaration order (so the instance's attributes are laid out as __init__ lays them), each
# with its default (query and ranking, which have none, are always given).
_SEARCH_RESULT_DEFAULTS = dict(vars(SearchResult(query="", ranking="")))
