"""Changelists fetch related rows in the same query: their query count does
not grow with the number of rows shown (no N+1)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.admin.conftest import domain_models, populate


def _queries(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return [query["sql"] for query in captured.captured_queries]


@pytest.mark.parametrize("model", domain_models(), ids=lambda model: model._meta.label)
def test_the_changelist_query_count_does_not_grow_with_its_rows(operator, model):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    populate()
    with_one = _queries(operator, url)

    populate()
    populate()
    with_three = _queries(operator, url)

    assert len(with_three) == len(with_one), "\n".join(with_three)
