"""The tests run against a real `chainq serve` on a fresh demo store, started by
test/clients/python.test.ts (npm test), which passes its URL and keys in the environment."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import chainq


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through test/clients/python.test.ts (npm test)")
    return value


@pytest.fixture(scope="session")
def url() -> str:
    return _env("CHAINQ_URL")


@pytest.fixture(scope="session")
def client(url: str) -> Iterator[chainq.Client]:
    with chainq.Client(url, api_key=_env("CHAINQ_API_KEY"), progress=False) as c:
        yield c


@pytest.fixture
def key_one_at_a_time() -> str:
    """A key whose plan allows one request in flight at once (more answer 429, Retry-After: 1)."""
    return _env("CHAINQ_TEST_KEY_ONE_AT_A_TIME")


@pytest.fixture
def key_two_per_minute() -> str:
    """A key whose plan allows two requests per minute."""
    return _env("CHAINQ_TEST_KEY_TWO_PER_MINUTE")


@pytest.fixture
def key_small_budget() -> str:
    """A key whose plan allows 500 blocks a month."""
    return _env("CHAINQ_TEST_KEY_SMALL_BUDGET")
