"""What is "everything tied to an account": every row that leads to the user through foreign keys.

Found from the models themselves rather than listed by hand, so a table added later (by any app,
the Action Manager's conversations included, without ``health`` importing it) is exported and
erased without anyone remembering to add it here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

# Apps whose tables hold patients' data. Django's own (sessions, admin log), django-axes and the
# audit log are bookkeeping about accounts, handled by ``erase`` on their own terms.
PATIENT_DATA_APPS = ("health", "agents")
# Columns never handed out: a device token's hash is a credential, not the patient's data.
SECRET_FIELDS = frozenset({"token_hash", "password"})
# How many foreign keys away from the user a row may be (dose event -> reminder -> medication).
MAX_HOPS = 3


@dataclass(frozen=True)
class OwnedModel:
    model: type[models.Model]
    # The lookup from the model to its user, e.g. "user" or "alert__user".
    path: str

    @property
    def label(self) -> str:
        return self.model._meta.label

    def rows(self, user) -> models.QuerySet:
        return self.model._default_manager.filter(**{self.path: user}).order_by("pk")


def owned_models() -> list[OwnedModel]:
    """Every model of the patient-data apps that leads to a user, with its shortest path there."""
    user_model = get_user_model()
    candidates = [m for label in PATIENT_DATA_APPS for m in apps.get_app_config(label).get_models()]
    paths: dict[type[models.Model], str] = {}
    frontier: dict[type[models.Model], str] = {}
    for model in candidates:
        for field in _owning_fields(model):
            if field.related_model is user_model:
                frontier.setdefault(model, field.name)
    for _ in range(MAX_HOPS):
        paths.update(frontier)
        following: dict[type[models.Model], str] = {}
        for model in candidates:
            if model in paths:
                continue
            for field in _owning_fields(model):
                if field.related_model in frontier:
                    following.setdefault(model, f"{field.name}__{frontier[field.related_model]}")
        if not following:
            break
        frontier = following
    return [OwnedModel(model, path) for model, path in sorted(paths.items(), key=lambda item: item[0]._meta.label)]


def _owning_fields(model: type[models.Model]) -> Iterator[models.ForeignKey]:
    # Only a key whose deletion cascades makes the row part of the owner: a SET_NULL link (an
    # appointment's conversation) is a reference, not ownership.
    for field in model._meta.get_fields():
        if field.concrete and (field.many_to_one or field.one_to_one):
            if field.remote_field.on_delete is models.CASCADE:
                yield field
