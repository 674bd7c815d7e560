"""The default backend: one local base model with transformers, planner and caller
LoRA adapters on the same base weights (CAMPHOR's parameter sharing).

One copy of the base is loaded per process (:func:`load` caches it); peft's
``set_adapter`` switches the active adapter per call, and a role without an
adapter runs the plain base with the adapters disabled. Decoding is greedy.

Prompts for consecutive steps share most of their tokens (system message,
worked example, the trajectory so far), so the key/value cache of the last
prompt is kept per role and reused up to the longest token-exact common prefix.
A cache is only ever reused under the adapter it was computed with: a LoRA
changes the keys and values.

Decoding is greedy, with guessed continuations checked in one forward pass
(agents.llm.decoding): the same tokens as plain greedy, in fewer passes. The
structured planner and the schema-constrained caller are the fallback of a
trained adapter and the way the plain base model answers (agents.llm.local).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from agents.llm import decoding, model_store
from agents.llm.base import ROLES, Role
from agents.llm.local import MAX_NEW_TOKENS, LocalBackend, T, eos_ids

# Prompts kept per role for prefix reuse: a few conversations can interleave.
PREFIX_ENTRIES = 4
# Shorter common prefixes are not worth a cache copy.
MIN_REUSE_TOKENS = 16


def torch_threads() -> int:
    """Threads for torch's CPU kernels (settings.AGENT_TORCH_THREADS, default 1)."""
    return settings.AGENT_TORCH_THREADS


@dataclass
class _Prefix:
    ids: list[int]
    cache: Any  # a DynamicCache holding exactly ``ids``


class TransformersBackend(LocalBackend):
    """Planner and caller on one loaded base model; thread-safe (one generation at a time)."""

    name = "transformers"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        adapters: Mapping[Role, str | None],
        *,
        max_new_tokens: Mapping[Role, int] = MAX_NEW_TOKENS,
        prefix_cache: bool = True,
        constrained_caller: bool = True,
        structured_planner: bool = True,
        draft_tokens: int = decoding.DRAFT_TOKENS,
    ) -> None:
        configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        super().__init__(
            tokenizer,
            eos_ids(tokenizer, configured),
            draft_tokens=draft_tokens,
            max_new_tokens=max_new_tokens,
            constrained_caller=constrained_caller,
            structured_planner=structured_planner,
        )
        self.model = model
        self.adapters: dict[Role, str | None] = {role: adapters.get(role) for role in ROLES}
        self.prefix_cache = prefix_cache
        self._prefixes: dict[str, list[_Prefix]] = {}
        # Prompt tokens the last call took from the prefix cache (the benchmark shows it).
        self.last_reused_tokens = 0

    def _trained(self, role: Role) -> bool:
        return self.adapters[role] is not None

    def _activate(self, role: Role) -> None:
        name = self.adapters[role]
        if name is None:
            return
        if self.model.active_adapter != name:
            self.model.set_adapter(name)  # ~20 ms: it walks every LoRA module

    def _context(self, role: Role):
        """Disables the adapters for a role that runs the plain base on a peft model."""
        import contextlib

        if self.adapters[role] is None and hasattr(self.model, "disable_adapter"):
            return self.model.disable_adapter()
        return contextlib.nullcontext()

    def _on_target(self, role: Role, ids: list[int], work: Callable[[decoding.Target], T]) -> T:
        """``work`` on a cache holding the longest reusable prefix; the prompt's cache is kept after."""
        cache_key = self.adapters[role] or "base"
        cache = self._reusable_cache(cache_key, ids)
        with self._context(role):
            result = work(decoding.TorchTarget(self.model, cache))
        if self.prefix_cache:
            self._remember(cache_key, ids, cache)
        return result

    def _reusable_cache(self, key: str, ids: list[int]) -> Any:
        """A fresh cache holding the longest token-exact prefix of ``ids`` seen before under ``key``."""
        from transformers import DynamicCache  # heavy, optional: loaded only when used

        best, best_length = None, 0
        for entry in self._prefixes.get(key, []) if self.prefix_cache else []:
            length = decoding.common_prefix(entry.ids, ids)
            if length > best_length:
                best, best_length = entry, length
        # At least one prompt token must go through the model to give logits.
        best_length = min(best_length, len(ids) - 1)
        if best is None or best_length < MIN_REUSE_TOKENS:
            self.last_reused_tokens = 0
            return DynamicCache(config=self.model.config)
        self.last_reused_tokens = best_length
        cache = copy.deepcopy(best.cache)
        _crop(cache, best_length)
        return cache

    def _remember(self, key: str, ids: list[int], cache: Any) -> None:
        _crop(cache, len(ids))
        entries = self._prefixes.setdefault(key, [])
        entries.insert(0, _Prefix(list(ids), cache))
        del entries[PREFIX_ENTRIES:]


def _crop(cache: Any, length: int) -> None:
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)


# --- loading, once per process ------------------------------------------------------------

_loaded: dict[tuple[str, ...], TransformersBackend] = {}
_load_lock = threading.Lock()


def load(model_dir: Path, adapters: Mapping[Role, Path | None], *, threads: int = 1) -> TransformersBackend:
    """The backend for ``model_dir`` + ``adapters``, loaded on first use and cached for the process."""
    key = (str(model_dir), *(str(adapters.get(role) or "") for role in ROLES))
    with _load_lock:
        if key not in _loaded:
            _loaded[key] = _build(model_dir, adapters, threads=threads)
        return _loaded[key]


def _build(model_dir: Path, adapters: Mapping[Role, Path | None], *, threads: int) -> TransformersBackend:
    model_store.require_ml_libraries()
    model_store.offline()
    started = time.perf_counter()
    import torch  # heavy, optional: loaded only when used
    from transformers import AutoModelForCausalLM, AutoTokenizer  # heavy, optional: loaded only when used

    torch.set_num_threads(threads)
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    if not tokenizer.chat_template:
        raise model_store.ModelNotAvailable(f"The model in {model_dir} has no chat template.")
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, local_files_only=True)
    names: dict[Role, str | None] = {}
    for role in ROLES:
        path = adapters.get(role)
        if path is None:
            names[role] = None
            continue
        from peft import PeftModel  # heavy, optional: loaded only when used

        # Every adapter goes onto the same base instance: one copy of the weights.
        if isinstance(model, PeftModel):
            model.load_adapter(str(path), adapter_name=role)
        else:
            model = PeftModel.from_pretrained(model, str(path), adapter_name=role)
        names[role] = role
    model.eval()
    backend = TransformersBackend(model, tokenizer, names)
    backend.load_seconds = time.perf_counter() - started
    return backend


def configured() -> TransformersBackend:
    """The backend that the settings describe (AGENT_BASE_MODEL, AGENT_*_ADAPTER, AGENT_TORCH_THREADS).

    Raises ModelNotAvailable, before anything heavy is imported, when the
    libraries, the model directory or an adapter are missing.
    """
    model_store.require_ml_libraries()
    return load(model_store.base_model_dir(), model_store.adapter_dirs(), threads=torch_threads())
