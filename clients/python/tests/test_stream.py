"""Streams and cursor pulls of the custom dataset `big` that test/clients/python.test.ts emitted on
anvil and ingested: the rows of a stream are the endpoint's rows, a dropped connection is resumed
from the last cursor without a gap or a duplicate, a pull continues after a cursor."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

import chainq

DATASET = "evm/custom/big/big"
WHO = ["0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"]


def _last() -> int:
    return int(os.environ["CHAINQ_TEST_CUSTOM_LAST_BLOCK"])


def _rows(events: list[chainq.StreamEvent]) -> list[dict[str, Any]]:
    return [row for e in events if isinstance(e, chainq.Rows) for row in e.events]


def _identity(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["block_number"], r["who"], str(r["amount"]), str(r["delta"]), int(r["small"])) for r in rows]


def _expected(client: chainq.Client) -> list[tuple[Any, ...]]:
    tbl = client.events(DATASET, network="ETH", block_start=0, block_end=_last(), output="arrow")
    return _identity(tbl.to_pylist())


def test_a_bounded_stream_delivers_the_endpoint_rows_then_end(client: chainq.Client) -> None:
    events = list(client.stream(DATASET, network="ETH", block_start=0, block_end=_last()))
    end = events[-1]
    assert isinstance(end, chainq.End) and end.block_number == _last()
    assert [type(e) for e in events].count(chainq.End) == 1
    assert all(isinstance(e.cursor, str) and e.cursor for e in events)
    assert end.cursor == events[-2].cursor
    rows = _rows(events)
    assert [r["who"] for r in rows] == WHO
    assert _identity(rows) == _expected(client)


def test_a_dropped_stream_is_resumed_from_its_last_cursor_without_gap_or_duplicate(client: chainq.Client) -> None:
    proxy = os.environ.get("CHAINQ_TEST_SSE_PROXY")
    assert proxy, "CHAINQ_TEST_SSE_PROXY is not set: run through test/clients/python.test.ts"
    # The proxy cuts every fresh stream after its first rows event; the resumed one passes.
    with chainq.Client(proxy, api_key=client.api_key, progress=False) as c:
        events = list(c.stream(DATASET, network="ETH", block_start=0, block_end=_last(), reconnect_base=0.05))
        assert c.reconnects == 1
    assert isinstance(events[-1], chainq.End)
    assert _identity(_rows(events)) == _expected(client)


def test_pull_continues_after_a_cursor(client: chainq.Client) -> None:
    first_block = _expected(client)[0][0]
    head = list(client.stream(DATASET, network="ETH", block_start=0, block_end=first_block))
    cursor = head[-1].cursor
    assert cursor is not None and [r["who"] for r in _rows(head)] == WHO[:1]
    pulled = client.pull(DATASET, cursor=cursor, network="ETH")
    assert isinstance(pulled, chainq.Pull) and pulled.next_cursor
    assert _identity(pulled.events) == _expected(client)[1:]
    # Pulling from the cursor handed back gives nothing new: nothing happened on the chain since.
    assert client.pull(DATASET, cursor=pulled.next_cursor, network="ETH").events == []


def test_a_bad_cursor_is_refused_typed_and_not_retried(client: chainq.Client) -> None:
    before = client.reconnects
    with pytest.raises(chainq.InvalidCursor) as e:
        next(iter(client.stream(DATASET, network="ETH", cursor="not-a-cursor")))
    assert e.value.code == "invalid_cursor" and e.value.status == 400
    assert client.reconnects == before
    with pytest.raises(chainq.InvalidCursor):
        client.pull(DATASET, cursor="not-a-cursor", network="ETH")


def test_a_stream_parameter_the_endpoint_does_not_take_fails_before_any_request(client: chainq.Client) -> None:
    with pytest.raises(chainq.UnknownParameter) as e:
        next(iter(client.stream(DATASET, network="ETH", block_start=0, nonsense=1)))
    assert e.value.parameter == "nonsense"


def test_the_async_twin_streams_and_pulls_the_same(client: chainq.Client, url: str) -> None:
    expected = _expected(client)

    async def run() -> None:
        async with chainq.AsyncClient(url, api_key=client.api_key, progress=False) as c:
            events = [e async for e in c.stream(DATASET, network="ETH", block_start=0, block_end=_last())]
            assert isinstance(events[-1], chainq.End)
            assert _identity(_rows(events)) == expected
            first = [e async for e in c.stream(DATASET, network="ETH", block_start=0, block_end=expected[0][0])]
            cursor = first[-1].cursor
            assert cursor is not None
            pulled = await c.pull(DATASET, cursor=cursor, network="ETH")
            assert _identity(pulled.events) == expected[1:]

    asyncio.run(run())
