"""Deleting an account and everything tied to it, in one transaction.

Erased: every row ``records.owned_models`` finds (profile, contacts, devices, vitals, symptoms,
appointments, alerts, prescriptions and their photos, medications, reminders, doses, messages,
notifications, reports, conversations), the audit log's entries about those rows (they quote
them), and django-axes' sign-in records of the username. What this account did to other
patients' records as an operator stays in the audit log, without its name or email.
"""

from __future__ import annotations

import logging

from auditlog import get_logentry_model
from auditlog.context import disable_auditlog
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.contenttypes.models import ContentType
from django.core.files.storage import default_storage
from django.db import models, transaction

from health.models import Alert, Ambulance, Dispatch
from health.privacy.records import owned_models

logger = logging.getLogger(__name__)


class NotErased(Exception):
    """The account was left as it was; the message says why, for the patient."""


class WrongPassword(NotErased):
    pass


def erase_account(user, password: str) -> None:
    """Delete ``user`` and all of their data if ``password`` is theirs; all or nothing.

    Raises ``NotErased`` (nothing changed) for a wrong password or while an SOS is under way.
    """
    if not password or not user.check_password(password):
        raise WrongPassword("That is not your password. Nothing was deleted.")
    delete_account(user)


def delete_account(user) -> None:
    """Delete ``user`` and all of their data, all or nothing: the patient's own request (after
    ``erase_account`` checked the password) or an operator deleting the user in the admin.

    Raises ``NotErased`` (nothing changed) while an SOS is under way: the ambulance and the
    contacts are being told, and their replies need the account.
    """
    user_id = user.pk
    with transaction.atomic():
        if sos_under_way(user, lock=True):
            raise NotErased("An SOS is under way. End it on the SOS page first. Nothing was deleted.")
        owned = owned_models()
        files = _stored_files(user, owned)
        _release_ambulances(user)
        _forget_audit_entries(user, owned)
        for model in (AccessAttempt, AccessFailureLog, AccessLog):
            model.objects.filter(username=user.get_username()).delete()
        # The deletion itself would write an audit entry per row, each quoting the row.
        with disable_auditlog():
            user.delete()
        # Files go only once the rows are gone for good: a rolled-back deletion keeps its photos.
        transaction.on_commit(lambda: _delete_files(files))
    logger.info("account %s deleted with all its records", user_id)


def sos_under_way(user, *, lock: bool = False) -> bool:
    """Whether the user's hard SOS is counting down or open (its messages still going out)."""
    alerts = Alert.objects.filter(user=user, kind=Alert.Kind.HARD, state__in=Alert.ACTIVE_STATES)
    return (alerts.select_for_update() if lock else alerts).exists()


def _stored_files(user, owned) -> list[str]:
    names: list[str] = []
    for entry in owned:
        for field in entry.model._meta.concrete_fields:
            if isinstance(field, models.FileField):
                names += [name for name in entry.rows(user).values_list(field.attname, flat=True) if name]
    return names


def _release_ambulances(user) -> None:
    """An ambulance still held by one of these alerts would never be offered to anyone again."""
    held = Dispatch.objects.filter(alert__user=user, released_at__isnull=True).values("ambulance_id")
    Ambulance.objects.filter(pk__in=held).update(available=True)


def _forget_audit_entries(user, owned) -> None:
    log_entry = get_logentry_model()
    for entry in owned:
        content_type = ContentType.objects.get_for_model(entry.model)
        log_entry.objects.filter(content_type=content_type, object_id__in=entry.rows(user).values("pk")).delete()
    log_entry.objects.filter(actor=user).update(actor=None, actor_email=None)


def _delete_files(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)
