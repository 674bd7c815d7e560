"""Patients: profiles, emergency contacts and paired devices.

A device's token hash never appears here: it is left out of every form,
column and inline, and the clear token is shown once, when an operator pairs
a device.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from health.admin.base import AccessLoggedAdmin, ReadOnlyTabularInline
from health.models import Device, EmergencyContact, PatientProfile
from health.privacy.erase import delete_account, sos_under_way

# Everything on a device an operator may see; token_hash is deliberately absent.
DEVICE_VISIBLE_FIELDS = ("user", "name", "kind", *Device.SYSTEM_FIELDS)


@admin.register(PatientProfile)
class PatientProfileAdmin(AccessLoggedAdmin):
    list_display = (
        "user",
        "full_name",
        "date_of_birth",
        "sex",
        "timezone",
        "contact_count",
        "device_count",
        "sms_opt_in",
        "updated_at",
    )
    list_filter = ("sex", "sms_opt_in", "timezone")
    search_fields = ("user__username", "user__first_name", "user__last_name", "user__email", "home_address", "phone")
    list_select_related = ("user",)
    readonly_fields = ("account", "emergency_contacts", "devices", "updated_at")
    fieldsets = (
        (None, {"fields": ("user", "account", "date_of_birth", "sex", "timezone", "phone")}),
        ("Home", {"fields": ("home_address", "home_latitude", "home_longitude")}),
        ("Medical background", {"fields": ("conditions", "allergies")}),
        ("Safety", {"fields": ("sms_opt_in", "emergency_contacts", "devices")}),
        ("Medication reminders", {"fields": ("reminder_sms", "tell_carer_of_missed_doses")}),
        ("System", {"fields": ("updated_at",)}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super()
            .get_queryset(request)
            .annotate(
                contact_total=Count("user__emergency_contacts", distinct=True),
                device_total=Count("user__devices", distinct=True),
            )
        )

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        # The profile's owner is fixed once created; moving it would hand one
        # patient's history to another.
        return (*self.readonly_fields, "user") if obj else self.readonly_fields

    @admin.display(description="name", ordering="user__last_name")
    def full_name(self, profile: PatientProfile) -> str:
        return profile.display_name

    @admin.display(description="contacts", ordering="contact_total")
    def contact_count(self, profile: PatientProfile) -> int:
        return profile.contact_total

    @admin.display(description="devices", ordering="device_total")
    def device_count(self, profile: PatientProfile) -> int:
        return profile.device_total

    @admin.display(description="account")
    def account(self, profile: PatientProfile) -> str:
        if not profile.pk:
            return "-"
        user = profile.user
        url = reverse("admin:auth_user_change", args=[user.pk])
        last_login = f"{user.last_login:%Y-%m-%d %H:%M} UTC" if user.last_login else "never"
        return format_html(
            '<a href="{}">{}</a> &middot; {} &middot; {} &middot; last login {}',
            url,
            user.get_username(),
            user.get_full_name() or "no name",
            user.email or "no email",
            last_login,
        )

    @admin.display(description="emergency contacts")
    def emergency_contacts(self, profile: PatientProfile) -> str:
        contacts = EmergencyContact.objects.filter(user_id=profile.user_id) if profile.pk else []
        rows = format_html_join(
            "",
            '<li><a href="{}">{}</a> ({}) {} &middot; priority {}</li>',
            (
                (
                    reverse("admin:health_emergencycontact_change", args=[c.pk]),
                    c.name,
                    c.relation or "relation not given",
                    c.phone,
                    c.priority,
                )
                for c in contacts
            ),
        )
        return format_html("<ul>{}</ul>", rows) if rows else "none"

    @admin.display(description="paired devices")
    def devices(self, profile: PatientProfile) -> str:
        devices = Device.objects.filter(user_id=profile.user_id) if profile.pk else []
        rows = format_html_join(
            "",
            '<li><a href="{}">{}</a> &middot; token {}&hellip; &middot; last seen {} &middot; {}</li>',
            (
                (
                    reverse("admin:health_device_change", args=[d.pk]),
                    str(d),
                    d.token_prefix,
                    f"{d.last_seen_at:%Y-%m-%d %H:%M} UTC" if d.last_seen_at else "never",
                    "active" if d.is_active else "revoked",
                )
                for d in devices
            ),
        )
        return format_html("<ul>{}</ul>", rows) if rows else "none"


@admin.register(EmergencyContact)
class EmergencyContactAdmin(AccessLoggedAdmin):
    list_display = ("name", "user", "relation", "phone", "priority", "is_carer", "created_at")
    list_filter = ("relation", "is_carer")
    search_fields = ("name", "phone", "relation", "user__username", "user__first_name", "user__last_name")
    list_select_related = ("user",)
    readonly_fields = ("created_at",)
    ordering = ("user__username", "priority", "id")


@admin.action(description="Revoke the selected devices (their tokens stop working)", permissions=["change"])
def revoke_devices(modeladmin: DeviceAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    # One at a time through Device.revoke (the one place that revokes); an operator selects a page at most.
    revoked = sum(device.revoke() for device in queryset)
    modeladmin.message_user(request, f"Revoked {revoked} device(s).", messages.SUCCESS)


@admin.register(Device)
class DeviceAdmin(AccessLoggedAdmin):
    list_display = ("name", "user", "kind", "token_prefix", "last_seen_at", "is_active", "created_at")
    list_filter = ("kind", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "token_prefix", "user__username")
    list_select_related = ("user",)
    date_hierarchy = "last_seen_at"
    fields = DEVICE_VISIBLE_FIELDS
    readonly_fields = Device.SYSTEM_FIELDS
    actions = [revoke_devices]

    @admin.display(boolean=True, description="active", ordering="revoked_at")
    def is_active(self, device: Device) -> bool:
        return device.is_active

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        return (*Device.SYSTEM_FIELDS, "user") if obj else Device.SYSTEM_FIELDS

    def save_model(self, request: HttpRequest, obj: Device, form, change: bool) -> None:
        token = None if change else obj.issue_token()
        super().save_model(request, obj, form, change)
        if token is not None:
            # Only the hash is stored: this message is the one time anyone sees the token.
            self.message_user(request, f"Device paired. Its token, shown only this once: {token}", messages.WARNING)


class ProfileInline(admin.StackedInline):
    model = PatientProfile
    can_delete = False
    extra = 0
    fields = ("date_of_birth", "sex", "timezone", "phone", "home_address", "home_latitude", "home_longitude")
    show_change_link = True


class EmergencyContactInline(admin.TabularInline):
    model = EmergencyContact
    extra = 0
    fields = ("name", "relation", "phone", "priority", "is_carer")


class DeviceInline(ReadOnlyTabularInline):
    model = Device
    fields = ("name", "kind", "token_prefix", "last_seen_at", "revoked_at")
    readonly_fields = fields


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class PatientUserAdmin(UserAdmin):
    """Django's user admin, plus the patient's profile, contacts and devices
    on the change page (not on the add page: the profile comes with the user)."""

    list_display = ("username", "first_name", "last_name", "email", "is_staff", "is_active", "last_login")

    def get_inlines(self, request: HttpRequest, obj=None) -> list:
        return [ProfileInline, EmergencyContactInline, DeviceInline] if obj else []

    # Deleting a user here is the same erasure as the patient's own (health/privacy/erase.py): the
    # audit log's entries quoting their records go too, and no new ones are written. One user at a
    # time, from their delete page, which is not offered while their SOS is under way: the bulk
    # action would report deletions that erasure refused.
    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        if obj is not None and sos_under_way(obj):
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def delete_model(self, request: HttpRequest, obj) -> None:
        delete_account(obj)
