"""Turning keyword arguments into requests: values encoded as the API reads them, and a range
longer than one request may hold split into consecutive allowed ranges.

Limits (docs/api.md, "Ranges"): counted as ``block_end - block_start`` or ``until - since``;
JSON and CSV 10,000 blocks or 1 day, Parquet 100,000 blocks (1,000,000 on ARB) or 7 days;
exchange venues by their ``max_days``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from .catalog import Endpoint
from .errors import InvalidParameter

ParamValue = str | int | float | bool | dt.datetime | dt.date | list[str] | list[int] | tuple[str, ...] | None

DAY = 86_400
BLOCK_LIMITS = {"json": 10_000, "csv": 10_000, "parquet": 100_000}
PARQUET_BLOCK_LIMIT_ON = {"ARB": 1_000_000}
TIME_LIMITS = {"json": DAY, "csv": DAY, "parquet": 7 * DAY}


def encode(value: ParamValue) -> str | None:
    """A value as the query string carries it; None leaves the parameter out."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise InvalidParameter(
                f"a datetime without a timezone is ambiguous: {value.isoformat()}; give tzinfo (e.g. UTC)",
                code="invalid_parameter",
            )
        return (
            value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            if value.microsecond == 0
            else (value.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z"))
        )
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


_BARE_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_UNIX = re.compile(r"^\d+$")


def to_epoch(value: ParamValue, name: str) -> int:
    """Seconds since the epoch of a time the API accepts (Unix seconds, ISO 8601 with a zone, bare date)."""
    if isinstance(value, bool) or value is None:
        raise InvalidParameter(f"{name} must be a time", code="invalid_parameter", body={"parameter": name})
    if isinstance(value, int):
        return value
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise InvalidParameter(f"{name} has no timezone", code="invalid_parameter", body={"parameter": name})
        return int(value.timestamp())
    if isinstance(value, dt.date):
        return int(dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc).timestamp())
    text = str(value)
    if _UNIX.match(text):
        return int(text)
    if _BARE_DATE.match(text):
        text += "T00:00:00+00:00"
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as e:
        raise InvalidParameter(
            f"{name} is not a time: {value!r}", code="invalid_parameter", body={"parameter": name}
        ) from e
    if parsed.tzinfo is None:
        raise InvalidParameter(
            f"{name} is an ISO time without a zone ({value!r}); add Z or an offset",
            code="invalid_parameter",
            body={"parameter": name},
        )
    return int(parsed.timestamp())


@dataclass(frozen=True)
class Request:
    """One HTTP GET: the route's path and its encoded parameters."""

    path: str
    params: tuple[tuple[str, str], ...]

    @property
    def target(self) -> str:
        """Path and query string, as `POST /v1/calculate-cost` takes it."""
        return f"{self.path}?{urlencode(self.params)}" if self.params else self.path


def build(path: str, params: Mapping[str, ParamValue]) -> Request:
    out: list[tuple[str, str]] = []
    for k, v in params.items():
        e = encode(v)
        if e is not None:
            out.append((k, e))
    return Request(path=path, params=tuple(out))


def range_limit(endpoint: Endpoint, fmt: str, network: str | None, unit: str) -> int | None:
    """The longest range one request of this format may ask for, in blocks or seconds."""
    if endpoint.family == "exchange":
        return endpoint.max_days * DAY if endpoint.max_days is not None and unit == "time" else None
    if unit == "block":
        if fmt == "parquet" and network is not None and network.upper() in PARQUET_BLOCK_LIMIT_ON:
            return PARQUET_BLOCK_LIMIT_ON[network.upper()]
        return BLOCK_LIMITS.get(fmt)
    return TIME_LIMITS.get(fmt)


def split(
    endpoint: Endpoint,
    path: str,
    params: Mapping[str, ParamValue],
    fmt: str,
    chunk_blocks: int | None = None,
    chunk_seconds: int | None = None,
) -> list[Request]:
    """The requests that together answer `params`, in range order; one when the range fits.

    `chunk_blocks` / `chunk_seconds` ask for smaller pieces than the format allows (more
    progress steps, less to redo after a failure); never larger ones."""
    net = _network(params)
    blocks, times = _block_range(params), _time_range(params)
    if blocks is not None:
        lo, hi = blocks
        # A chunk of n blocks spans block_end - block_start = n - 1, the unit the limit counts.
        limit = _smaller(range_limit(endpoint, fmt, net, "block"), _positive(chunk_blocks, "chunk_blocks", -1))
        if limit is None or hi - lo <= limit or hi < lo:
            return [build(path, params)]
        # Consecutive pieces share no block: each starts one after the last one's end.
        starts = range(lo, hi + 1, limit + 1)
        return _pieces(path, params, ("block_start", "block_end"), [(s, min(s + limit, hi)) for s in starts])
    if times is not None:
        lo, hi = times
        limit = _smaller(range_limit(endpoint, fmt, net, "time"), _positive(chunk_seconds, "chunk_seconds", 0))
        if limit is None or hi - lo <= limit or hi <= lo:
            return [build(path, params)]
        # Time pieces are half-open, so one's until is the next one's since.
        return _pieces(path, params, ("since", "until"), [(s, min(s + limit, hi)) for s in range(lo, hi, limit)])
    return [build(path, params)]


def _network(params: Mapping[str, ParamValue]) -> str | None:
    network = params.get("network")
    return network if isinstance(network, str) else None


def _block_range(params: Mapping[str, ParamValue]) -> tuple[int, int] | None:
    if params.get("block_start") is None or params.get("block_end") is None:
        return None
    return _block(params["block_start"], "block_start"), _block(params["block_end"], "block_end")


def _time_range(params: Mapping[str, ParamValue]) -> tuple[int, int] | None:
    if params.get("since") is None or params.get("until") is None:
        return None
    return to_epoch(params["since"], "since"), to_epoch(params["until"], "until")


def _pieces(
    path: str, params: Mapping[str, ParamValue], keys: tuple[str, str], pieces: list[tuple[int, int]]
) -> list[Request]:
    return [build(path, {**params, keys[0]: a, keys[1]: b}) for a, b in pieces]


_TIME_PERIOD = re.compile(r"^(\d{1,6})([mhdw])$")
_UNIT_SECONDS = {"m": 60, "h": 3_600, "d": DAY, "w": 7 * DAY}
# Week buckets are counted from Monday 1970-01-05, four days after the epoch (docs/aggregates.md).
_WEEK_ORIGIN = 4 * DAY


def split_aggregate(
    endpoint: Endpoint,
    path: str,
    params: Mapping[str, ParamValue],
    fmt: str,
    chunk_blocks: int | None = None,
    chunk_seconds: int | None = None,
) -> list[Request]:
    """The requests that together answer an aggregate, cut only at bucket edges.

    A bucket inside one piece is aggregated over exactly its own events, so sums, counts and
    means equal the single request's. A range is cut only when it is bucketed in its own unit
    (blocks by ``block_number``, times by ``time``) and a whole bucket fits in a piece;
    otherwise it stays one request, which the server refuses with ``range_too_large`` when it
    is over the limit."""
    net = _network(params)
    evm = endpoint.family == "evm"
    group_by = str(params.get("group_by", "" if evm else "time")).lower()
    period = params.get("period", None if evm else ("1h" if group_by == "time" else 1000))
    blocks, times = _block_range(params), _time_range(params)
    if blocks is not None and group_by == "block_number":
        lo, hi = blocks
        # A piece [a, e - 1] spans e - 1 - a blocks, so an edge e is reachable at limit + 1.
        server = range_limit(endpoint, fmt, net, "block")
        chunk = _positive(chunk_blocks, "chunk_blocks", -1)
        cut = _aligned(lo, hi + 1, _block_period(period), 0, server, chunk, reach=1)
        keys, pieces = ("block_start", "block_end"), None if cut is None else [(a, b - 1) for a, b in cut]
    elif times is not None and group_by == "time":
        lo, hi = times
        width, origin = _time_period(period)
        server = range_limit(endpoint, fmt, net, "time")
        chunk = _positive(chunk_seconds, "chunk_seconds", 0)
        keys, pieces = ("since", "until"), _aligned(lo, hi, width, origin, server, chunk, reach=0)
    else:
        return [build(path, params)]
    if pieces is None or len(pieces) < 2:
        return [build(path, params)]
    return _pieces(path, params, keys, pieces)


def _aligned(
    lo: int, end: int, width: int | None, origin: int, server: int | None, chunk: int | None, reach: int
) -> list[tuple[int, int]] | None:
    """``[lo, end)`` cut at edges ``origin + k·width`` into pieces of at most ``limit + reach``;
    with the smaller ``chunk`` when a bucket fits in it, else with the server's limit alone."""
    if width is None or end <= lo:
        return None
    for limit in (_smaller(server, chunk), server):
        if limit is None:
            return None
        cuts = _cuts(lo, end, width, origin, limit + reach)
        if cuts is not None:
            return cuts
    return None


def _cuts(lo: int, end: int, width: int, origin: int, reach: int) -> list[tuple[int, int]] | None:
    pieces = []
    start = lo
    while end - start > reach:
        edge = start + reach - (start + reach - origin) % width  # the last edge within reach
        if edge <= start:
            return None  # a bucket is wider than a request may be: it cannot be cut exactly
        pieces.append((start, edge))
        start = edge
    pieces.append((start, end))
    return pieces


def _time_period(period: ParamValue) -> tuple[int | None, int]:
    m = _TIME_PERIOD.match(period) if isinstance(period, str) else None
    if m is None:
        return None, 0  # left for the server to refuse or read
    unit, n = m.group(2), int(m.group(1))
    if n == 0:
        return None, 0
    return n * _UNIT_SECONDS[unit], _WEEK_ORIGIN if unit == "w" else 0


def _block_period(period: ParamValue) -> int | None:
    if isinstance(period, bool) or not isinstance(period, int | str):
        return None
    text = str(period)
    return int(text) if _UNIX.match(text) and int(text) > 0 else None


def _positive(chunk: int | None, name: str, shift: int) -> int | None:
    if chunk is None:
        return None
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InvalidParameter(f"{name} must be a whole number of at least 1", code="invalid_parameter")
    return chunk + shift


def _smaller(limit: int | None, chunk: int | None) -> int | None:
    if chunk is None:
        return limit
    return min(limit, chunk) if limit is not None else chunk


def _block(value: ParamValue, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidParameter(f"{name} must be a block number", code="invalid_parameter", body={"parameter": name})
    try:
        return int(value)
    except ValueError as e:
        raise InvalidParameter(
            f"{name} must be a block number, not {value!r}", code="invalid_parameter", body={"parameter": name}
        ) from e
