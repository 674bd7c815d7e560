"""LoRA fine-tuning of the planner or caller adapter (seed paper §7: r=8, alpha=16).

Loss is on the completions only. Samples of one conversation are packed: in
the adapters' chat format each sample's prompt is the previous sample's prompt
plus its completion and the turns after it, so the conversation's last sample,
with every assistant turn labelled, trains all of them in one forward pass (the
same gradients as one sequence per sample, several times cheaper on a CPU).

Checkpoints (adapter, optimizer, scheduler, step, data order) go to
``<out>/checkpoint`` every ``save_every`` steps and when the time budget ends;
``resume=True`` continues from there. The finished adapter is written to
``<out>`` with ``training.json`` (data, steps, wall time, loss curve).
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agentlab.jsonl import read_jsonl
from agents.llm import model_store

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class TrainingError(Exception):
    """Bad training input (missing file, malformed line, wrong role)."""


@dataclass
class Config:
    role: str
    data: Path
    out: Path
    base_model: Path
    steps: int = 300
    batch_size: int = 4  # sequences per optimizer step (gradient accumulation)
    learning_rate: float = 1e-3
    warmup_steps: int = 10
    rank: int = 8
    alpha: int = 16
    dropout: float = 0.05
    max_tokens: int = 1536
    seed: int = 7
    threads: int = 2
    save_every: int = 50
    max_minutes: float | None = None
    resume: bool = False
    # Start from these trained LoRA weights (a fresh optimizer and schedule) instead of a new adapter.
    init_from: Path | None = None
    limit_conversations: int | None = None


@dataclass
class State:
    step: int = 0
    sequences_seen: int = 0
    tokens_seen: int = 0
    seconds: float = 0.0
    losses: list[tuple[int, float]] = field(default_factory=list)


# --- data ------------------------------------------------------------------------------------


def read_samples(path: Path, role: str) -> list[dict[str, Any]]:
    missing = f"No training data at {path}: run `python manage.py generate_agent_data` first."
    try:
        numbered = list(read_jsonl(path, error=TrainingError, missing=missing))
    except TrainingError as exc:
        raise TrainingError(str(exc) if not path.is_file() else f"{path}: {exc}") from exc
    rows = []
    for number, row in numbered:
        where = f"{path}: line {number}"
        if not isinstance(row, dict) or "messages" not in row or "completion" not in row:
            raise TrainingError(f"{where}: not an SFT sample (it needs 'messages' and 'completion').")
        if row.get("role", role) != role:
            raise TrainingError(f"{where}: a {row.get('role')} sample in the {role} data.")
        if not isinstance(row["messages"], list) or not isinstance(row["completion"], str):
            raise TrainingError(f"{where}: 'messages' must be a list and 'completion' a string.")
        rows.append(row)
    if not rows:
        raise TrainingError(f"{path} holds no samples.")
    return rows


def pack(rows: Iterable[dict[str, Any]]) -> list[list[dict[str, str]]]:
    """Chats with every trained completion as an assistant turn, one per conversation where possible."""
    by_conversation: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_conversation[row.get("conversation") or row.get("id") or str(id(row))].append(row)
    chats = []
    for samples in by_conversation.values():
        samples.sort(key=lambda row: len(row["messages"]))
        last = samples[-1]
        full = [*last["messages"], {"role": "assistant", "content": last["completion"]}]
        packed = True
        for sample in samples[:-1]:
            size = len(sample["messages"])
            if full[:size] != sample["messages"] or full[size] != {
                "role": "assistant",
                "content": sample["completion"],
            }:
                packed = False
                break
        if packed:
            chats.append(full)
        else:  # not a prefix chain: one sequence per sample
            chats += [[*s["messages"], {"role": "assistant", "content": s["completion"]}] for s in samples]
    return chats


def encode(tokenizer: Any, chat: list[dict[str, str]], max_tokens: int) -> tuple[list[int], list[int]] | None:
    """Token ids and labels (-100 outside assistant turns) of one chat; None if it has nothing to learn."""
    text = tokenizer.apply_chat_template(chat, tokenize=False)
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
    spans: list[tuple[int, int]] = []
    cursor = 0
    end_marker = getattr(tokenizer, "eos_token", None) or ""
    for message in chat:
        start = text.find(message["content"], cursor)
        if start == -1:
            raise TrainingError("the chat template changed a message's text; cannot find the completion spans")
        stop = start + len(message["content"])
        cursor = stop
        if message["role"] == "assistant":
            # The end-of-turn token is learnt too: that is how the model stops.
            marker = text.find(end_marker, stop) if end_marker else -1
            spans.append((start, marker + len(end_marker) if marker == stop else stop))
    labels = []
    for token, (a, b) in zip(ids, offsets, strict=True):
        inside = any(a >= s and b <= e and b > a for s, e in spans)
        labels.append(token if inside else -100)
    ids, labels = ids[:max_tokens], labels[:max_tokens]
    if all(label == -100 for label in labels):
        return None
    return ids, labels


# --- training ----------------------------------------------------------------------------------


def train(config: Config, *, log=print) -> State:
    # torch, peft and transformers load here, when training starts: heavy, and only this needs them.
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model_store.offline()
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(config.base_model, local_files_only=True)
    rows = read_samples(config.data, config.role)
    chats = pack(rows)
    random.Random(config.seed).shuffle(chats)
    if config.limit_conversations:
        chats = chats[: config.limit_conversations]
    encoded = [e for e in (encode(tokenizer, chat, config.max_tokens) for chat in chats) if e is not None]
    if not encoded:
        raise TrainingError("No sample has a completion to learn.")
    log(
        f"{config.role}: {len(rows):,} samples packed into {len(encoded):,} sequences "
        f"({sum(len(ids) for ids, _ in encoded):,} tokens, device {device})"
    )
    model = AutoModelForCausalLM.from_pretrained(config.base_model, dtype=torch.float32, local_files_only=True)
    checkpoint = config.out / "checkpoint"
    state = State()
    if config.resume and (checkpoint / "adapter_config.json").is_file():
        model = PeftModel.from_pretrained(model, str(checkpoint), is_trainable=True)
        saved = json.loads((checkpoint / "state.json").read_text())
        state = State(**{**saved, "losses": [tuple(x) for x in saved["losses"]]})
        log(f"resuming from step {state.step}")
    elif config.init_from is not None:
        if not (config.init_from / "adapter_config.json").is_file():
            raise TrainingError(f"{config.init_from} is not a trained adapter (no adapter_config.json).")
        model = PeftModel.from_pretrained(model, str(config.init_from), is_trainable=True)
        log(f"starting from the adapter in {config.init_from}")
    else:
        lora = LoraConfig(
            r=config.rank,
            lora_alpha=config.alpha,
            lora_dropout=config.dropout,
            target_modules=list(LORA_TARGETS),
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, lora)
    model.to(device)
    model.train()
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=config.learning_rate, weight_decay=0.0)

    def schedule(step: int) -> float:
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
        return max(0.05, 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    if config.resume and (checkpoint / "optimizer.pt").is_file():
        saved = torch.load(checkpoint / "optimizer.pt", map_location=device)
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])

    from tqdm import tqdm  # heavy, optional: loaded only when used

    progress = tqdm(total=config.steps, initial=state.step, desc=f"train {config.role}", file=sys.stderr)
    started = time.perf_counter() - state.seconds
    # The budget is this run's: a resumed run gets max_minutes more.
    budget_end = time.perf_counter() + config.max_minutes * 60 if config.max_minutes else None
    order = list(range(len(encoded)))
    cursor = state.sequences_seen
    while state.step < config.steps:
        total_loss, total_tokens = 0.0, 0
        optimizer.zero_grad()
        for _ in range(config.batch_size):
            epoch, position = divmod(cursor, len(order))
            if position == 0:
                random.Random(config.seed + epoch).shuffle(order)
            ids, labels = encoded[order[position]]
            cursor += 1
            loss, learnt = completion_loss(model, ids, labels, device)
            loss.backward()
            total_loss += loss.item()
            total_tokens += learnt
            state.tokens_seen += len(ids)
        for parameter in parameters:
            if parameter.grad is not None:
                parameter.grad /= max(1, total_tokens)
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        scheduler.step()
        state.step += 1
        state.sequences_seen = cursor
        state.seconds = time.perf_counter() - started
        loss = total_loss / max(1, total_tokens)
        state.losses.append((state.step, round(loss, 4)))
        progress.set_postfix(loss=f"{loss:.3f}", tok_s=f"{state.tokens_seen / max(state.seconds, 1e-9):.0f}")
        progress.update(1)
        out_of_time = budget_end is not None and time.perf_counter() >= budget_end
        if state.step % config.save_every == 0 or out_of_time or state.step == config.steps:
            _save_checkpoint(model, optimizer, scheduler, state, checkpoint)
        if out_of_time:
            log(f"time budget reached at step {state.step}")
            break
    progress.close()
    _save_final(model, config, state, len(rows), len(encoded))
    return state


def completion_loss(model, ids: list[int], labels: list[int], device: str):
    """Summed next-token loss over the labelled positions, and their count.

    The LM head (a 49k-word vocabulary: a fifth of the model's compute per
    token) runs only where a completion token is predicted, not over the
    whole prompt as ``model(labels=...)`` would.
    """
    import torch  # heavy, optional: loaded only when used

    inner = model.get_base_model()
    hidden = inner.model(input_ids=torch.tensor([ids], device=device)).last_hidden_state[0]
    targets = torch.tensor(labels[1:], device=device)
    positions = (targets != -100).nonzero(as_tuple=True)[0]
    logits = inner.lm_head(hidden[positions])
    loss = torch.nn.functional.cross_entropy(logits.float(), targets[positions], reduction="sum")
    return loss, int(positions.numel())


def _save_checkpoint(model, optimizer, scheduler, state: State, checkpoint: Path) -> None:
    import torch  # heavy, optional: loaded only when used

    checkpoint.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(checkpoint))
    torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, checkpoint / "optimizer.pt")
    (checkpoint / "state.json").write_text(json.dumps(asdict(state)) + "\n")


def _save_final(model, config: Config, state: State, samples: int, sequences: int) -> None:
    config.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(config.out))
    info = {
        "role": config.role,
        "data": str(config.data),
        "samples": samples,
        "sequences": sequences,
        "steps": state.step,
        "batch_size": config.batch_size,
        "learning_rate": config.learning_rate,
        "lora": {"r": config.rank, "alpha": config.alpha, "dropout": config.dropout, "targets": list(LORA_TARGETS)},
        "tokens_seen": state.tokens_seen,
        "wall_seconds": round(state.seconds, 1),
        "seed": config.seed,
        "init_from": str(config.init_from) if config.init_from else None,
        "threads": config.threads,
        "loss_curve": state.losses[:: max(1, len(state.losses) // 50)] + state.losses[-1:],
    }
    (config.out / "training.json").write_text(json.dumps(info, indent=2) + "\n")
