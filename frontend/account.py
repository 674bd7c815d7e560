"""The Profile page's "Your data": download everything, or delete the account after the password."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from health.privacy.erase import NotErased, erase_account
from health.privacy.export import archive_file, archive_name


@login_required
@require_GET
def export_download(request: HttpRequest) -> FileResponse:
    """A ZIP of data.json, the daily report PDFs and the prescription photos."""
    return FileResponse(archive_file(request.user), as_attachment=True, filename=archive_name(request.user))


@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    """GET: what will be deleted, and the password field. POST: delete, sign out, say so."""
    error = ""
    if request.method == "POST":
        try:
            erase_account(request.user, request.POST.get("password", ""))
        except NotErased as refused:
            error = str(refused)
        else:
            logout(request)
            messages.success(request, "Your account and everything tied to it were deleted.")
            return redirect("login")
    return render(request, "frontend/account_delete.html", {"error": error}, status=400 if error else 200)
