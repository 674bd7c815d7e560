"""Draft-and-verify greedy decoding (agents.llm.decoding): same tokens as plain greedy, fewer passes."""

from __future__ import annotations

import pytest

from agents.llm import decoding
from agents.llm.base import BackendTimeout


def test_lookup_continues_the_latest_earlier_match_of_the_tail():
    sequence = [5, 6, 7, 8, 9, 1, 5, 6, 7, 2, 3, 5, 6]
    # "5 6" occurred at 6 (followed by 7 2 3 ...) and at 0; the latest earlier one wins.
    assert decoding.lookup(sequence, [], 3) == [7, 2, 3]


def test_lookup_never_matches_the_tail_with_itself_and_falls_back_to_history():
    assert decoding.lookup([1, 2, 3], [], 4) == []
    assert decoding.lookup([1, 2, 3], [[9, 2, 3, 4, 5]], 4) == [4, 5]


def test_lookup_prefers_the_longest_ngram():
    sequence = [1, 2, 3, 40, 9, 3, 50, 1, 2, 3]
    # The 4-gram tail never occurred; the 3-gram "1 2 3" did, at the start.
    assert decoding.lookup(sequence, [], 2) == [40, 9]


def _model(tiny_model_dir):
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32, local_files_only=True)
    return model.eval()


def _plain_greedy(model, prompt, max_new_tokens):
    import torch

    with torch.inference_mode():
        output = model.generate(
            input_ids=torch.tensor([prompt]),
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            eos_token_id=None,
            pad_token_id=0,
        )
    return output[0, len(prompt) :].tolist()


def _until_stuck(tokens):
    """Plain greedy tokens up to where they are stuck in a loop: there decoding stops."""
    return next((tokens[:n] for n in range(1, len(tokens) + 1) if decoding.looping(tokens[:n])), tokens)


@pytest.mark.parametrize("draft_tokens", [0, 4, 12])
def test_drafted_decoding_gives_exactly_the_plain_greedy_tokens(tiny_model_dir, draft_tokens):
    from transformers import DynamicCache

    model = _model(tiny_model_dir)
    prompt = list(range(100, 160)) * 2
    stats = decoding.DecodeStats()
    tokens = decoding.greedy(
        decoding.TorchTarget(model, DynamicCache(config=model.config)),
        prompt,
        max_new_tokens=48,
        done=lambda tokens: False,
        draft_tokens=draft_tokens,
        stats=stats,
    )
    assert tokens == _until_stuck(_plain_greedy(model, prompt, 48))
    if draft_tokens:
        # The random model falls into a loop that the lookup predicts: fewer passes than tokens.
        assert stats.accepted > 0
        assert stats.forward_passes < len(tokens)
    else:
        assert stats.forward_passes == len(tokens)


def test_decoding_reuses_a_cache_holding_a_prefix_and_leaves_prompt_plus_answer(tiny_model_dir):
    import torch
    from transformers import DynamicCache

    model = _model(tiny_model_dir)
    prompt = list(range(200, 240))
    cache = DynamicCache(config=model.config)
    with torch.inference_mode():
        model(input_ids=torch.tensor([prompt[:30]]), past_key_values=cache, use_cache=True)
    target = decoding.TorchTarget(model, cache)
    tokens = decoding.greedy(target, prompt, max_new_tokens=20, done=lambda tokens: False)
    assert tokens == _until_stuck(_plain_greedy(model, prompt, 20))
    assert len(prompt) <= cache.get_seq_length() < len(prompt) + len(tokens)


def test_decoding_stops_when_done_and_at_the_deadline(tiny_model_dir):
    from transformers import DynamicCache

    model = _model(tiny_model_dir)
    target = decoding.TorchTarget(model, DynamicCache(config=model.config))
    tokens = decoding.greedy(target, [1, 2, 3, 4], max_new_tokens=50, done=lambda t: len(t) >= 5)
    assert len(tokens) == 5
    with pytest.raises(BackendTimeout):
        target = decoding.TorchTarget(model, DynamicCache(config=model.config))
        decoding.greedy(target, [1, 2, 3], max_new_tokens=50, done=lambda t: False, deadline=0)


def test_an_answer_s_first_tokens_are_guessed_from_the_role_s_past_answers():
    history = [[5, 6, 7, 8], [5, 9, 1]]
    assert decoding.continuation([], history, 3) == [5, 6, 7]  # the latest answer's start
    assert decoding.continuation([5, 9], history, 3) == [1]
    assert decoding.continuation([5, 6, 7, 8], history, 3) == []  # nothing longer starts so
    assert decoding.continuation([4], history, 3) == []


def test_an_answer_stuck_in_a_loop_is_recognised():
    stuck = [7, 1, 2] + [5, 6] * decoding.LOOP_REPEATS  # "about fatigue, fatigue, fatigue, ..."
    assert decoding.looping(stuck)
    assert not decoding.looping(stuck[:-1])  # one repeat short
    assert not decoding.looping([5, 6] * (decoding.LOOP_REPEATS - 1))
    assert decoding.looping([9] * decoding.LOOP_REPEATS)
    # A call that repeats structure but not a unit back to back is fine.
    assert not decoding.looping([1, 2, 3, 4, 1, 2, 3, 5] * 4)
