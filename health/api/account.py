"""/api/profile/export/, /api/profile/export.zip and /api/profile/delete/: the signed-in patient's
data, handed over or erased."""

from __future__ import annotations

from django.contrib.auth import logout
from django.http import FileResponse, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from health.privacy.erase import NotErased, WrongPassword, erase_account
from health.privacy.export import archive_file, archive_name, export_json


class AccountExportView(APIView):
    """Everything tied to the account as one JSON document (``health.privacy.export``). The
    Profile page's download adds the daily reports as PDFs and the prescription photos."""

    @extend_schema(responses={200: OpenApiResponse(description="The account and every record tied to it.")})
    def get(self, request: Request) -> HttpResponse:
        body = "".join(export_json(request.user)).encode()
        return HttpResponse(body, content_type="application/json")


class JsonErrorsOnly(BaseContentNegotiation):
    """The archive is a FileResponse whatever the client accepts; anything DRF renders here is an
    error, and an error is JSON (no 406 for ``Accept: application/zip``, no ``?format=``)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class AccountArchiveView(APIView):
    """The same ZIP as the Profile page's download: ``data.json`` (as /api/profile/export/), the daily
    reports as PDFs (``reports/<date>.pdf``) and the prescription photos."""

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonErrorsOnly

    @extend_schema(
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="The archive.")}
    )
    def get(self, request: Request) -> FileResponse:
        return FileResponse(archive_file(request.user), as_attachment=True, filename=archive_name(request.user))


class AccountDeleteView(APIView):
    """Delete the account and everything tied to it, confirmed with the account's password."""

    @extend_schema(
        request=inline_serializer("AccountDeleteRequest", {"password": serializers.CharField()}),
        responses={
            204: None,
            400: OpenApiResponse(description="Wrong password, or an SOS under way: nothing deleted."),
        },
    )
    def post(self, request: Request) -> Response:
        try:
            erase_account(request.user, str(request.data.get("password", "")))
        except WrongPassword as refused:
            return Response({"password": [str(refused)]}, status=status.HTTP_400_BAD_REQUEST)
        except NotErased as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_400_BAD_REQUEST)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)
