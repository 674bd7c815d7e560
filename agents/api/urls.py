"""REST routes of the Action Manager (conversations and their steps)."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter

from agents.api.views import ConversationViewSet

router = SimpleRouter(trailing_slash=True)
router.register("conversations", ConversationViewSet, basename="conversation")

urlpatterns = router.urls
