"""Integers wider than 64 bits arrive exact: a custom dataset emitted on anvil with the extremes
of uint256, int256 and uint64 (test/clients/python.test.ts ingests it as `big`)."""

from __future__ import annotations

import os

import pandas as pd
import pyarrow as pa

import chainq

DATASET = "evm/custom/big/big"
ROWS = [
    ("0x00000000000000000000000000000000000000aa", 2**256 - 1, -(2**255), 2**64 - 1),
    ("0x00000000000000000000000000000000000000bb", 2**200 + 1, 2**255 - 1, 0),
]


def _range() -> dict[str, object]:
    return {"network": "ETH", "block_start": 0, "block_end": int(os.environ["CHAINQ_TEST_CUSTOM_LAST_BLOCK"])}


def test_uint256_and_int256_are_exact_decimal_strings_and_uint64_an_integer(client: chainq.Client) -> None:
    tbl = client.events(DATASET, **_range(), output="arrow")
    assert tbl.schema.field("amount").type == pa.string()
    assert tbl.schema.field("small").type == pa.uint64()
    got = [(r["who"], int(r["amount"]), int(r["delta"]), r["small"]) for r in tbl.to_pylist()]
    assert got == ROWS
    df = client.events(DATASET, **_range())
    assert isinstance(df, pd.DataFrame)
    assert [int(v) for v in df["amount"]] == [r[1] for r in ROWS]
    assert str(df["small"].dtype) == "uint64" and int(df["small"].iloc[0]) == 2**64 - 1


def test_custom_datasets_are_in_the_catalog_with_their_address_filters(client: chainq.Client) -> None:
    endpoint = client.catalog.endpoint(DATASET)
    assert endpoint.custom and endpoint.raw is not None
    assert {"contract", "who", "network", "block_start"} <= set(endpoint.raw.params)
    only_bb = client.events(DATASET, **_range(), who=ROWS[1][0], output="arrow")
    assert only_bb.column("who").to_pylist() == [ROWS[1][0]]
    assert [d["name"] for d in client.custom_datasets()] == ["big"]
