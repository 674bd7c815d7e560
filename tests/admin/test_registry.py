"""Every domain model has an operator page, and the site says what it is."""

from __future__ import annotations

from django.contrib import admin

from health.admin.patients import DeviceAdmin
from health.models import Device
from tests.admin.conftest import domain_models


def test_every_health_and_agents_model_is_registered():
    missing = [model._meta.label for model in domain_models() if not admin.site.is_registered(model)]
    assert missing == []


def test_the_site_is_titled_as_the_operator_dashboard():
    assert admin.site.site_header == "Agent Lite operator dashboard"
    assert admin.site.site_title == "Agent Lite operator dashboard"
    assert admin.site.index_title


def test_the_device_admin_never_names_the_token_hash():
    device_admin = admin.site.get_model_admin(Device)
    assert isinstance(device_admin, DeviceAdmin)
    shown = {*device_admin.list_display, *device_admin.fields, *device_admin.readonly_fields}
    shown |= set(device_admin.search_fields) | {str(name) for name in device_admin.list_filter}
    assert not any("token_hash" in name for name in shown)


def test_the_index_page_lists_the_dashboard(operator):
    response = operator.get("/admin/")
    assert response.status_code == 200
    assert b"Agent Lite operator dashboard" in response.content
    for model in domain_models():
        assert f"/admin/{model._meta.app_label}/{model._meta.model_name}/".encode() in response.content
