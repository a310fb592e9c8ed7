"""Typed errors: one class per kind of failure, each carrying the API's ``code`` and message.

The codes and statuses are those of the API (docs/api.md, "Errors"). The body's extra fields
(``missing_blocks``, ``limit``, ``cost`` …) become attributes of the error that carries them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ChainqError(Exception):
    """Any error answered by the API (or found by the client before sending, ``status`` 0)."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int = 0,
        body: Mapping[str, Any] | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.body: Mapping[str, Any] = body or {}
        self.request_id = request_id
        parameter = self.body.get("parameter")
        self.parameter: str | None = parameter if isinstance(parameter, str) else None

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class InvalidRequest(ChainqError):
    """400: the request is wrong; nothing was charged."""


class MissingParameter(InvalidRequest):
    pass


class InvalidParameter(InvalidRequest):
    pass


class UnknownParameter(InvalidRequest):
    """A parameter the endpoint does not take (also raised before sending, from the catalog)."""


class ConflictingParameters(InvalidRequest):
    pass


class InvalidRange(InvalidRequest):
    """An empty or reversed range, or one the store never ingested (``missing_blocks``)."""

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        raw = self.body.get("missing_blocks")
        self.missing_blocks: list[tuple[int, int]] = [(int(a), int(b)) for a, b in raw] if isinstance(raw, list) else []


class RangeTooLarge(InvalidRequest):
    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.limit: Any = self.body.get("limit")
        self.requested: Any = self.body.get("requested")


class UnsupportedNetwork(InvalidRequest):
    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        supported = self.body.get("supported")
        self.supported: list[str] = [str(s) for s in supported] if isinstance(supported, list) else []


class UnknownToken(InvalidRequest):
    pass


class InvalidBody(InvalidRequest):
    pass


class CostOverLimit(InvalidRequest):
    """The query costs more than its ``max_cost``; refused before anything ran."""

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.cost = _int_or_none(self.body.get("cost"))
        self.max_cost = _int_or_none(self.body.get("max_cost"))


class Unauthorized(ChainqError):
    """401: no API key, or one the server does not know (``missing_api_key``, ``invalid_api_key``)."""


class QuotaExceeded(ChainqError):
    """403: the request costs more than the monthly budget left."""

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.remaining = _int_or_none(self.body.get("remaining"))
        self.cost = _int_or_none(self.body.get("cost"))


class NotFound(ChainqError):
    pass


class MethodNotAllowed(ChainqError):
    pass


class LinkExpired(ChainqError):
    pass


class UnsupportedMediaType(ChainqError):
    pass


class RangeNotSatisfiable(ChainqError):
    pass


class RateLimited(ChainqError):
    """429 after the client's retries ran out; ``retry_after`` is the server's last advice in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class InvalidCursor(InvalidRequest):
    """A malformed cursor, or one of another endpoint or network."""


class CursorReorged(ChainqError):
    """409: the block a pull's cursor names was rolled back. Every row above ``block_number``
    read before is void; pull again from ``cursor``. Nothing was charged."""

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.block_number = _int_or_none(self.body.get("block_number"))
        hash_ = self.body.get("block_hash")
        self.block_hash: str | None = hash_ if isinstance(hash_, str) else None
        cursor = self.body.get("cursor")
        self.cursor: str | None = cursor if isinstance(cursor, str) else None


class InternalError(ChainqError):
    pass


class Unavailable(ChainqError):
    pass


class IncompleteResponse(ChainqError):
    """The body broke off before its end: the server charged nothing for it."""


_BY_CODE: dict[str, type[ChainqError]] = {
    "missing_parameter": MissingParameter,
    "invalid_parameter": InvalidParameter,
    "unknown_parameter": UnknownParameter,
    "conflicting_parameters": ConflictingParameters,
    "invalid_range": InvalidRange,
    "range_too_large": RangeTooLarge,
    "unsupported_network": UnsupportedNetwork,
    "unknown_token": UnknownToken,
    "invalid_body": InvalidBody,
    "cost_over_limit": CostOverLimit,
    "invalid_cursor": InvalidCursor,
    "cursor_reorged": CursorReorged,
    "missing_api_key": Unauthorized,
    "invalid_api_key": Unauthorized,
    "quota_exceeded": QuotaExceeded,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "link_expired": LinkExpired,
    "unsupported_media_type": UnsupportedMediaType,
    "range_not_satisfiable": RangeNotSatisfiable,
    "rate_limited": RateLimited,
    "internal_error": InternalError,
    "unavailable": Unavailable,
}

_BY_STATUS: dict[int, type[ChainqError]] = {
    400: InvalidRequest,
    401: Unauthorized,
    403: QuotaExceeded,
    404: NotFound,
    405: MethodNotAllowed,
    410: LinkExpired,
    415: UnsupportedMediaType,
    416: RangeNotSatisfiable,
    429: RateLimited,
    503: Unavailable,
}


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def error_from(
    status: int, body: Mapping[str, Any] | None, request_id: str | None, retry_after: float | None = None
) -> ChainqError:
    """The typed error of a non-2xx answer; a body that is not the API's error JSON still gets its status's class."""
    body = body or {}
    code = body.get("code")
    message = body.get("error")
    text = message if isinstance(message, str) else f"HTTP {status}"
    cls = _BY_CODE.get(code) if isinstance(code, str) else None
    if cls is None:
        cls = _BY_STATUS.get(status, InternalError if status >= 500 else ChainqError)
    code_text = code if isinstance(code, str) else f"http_{status}"
    if cls is RateLimited:
        return RateLimited(
            text, code=code_text, status=status, body=body, request_id=request_id, retry_after=retry_after
        )
    return cls(text, code=code_text, status=status, body=body, request_id=request_id)


class ExportFailed(ChainqError):
    """An export that ended ``failed`` or ``cancelled`` while it was waited for; ``export`` is its last status."""

    def __init__(self, export: Mapping[str, Any]) -> None:
        error = export.get("error") or {}
        state = str(export.get("status"))
        detail = f": {error.get('error')}" if error.get("error") else ""
        super().__init__(
            f"export {export.get('id')} {state}{detail}",
            code=str(error.get("code") or f"export_{state}"),
            body=export,
        )
        self.export = export


class ChecksumMismatch(ChainqError):
    """A downloaded export file whose size or SHA-256 is not the manifest's; the partial file was removed."""

    def __init__(self, name: str, expected: tuple[int, str], actual: tuple[int, str]) -> None:
        super().__init__(
            f"{name}: expected {expected[0]} bytes with sha256 {expected[1]}, "
            f"received {actual[0]} bytes with sha256 {actual[1]}",
            code="checksum_mismatch",
        )
        self.file = name
        self.expected = expected
        self.actual = actual
