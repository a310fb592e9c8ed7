"""What the synchronous and asynchronous clients share: configuration, the catalog checks,
the request plan of a call, the 429 rule and the reading of answers. Only the sending differs."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from . import exports, plan
from .catalog import Catalog, Endpoint, Operation
from .errors import ChainqError, CostOverLimit, IncompleteResponse, InvalidParameter, error_from
from .frames import OUTPUTS
from .stream import InvalidStreamEvent, Pull, stream_params

USER_AGENT = "chainq-client-python/0.1.0"

# Parameters the client sets itself: it reads the answer, so it picks the wire format,
# and a download link is not a table.
_CLIENT_OWNED = ("format", "link")
# Parameters of a stream that its raw route does not take.
_STREAM_ONLY = ("finality",)


@dataclass(frozen=True)
class Cost:
    """The price of a call, from `POST /v1/calculate-cost`: one estimate per request it takes."""

    blocks: int
    requests: int
    quota_remaining: int
    quota_remaining_after: int
    formulas: tuple[str, ...]
    estimates: tuple[Mapping[str, Any], ...] = field(repr=False)

    @property
    def formula(self) -> str:
        return self.formulas[0] if len(self.formulas) == 1 else "; ".join(self.formulas)

    def __str__(self) -> str:
        return (
            f"{self.blocks} blocks in {self.requests} request{'s' if self.requests != 1 else ''} "
            f"({self.quota_remaining_after} of {self.quota_remaining} left after)"
        )


def cost_of(estimates: Sequence[Mapping[str, Any]]) -> Cost:
    total = sum(int(e["cost"]) for e in estimates)
    remaining = int(estimates[0]["quota_remaining"]) if estimates else 0
    return Cost(
        blocks=total,
        requests=len(estimates),
        quota_remaining=remaining,
        quota_remaining_after=remaining - total,
        formulas=tuple(str((e.get("breakdown") or {}).get("formula", "")) for e in estimates),
        estimates=tuple(estimates),
    )


@dataclass(frozen=True)
class Call:
    """A planned call: its endpoint, the wire format and the requests that answer it, in order."""

    endpoint: Endpoint
    fmt: str
    requests: list[plan.Request]
    max_cost: int | None


class BaseClient:
    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        max_retries: int = 5,
        default_retry_after: float = 60.0,
        max_retry_delay: float = 900.0,
        max_in_flight: int = 4,
        progress: bool | None = None,
        timeout: float = 300.0,
    ) -> None:
        resolved_url = url or os.environ.get("CHAINQ_URL")
        resolved_key = api_key or os.environ.get("CHAINQ_API_KEY")
        if not resolved_url:
            raise ValueError("no server URL: pass Client(url, …) or set CHAINQ_URL")
        if not resolved_key:
            raise ValueError("no API key: pass Client(…, api_key=…) or set CHAINQ_API_KEY")
        self.url = resolved_url.rstrip("/")
        self.api_key = resolved_key
        self.max_retries = max_retries
        self.default_retry_after = default_retry_after
        self.max_retry_delay = max_retry_delay
        self.max_in_flight = max(1, max_in_flight)
        self.progress = progress
        self.timeout = timeout
        self._catalog: Catalog | None = None
        self.last_cost: Cost | None = None
        """The total cost shown before the last multi-request call."""
        self.retries = 0
        """How many 429 answers this client waited out and retried."""
        self.reconnects = 0
        """How many times a stream of this client was resumed after a dropped connection."""

    @property
    def _headers(self) -> dict[str, str]:
        return {"X-API-Key": self.api_key, "User-Agent": USER_AGENT}

    # --- planning -------------------------------------------------------------------------

    def _plan(
        self,
        catalog: Catalog,
        dataset: str,
        kind: str,
        params: Mapping[str, Any],
        max_cost: int | None,
        chunk_blocks: int | None = None,
        chunk_seconds: int | None = None,
    ) -> Call:
        endpoint = catalog.endpoint(dataset)
        op: Operation | None = endpoint.raw if kind == "raw" else endpoint.aggregate
        if op is None:
            raise InvalidParameter(f"{dataset} has no {kind} route", code="invalid_parameter")
        op.check(dataset, params)
        for name in _CLIENT_OWNED:
            if name in params:
                raise InvalidParameter(
                    f"'{name}' is chosen by the client (Parquet on the wire); use output='pandas'|'arrow'|'polars'",
                    code="invalid_parameter",
                    body={"parameter": name},
                )
        fmt = "parquet" if "parquet" in endpoint.formats else "json"
        wire = {k: v for k, v in params.items()}
        wire["format"] = fmt
        split = plan.split if kind == "raw" else plan.split_aggregate
        requests = split(endpoint, op.path, wire, fmt, chunk_blocks, chunk_seconds)
        if len(requests) == 1 and max_cost is not None:
            requests = [plan.build(op.path, {**wire, "max_cost": max_cost})]
        return Call(endpoint=endpoint, fmt=fmt, requests=requests, max_cost=max_cost)

    @staticmethod
    def _event_path(catalog: Catalog, dataset: str, params: Mapping[str, Any], stream: bool) -> str:
        """The raw route of an event dataset, checked against the parameters a stream or pull takes."""
        endpoint = catalog.endpoint(dataset)
        op = endpoint.raw
        if op is None or endpoint.family == "exchange":
            raise InvalidParameter(f"{dataset} has no event stream or cursor", code="invalid_parameter")
        own = {k for k in params if not (stream and k in _STREAM_ONLY)}
        op.check(dataset, own)
        for name in _CLIENT_OWNED:
            if name in params:
                raise InvalidParameter(
                    f"'{name}' is chosen by the client (JSON events on the wire)",
                    code="invalid_parameter",
                    body={"parameter": name},
                )
        return f"{op.path}/stream" if stream else op.path

    def _pull_target(self, catalog: Catalog, dataset: str, cursor: str, params: Mapping[str, Any]) -> str:
        """The request of a cursor pull: the raw route in JSON, from ``cursor`` on."""
        path = self._event_path(catalog, dataset, params, stream=False)
        wire = {**stream_params(params), "format": "json", "cursor": cursor}
        return plan.Request(path=path, params=tuple(wire.items())).target

    @staticmethod
    def _export_body(
        catalog: Catalog | None, dataset: str, aggregate: bool, params: Mapping[str, Any], **options: Any
    ) -> dict[str, Any]:
        """The body of ``POST /v1/exports``: a dataset id checked against the catalog, or a route path as it is."""
        if dataset.startswith("/"):
            path = dataset
        else:
            assert catalog is not None
            endpoint = catalog.endpoint(dataset)
            op = endpoint.aggregate if aggregate else endpoint.raw
            if op is None:
                raise ValueError(f"{dataset} has no {'aggregate' if aggregate else 'raw'} route")
            op.check(dataset, params)
            path = op.path
        return exports.request_body(path, params, **options)

    @staticmethod
    def _pull_answer(response: httpx.Response) -> Pull:
        next_cursor = response.headers.get("x-chainq-next-cursor")
        if next_cursor is None:
            raise InvalidStreamEvent("the server answered a cursor pull without X-Chainq-Next-Cursor", code="http_200")
        return Pull(events=list(response.json()["events"]), next_cursor=next_cursor)

    @staticmethod
    def _check_output(output: str) -> None:
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")

    def _admit(self, call: Call, cost: Cost, show: bool) -> None:
        """Shows the total before a multi-request call, and refuses it when over `max_cost`."""
        self.last_cost = cost
        if show:
            print(f"chainq: {call.endpoint.id}: {cost}", file=sys.stderr)
        if call.max_cost is not None and cost.blocks > call.max_cost:
            raise CostOverLimit(
                f"this call costs {cost.blocks} blocks over {cost.requests} requests, "
                f"more than max_cost={call.max_cost}",
                code="cost_over_limit",
                body={"cost": cost.blocks, "max_cost": call.max_cost},
            )

    def _show_progress(self, override: bool | None, n: int) -> bool:
        wanted = override if override is not None else self.progress
        if n <= 1 or wanted is False:
            return False
        try:
            import tqdm  # noqa: F401
        except ImportError:
            return False
        return True

    # --- answers ----------------------------------------------------------------------------

    def _retry_or_raise(self, response: httpx.Response, attempt: int) -> float | None:
        """What to do with an answer (its body read): the seconds to wait before retrying a 429 (counted in
        ``retries``), None for a success; any other non-2xx is raised typed."""
        if response.status_code == 429 and attempt < self.max_retries:
            self.retries += 1
            return self._retry_delay(response, attempt)
        if response.status_code >= 400:
            raise self._error(response)
        return None

    def _retry_delay(self, response: httpx.Response, attempt: int) -> float:
        """The client rule of docs/metering.md: Retry-After (else the default), doubled on each repeat."""
        seconds = _retry_after(response)
        base = seconds if seconds is not None else self.default_retry_after
        return float(min(self.max_retry_delay, max(base, 0.0) * 2**attempt))

    @staticmethod
    def _error(response: httpx.Response) -> ChainqError:
        try:
            body = response.json()
        except ValueError:
            body = None
        return error_from(
            response.status_code,
            body if isinstance(body, dict) else None,
            response.headers.get("x-request-id"),
            _retry_after(response),
        )

    @staticmethod
    def _incomplete(cause: Exception) -> IncompleteResponse:
        # httpx reads the whole body inside request(): a connection lost mid-body lands here.
        return IncompleteResponse(
            f"the answer broke off before its end ({cause}); nothing was charged",
            code="incomplete_response",
        )


def _retry_after(response: httpx.Response) -> float | None:
    v = response.headers.get("retry-after")
    if v is None:
        return None
    try:
        return float(v)
    except ValueError:
        return None


def coverage_params(family: str | None, protocol: str | None, network: str | None) -> dict[str, str]:
    return {k: v for k, v in (("family", family), ("protocol", protocol), ("network", network)) if v is not None}
