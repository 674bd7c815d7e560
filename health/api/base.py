"""What every per-user endpoint shares.

- ``OwnedQuerysetMixin``: every query is filtered by ``request.user``, so another
  user's row is indistinguishable from a missing one (404).
- ``OwnedPrimaryKeyRelatedField``: a foreign key in a payload accepts only the
  requesting user's own rows; another user's id gets the same "does not exist"
  error as an id that was never used, so ids leak nothing.
- ``ListFilterMixin``: a list narrowed by query parameters that a serializer
  validates (400 on a bad one), as every payload is.
- ``Conflict`` and ``domain_errors``: a refused state change (slot taken,
  transition not allowed) answers 409 with the model's own message;
  ``sos_errors`` does the same for ``health.sos``'s refusals (and 429 for its
  hourly limit).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from rest_framework import exceptions, serializers, status

from health import sos
from health.models import InvalidTransition, SlotUnavailable
from health.validators import normalize_e164


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state of this resource."
    default_code = "conflict"


class TooManySos(exceptions.APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = "Too many SOS alerts in the last hour."
    default_code = "sos_rate_limited"


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn the domain's refusals into 409 answers that carry their message."""
    try:
        yield
    except (SlotUnavailable, InvalidTransition) as exc:
        raise Conflict(str(exc)) from exc


@contextmanager
def sos_errors() -> Iterator[None]:
    """A refused SOS step answers 409, the hourly limit 429, each with its message."""
    try:
        yield
    except sos.EndReasonMissing as exc:
        raise exceptions.ValidationError({"reason": [str(exc)]}) from exc
    except sos.SosRateLimited as exc:
        raise TooManySos(str(exc)) from exc
    except sos.SosRefused as exc:
        raise Conflict(str(exc)) from exc


class OwnedQuerysetMixin:
    """For views over rows that belong to one user.

    ``owner_field`` is the lookup from the model to its user; the queryset is
    always narrowed to ``request.user``, and created rows are saved for them.
    """

    owner_field: str = "user"

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()  # type: ignore[misc]
        if getattr(self, "swagger_fake_view", False):
            # Schema generation runs without a user; it only needs the model.
            return queryset.none()
        return queryset.filter(**{self.owner_field: self.request.user})  # type: ignore[attr-defined]

    def perform_create(self, serializer: serializers.BaseSerializer) -> None:
        serializer.save(user=self.request.user)  # type: ignore[attr-defined]


class ListFilterMixin:
    """For list views narrowed by query parameters: ``list_filter`` is a serializer
    of the parameters, ``filter_list`` narrows the queryset by its validated data.

    django-filter would normally do this; it is not a dependency, and a plain
    serializer validates the parameters (400 with per-field messages) and feeds
    the schema (``extend_schema(parameters=[...])``) the way every payload does.
    """

    list_filter: type[serializers.Serializer]

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()  # type: ignore[misc]
        if self.action != "list":  # type: ignore[attr-defined]
            return queryset
        params = self.list_filter(data=self.request.query_params)  # type: ignore[attr-defined]
        params.is_valid(raise_exception=True)
        return self.filter_list(queryset, params.validated_data)

    def filter_list(self, queryset: QuerySet, wanted: dict) -> QuerySet:
        """Each validated parameter as a field lookup of the same name; views whose parameters
        are not plain fields (a date range, a name to normalise) narrow the queryset themselves."""
        return queryset.filter(**wanted)


class OwnedPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """A primary key that resolves only among the requesting user's rows."""

    def __init__(self, *, owner_field: str = "user", **kwargs) -> None:
        self.owner_field = owner_field
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> object:
        # A batch names the same device in every item; resolve it once.
        cache: dict[str, object] = self.__dict__.setdefault("_resolved", {})
        key = str(data)
        if key not in cache:
            cache[key] = super().to_internal_value(data)
        return cache[key]

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return queryset.none()
        return queryset.filter(**{self.owner_field: user})


class E164PhoneField(serializers.CharField):
    """A phone number accepted in any common spelling with its country code
    (``+1 415-555-0123``) and returned in E.164 (``+14155550123``)."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("max_length", 32)
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> str:
        # A blank value (where allowed) never reaches here: CharField returns it early.
        text = super().to_internal_value(data)
        try:
            return normalize_e164(text)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc


class StringListField(serializers.ListField):
    """A JSON list of short, non-blank strings (conditions, allergies, symptoms)."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("child", serializers.CharField(max_length=120, allow_blank=False))
        kwargs.setdefault("max_length", 100)
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
