"""The API schema tells the truth: every operation lists the 400 and 404 it can answer, and bounds
that drf-spectacular does not carry over (pages from 1, a batch's length) are stated.

drf-spectacular documents the answers a view declares; DRF itself answers 400 for a body or query it
cannot validate and 404 for an object that is not the user's (or a page past the last), on every
route, without the views saying so. The fuzzer (tests/api/test_schema_fuzz.py) found 436 such answers
missing from the schema in 825 requests. This post-processing hook adds them where they can occur,
and leaves an answer a view documented itself as it is.
"""

from __future__ import annotations

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


# Request bodies that are a list of serializers (``many=True``): drf-spectacular does not carry a
# list serializer's length bounds into the schema, so they are stated here (component: bounds).
LIST_BOUNDS = {"VitalReadingOneOrManyRequest": {"minItems": 1, "maxItems": 1000}}


def _bound_lists(schemas: dict) -> None:
    for name, bounds in LIST_BOUNDS.items():
        for option in schemas.get(name, {}).get("oneOf", []):
            if option.get("type") == "array":
                option.update(bounds)


def _require_bodies(operation: dict) -> None:
    """A body that is one of several shapes (a reading or a list of them) is still required:
    drf-spectacular marks a body required only from a serializer's required fields."""
    body = operation.get("requestBody")
    if body is None:
        return
    for content in body.get("content", {}).values():
        ref = content.get("schema", {}).get("$ref", "")
        if ref.rsplit("/", 1)[-1] in LIST_BOUNDS:
            body["required"] = True


def document_error_answers(result: dict, generator, request, public) -> dict:
    """``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``: add 400 and 404 answers where they occur."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    _bound_lists(schemas)
    schemas.setdefault("ErrorDetail", ERROR)
    schemas.setdefault("InvalidRequest", INVALID)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in METHODS:
                continue
            _require_bodies(operation)
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
    return result
