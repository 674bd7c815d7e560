"""docker-compose.yml is valid and wires the services the deployment needs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose_config() -> dict:
    binary = shutil.which("docker-compose")
    assert binary, "docker-compose is not installed: run `make system` (scripts/setup_system.sh)"
    result = subprocess.run(
        [binary, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)


def test_compose_config_passes_without_any_env_file():
    config = compose_config()
    assert set(config["services"]) == {"web", "worker", "ocr-worker", "beat", "postgres", "redis"}


def test_every_service_has_a_healthcheck_and_the_app_waits_for_healthy_backends():
    services = compose_config()["services"]
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no healthcheck"
    for name in ("web", "worker", "beat"):
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"


def test_the_app_services_read_their_settings_from_the_environment():
    services = compose_config()["services"]
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"].startswith("postgres://")
        assert environment["REDIS_URL"] == "redis://redis:6379/0"
        for key in ("SECRET_KEY", "ALLOWED_HOSTS", "TWILIO_ACCOUNT_SID", "AGENT_BASE_MODEL", "AGENT_BACKEND"):
            assert key in environment, f"{name} lacks {key}"


def test_data_survives_container_restarts_in_named_volumes():
    config = compose_config()
    assert {"app-data", "postgres-data", "redis-data"} <= set(config["volumes"])
