"""``manage.py seed_demo``: add the demo patient, operator, specialists
directory and ambulances (idempotent; see ``health.management.demo``).

The demo accounts have published passwords, so they are created only when DEMO is on (``make run``
turns it on); otherwise only the directory and the ambulances are added."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from health import demo_data as data
from health.management.demo import ADMIN_PASSWORD_ENV, DEMO_PASSWORD_ENV, SeedResult, seed_demo, seed_shared
from health.models import Ambulance, Slot, Specialist, Specialization


class Command(BaseCommand):
    help = "Seed demo data (patient, operator, specialists with 30 days of slots, ambulances). Safe to re-run."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days", type=int, default=data.SLOT_DAYS, help="Days of bookable slots from today (default 30)."
        )

    def handle(self, *args, days: int, **options) -> None:
        if not settings.DEMO:
            result = seed_shared(days=days)
            self._report(result, [
                "DEMO is off: no demo accounts were created. Set DEMO=true for the demo patient and operator.",
            ])  # fmt: skip
            return
        result = seed_demo(days=days)
        demo_password = _password(result.demo_password, data.DEMO_PASSWORD, DEMO_PASSWORD_ENV)
        admin_password = _password(result.admin_password, data.ADMIN_PASSWORD, ADMIN_PASSWORD_ENV)
        # Sign-in details only: no name, phone number or other record of the patient beside them.
        self._report(result, [
            f"Demo patient: {data.DEMO_USERNAME} / {demo_password}",
            f"Operator: {data.ADMIN_USERNAME} / {admin_password} at /admin/",
            f"Watch token ({data.DEVICE_NAME}): {result.token_file}"
            + (" (new token written)" if result.token_written else " (unchanged)"),
        ])  # fmt: skip

    def _report(self, result: SeedResult, lines: list[str]) -> None:
        added = ", ".join(f"{count} {kind}" for kind, count in result.created.items() if count) or "nothing"
        self.stdout.write(self.style.SUCCESS(f"Demo data ready; added {added}."))
        self.stdout.write(
            f"Directory: {Specialization.objects.count()} specializations, {Specialist.objects.count()} specialists, "
            f"{Slot.objects.filter(starts_at__gt=timezone.now()).count()} future slots; "
            f"{Ambulance.objects.count()} ambulances."
        )
        for line in lines:
            self.stdout.write(line)


def _password(set_now: str | None, default: str, env_name: str) -> str:
    # A password from the environment is the operator's secret: name its source, never echo it.
    if set_now is not None and set_now != default:
        return f"(password from ${env_name})"
    if set_now is None:
        return f"{default} (unless changed since; set ${env_name} to reset)"
    return default
