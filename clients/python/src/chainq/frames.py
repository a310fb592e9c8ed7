"""Response bodies → Arrow tables → the DataFrame the caller asked for.

Parquet keeps the API's types: block numbers int64, amounts as the API gives them (integers
wider than 64 bits are decimal strings), times timezone-aware UTC, addresses strings.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Sequence
from typing import Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

Output = Literal["pandas", "arrow", "polars"]
OUTPUTS: tuple[str, ...] = ("pandas", "arrow", "polars")


def table_of(body: bytes, fmt: str) -> pa.Table:
    if fmt == "parquet":
        return _utc_times(pq.read_table(io.BytesIO(body)))
    if fmt == "json":
        rows = json.loads(body)
        events = rows.get("events", rows) if isinstance(rows, dict) else rows
        return _utc_times(pa.Table.from_pylist(events))
    raise ValueError(f"cannot read format {fmt}")


# The API's time columns (raw rows, aggregate buckets), sent as ISO 8601 UTC text.
_TIME_COLUMNS = ("time", "time_start", "time_end")


def _utc_times(tbl: pa.Table) -> pa.Table:
    """Time columns as UTC timestamps: text ISO times parsed, zone-less timestamps marked UTC."""
    for i, f in enumerate(tbl.schema):
        col = tbl.column(i)
        if pa.types.is_timestamp(f.type):
            if f.type.tz is None:
                tbl = tbl.set_column(i, f.name, pc.assume_timezone(col, "UTC"))
            elif f.type.tz != "UTC":
                tbl = tbl.set_column(i, f.name, col.cast(pa.timestamp(f.type.unit, "UTC")))
        elif f.name in _TIME_COLUMNS and pa.types.is_string(f.type):
            # Chain times are whole seconds; venue times carry milliseconds.
            unit = "ms" if pc.any(pc.match_substring(col, ".")).as_py() else "s"
            with contextlib.suppress(pa.ArrowInvalid):  # not an ISO time after all: left as sent
                tbl = tbl.set_column(i, f.name, col.cast(pa.timestamp(unit, "UTC")))
    return tbl


def concat(tables: Sequence[pa.Table]) -> pa.Table:
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="default")


def convert(tbl: pa.Table, output: str) -> Any:
    if output == "arrow":
        return tbl
    if output == "polars":
        import polars as pl

        return pl.from_arrow(tbl)
    if output == "pandas":
        import pandas as pd

        df = tbl.to_pandas()
        # NumPy integers cannot hold a null: such columns would turn float and lose digits.
        for f in tbl.schema:
            if pa.types.is_integer(f.type) and tbl.column(f.name).null_count > 0:
                df[f.name] = pd.Series(pd.arrays.ArrowExtensionArray(tbl.column(f.name)), index=df.index)
        return df
    raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")
