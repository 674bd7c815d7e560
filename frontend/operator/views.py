"""The operator's overview page at /admin/overview/, inside the admin's own
layout and login; the numbers come from :mod:`frontend.operator.overview`."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from frontend.operator.charts import bar_chart
from frontend.operator.overview import overview


def overview_view(request: HttpRequest) -> HttpResponse:
    context = overview()
    context["alerts_svg"] = bar_chart("Alerts per day", context["alerts_chart"])
    context["outbox_svg"] = bar_chart("Outbox sent and failed per day", context["outbox_chart"])
    chart_rows = zip(
        context["alerts_chart"][0].bars,
        context["outbox_chart"][0].bars,
        context["outbox_chart"][1].bars,
        strict=True,
    )
    context["chart_rows"] = [(a.day, a.value, sent.value, failed.value) for a, sent, failed in chart_rows]
    context.update(admin.site.each_context(request), title="Overview")
    return TemplateResponse(request, "admin/operator/overview.html", context)


def install(site: admin.AdminSite) -> None:
    """Put overview/ in front of the site's own URLs (before its catch-all),
    behind admin_view so only active staff reach it."""
    original = site.get_urls

    def get_urls() -> list[URLPattern]:
        return [path("overview/", site.admin_view(overview_view), name="overview"), *original()]

    site.get_urls = get_urls
    # The index template adds a prominent link to the overview.
    site.index_template = "admin/operator/index.html"
