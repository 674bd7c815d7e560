"""The review form: one medication as the patient checked it, before anything is scheduled.

Used by the review page (a formset, one row per medication read) and by the API's confirm action
(one form per item), so both refuse the same things with the same words.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django import forms

from health.models import Medication

CLOCK = re.compile(r"^([01]?\d|2[0-3])[:.]([0-5]\d)$")
AS_NEEDED = "As needed (no reminders)"


class MedicationReviewForm(forms.Form):
    include = forms.BooleanField(required=False, initial=True, label="Schedule this medicine")
    name = forms.CharField(max_length=120, label="Medicine")
    strength = forms.CharField(max_length=40, required=False, help_text="e.g. 500 mg")
    dose = forms.CharField(max_length=40, required=False, help_text="Each time, e.g. 1 tablet, 5 ml")
    times = forms.CharField(
        max_length=120,
        required=False,
        label="Times each day",
        help_text='24-hour times, e.g. "08:00, 20:00". Leave empty for a medicine taken only as needed.',
    )
    with_food = forms.ChoiceField(choices=Medication.FoodTiming.choices, initial=Medication.FoodTiming.ANY)
    duration_days = forms.IntegerField(
        min_value=1, max_value=3650, required=False, label="For how many days", help_text="Empty: until you stop it."
    )
    # The times the page filled in when they were the app's defaults for a frequency ("BD"): kept
    # as defaults only if the patient left them as they were.
    default_times = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_times(self) -> list[str]:
        raw = [part for part in re.split(r"[,\s;]+", self.cleaned_data["times"].strip()) if part]
        times = []
        for part in raw:
            match = CLOCK.match(part)
            if not match:
                raise forms.ValidationError(f'"{part}" is not a time; write times like 08:00 or 20:30.')
            times.append(f"{int(match.group(1)):02d}:{match.group(2)}")
        if len(set(times)) != len(times):
            raise forms.ValidationError("Each time may appear once.")
        if len(times) > 12:
            raise forms.ValidationError("At most 12 times a day.")
        return sorted(times)

    def schedule_fields(self) -> dict[str, Any]:
        """What ``schedule_medication`` takes, from the cleaned form."""
        data = self.cleaned_data
        times = data["times"]
        defaults = [t for t in re.split(r"[,\s]+", data.get("default_times") or "") if t]
        return {
            "name": data["name"].strip(),
            "strength": data["strength"].strip(),
            "dose": data["dose"].strip(),
            "times_per_day": max(1, len(times)),
            "clock_times": times,
            "default_times": bool(times) and sorted(defaults) == times,
            "food_timing": data["with_food"],
            "duration_days": data["duration_days"],
            "instructions": "" if times else AS_NEEDED,
        }


def initial_from_item(item: dict[str, Any]) -> dict[str, Any]:
    """A read medication (``review.review_items``) as the form's initial values; a field the
    prescription did not give stays empty."""
    times = ", ".join(item.get("times") or [])
    dose = item.get("dose")
    return {
        "include": not item.get("name_only"),
        "name": item.get("name") or "",
        "strength": item.get("strength") or "",
        "dose": "" if dose is None else _dose_text(dose, item.get("dose_unit")),
        "times": times,
        "with_food": item.get("with_food") or Medication.FoodTiming.ANY,
        "duration_days": item.get("duration_days"),
        "default_times": times if item.get("default_times") else "",
    }


def _dose_text(dose: float, unit: str | None) -> str:
    """1 and "tablet" -> "1 tablet"; 2 -> "2 tablets"; 0.5 -> "½ tablet"; 5 and "ml" -> "5 ml"."""
    amount = {0.5: "½", 0.25: "¼"}.get(dose, f"{dose:g}")
    if not unit:
        return amount
    plural = unit not in ("ml",) and dose > 1
    return f"{amount} {unit}{'s' if plural else ''}"


class StartForm(forms.Form):
    """The schedule's first day: today unless the patient started the course already or starts later."""

    start_date = forms.DateField(
        label="First day",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="The day you take (or took) the first dose; the number of days counts from it.",
    )

    def __init__(self, *args, today: dt.date, **kwargs):
        super().__init__(*args, initial={"start_date": today}, **kwargs)
        self.today = today

    def clean_start_date(self) -> dt.date:
        start = self.cleaned_data["start_date"]
        if not self.today - dt.timedelta(days=90) <= start <= self.today + dt.timedelta(days=365):
            raise forms.ValidationError("Choose a day within the last 90 days or the next year.")
        return start


MedicationReviewFormSet = forms.formset_factory(MedicationReviewForm, extra=0, min_num=0, max_num=30, can_delete=False)
