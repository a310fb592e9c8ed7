"""Live streams and cursor pulls of a raw event endpoint (docs/api.md, "Streams and cursors"):
the server-sent events as typed values, and what both clients share to read them.

A stream reconnects by itself after a dropped connection, from the last cursor received
(``Last-Event-ID``), so that no block is missed or sent twice; an answer the server meant
(a 4xx, an ``error`` event) is raised as a typed error instead.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from httpx_sse import ServerSentEvent

from .errors import ChainqError, IncompleteResponse, error_from
from .plan import encode

# The start of a stream: once a cursor is known, Last-Event-ID names the start instead.
_START_PARAMS = ("block_start", "since", "cursor")


@dataclass(frozen=True)
class Rows:
    """The rows of blocks ``from_block``..``to_block`` (complete when it arrives), as the raw endpoint's JSON rows."""

    cursor: str
    from_block: int
    to_block: int
    events: list[dict[str, Any]]


@dataclass(frozen=True)
class Undo:
    """Every row of a block above ``block_number`` received before is void (the chain reorganised)."""

    cursor: str
    block_number: int
    block_hash: str


@dataclass(frozen=True)
class Progress:
    """Delivered up to ``block_number``; ``head`` is the newest block known; ``cost`` the blocks charged so far."""

    cursor: str
    block_number: int
    head: int
    cost: int


@dataclass(frozen=True)
class End:
    """The requested end is delivered; the stream is over. ``cursor`` is the last one received."""

    cursor: str | None
    block_number: int


StreamEvent = Rows | Undo | Progress | End


@dataclass(frozen=True)
class Pull:
    """The rows after a cursor, and the cursor to pull from next (``X-Chainq-Next-Cursor``)."""

    events: list[dict[str, Any]]
    next_cursor: str


class InvalidStreamEvent(ChainqError):
    """An event the client cannot read: a server bug that reconnecting would meet again."""


class StreamState:
    """One stream's cursor and reconnection count, across its connections."""

    def __init__(self, cursor: str | None, max_reconnects: int, reconnect_base: float, reconnect_max: float) -> None:
        self.cursor = cursor
        self.failures = 0
        self.stopped = False
        """The server ended the stream with an ``error`` event: that is its answer, not a dropped connection."""
        self.max_reconnects = max_reconnects
        self.reconnect_base = reconnect_base
        self.reconnect_max = reconnect_max

    def request(self, params: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """The query and headers of the next connection."""
        headers = {"Accept": "text/event-stream"}
        if self.cursor is None:
            return dict(params), headers
        headers["Last-Event-ID"] = self.cursor
        return {k: v for k, v in params.items() if k not in _START_PARAMS}, headers

    def event(self, sse: ServerSentEvent) -> StreamEvent | None:
        """The typed event of one message (None for a type this client does not know); an ``error`` is raised."""
        data = _data(sse)
        if sse.event == "error":
            code = data.get("code")
            status = _STATUS_OF.get(code, 500) if isinstance(code, str) else 500
            self.stopped = True
            raise error_from(status, {**data, "code": code if isinstance(code, str) else "internal_error"}, None)
        self.failures = 0
        cursor = sse.id or self.cursor
        try:
            if sse.event == "end":
                return End(cursor=cursor, block_number=int(data["block_number"]))
            if cursor is None:
                raise InvalidStreamEvent(f"{sse.event} event without an id", code="invalid_stream_event")
            self.cursor = cursor
            if sse.event == "rows":
                events = data["events"]
                if not isinstance(events, list):
                    raise InvalidStreamEvent("rows event whose events is not a list", code="invalid_stream_event")
                return Rows(cursor, int(data["from_block"]), int(data["to_block"]), events)
            if sse.event == "undo":
                return Undo(cursor, int(data["block_number"]), str(data["block_hash"]))
            if sse.event == "progress":
                return Progress(cursor, int(data["block_number"]), int(data["head"]), int(data["cost"]))
        except (KeyError, TypeError, ValueError) as e:
            raise InvalidStreamEvent(f"{sse.event} event without {e}", code="invalid_stream_event") from e
        return None

    def retry_after(self, error: Exception) -> float:
        """The wait before reconnecting after ``error``; raises it when reconnecting would not help."""
        if self.stopped or (isinstance(error, ChainqError) and not _transient(error)):
            raise error
        if self.failures >= self.max_reconnects:
            raise error
        self.failures += 1
        wait = min(self.reconnect_max, self.reconnect_base * 2.0 ** (self.failures - 1))
        # Spread, so that clients cut off together do not all come back at once.
        return wait * random.uniform(0.75, 1.25)


def _transient(error: ChainqError) -> bool:
    return isinstance(error, IncompleteResponse) or error.status >= 500


def _data(sse: ServerSentEvent) -> dict[str, Any]:
    try:
        data = json.loads(sse.data)
    except ValueError as e:
        raise InvalidStreamEvent(f"{sse.event} event whose data is not JSON", code="invalid_stream_event") from e
    if not isinstance(data, dict):
        raise InvalidStreamEvent(f"{sse.event} event whose data is not an object", code="invalid_stream_event")
    return data


# The HTTP status of each error code (docs/api.md, "Errors"), for the class of an ``error`` event.
_STATUS_OF: dict[str, int] = {
    "cost_over_limit": 400,
    "quota_exceeded": 403,
    "rate_limited": 429,
    "internal_error": 500,
    "unavailable": 503,
}


def stream_params(params: Mapping[str, Any]) -> dict[str, str]:
    """Keyword arguments as the query string carries them."""
    out: dict[str, str] = {}
    for k, v in params.items():
        e = encode(v)
        if e is not None:
            out[k] = e
    return out
