from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import path
from django.views.generic import RedirectView

from frontend import account, medications, reports, views


class FaviconRedirect(RedirectView):
    """/favicon.ico -> the static icon, its URL resolved per request (the static files' names
    carry their hash once collected)."""

    def get_redirect_url(self, *args, **kwargs) -> str:
        return static("frontend/favicon.svg")


urlpatterns = [
    path("", views.home, name="home"),
    path("chat/", views.chat, name="chat"),
    path("appointments/", views.appointments, name="appointments"),
    path("appointments/<int:pk>/", views.appointment_detail, name="appointment-page"),
    path(
        "appointments/<int:pk>/<str:action>/",
        views.appointment_action,
        name="appointment-page-action",
    ),
    path("medications/", medications.medications, name="medications"),
    path("medications/upload/", medications.upload_prescription, name="prescription-upload"),
    path("medications/export.csv", medications.export_csv, name="medications-csv"),
    path("medications/print/", medications.print_list, name="medications-print"),
    path("medications/<int:pk>/times/", medications.medication_times, name="medication-times"),
    path("medications/<int:pk>/stop/", medications.medication_stop, name="medication-stop"),
    path("medications/doses/<int:pk>/<str:action>/", medications.dose_action, name="dose-action"),
    path("medications/reminders/<int:pk>/taken-early/", medications.take_early, name="dose-take-early"),
    path("prescriptions/<int:pk>/", medications.prescription_detail, name="prescription-page"),
    path("prescriptions/<int:pk>/image/", medications.prescription_image, name="prescription-page-image"),
    path("prescriptions/<int:pk>/retry/", medications.prescription_retry, name="prescription-page-retry"),
    path("prescriptions/<int:pk>/delete/", medications.prescription_delete, name="prescription-page-delete"),
    path("reports/", reports.reports, name="reports"),
    path("reports/today/", reports.report_today, name="report-today"),
    path("reports/<str:day>/", reports.report, name="report-page"),
    path("reports/<str:day>/pdf/", reports.report_download, name="report-pdf"),
    path("notifications/", views.notifications, name="notifications"),
    path("profile/", views.profile, name="profile"),
    path("profile/export/", account.export_download, name="account-export-page"),
    path("profile/delete/", account.delete_account, name="account-delete-page"),
    path("sos/", views.sos, name="sos"),
    path("watch/", views.watch, name="watch"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz/", views.healthz, name="healthz"),
    # Browsers ask for /favicon.ico on every page that names no icon (the admin, the API docs).
    path("favicon.ico", FaviconRedirect.as_view()),
]
