"""The synchronous client against a real server on demo data."""

from __future__ import annotations

import datetime as dt
import os

import httpx
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import chainq

ETH_FIRST = 23_910_000  # inside the demo's ETH coverage (23909999 to 23924399)
USDT = {"network": "ETH", "token": "USDT"}


def test_events_default_to_a_pandas_frame_with_exact_types(client: chainq.Client) -> None:
    df = client.events("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 50)
    assert isinstance(df, pd.DataFrame)
    assert len(df) > 0
    assert str(df["block_number"].dtype) == "int64"
    assert df["block_number"].between(ETH_FIRST, ETH_FIRST + 50).all()
    assert isinstance(df["time"].dtype, pd.DatetimeTZDtype) and str(df["time"].dt.tz) == "UTC"
    assert all(isinstance(a, str) and a.startswith("0x") and len(a) == 42 for a in df["sender"])
    assert str(df["amount"].dtype) == "float64"  # the API gives ERC-20 amounts as doubles, decimals applied


def test_events_as_arrow_and_polars_hold_the_same_rows(client: chainq.Client) -> None:
    p = {"block_start": 405_000_000, "block_end": 405_010_000}
    swap = {"network": "ARB", "symbol0": "WETH", "symbol1": "USDC", "fee": 500, **p}
    tbl = client.events("evm/dex_v3/swap", **swap, output="arrow")
    assert isinstance(tbl, pa.Table)
    assert tbl.schema.field("block_number").type == pa.int64()
    assert tbl.schema.field("time").type == pa.timestamp("s", "UTC")
    pdf = client.events("evm/dex_v3/swap", **swap, output="polars")
    assert isinstance(pdf, pl.DataFrame)
    assert pdf.columns == tbl.column_names
    assert pdf.rows() == [tuple(r.values()) for r in tbl.to_pylist()]
    assert pdf.schema["block_number"] == pl.Int64
    time_type = pdf.schema["time"]
    assert isinstance(time_type, pl.Datetime) and time_type.time_zone == "UTC"


def test_a_split_block_range_equals_one_request(client: chainq.Client) -> None:
    one = client.events(
        "evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 4_000, output="arrow"
    )
    split = client.events(
        "evm/erc20/transfer",
        **USDT,
        block_start=ETH_FIRST,
        block_end=ETH_FIRST + 4_000,
        output="arrow",
        chunk_blocks=900,
    )
    assert client.last_cost is not None and client.last_cost.requests == 5  # 4,001 blocks in pieces of 900
    assert one.num_rows > 1_000
    assert split.equals(one)


def test_a_split_time_range_equals_one_request(client: chainq.Client) -> None:
    args = {"since": "2025-12-01", "until": "2025-12-01T10:00:00Z", "output": "arrow"}
    one = client.events("evm/native/transfer", network="ETH", **args)
    split = client.events("evm/native/transfer", network="ETH", chunk_seconds=3 * 3600, **args)
    assert client.last_cost is not None and client.last_cost.requests == 4
    assert one.num_rows > 0
    assert split.equals(one)


def test_a_split_call_shows_its_total_cost_and_a_progress_bar(
    client: chainq.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    client.events(
        "evm/erc20/transfer",
        **USDT,
        block_start=ETH_FIRST,
        block_end=ETH_FIRST + 2_999,
        chunk_blocks=1_000,
        progress=True,
    )
    err = capsys.readouterr().err
    # each piece costs block_end - block_start: 999 blocks
    assert "chainq: evm/erc20/transfer: 2997 blocks in 3 requests" in err
    assert "3/3" in err  # tqdm's bar
    client.events(
        "evm/erc20/transfer",
        **USDT,
        block_start=ETH_FIRST,
        block_end=ETH_FIRST + 2_999,
        chunk_blocks=1_000,
        progress=False,
    )
    assert capsys.readouterr().err == ""


def test_max_cost_refuses_a_split_call_before_any_data_request(client: chainq.Client) -> None:
    used = client.usage()["blocks_used"]
    with pytest.raises(chainq.CostOverLimit) as e:
        client.events(
            "evm/erc20/transfer",
            **USDT,
            block_start=ETH_FIRST,
            block_end=ETH_FIRST + 2_999,
            chunk_blocks=1_000,
            max_cost=2_996,
        )
    assert (e.value.cost, e.value.max_cost, e.value.code) == (2_997, 2_996, "cost_over_limit")
    assert client.usage()["blocks_used"] == used


def test_max_cost_on_a_single_request_is_the_servers_refusal(client: chainq.Client) -> None:
    with pytest.raises(chainq.CostOverLimit) as e:
        client.events("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 500, max_cost=100)
    assert e.value.status == 400 and e.value.cost == 500 and e.value.max_cost == 100


def test_aggregate_buckets_by_time(client: chainq.Client) -> None:
    agg = client.aggregate(
        "evm/erc20/transfer", **USDT, since="2025-12-01", until="2025-12-02", group_by="time", period="1h"
    )
    assert len(agg) == 24
    assert agg["time_start"].iloc[0] == pd.Timestamp("2025-12-01T00:00:00Z")
    assert str(agg["count"].dtype) == "int64"
    assert str(agg["time_end"].dt.tz) == "UTC"


def test_cost_prices_without_charging(client: chainq.Client) -> None:
    used = client.usage()["blocks_used"]
    cost = client.cost("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 1_000)
    assert cost.blocks == 1_000 and cost.requests == 1
    assert "1000" in cost.formula
    assert cost.quota_remaining_after == cost.quota_remaining - 1_000
    split = client.cost(
        "evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 2_999, chunk_blocks=1_000
    )
    assert (split.blocks, split.requests) == (2_997, 3)
    assert client.usage()["blocks_used"] == used


def test_discovery_and_account_calls(client: chainq.Client) -> None:
    assert "evm/erc20" in client.protocols()
    assert any(t["symbol"] == "USDT" for t in client.tokens())
    cov = client.coverage(network="ETH")
    assert {c["network"] for c in cov if c["family"] != "exchange"} == {"ETH"}
    assert any(c["dataset"] == "evm/erc20/transfer" for c in cov)
    usage = client.usage(charges=2)
    assert usage["plan"] == "unlimited" and len(usage["last_charges"]) <= 2
    assert [d["name"] for d in client.custom_datasets()] == ["big"]  # ingested by the test setup


def test_a_typo_fails_before_any_request_naming_the_parameter(client: chainq.Client) -> None:
    with pytest.raises(chainq.UnknownParameter) as e:
        client.events("evm/erc20/transfer", network="ETH", tokn="USDT", block_start=ETH_FIRST, block_end=ETH_FIRST + 10)
    assert e.value.parameter == "tokn" and e.value.status == 0
    with pytest.raises(chainq.NotFound):
        client.events("evm/erc20/transfers", network="ETH", block_start=ETH_FIRST, block_end=ETH_FIRST + 10)


def test_venue_endpoints_are_served_by_id(client: chainq.Client) -> None:
    df = client.events("exchange/venue_a/raw_trades", token="BTC", since="2025-12-01", until="2025-12-01T01:00:00Z")
    assert len(df) > 0 and str(df["time"].dt.tz) == "UTC"
    assert df["time"].dt.unit == "ms"  # venue times keep their milliseconds
    assert str(df["id"].dtype) == "int64"


def test_server_errors_are_typed_with_their_code_and_fields(client: chainq.Client, url: str) -> None:
    with pytest.raises(chainq.InvalidRange) as r:
        client.events("evm/erc20/transfer", **USDT, block_start=23_909_000, block_end=23_909_100)
    assert r.value.code == "invalid_range" and r.value.missing_blocks == [(23_909_000, 23_909_100)]
    with pytest.raises(chainq.UnknownToken):
        client.events(
            "evm/erc20/transfer", network="ETH", token="NOPE", block_start=ETH_FIRST, block_end=ETH_FIRST + 10
        )
    with pytest.raises(chainq.UnsupportedNetwork) as n:
        client.events("evm/staking/deposit", network="ARB", block_start=1, block_end=2)
    assert "ETH" in n.value.supported
    with pytest.raises(chainq.Unauthorized) as u:
        chainq.Client(url, api_key="cq_" + "0" * 32).usage()
    assert u.value.code == "invalid_api_key" and u.value.status == 401


def test_naive_times_are_refused_rather_than_guessed(client: chainq.Client) -> None:
    with pytest.raises(chainq.InvalidParameter):
        client.events("evm/erc20/transfer", **USDT, since=dt.datetime(2025, 12, 1), until=dt.datetime(2025, 12, 2))
    aware = client.events(
        "evm/erc20/transfer",
        **USDT,
        since=dt.datetime(2025, 12, 1, tzinfo=dt.timezone.utc),
        until=dt.datetime(2025, 12, 1, 0, 1, tzinfo=dt.timezone.utc),
    )
    assert aware["time"].min() >= pd.Timestamp("2025-12-01T00:00:00Z")
    assert aware["time"].max() < pd.Timestamp("2025-12-01T00:01:00Z")


def test_quota_exceeded_carries_remaining_and_cost(url: str, key_small_budget: str) -> None:
    with chainq.Client(url, api_key=key_small_budget) as c, pytest.raises(chainq.QuotaExceeded) as e:
        c.events("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 1_000)
    assert e.value.status == 403 and e.value.cost == 1_000 and e.value.remaining == 500


def test_429s_of_the_concurrency_limit_are_waited_out_and_retried(
    client: chainq.Client, url: str, key_one_at_a_time: str
) -> None:
    args = {**USDT, "block_start": ETH_FIRST, "block_end": ETH_FIRST + 5_999, "output": "arrow"}
    expected = client.events("evm/erc20/transfer", **args)
    with chainq.Client(url, api_key=key_one_at_a_time, max_in_flight=4, progress=False) as c:
        got = c.events("evm/erc20/transfer", chunk_blocks=1_000, **args)
        assert c.retries > 0  # four in flight on a plan of one: some were refused, then retried
    assert got.equals(expected)


def test_a_429_past_the_retries_is_rate_limited_with_the_servers_advice(url: str, key_two_per_minute: str) -> None:
    refused: chainq.RateLimited | None = None
    with chainq.Client(url, api_key=key_two_per_minute, max_retries=0) as c:
        # Two a minute: whichever minutes five calls fall in, one of them is a third in its minute.
        for _ in range(5):
            try:
                c.usage()
            except chainq.RateLimited as e:
                refused = e
                break
    assert refused is not None, "five calls on a plan of two a minute were all admitted"
    assert refused.code == "rate_limited" and refused.status == 429
    assert refused.retry_after is not None and 1 <= refused.retry_after <= 60
    assert c.retries == 0


def test_retries_wait_retry_after_doubling_each_time(url: str) -> None:
    c = chainq.Client(url, api_key="cq_unused", max_retry_delay=90)
    r = httpx.Response(429, headers={"Retry-After": "3"})
    assert [c._retry_delay(r, a) for a in range(4)] == [3, 6, 12, 24]
    bare = httpx.Response(429)
    assert [c._retry_delay(bare, a) for a in range(3)] == [60, 90, 90]  # the documented default, capped
    c.close()


def test_an_answer_that_breaks_off_is_an_incomplete_response(client: chainq.Client) -> None:
    proxy = os.environ.get("CHAINQ_TEST_CUTTING_PROXY")
    assert proxy, "CHAINQ_TEST_CUTTING_PROXY is not set: run through test/clients/python.test.ts"
    with (
        chainq.Client(proxy, api_key=client.api_key, progress=False) as c,
        pytest.raises(chainq.IncompleteResponse) as e,
    ):
        c.events("evm/erc20/transfer", **USDT, block_start=ETH_FIRST, block_end=ETH_FIRST + 100)
    assert e.value.code == "incomplete_response"
