"""``manage.py check --deploy`` is clean under the production settings docs/configuration.md gives."""

from __future__ import annotations

from tests.security.production import PRODUCTION_ENV, manage


def test_check_deploy_finds_nothing_under_production_settings(tmp_path):
    finished = manage("check", "--deploy", "--fail-level", "DEBUG", data_dir=tmp_path, env=PRODUCTION_ENV)

    assert finished.returncode == 0, finished.stderr
    assert "System check identified no issues (0 silenced)." in finished.stdout


def test_without_https_settings_the_check_complains(tmp_path):
    """The control: the same check does fail when a deployment forgets HTTPS."""
    forgetful = {**PRODUCTION_ENV, "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false"}

    finished = manage("check", "--deploy", "--fail-level", "WARNING", data_dir=tmp_path, env=forgetful)

    assert finished.returncode != 0
    assert "security.W008" in finished.stderr  # SECURE_SSL_REDIRECT
    assert "security.W012" in finished.stderr  # SESSION_COOKIE_SECURE


def test_the_proxy_header_is_trusted_only_when_asked(tmp_path):
    show = (
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(getattr(settings, 'SECURE_PROXY_SSL_HEADER', None))",
    )

    assert manage(*show, data_dir=tmp_path).stdout.strip() == "None"
    trusted = manage(*show, data_dir=tmp_path, env=PRODUCTION_ENV).stdout.strip()
    assert trusted == "('HTTP_X_FORWARDED_PROTO', 'https')"
