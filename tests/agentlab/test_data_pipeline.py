"""The synthetic data pipeline (issue: generation, verification, interleaving) and LoRA
training mechanics, on tiny sizes: every category, real tools, replay, split, packing."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from agentlab.data.bank import DISEASES
from agentlab.data.generator import Holdout
from agents.models import Conversation
from agents.tools import REGISTRY
from agents.trajectory import parse_caller, parse_planner, validate_trajectory
from health.models import Appointment, Slot, Specialist

pytestmark = pytest.mark.django_db(transaction=False)

CATEGORIES = {"general", "counter", "negative", "dietician", "soft_sos", "hard_sos_start", "hard_sos_end", "reminder"}


def read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, django_db_setup, django_db_blocker):
    out = tmp_path_factory.mktemp("agent-data")
    with django_db_blocker.unblock():
        call_command(
            "generate_agent_data", "--out", str(out), "--train", "24", "--test-per-category", "2", "--seed", "3"
        )
    return out


def test_every_category_is_generated_verified_and_written(dataset):
    report = json.loads((dataset / "report.json").read_text())
    trajectories = read(dataset / "trajectories.jsonl")
    assert {t["category"] for t in trajectories if t["split"] == "test"} == CATEGORIES
    assert report["kept"] == len(trajectories) and report["kept"] + report["dropped_total"] == 24 + 2 * 8
    for row in trajectories:
        states = validate_trajectory(row)  # the seed paper's §6.1.1 format
        assert states[-1]["from"] == "planner" and states[-1]["value"]["action"] == "<END>"


def test_observations_come_from_the_real_tools(dataset):
    for row in read(dataset / "trajectories.jsonl"):
        states = row["interaction_trajectory"]
        for previous, state in itertools.pairwise(states):
            if state["from"] == "observation":
                assert previous["from"] == "caller" and previous["value"]["tool"] in REGISTRY
                assert "result" in state["value"], state
        if row["category"] in ("general", "dietician"):
            found = next(
                s["value"]["result"]
                for i, s in enumerate(states)
                if s["from"] == "observation" and states[i - 1]["value"]["tool"] == "get_available_specialists"
            )
            booked = [
                s["value"] for s in states if s["from"] == "caller" and s["value"]["tool"] == "confirm_appointment"
            ]
            assert booked[0]["parameters"]["specialist_id"] == found["specialist_id"]
            assert found["available_slot"]["time"] in booked[0]["parameters"]["appointment_time_date"]


def test_a_vague_complaint_is_asked_about_again_exactly_while_it_names_too_few_symptoms(dataset):
    from agentlab.data.flows import ENOUGH_SYMPTOMS

    counters = [row for row in read(dataset / "trajectories.jsonl") if row["category"] == "counter"]
    assert counters
    for row in counters:
        states = row["interaction_trajectory"]
        calls = [s["value"] for s in states if s["from"] == "caller"]
        first_search = next(i for i, c in enumerate(calls) if c["tool"] == "retrieve_past_complaints")
        asked = [c for c in calls[:first_search] if c["tool"] == "get_input_from_user"]
        searched = calls[first_search]["parameters"]["symptoms"].split(", ")
        if len(asked) == 1:
            assert len(searched) >= ENOUGH_SYMPTOMS
        else:
            assert len(asked) == 2
            # The planner lists what it knows before asking again: fewer than enough.
            reason = [s["value"]["reason"] for s in states if s["from"] == "planner"][1]
            listed = re.fullmatch(r"(?:Now (.*)\. One more question\.|The user adds (.*); ask once more\.)", reason)
            assert listed, reason
            assert len((listed.group(1) or listed.group(2)).split(", ")) < ENOUGH_SYMPTOMS


def test_the_training_mixture_can_be_weighted_towards_one_use_case(tmp_path):
    others = ",".join(f"{name}=0" for name in sorted(CATEGORIES - {"counter"}))

    call_command(
        "generate_agent_data",
        "--out",
        str(tmp_path),
        "--train",
        "3",
        "--test-per-category",
        "0",
        "--seed",
        "5",
        "--mix",
        f"counter=2,{others}",
    )

    assert {row["category"] for row in read(tmp_path / "trajectories.jsonl")} == {"counter"}
    assert json.loads((tmp_path / "report.json").read_text())["mix"]["counter"] == 2.0


@pytest.mark.parametrize("mix", ["counter", "counter=lots", "counter=-1", "surgery=0.2", "counter=nan"])
def test_a_malformed_mixture_is_refused_before_anything_is_generated(tmp_path, mix):
    with pytest.raises(CommandError, match="--mix"):
        call_command("generate_agent_data", "--out", str(tmp_path / "out"), "--train", "3", "--mix", mix)
    assert not (tmp_path / "out").exists()


def test_nothing_generated_is_left_in_the_database(dataset):
    assert not get_user_model().objects.filter(username__startswith="gen-").exists()
    assert not Conversation.objects.exists() and not Appointment.objects.exists()
    assert not Specialist.objects.exists() and not Slot.objects.exists()


def test_samples_interleave_each_state_with_the_trajectory_so_far(dataset):
    planner, caller = read(dataset / "planner_train.jsonl"), read(dataset / "caller_train.jsonl")
    assert planner and caller
    for row in planner:
        parse_planner(row["completion"])
        assert row["messages"][0]["role"] == "system" and row["messages"][-1]["role"] == "user"
    for row in caller:
        call = parse_caller(row["completion"])
        REGISTRY.get(call["tool"]).validate(call["parameters"])
        assert row["messages"][-1]["content"].splitlines()[-1].startswith("planner: ")
    # Each sample's prompt extends the previous one's: the trainer packs a conversation.
    by_conversation = {}
    for row in planner:
        by_conversation.setdefault(row["conversation"], []).append(row)
    for rows in by_conversation.values():
        for before, after in itertools.pairwise(rows):
            assert after["messages"][: len(before["messages"])] == before["messages"]
            assert after["messages"][len(before["messages"])]["content"] == before["completion"]


def test_the_split_holds_diseases_and_phrasings_out_of_training(dataset):
    holdout = Holdout.choose(3)
    trajectories = read(dataset / "trajectories.jsonl")
    assert holdout.diseases and holdout.templates
    train = [t for t in trajectories if t["split"] == "train"]
    assert not {t["disease"] for t in train} & holdout.diseases
    assert not {t["template"] for t in train} & holdout.templates
    unseen = [t for t in trajectories if t["unseen"]]
    assert unseen and all(t["disease"] in holdout.diseases for t in unseen)
    test_ids = {t["conversation"] for t in trajectories if t["split"] == "test"}
    assert not test_ids & {r["conversation"] for r in read(dataset / "planner_train.jsonl")}
    # every specialization keeps training diseases
    assert {d.specialization for d in DISEASES if d.name not in holdout.diseases} == {
        d.specialization for d in DISEASES
    }


def test_generation_is_deterministic_from_its_seed_whenever_it_runs(tmp_path):
    # The second run happens 400 days and 5 hours later: the world's calendar comes from the seed.
    real_now = timezone.now
    later = real_now() + dt.timedelta(days=400, hours=5, minutes=17)
    for name, clock in (("a", real_now), ("b", lambda: later)):
        with mock.patch("django.utils.timezone.now", clock):
            call_command(
                "generate_agent_data", "--out", str(tmp_path / name), "--train", "6", "--test-per-category", "1"
            )
    for name in ("planner_train", "caller_train", "trajectories", "test", "scenarios_test"):
        first = (tmp_path / "a" / f"{name}.jsonl").read_text()
        assert first and first == (tmp_path / "b" / f"{name}.jsonl").read_text()
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert report["dropped_total"] == 0


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(CommandError):
        call_command("generate_agent_data", "--out", str(tmp_path), "--train", "-1")


# --- training mechanics on a tiny model ---------------------------------------------------


def test_encode_labels_only_the_completions(tiny_model_dir):
    from transformers import AutoTokenizer

    from agentlab.training.lora import encode

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir, local_files_only=True)
    chat = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "user: I have a cough"},
        {"role": "assistant", "content": "<reason>r1</reason><action>a1</action>"},
        {"role": "user", "content": "observation: {}"},
        {"role": "assistant", "content": "<reason>r2</reason><action><END></action>"},
    ]
    _ids, labels = encode(tokenizer, chat, 4096)
    learnt = tokenizer.decode([t for t in labels if t != -100])
    assert learnt == (
        f"<reason>r1</reason><action>a1</action>{tokenizer.eos_token}"
        f"<reason>r2</reason><action><END></action>{tokenizer.eos_token}"
    )


def test_every_trained_answer_fits_the_runtime_s_generation_cap(dataset, tiny_model_dir):
    """A cap below a trained answer cuts it mid-sentence (a proposal lost its date at 64 tokens)."""
    from transformers import AutoTokenizer

    from agents.llm.local import MAX_NEW_TOKENS

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir, local_files_only=True)
    longest = {"planner": 0, "caller": 0}
    for name in ("planner_train.jsonl", "caller_train.jsonl", "test.jsonl"):
        for sample in read(dataset / name):
            tokens = len(tokenizer(sample["completion"], add_special_tokens=False)["input_ids"])
            longest[sample["role"]] = max(longest[sample["role"]], tokens)
    assert longest["planner"] > 64  # the old cap: this data has answers it would have cut
    assert all(0 < longest[role] < MAX_NEW_TOKENS[role] for role in longest)


def test_train_adapter_saves_checkpoints_and_resumes(tiny_model_dir, tmp_path, dataset):
    out = tmp_path / "adapter"
    common = ["--role", "planner", "--data", str(dataset / "planner_train.jsonl"), "--out", str(out)]
    common += ["--base-model", str(tiny_model_dir), "--batch-size", "1", "--threads", "1", "--save-every", "1"]
    call_command("train_adapter", *common, "--steps", "2", "--limit-conversations", "3")
    assert (out / "adapter_config.json").is_file() and (out / "checkpoint" / "optimizer.pt").is_file()
    assert json.loads((out / "training.json").read_text())["steps"] == 2
    call_command("train_adapter", *common, "--steps", "3", "--limit-conversations", "3", "--resume")
    info = json.loads((out / "training.json").read_text())
    assert info["steps"] == 3 and info["lora"]["r"] == 8 and info["lora"]["alpha"] == 16
    assert all(loss == loss for _, loss in info["loss_curve"])  # no NaN


def test_train_adapter_can_start_from_a_trained_adapter(tiny_model_dir, tmp_path, dataset):
    from safetensors.numpy import load_file

    common = ["--role", "planner", "--data", str(dataset / "planner_train.jsonl"), "--base-model", str(tiny_model_dir)]
    common += ["--batch-size", "1", "--threads", "1", "--limit-conversations", "3"]
    first, second = tmp_path / "first", tmp_path / "second"
    call_command("train_adapter", *common, "--steps", "2", "--out", str(first))
    with pytest.raises(CommandError, match="not a trained adapter"):
        call_command("train_adapter", *common, "--steps", "1", "--out", str(second), "--init-from", str(tmp_path))
    call_command("train_adapter", *common, "--steps", "1", "--out", str(second), "--init-from", str(first))
    info = json.loads((second / "training.json").read_text())
    assert info["steps"] == 1 and info["init_from"] == str(first)
    before = load_file(str(first / "adapter_model.safetensors"))
    after = load_file(str(second / "adapter_model.safetensors"))
    assert before.keys() == after.keys()
    # lora_B starts at zero in a new adapter; here it starts from the first run's and moves on from it.
    key = next(k for k in before if "lora_B" in k)
    assert before[key].any() and not (after[key] == before[key]).all()


def test_train_adapter_refuses_missing_or_malformed_data(tiny_model_dir, tmp_path):
    args = ["--role", "caller", "--base-model", str(tiny_model_dir), "--out", str(tmp_path / "o")]
    with pytest.raises(CommandError, match="No training data"):
        call_command("train_adapter", *args, "--data", str(tmp_path / "missing.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": [], "completion": "x", "role": "caller"}\nnot json\n')
    with pytest.raises(CommandError, match=r"bad\.jsonl: line 2: not valid JSON"):
        call_command("train_adapter", *args, "--data", str(bad))
    bad.write_text('{"messages": [], "completion": "x", "role": "caller"}\n["a list"]\n')
    with pytest.raises(CommandError, match=r"bad\.jsonl: line 2: not an SFT sample"):
        call_command("train_adapter", *args, "--data", str(bad))


def test_parallel_workers_give_the_same_conversations_as_one_process(tmp_path):
    call_command("generate_agent_data", "--out", str(tmp_path / "one"), "--train", "4", "--test-per-category", "0")
    call_command(
        "generate_agent_data",
        "--out",
        str(tmp_path / "two"),
        "--train",
        "4",
        "--test-per-category",
        "0",
        "--workers",
        "2",
    )

    def conversations(name):
        # Parsed: PostgreSQL's jsonb (the single process's database in CI) does not keep key order.
        rows = [json.loads(line) for line in (tmp_path / name / "trajectories.jsonl").read_text().splitlines()]
        return sorted(rows, key=lambda row: row["conversation"])

    assert conversations("one") == conversations("two") and len(conversations("one")) == 4
    report = json.loads((tmp_path / "two" / "report.json").read_text())
    assert report["workers"] == 2 and report["kept"] == 4 and not (tmp_path / "two" / "shards").exists()


def test_a_holdout_seed_keeps_another_seed_s_unseen_diseases_out_of_new_training_data(tmp_path):
    """GIVEN seed 3's held-out diseases and phrasings
    WHEN more training conversations come from seed 5 with --holdout-seed 3
    THEN none of them uses what seed 3 holds out, and the report names the holdout seed."""
    call_command(
        "generate_agent_data", "--out", str(tmp_path), "--train", "12", "--test-per-category", "0",
        "--seed", "5", "--holdout-seed", "3",
    )  # fmt: skip
    holdout = Holdout.choose(3)
    train = read(tmp_path / "trajectories.jsonl")
    assert train and not {t["disease"] for t in train} & holdout.diseases
    assert not {t["template"] for t in train} & holdout.templates
    report = json.loads((tmp_path / "report.json").read_text())
    assert (report["seed"], report["holdout_seed"]) == (5, 3)


def test_every_consent_answer_of_the_flows_is_a_clear_yes():
    from agentlab.data.flows import CONSENT_YES
    from agents.tools.interaction import clear_yes

    assert all(clear_yes(answer) for answer in CONSENT_YES)
