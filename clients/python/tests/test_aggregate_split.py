"""Aggregates over ranges longer than a request: cut only at bucket edges, so every bucket is
computed whole by one request and the rows equal a single request's."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

import chainq
from chainq import plan

HOUR = 3_600
DAY = 86_400
USDT = {"network": "ETH", "token": "USDT"}
SWAP = {"network": "ARB", "symbol0": "WETH", "symbol1": "USDC", "fee": 500}


def _ranges(reqs: list[plan.Request], lo: str, hi: str) -> list[tuple[int, int]]:
    return [(int(dict(r.params)[lo]), int(dict(r.params)[hi])) for r in reqs]


def _same(split: pd.DataFrame, single: pd.DataFrame) -> None:
    assert len(split) > 1
    pd.testing.assert_frame_equal(split.reset_index(drop=True), single, check_exact=False, rtol=1e-12)


def test_a_time_aggregate_split_at_hour_edges_equals_the_single_request(client: chainq.Client) -> None:
    args = {**USDT, "since": "2025-12-01", "until": "2025-12-02", "group_by": "time", "period": "1h"}
    single = client.aggregate("evm/erc20/transfer", **args)
    # 5.5 h pieces would cut buckets in half; the client cuts at the 5 h edges instead.
    client.last_cost = None
    split = client.aggregate("evm/erc20/transfer", chunk_seconds=5 * HOUR + 1_800, **args)
    assert client.last_cost is not None and client.last_cost.requests == 5
    _same(split, single)


def test_a_block_aggregate_with_means_split_at_bucket_edges_equals_the_single_request(client: chainq.Client) -> None:
    # Means are not additive: a bucket cut in two would give two rows with different means.
    args = {**SWAP, "block_start": 405_000_250, "block_end": 405_010_000, "group_by": "block_number", "period": 1_000}
    single = client.aggregate("evm/dex_v3/swap", **args)
    client.last_cost = None
    split = client.aggregate("evm/dex_v3/swap", chunk_blocks=2_500, **args)
    assert client.last_cost is not None and client.last_cost.requests == 5
    _same(split, single)


def test_aggregate_pieces_end_on_bucket_edges_within_the_limit(client: chainq.Client) -> None:
    e = client.catalog.endpoint("evm/erc20/transfer")
    assert e.aggregate is not None
    days = {"network": "ETH", "since": "2025-12-01T03:00:00Z", "until": "2025-12-20", "group_by": "time"}
    reqs = plan.split_aggregate(e, e.aggregate.path, {**days, "period": "5d"}, "parquet")
    ranges = _ranges(reqs, "since", "until")
    assert ranges[0][0] == 1_764_558_000 and ranges[-1][1] == 1_766_188_800
    assert all(b == c for (_, b), (c, _) in itertools.pairwise(ranges))  # contiguous
    assert all(b % (5 * DAY) == 0 and b - a <= 7 * DAY for a, b in ranges[:-1])
    weeks = plan.split_aggregate(e, e.aggregate.path, {**days, "period": "1w"}, "parquet")
    monday = 4 * DAY  # week buckets start on Mondays, counted from 1970-01-05
    assert all((b - monday) % (7 * DAY) == 0 for _, b in _ranges(weeks, "since", "until")[:-1])
    blocks = {"network": "ETH", "block_start": 5, "block_end": 250_000, "group_by": "block_number", "period": 30_000}
    b = _ranges(plan.split_aggregate(e, e.aggregate.path, blocks, "parquet"), "block_start", "block_end")
    assert b == [(5, 89_999), (90_000, 179_999), (180_000, 250_000)]


def test_aggregates_that_cannot_be_cut_at_bucket_edges_stay_one_request(client: chainq.Client) -> None:
    e = client.catalog.endpoint("evm/erc20/transfer")
    assert e.aggregate is not None
    by_time_over_blocks = {"network": "ETH", "block_start": 0, "block_end": 250_000, "group_by": "time", "period": "1h"}
    assert len(plan.split_aggregate(e, e.aggregate.path, by_time_over_blocks, "parquet")) == 1
    wide = {"network": "ETH", "since": "2025-11-01", "until": "2025-12-01", "group_by": "time", "period": "2w"}
    assert len(plan.split_aggregate(e, e.aggregate.path, wide, "parquet")) == 1


def test_an_aggregate_that_cannot_be_cut_is_refused_with_the_servers_range_error(client: chainq.Client) -> None:
    with pytest.raises(chainq.RangeTooLarge) as e:
        client.aggregate(
            "evm/erc20/transfer", **USDT, since="2025-11-01", until="2025-12-01", group_by="time", period="2w"
        )
    assert e.value.status == 400 and e.value.limit is not None
