"""Every changelist, add page and change page renders for an operator."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.db import models
from django.test import RequestFactory
from django.urls import reverse

from agents.models import Conversation
from tests.admin.conftest import domain_models
from tests.factories import AgentStepFactory, ConversationFactory

MODELS = domain_models()


def _label(model: type[models.Model]) -> str:
    return model._meta.label


def _url(model: type[models.Model], view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.mark.parametrize("model", MODELS, ids=_label)
def test_the_changelist_renders_with_the_demo_data(operator, seeded_rows, model):
    response = operator.get(_url(model, "changelist"))
    assert response.status_code == 200
    assert response.context["cl"].result_count >= 1


SEARCHABLE = [model for model in MODELS if admin.site.get_model_admin(model).search_fields]


@pytest.mark.parametrize("model", SEARCHABLE, ids=_label)
def test_a_search_with_no_match_empties_the_changelist(operator, rows, model):
    response = operator.get(_url(model, "changelist"), {"q": "zzz-no-such-thing"})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 0


@pytest.mark.parametrize("model", MODELS, ids=_label)
def test_the_add_page_renders_unless_only_the_system_adds_rows(operator, rows, model, carol):
    request = RequestFactory().get("/")
    request.user = carol
    may_add = admin.site.get_model_admin(model).has_add_permission(request)
    response = operator.get(_url(model, "add"))
    assert response.status_code == (200 if may_add else 403)


@pytest.mark.parametrize("model", MODELS, ids=_label)
def test_the_change_page_renders(operator, seeded_rows, model):
    response = operator.get(_url(model, "change", seeded_rows[model].pk))
    assert response.status_code == 200


def test_the_filter_sidebar_choices_all_render(operator, rows):
    for model in MODELS:
        changelist = operator.get(_url(model, "changelist")).context["cl"]
        for list_filter in changelist.filter_specs:
            for choice in list_filter.choices(changelist):
                response = operator.get(_url(model, "changelist") + choice["query_string"])
                assert response.status_code == 200, (_label(model), choice["query_string"])


def test_the_conversation_page_shows_its_steps_in_trajectory_order(operator, alice):
    conversation = ConversationFactory(user=alice)
    for index in (2, 0, 1):
        AgentStepFactory(conversation=conversation, index=index, payload={"text": f"step number {index}"})

    html = operator.get(_url(Conversation, "change", conversation.pk)).content.decode()

    positions = [html.index(f"step number {index}") for index in range(3)]
    assert positions == sorted(positions)
