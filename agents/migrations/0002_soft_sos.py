"""Soft SOS conversations are titled by their alert ("Alert: low blood oxygen"), no longer by
the request the model reads ("Soft SOS triggered. Abnormal Vitals: {...}")."""

from django.db import migrations

# Frozen copies of health.monitor.rules labels as of this migration.
NAMES = {
    "hypoxia": "low blood oxygen",
    "bradycardia": "very slow heart rate",
    "tachycardia_at_rest": "fast heart rate at rest",
    "hypertensive_crisis": "very high blood pressure",
}


def retitle(apps, schema_editor):
    Conversation = apps.get_model("agents", "Conversation")
    AlertEvent = apps.get_model("health", "AlertEvent")
    for conversation in Conversation.objects.filter(kind="soft_sos", title__startswith="Soft SOS triggered"):
        event = (
            AlertEvent.objects.filter(kind="agent_conversation", data__conversation=conversation.pk)
            .select_related("alert")
            .first()
        )
        condition = event.alert.condition if event is not None else ""
        conversation.title = f"Alert: {NAMES.get(condition, 'abnormal vitals')}"
        conversation.save(update_fields=["title"])


class Migration(migrations.Migration):
    dependencies = [("agents", "0001_initial"), ("health", "0001_initial")]

    operations = [migrations.RunPython(retitle, migrations.RunPython.noop)]
