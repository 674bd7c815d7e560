"""Demo accounts (published passwords) exist only when asked for: DEMO on (``make run`` turns it
on), never on an HTTPS deployment; their passwords are never printed beside the patient's records."""

from __future__ import annotations

import io

from django.contrib.auth import get_user_model
from django.core.management import call_command

from health import demo_data as data
from health.models import Ambulance, EmergencyContact, Specialist
from tests.security.production import PRODUCTION_ENV, manage


def _seed(settings, tmp_path, monkeypatch, *, demo: bool) -> str:
    settings.DEMO = demo
    settings.DATA_DIR = tmp_path
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    monkeypatch.delenv("DEMO_ADMIN_PASSWORD", raising=False)
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_demo_is_off_by_default(settings):
    assert settings.DEMO is False


def test_with_demo_off_no_account_is_created(db, settings, tmp_path, monkeypatch):
    printed = _seed(settings, tmp_path, monkeypatch, demo=False)

    assert not get_user_model().objects.exists()
    assert Specialist.objects.exists() and Ambulance.objects.exists()
    assert "DEMO is off: no demo accounts were created" in printed
    assert data.DEMO_PASSWORD not in printed and data.ADMIN_PASSWORD not in printed
    assert not (tmp_path / "demo_device_token").exists()


def test_with_demo_on_the_accounts_exist_and_only_sign_in_details_are_printed(db, settings, tmp_path, monkeypatch):
    printed = _seed(settings, tmp_path, monkeypatch, demo=True)

    demo = get_user_model().objects.get(username=data.DEMO_USERNAME)
    assert f"{data.DEMO_USERNAME} / {data.DEMO_PASSWORD}" in printed
    personal = [demo.first_name, demo.last_name, demo.profile.phone, demo.profile.home_address]
    personal += [value for c in EmergencyContact.objects.filter(user=demo) for value in (c.name, c.phone)]
    assert all(personal), personal
    for value in personal:
        assert value not in printed, f"seed_demo printed {value!r} beside the passwords"


def test_demo_on_an_https_deployment_refuses_to_start(tmp_path):
    finished = manage("check", data_dir=tmp_path, env={**PRODUCTION_ENV, "DEMO": "true"})

    assert finished.returncode != 0
    assert "DEMO=true creates accounts with published passwords" in finished.stderr


def test_production_settings_seed_no_account(tmp_path):
    """``seed_demo`` as docker-compose runs it, under production settings: no account, no password."""
    assert manage("migrate", "--noinput", "-v", "0", data_dir=tmp_path, env=PRODUCTION_ENV).returncode == 0

    finished = manage("seed_demo", "--days", "1", data_dir=tmp_path, env=PRODUCTION_ENV)

    assert finished.returncode == 0, finished.stderr
    assert "no demo accounts were created" in finished.stdout
    assert data.DEMO_PASSWORD not in finished.stdout
    count = "from django.contrib.auth.models import User; print(User.objects.count())"
    assert manage("shell", "--no-imports", "-c", count, data_dir=tmp_path, env=PRODUCTION_ENV).stdout.strip() == "0"
