"""REST routes of the Action Manager (conversations and their steps)."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter

router = SimpleRouter(trailing_slash=True)

urlpatterns = router.urls
