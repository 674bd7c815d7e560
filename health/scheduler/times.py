"""The app's default clock times for a number of doses a day: the one table that prescription reading
(``extract``), the chat's reminder tool and scheduling share, so "BD" on a prescription and "twice a
day" in chat give the same reminders. Pure Python: no Django, no spaCy.

- 1 a day: 08:00; 2: 08:00, 20:00; 3: 08:00, 14:00, 20:00 (meals); 4: 08:00, 12:00, 16:00, 20:00;
- more: every 24/n hours from 06:00, the same as "every N hours" (``every_hours``), which starts at
  08:00 only for every 12 and every 24 hours (q8h: 06:00, 14:00, 22:00; q6h: 00:00, 06:00, 12:00,
  18:00).

They are defaults: the patient sees them marked as such and can change them.
"""

from __future__ import annotations

DEFAULT_TIMES: dict[int, tuple[str, ...]] = {
    1: ("08:00",),
    2: ("08:00", "20:00"),
    3: ("08:00", "14:00", "20:00"),
    4: ("08:00", "12:00", "16:00", "20:00"),
}
MAX_TIMES_PER_DAY = 12


def _spread(count: int, start_hour: int) -> list[str]:
    step = 24 * 60 // count
    minutes = sorted((start_hour * 60 + k * step) % (24 * 60) for k in range(count))
    return [f"{m // 60:02d}:{m % 60:02d}" for m in minutes]


def default_times(times_per_day: int) -> list[str]:
    """Default local clock times ("HH:MM", sorted) for ``times_per_day`` doses (1-12)."""
    if not 1 <= times_per_day <= MAX_TIMES_PER_DAY:
        raise ValueError(f"times_per_day must be between 1 and {MAX_TIMES_PER_DAY}, not {times_per_day}.")
    if times_per_day in DEFAULT_TIMES:
        return list(DEFAULT_TIMES[times_per_day])
    return _spread(times_per_day, 6)


def every_hours(hours: int) -> list[str] | None:
    """Clock times for "every ``hours`` hours", or None when that does not divide the day."""
    if not 1 <= hours <= 24 or 24 % hours or 24 // hours > MAX_TIMES_PER_DAY:
        return None
    return _spread(24 // hours, 8 if hours in (12, 24) else 6)
