"""The API schema tells the truth: every operation lists the 400, 403 and 404 it can answer, and bounds
that drf-spectacular does not carry over (pages from 1, a batch's length) are stated.

drf-spectacular documents the answers a view declares; DRF itself answers 400 for a body or query it
cannot validate and 404 for an object that is not the user's (or a page past the last), on every
route, without the views saying so. The fuzzer (tests/api/test_schema_fuzz.py) found 436 such answers
missing from the schema in 825 requests. This post-processing hook adds them where they can occur,
and leaves an answer a view documented itself as it is.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance, is_list_serializer
from drf_spectacular.utils import PolymorphicProxySerializer

METHODS = {"get", "put", "patch", "post", "delete"}

ERROR = {
    "type": "object",
    "description": "Why the request was refused, in words.",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": True,
}
INVALID = {
    "description": "What is wrong with the request: an object of field names and their errors, or a "
    "list of such objects for a list sent, or a detail message.",
    "oneOf": [{"type": "object", "additionalProperties": True}, {"type": "array", "items": {}}],
}


def _answer(description: str, schema: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


class BoundedAutoSchema(AutoSchema):
    """drf-spectacular's schema, with what it leaves out of a list of serializers (``many=True``):
    the list's length bounds (``min_length``, ``max_length``, ``allow_empty=False``), and that a body
    of one of several shapes (a reading, or a list of them) is required when every shape is."""

    def _unwrap_list_serializer(self, serializer, direction):
        schema = super()._unwrap_list_serializer(serializer, direction)
        if schema is not None and is_list_serializer(serializer):
            least = _least_items(serializer)
            if least:
                schema["minItems"] = least
            if serializer.max_length is not None:
                schema["maxItems"] = serializer.max_length
        return schema

    def _get_request_for_media_type(self, serializer, direction="request"):
        schema, required = super()._get_request_for_media_type(serializer, direction)
        serializer = force_instance(serializer)
        if isinstance(serializer, PolymorphicProxySerializer) and not isinstance(serializer.serializers, dict):
            required = all(_needs_a_body(force_instance(option)) for option in serializer.serializers)
        return schema, required


def _least_items(serializer) -> int:
    """The fewest items a list serializer takes (``allow_empty=False`` refuses an empty list whatever
    ``min_length`` says)."""
    return max(serializer.min_length or 0, int(not serializer.allow_empty))


def _needs_a_body(serializer) -> bool:
    """Whether an absent body fails ``serializer``: a list that may not be empty, or an object with a
    required field the client writes."""
    if is_list_serializer(serializer):
        return _least_items(serializer) > 0
    return any(field.required and not field.read_only for field in serializer.fields.values())


def document_error_answers(result: dict, generator, request, public) -> dict:
    """``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``: add 400, 403 and 404 answers where they occur."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("ErrorDetail", ERROR)
    schemas.setdefault("InvalidRequest", INVALID)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in METHODS:
                continue
            responses = operation.setdefault("responses", {})
            parameters = operation.get("parameters", [])
            takes_input = "requestBody" in operation or any(p.get("in") == "query" for p in parameters)
            if takes_input and "400" not in responses:
                responses["400"] = _answer("The request is not valid: nothing was changed.", "InvalidRequest")
            for parameter in parameters:
                if parameter.get("in") == "query" and parameter.get("name") == "page":
                    # Pages count from 1 up to the largest id (``health.api.base.check_query_string``).
                    parameter.setdefault("schema", {"type": "integer"}).update(minimum=1, maximum=2**63 - 1)
            paged = any(p.get("in") == "query" and p.get("name") == "page" for p in parameters)
            if ("{" in path or paged) and "404" not in responses:
                responses["404"] = _answer("No such object of yours (or no such page).", "ErrorDetail")
            if operation.get("security") and {} not in operation["security"] and "403" not in responses:
                # DRF's answer to a request without a session, with a device token where only a signed-in
                # patient may act, or without CSRF (tests/api/test_schema_fuzz.py sends each).
                responses["403"] = _answer(
                    "Not signed in, or a device token used for anything but posting readings.", "ErrorDetail"
                )
    return result
