# SPDX-License-Identifier: Apache-2.0
"""Type stubs of the neardup module (apps/python, docs/python.md)."""
from types import TracebackType
from typing import Any, Iterable, Literal, Mapping, NamedTuple, Sequence, overload

__version__: str

Id = str | int
Text = str | bytes
# An item of add_many: an (id, text) pair or a dict with the id and text fields.
DocumentItem = tuple[Id, Text] | Sequence[Any] | Mapping[str, Any]
# A record of dedup: a text, an (id, text) pair or a dict (the id is optional).
Record = Text | tuple[Id, Text] | Mapping[str, Any]

class Match(NamedTuple):
    id: str
    signal: str
    distance: int
    similarity: float
    verified: float | None

class AddResult(NamedTuple):
    id: str
    cluster: str
    duplicate: bool
    cluster_size: int
    fingerprint: int
    matches: list[Match]
    gathered: list[str]

class QueryResult(NamedTuple):
    cluster: str | None
    cluster_size: int
    fingerprint: int
    matches: list[Match]

class Cluster(NamedTuple):
    id: str
    size: int
    root_removed: bool
    time: int
    members: list[str]

class DocumentInfo(NamedTuple):
    id: str
    cluster: str
    fingerprint: int
    time: int

class ClusterSummary(NamedTuple):
    id: str
    representative: str
    size: int
    time: int

class Stats(NamedTuple):
    documents: int
    clusters: int
    added: int
    duplicates: int
    removed: int
    index_bytes: int
    forest_bytes: int
    id_bytes: int
    text_bytes: int
    threshold: float
    verified_from_forms: int
    verified_from_texts: int
    verified_doubted: int

class Explanation(NamedTuple):
    duplicate: bool
    rule: str
    similarity: float
    threshold: float
    normalized_a: str
    normalized_b: str
    shingles_a: int
    shingles_b: int
    shared_shingles: int
    shared_examples: list[str]
    jaccard: float
    containment: float
    edit_similarity: float | None
    minhash_estimate: float
    lsh_bands: int
    lsh_equal_bands: int
    candidate: bool
    simhash_distance: int
    steps: list[str]

class DocumentRecord(NamedTuple):
    id: str
    cluster: str
    fingerprint: int
    arrival: int
    time: int
    cluster_size: int
    meta: dict[str, Any] | None
    text: str | None

class SimilarDocument(NamedTuple):
    id: str
    signal: str
    distance: int
    similarity: float
    verified: float | None
    meta: dict[str, Any] | None
    arrival: int
    text: str | None

class DurableStats(NamedTuple):
    engine: Stats
    commits: int
    committed_docs: int
    commit_errors: int
    expired_trees: int
    expired_documents: int
    queue_depth: int
    disk_bytes: int
    store_cache_bytes: int
    store_memtable_bytes: int
    restore_ms: int
    restored_documents: int
    ttl_ms: int

class ExpireReport(NamedTuple):
    trees: int
    documents: int

class DedupLabels(NamedTuple):
    cluster: list[int]
    cluster_size: list[int]
    kept: list[int]
    is_kept: list[bool]
    skipped: list[int]

class DedupCluster(NamedTuple):
    cluster: int
    size: int
    kept: int
    members: list[int]

class GroupClusters(NamedTuple):
    ids: list[str]
    cluster: list[int]
    kept: list[int]
    cluster_size: list[int]

class Engine:
    """Online near-duplicate detection and clustering."""
    def __init__(self, profile: str = "default", threshold: float | None = None,
                 **options: Any) -> None: ...
    def add(self, id: Id, text: Text, time: int = 0) -> AddResult: ...
    @overload
    def add_many(self, docs: Iterable[DocumentItem] | Mapping[Id, Text], *,
                 return_exceptions: Literal[False] = False, id_field: str = "id",
                 text_field: str = "text") -> list[AddResult]: ...
    @overload
    def add_many(self, docs: Iterable[DocumentItem] | Mapping[Id, Text], *,
                 return_exceptions: Literal[True], id_field: str = "id",
                 text_field: str = "text") -> list[AddResult | Exception]: ...
    def query(self, text: Text, *, max_distance: int | None = None) -> QueryResult: ...
    def similar(self, id: Id, limit: int | None = None) -> list[Match]: ...
    def cluster_of(self, id: Id, limit: int | None = None) -> Cluster: ...
    def cluster(self, cluster_id: Id, limit: int | None = None) -> Cluster: ...
    def clusters(self, *, sort: Literal["size", "recent"] = "size", descending: bool = True,
                 limit: int = 50, after: tuple[int, str] | None = None) -> list[ClusterSummary]: ...
    def get(self, id: Id) -> DocumentInfo: ...
    def remove(self, id: Id) -> None: ...
    def fingerprint(self, text: Text) -> int: ...
    def explain(self, a: Text, b: Text) -> Explanation: ...
    def stats(self) -> Stats: ...
    @property
    def profile(self) -> str: ...
    @property
    def threshold(self) -> float: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: object) -> bool: ...

class DurableEngine:
    """An Engine whose documents live in a RocksDB store."""
    def __init__(self, path: str, profile: str = "default", threshold: float | None = None, *,
                 ttl_ms: int = 0, sync: bool = True, store_text: bool = False,
                 background_expiry: bool = True, **options: Any) -> None: ...
    def add(self, id: Id, text: Text, time: int = 0, meta: dict[str, Any] | None = None,
            exist_ok: bool = False) -> AddResult: ...
    def add_many(self, docs: Iterable[DocumentItem] | Mapping[Id, Text], *,
                 exist_ok: bool = False, return_exceptions: bool = False, id_field: str = "id",
                 text_field: str = "text") -> list[Any]: ...
    def remove(self, id: Id) -> None: ...
    def get(self, id: Id) -> DocumentRecord: ...
    def similar(self, id: Id, limit: int | None = None) -> list[SimilarDocument]: ...
    def query(self, text: Text) -> QueryResult: ...
    def cluster_of(self, id: Id, limit: int | None = None) -> Cluster: ...
    def clusters(self, *, sort: Literal["size", "recent"] = "size", descending: bool = True,
                 limit: int = 50, after: tuple[int, str] | None = None) -> list[ClusterSummary]: ...
    def explain(self, a: Text, b: Text) -> Explanation: ...
    def expire(self, before: int) -> ExpireReport: ...
    def stats(self) -> DurableStats: ...
    def close(self) -> None: ...
    @property
    def path(self) -> str: ...
    def __enter__(self) -> DurableEngine: ...
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool: ...
    def __len__(self) -> int: ...

class Pipeline:
    """The engine's front half for one profile: normalization, shingles, sketches."""
    def __init__(self, profile: str = "default", threshold: float | None = None,
                 **options: Any) -> None: ...
    def normalize(self, text: Text) -> str: ...
    def shingles(self, text: Text) -> list[int]: ...
    def words(self, text: Text) -> list[str]: ...
    def fingerprint(self, text: Text) -> int: ...
    def minhash(self, text: Text) -> list[int]: ...
    def minhash_many(self, texts: Iterable[Text], *, threads: int = 0) -> list[list[int]]: ...

@overload
def dedup(records: Iterable[Record], *, profile: str = "default",
          threshold: float | None = None, keep: str | None = None,
          emit: Literal["labels"] = "labels", max_cluster_size: int = 0,
          min_shared_keys: int = 0, memory: int | str | None = None, tmp_dir: str = "",
          threads: int = 0, text_field: str = "text", id_field: str = "id",
          skip_invalid: bool = False, **options: Any) -> DedupLabels: ...
@overload
def dedup(records: Iterable[Record], *, profile: str = "default",
          threshold: float | None = None, keep: str | None = None,
          emit: Literal["unique"], max_cluster_size: int = 0, min_shared_keys: int = 0,
          memory: int | str | None = None, tmp_dir: str = "", threads: int = 0,
          text_field: str = "text", id_field: str = "id", skip_invalid: bool = False,
          **options: Any) -> list[Any]: ...
@overload
def dedup(records: Iterable[Record], *, profile: str = "default",
          threshold: float | None = None, keep: str | None = None,
          emit: Literal["clusters"], max_cluster_size: int = 0, min_shared_keys: int = 0,
          memory: int | str | None = None, tmp_dir: str = "", threads: int = 0,
          text_field: str = "text", id_field: str = "id", skip_invalid: bool = False,
          **options: Any) -> list[DedupCluster]: ...

def cluster_groups(groups: Iterable[Iterable[Id]],
                   texts: Mapping[Id, Text] | Iterable[tuple[Id, Text]], *,
                   verify: str = "levenshtein", threshold: float = 0.8,
                   shingles: str | None = None, max_cluster_size: int = 1000,
                   keep: str = "first", max_group_size: int = 64,
                   drop_punctuation: bool | None = None, replace_invalid_utf8: bool = False,
                   qbank_other_min: float = 1.0, threads: int = 0,
                   t2s: str = "taiwan") -> GroupClusters: ...

def fingerprint(text: Text, *, profile: str = "default", **options: Any) -> int: ...
def minhash(text: Text, *, profile: str = "default", num_perm: int | None = None,
            **options: Any) -> list[int]: ...
def normalize(text: Text, *, profile: str = "default", **options: Any) -> str: ...
def explain(a: Text, b: Text, *, profile: str = "default", threshold: float | None = None,
            **options: Any) -> Explanation: ...
def profiles() -> list[str]: ...
def option_names() -> list[str]: ...
