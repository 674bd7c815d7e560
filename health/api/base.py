"""What every per-user endpoint shares.

- ``OwnedQuerysetMixin``: every query is filtered by ``request.user``, so another
  user's row is indistinguishable from a missing one (404).
- ``OwnedPrimaryKeyRelatedField``: a foreign key in a payload accepts only the
  requesting user's own rows; another user's id gets the same "does not exist"
  error as an id that was never used, so ids leak nothing.
- ``ListFilterMixin``: a list narrowed by query parameters that a serializer
  validates (400 on a bad one), as every payload is; a NUL character or a bad
  ``page`` is a 400 too, and ``IdFilterField`` bounds an id to what the database binds.
- ``StrictSerializer`` and ``StrictModelSerializer``: a JSON value keeps its type (DRF alone
  would store the number 85 as the text "85", and read true as the number 1.0).
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
from django.http import QueryDict
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
        query = self.request.query_params  # type: ignore[attr-defined]
        check_query_string(query)
        params = self.list_filter(data=query)  # type: ignore[attr-defined]
        # An empty value would be read as "not given" (no filter at all) where the caller asked for
        # a filter; the schema says a parameter has a value, so the API says so too.
        empty = {name: ["Give a value, or leave the parameter out."] for name in params.fields if query.get(name) == ""}
        if empty:
            raise exceptions.ValidationError(empty)
        params.is_valid(raise_exception=True)
        return self.filter_list(queryset, params.validated_data)

    def filter_list(self, queryset: QuerySet, wanted: dict) -> QuerySet:
        """Each validated parameter as a field lookup of the same name; views whose parameters
        are not plain fields (a date range, a name to normalise) narrow the queryset themselves."""
        return queryset.filter(**wanted)


def _type_error(field: serializers.Field, value: object) -> str | None:
    """Why ``value`` from a JSON body is not of ``field``'s type, or None. Only what JSON itself
    tells apart: text must be a string (within its length before trimming), a number must not be
    true or false, a yes/no must be one."""
    if value is None:
        return None  # the field's own allow_null decides
    if isinstance(field, serializers.CharField):
        if not isinstance(value, str):
            return "Not a valid string."
        # Checked before the surrounding spaces are trimmed, as the schema's maxLength is.
        if field.max_length is not None and len(value) > field.max_length:
            return f"Ensure this field has no more than {field.max_length} characters."
    # DRF's own words for each.
    if isinstance(field, serializers.IntegerField) and isinstance(value, bool):
        return "A valid integer is required."
    if isinstance(field, serializers.FloatField) and isinstance(value, bool):
        return "A valid number is required."
    if isinstance(field, serializers.BooleanField) and not isinstance(value, bool):
        return "Must be a valid boolean."
    return None


class StrictTypesMixin:
    """Refuse a JSON value of the wrong type before DRF coerces it: the schema says "string",
    and a client that sends 85 has a bug the API should name, not hide."""

    def to_internal_value(self, data):
        # Query parameters are all text (a filter's "true" is its yes): only bodies are checked.
        if isinstance(data, dict) and not isinstance(data, QueryDict):
            errors = {
                field.field_name: [problem]
                for field in self._writable_fields  # type: ignore[attr-defined]
                if field.field_name in data and (problem := _type_error(field, data[field.field_name]))
            }
            if errors:
                raise exceptions.ValidationError(errors)
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictSerializer(StrictTypesMixin, serializers.Serializer):
    pass


class StrictModelSerializer(StrictTypesMixin, serializers.ModelSerializer):
    pass


# The largest id a filter takes: a primary key is a signed 64-bit integer
# (BigAutoField), and a larger number overflows the database's parameter (a 500).
MAX_ID = 2**63 - 1


class IdFilterField(serializers.IntegerField):
    """A query parameter naming a row by id: a positive integer the database can bind."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)


def check_query_string(query_params) -> None:
    """Refuse (400, naming the parameter) what no list parameter may carry: a NUL
    character anywhere, or a ``page`` that is neither a positive whole number nor
    ``last``. Past the last page stays the paginator's 404."""
    errors: dict[str, list[str]] = {}
    for name, values in query_params.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            errors[name.replace("\x00", "") or "query"] = ["Null characters are not allowed."]
    if "page" in query_params and "page" not in errors:
        page = query_params.get("page", "")
        # "last" is the paginator's own name for the last page.
        if page != "last" and not (page.isascii() and page.isdigit() and 0 < int(page) <= MAX_ID):
            errors["page"] = ["A page is a whole number from 1."]
    if errors:
        raise exceptions.ValidationError(errors)


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
