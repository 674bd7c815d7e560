from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import path
from django.views.generic import RedirectView

from frontend import views


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
    path("notifications/", views.notifications, name="notifications"),
    path("profile/", views.profile, name="profile"),
    path("sos/", views.sos, name="sos"),
    path("watch/", views.watch, name="watch"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz/", views.healthz, name="healthz"),
    # Browsers ask for /favicon.ico on every page that names no icon (the admin, the API docs).
    path("favicon.ico", FaviconRedirect.as_view()),
]
