"""The asynchronous twin gives the synchronous client's answers."""

from __future__ import annotations

import asyncio
import os

import pytest

import chainq

ETH_FIRST = 23_910_000
USDT = {"network": "ETH", "token": "USDT"}


def test_async_client_answers_like_the_sync_client(client: chainq.Client, url: str) -> None:
    args = {**USDT, "block_start": ETH_FIRST, "block_end": ETH_FIRST + 2_500, "output": "arrow"}
    expected = client.events("evm/erc20/transfer", **args)
    expected_agg = client.aggregate(
        "evm/erc20/transfer", **USDT, since="2025-12-01", until="2025-12-02", group_by="time", period="1h"
    )

    async def run() -> None:
        async with chainq.AsyncClient(url, api_key=client.api_key, progress=False) as c:
            split = await c.events("evm/erc20/transfer", chunk_blocks=1_000, **args)
            assert c.last_cost is not None and c.last_cost.requests == 3
            assert split.equals(expected)
            agg = await c.aggregate(
                "evm/erc20/transfer", **USDT, since="2025-12-01", until="2025-12-02", group_by="time", period="1h"
            )
            assert agg.equals(expected_agg)
            cost = await c.cost("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 1_000)
            assert cost.blocks == 1_000
            assert "evm/erc20" in await c.protocols()
            assert len(await c.tokens()) > 0
            assert len(await c.coverage(network="ETH")) > 0
            assert (await c.usage())["plan"] == "unlimited"
            assert [d["name"] for d in await c.custom_datasets()] == ["big"]
            try:
                await c.events("evm/erc20/transfer", **USDT, block_start=23_909_000, block_end=23_909_100)
            except chainq.InvalidRange as e:
                assert e.missing_blocks == [(23_909_000, 23_909_100)]
            else:
                raise AssertionError("a range never ingested must raise InvalidRange")

    asyncio.run(run())


def test_an_async_answer_that_breaks_off_is_an_incomplete_response(client: chainq.Client) -> None:
    proxy = os.environ.get("CHAINQ_TEST_CUTTING_PROXY")
    assert proxy, "CHAINQ_TEST_CUTTING_PROXY is not set: run through test/clients/python.test.ts"

    async def run() -> None:
        async with chainq.AsyncClient(proxy, api_key=client.api_key, progress=False) as c:
            await c.events("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 100)

    with pytest.raises(chainq.IncompleteResponse) as e:
        asyncio.run(run())
    assert e.value.code == "incomplete_response" and e.value.status == 0
