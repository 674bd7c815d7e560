from agentlab import shards


def test_workers_share_the_cores_out(monkeypatch):
    monkeypatch.setattr(shards.os, "cpu_count", lambda: 4)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")

    env = shards.worker_environment(2)

    assert env["OMP_NUM_THREADS"] == "2" and env["TOKENIZERS_PARALLELISM"] == "false"
    assert env["MKL_NUM_THREADS"] == "3"  # a setting the user made is kept
    assert shards.worker_environment(8)["OMP_NUM_THREADS"] == "1"
