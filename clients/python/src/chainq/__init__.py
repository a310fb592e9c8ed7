"""chainq: historical blockchain and exchange data from a chainq server, as DataFrames.

import chainq
c = chainq.Client()        # CHAINQ_URL and CHAINQ_API_KEY from the environment
df = c.events("evm/erc20/transfer", network="ETH", token="USDT", since="2025-12-01", until="2025-12-02")
"""

from ._base import Cost
from .async_client import AsyncClient, AsyncExport
from .catalog import Catalog, Endpoint, Operation, Param
from .client import Client, Export
from .errors import (
    ChainqError,
    ChecksumMismatch,
    ConflictingParameters,
    CostOverLimit,
    CursorReorged,
    ExportFailed,
    IncompleteResponse,
    InternalError,
    InvalidBody,
    InvalidCursor,
    InvalidParameter,
    InvalidRange,
    InvalidRequest,
    LinkExpired,
    MethodNotAllowed,
    MissingParameter,
    NotFound,
    QuotaExceeded,
    RangeNotSatisfiable,
    RangeTooLarge,
    RateLimited,
    Unauthorized,
    Unavailable,
    UnknownParameter,
    UnknownToken,
    UnsupportedMediaType,
    UnsupportedNetwork,
)
from .stream import End, InvalidStreamEvent, Progress, Pull, Rows, StreamEvent, Undo

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "AsyncExport",
    "Catalog",
    "ChainqError",
    "ChecksumMismatch",
    "Client",
    "ConflictingParameters",
    "Cost",
    "CostOverLimit",
    "CursorReorged",
    "End",
    "Endpoint",
    "Export",
    "ExportFailed",
    "IncompleteResponse",
    "InternalError",
    "InvalidBody",
    "InvalidCursor",
    "InvalidParameter",
    "InvalidRange",
    "InvalidRequest",
    "InvalidStreamEvent",
    "LinkExpired",
    "MethodNotAllowed",
    "MissingParameter",
    "NotFound",
    "Operation",
    "Param",
    "Progress",
    "Pull",
    "QuotaExceeded",
    "RangeNotSatisfiable",
    "RangeTooLarge",
    "RateLimited",
    "Rows",
    "StreamEvent",
    "Unauthorized",
    "Unavailable",
    "Undo",
    "UnknownParameter",
    "UnknownToken",
    "UnsupportedMediaType",
    "UnsupportedNetwork",
    "__version__",
]
