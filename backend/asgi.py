"""ASGI entry point: HTTP through Django, websockets through Channels."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from backend.routing import websocket_urlpatterns  # noqa: E402
from core.admission import Admission  # noqa: E402
from core.body_limit import BodyLimit  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": BodyLimit(Admission(django_asgi_app)),
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
