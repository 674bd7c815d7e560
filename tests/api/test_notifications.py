"""Notifications: unread filter, unread count, mark one or all as read."""

from __future__ import annotations

from django.utils import timezone

from health.models import Notification
from tests.api.helpers import ids
from tests.factories import NotificationFactory


def test_unread_true_lists_only_unread_notifications(alice, alice_api):
    unread = NotificationFactory(user=alice)
    read = NotificationFactory(user=alice, read_at=timezone.now())

    assert ids(alice_api.get("/api/notifications/", {"unread": "true"})) == {unread.pk}
    assert ids(alice_api.get("/api/notifications/")) == {unread.pk, read.pk}


def test_the_unread_count_counts_only_the_patients_own_unread_notifications(alice, bob, alice_api):
    NotificationFactory.create_batch(3, user=alice)
    NotificationFactory(user=alice, read_at=timezone.now())
    NotificationFactory.create_batch(2, user=bob)

    response = alice_api.get("/api/notifications/unread-count/")

    assert response.status_code == 200
    assert response.json() == {"unread": 3}


def test_marking_one_as_read_stamps_it_once(alice, alice_api):
    notification = NotificationFactory(user=alice)

    first = alice_api.post(f"/api/notifications/{notification.pk}/mark-read/")
    again = alice_api.post(f"/api/notifications/{notification.pk}/mark-read/")

    assert first.status_code == again.status_code == 200
    assert first.json()["read_at"] is not None
    assert again.json()["read_at"] == first.json()["read_at"]
    assert alice_api.get("/api/notifications/unread-count/").json() == {"unread": 0}


def test_marking_all_as_read_marks_only_the_patients_own(alice, bob, alice_api):
    NotificationFactory.create_batch(2, user=alice)
    earlier = timezone.now().replace(microsecond=0)
    NotificationFactory(user=alice, read_at=earlier)
    bobs = NotificationFactory(user=bob)

    response = alice_api.post("/api/notifications/mark-all-read/")

    assert response.status_code == 200
    assert response.json() == {"marked": 2}
    assert not Notification.objects.filter(user=alice, read_at__isnull=True).exists()
    assert Notification.objects.get(user=alice, read_at=earlier)  # keeps its first read time
    bobs.refresh_from_db()
    assert bobs.read_at is None


def test_a_bad_unread_flag_answers_400(alice_api):
    assert alice_api.get("/api/notifications/", {"unread": "perhaps"}).status_code == 400
