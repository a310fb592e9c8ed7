"""Splitting ranges by the format's limits (docs/api.md, "Ranges"), checked on the real catalog."""

from __future__ import annotations

import chainq
from chainq import plan


def _ranges(reqs: list[plan.Request], lo: str, hi: str) -> list[tuple[int, int]]:
    return [(int(dict(r.params)[lo]), int(dict(r.params)[hi])) for r in reqs]


def test_parquet_block_ranges_split_at_100000_and_1000000_on_arb(client: chainq.Client) -> None:
    e = client.catalog.endpoint("evm/erc20/transfer")
    assert e.raw is not None
    eth = plan.split(e, e.raw.path, {"network": "ETH", "block_start": 0, "block_end": 250_000}, "parquet")
    assert _ranges(eth, "block_start", "block_end") == [(0, 100_000), (100_001, 200_001), (200_002, 250_000)]
    arb = plan.split(e, e.raw.path, {"network": "ARB", "block_start": 0, "block_end": 1_000_000}, "parquet")
    assert len(arb) == 1  # block_end - block_start = 1,000,000 is allowed on ARB
    json = plan.split(e, e.raw.path, {"network": "ETH", "block_start": 5, "block_end": 10_006}, "json")
    assert _ranges(json, "block_start", "block_end") == [(5, 10_005), (10_006, 10_006)]


def test_time_ranges_split_at_seven_days_in_parquet_and_at_the_venues_max_days(client: chainq.Client) -> None:
    e = client.catalog.endpoint("evm/erc20/transfer")
    assert e.raw is not None
    week = 7 * 86_400
    reqs = plan.split(e, e.raw.path, {"network": "ETH", "since": "2025-12-01", "until": "2025-12-20"}, "parquet")
    start = 1_764_547_200
    assert _ranges(reqs, "since", "until") == [
        (start, start + week),
        (start + week, start + 2 * week),
        (start + 2 * week, start + 19 * 86_400),
    ]
    venue = client.catalog.endpoint("exchange/venue_a/raw_trades")
    assert venue.raw is not None and venue.max_days is not None
    v = plan.split(venue, venue.raw.path, {"token": "BTC", "since": 0, "until": 2 * venue.max_days * 86_400}, "parquet")
    assert len(v) == 2


def test_the_catalog_lists_every_endpoint_with_its_parameters(client: chainq.Client) -> None:
    cat = client.catalog
    assert {"evm/erc20/transfer", "exchange/venue_b/fills", "btc/native/transfer"} <= set(cat.endpoints)
    swap = cat.endpoint("evm/dex_v3/swap")
    assert swap.raw is not None and swap.aggregate is not None
    assert swap.raw.params["fee"].required
    assert "group_by" in swap.aggregate.params
    assert "evm/dex_v3/swap [raw]: network*" in cat.describe()
