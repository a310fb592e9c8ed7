"""Streams and cursor pulls against the demo data: the rows of a stream are the endpoint's rows, a
dropped connection is resumed from the last cursor without a gap or a duplicate, a pull continues
right after its cursor."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

import chainq

DATASET = "evm/erc20/transfer"
USDT = {"network": "ETH", "token": "USDT"}
ETH_FIRST = 23_910_000  # inside the demo's ETH coverage
# More blocks than one JSON answer may hold (10,000): the stream sends them in several batches.
ETH_LAST = ETH_FIRST + 12_000


def _rows(events: list[chainq.StreamEvent]) -> list[dict[str, Any]]:
    return [row for e in events if isinstance(e, chainq.Rows) for row in e.events]


def _identity(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["block_number"], r["sender"], r["receiver"], float(r["amount"])) for r in rows]


def _expected(client: chainq.Client, first: int = ETH_FIRST, last: int = ETH_LAST) -> list[tuple[Any, ...]]:
    return _identity(client.events(DATASET, **USDT, block_start=first, block_end=last, output="arrow").to_pylist())


def test_a_bounded_stream_delivers_the_endpoint_rows_then_end(client: chainq.Client) -> None:
    events = list(client.stream(DATASET, **USDT, block_start=ETH_FIRST, block_end=ETH_LAST))
    end = events[-1]
    assert isinstance(end, chainq.End) and end.block_number == ETH_LAST
    assert [type(e) for e in events].count(chainq.End) == 1
    assert all(isinstance(e.cursor, str) and e.cursor for e in events)
    assert end.cursor == events[-2].cursor
    batches = [e for e in events if isinstance(e, chainq.Rows)]
    assert len(batches) >= 2
    assert batches[0].from_block == ETH_FIRST and batches[-1].to_block == ETH_LAST
    assert _identity(_rows(events)) == _expected(client)


def test_a_dropped_stream_is_resumed_from_its_last_cursor_without_gap_or_duplicate(client: chainq.Client) -> None:
    proxy = os.environ.get("CHAINQ_TEST_SSE_PROXY")
    assert proxy, "CHAINQ_TEST_SSE_PROXY is not set: run through test/clients/python.test.ts"
    # The proxy cuts every fresh stream after its first rows event; the resumed one passes.
    with chainq.Client(proxy, api_key=client.api_key, progress=False) as c:
        events = list(c.stream(DATASET, **USDT, block_start=ETH_FIRST, block_end=ETH_LAST, reconnect_base=0.05))
        assert c.reconnects == 1
    assert isinstance(events[-1], chainq.End)
    assert _identity(_rows(events)) == _expected(client)


def test_pull_continues_right_after_its_cursor(client: chainq.Client) -> None:
    head = list(client.stream(DATASET, **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 100))
    cursor = head[-1].cursor
    assert cursor is not None
    pulled = client.pull(DATASET, cursor=cursor, **USDT)
    assert isinstance(pulled, chainq.Pull) and pulled.next_cursor and pulled.events
    last = pulled.events[-1]["block_number"]
    assert _identity(pulled.events) == _expected(client, ETH_FIRST + 101, last)
    after = client.pull(DATASET, cursor=pulled.next_cursor, **USDT)
    assert all(r["block_number"] > last for r in after.events)


def test_a_bad_cursor_is_refused_typed_and_not_retried(client: chainq.Client) -> None:
    before = client.reconnects
    with pytest.raises(chainq.InvalidCursor) as e:
        next(iter(client.stream(DATASET, **USDT, cursor="not-a-cursor")))
    assert e.value.code == "invalid_cursor" and e.value.status == 400
    assert client.reconnects == before
    with pytest.raises(chainq.InvalidCursor):
        client.pull(DATASET, cursor="not-a-cursor", **USDT)


def test_a_stream_parameter_the_endpoint_does_not_take_fails_before_any_request(client: chainq.Client) -> None:
    with pytest.raises(chainq.UnknownParameter) as e:
        next(iter(client.stream(DATASET, **USDT, block_start=ETH_FIRST, nonsense=1)))
    assert e.value.parameter == "nonsense"


def test_the_async_twin_streams_and_pulls_the_same(client: chainq.Client, url: str) -> None:
    expected = _expected(client)

    async def run() -> None:
        async with chainq.AsyncClient(url, api_key=client.api_key, progress=False) as c:
            events = [e async for e in c.stream(DATASET, **USDT, block_start=ETH_FIRST, block_end=ETH_LAST)]
            assert isinstance(events[-1], chainq.End)
            assert _identity(_rows(events)) == expected
            cursor = events[-1].cursor
            assert cursor is not None
            pulled = await c.pull(DATASET, cursor=cursor, **USDT)
            assert all(r["block_number"] > ETH_LAST for r in pulled.events)

    asyncio.run(run())
