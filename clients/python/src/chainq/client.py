"""The synchronous client, for notebooks and scripts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
from httpx_sse import connect_sse

from . import catalog as catalog_mod
from . import exports, frames
from ._base import BaseClient, Call, Cost, cost_of, coverage_params
from .catalog import Catalog
from .endpoints import Dataset
from .errors import ChainqError
from .plan import Request
from .stream import End, Pull, StreamEvent, StreamState, stream_params


class Client(BaseClient):
    """A chainq client.

    The built-in endpoint ids and their parameters are listed in ``chainq.endpoints``.

    ``Client()`` reads ``CHAINQ_URL`` and ``CHAINQ_API_KEY`` from the environment;
    ``Client(url, api_key=…)`` names them. The endpoints and their parameters come from the
    server's catalog (``client.catalog.describe()`` lists them).
    """

    def __init__(self, url: str | None = None, api_key: str | None = None, **options: Any) -> None:
        super().__init__(url, api_key, **options)
        self._http = httpx.Client(base_url=self.url, headers=self._headers, timeout=self.timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- transport ----------------------------------------------------------------------------

    def _send(self, method: str, target: str, *, json_body: Any = None) -> httpx.Response:
        """One request, retried on 429 by the client rule; any other non-2xx is raised typed."""
        attempt = 0
        while True:
            try:
                r = self._http.request(method, target, json=json_body)
            except (httpx.RemoteProtocolError, httpx.ReadError) as e:
                raise self._incomplete(e) from e
            delay = self._retry_or_raise(r, attempt)
            if delay is None:
                return r
            time.sleep(delay)
            attempt += 1

    def _get_json(self, target: str, params: dict[str, str] | None = None) -> Any:
        if params:
            target = Request(path=target, params=tuple(params.items())).target
        return self._send("GET", target).json()

    # --- catalog --------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The server's endpoints and parameters, read once (``refresh_catalog()`` reads it again)."""
        if self._catalog is None:
            self.refresh_catalog()
        assert self._catalog is not None
        return self._catalog

    def refresh_catalog(self) -> Catalog:
        openapi = self._send("GET", "/openapi.json").json()
        custom = self._get_json("/v1/evm/custom")
        self._catalog = catalog_mod.from_documents(openapi, custom)
        return self._catalog

    # --- data -------------------------------------------------------------------------------------

    def events(
        self,
        dataset: Dataset | str,
        *,
        output: frames.Output = "pandas",
        max_cost: int | None = None,
        progress: bool | None = None,
        chunk_blocks: int | None = None,
        chunk_seconds: int | None = None,
        **params: Any,
    ) -> Any:
        """The raw rows of ``dataset`` (``family/protocol/event``, e.g. ``evm/erc20/transfer``,
        ``exchange/venue_a/raw_trades``, ``evm/custom/<name>/<event>``), filtered by its own
        parameters given as keyword arguments. A range longer than one request may hold is split
        into allowed requests, priced first (``max_cost`` refuses before anything runs), a few in
        flight, and the rows concatenated in order (``chunk_blocks`` / ``chunk_seconds`` ask for
        smaller pieces). ``output``: ``pandas`` (default), ``arrow`` or
        ``polars``."""
        self._check_output(output)
        call = self._plan(self.catalog, dataset, "raw", params, max_cost, chunk_blocks, chunk_seconds)
        return frames.convert(self._run(call, progress), output)

    def aggregate(
        self,
        dataset: Dataset | str,
        *,
        output: frames.Output = "pandas",
        max_cost: int | None = None,
        progress: bool | None = None,
        chunk_blocks: int | None = None,
        chunk_seconds: int | None = None,
        **params: Any,
    ) -> Any:
        """The bucketed aggregate of ``dataset`` (``group_by``, ``period`` and the dataset's
        filters as keyword arguments). A range longer than one request may hold is split like
        ``events`` does, but only at bucket edges, so every bucket is computed whole by one
        request; a range that cannot be cut so (bucketed by time over a block range, or buckets
        wider than the limit) is sent as one request and refused by the server when too long."""
        self._check_output(output)
        call = self._plan(self.catalog, dataset, "aggregate", params, max_cost, chunk_blocks, chunk_seconds)
        return frames.convert(self._run(call, progress), output)

    def cost(
        self,
        dataset: Dataset | str,
        *,
        aggregate: bool = False,
        chunk_blocks: int | None = None,
        chunk_seconds: int | None = None,
        **params: Any,
    ) -> Cost:
        """What ``events`` (or ``aggregate``) with these parameters would cost, without running it."""
        call = self._plan(
            self.catalog, dataset, "aggregate" if aggregate else "raw", params, None, chunk_blocks, chunk_seconds
        )
        return self._price(call)

    def _price(self, call: Call) -> Cost:
        def one(req: Request) -> Any:
            return self._send("POST", "/v1/calculate-cost", json_body={"query": req.target}).json()

        with ThreadPoolExecutor(self.max_in_flight) as pool:
            return cost_of(list(pool.map(one, call.requests)))

    def _run(self, call: Call, progress: bool | None) -> pa.Table:
        n = len(call.requests)
        show = self._show_progress(progress, n)
        if n > 1:
            self._admit(call, self._price(call), show)

        def fetch(req: Request) -> pa.Table:
            return frames.table_of(self._body(req), call.fmt)

        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(total=n, desc=call.endpoint.id, unit="req")
        try:
            with ThreadPoolExecutor(self.max_in_flight) as pool:
                tables = []
                for t in pool.map(fetch, call.requests):  # map keeps the order of the ranges
                    tables.append(t)
                    if bar is not None:
                        bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        return frames.concat(tables)

    def _body(self, req: Request) -> bytes:
        r = self._send("GET", req.target)
        return r.content

    # --- export jobs --------------------------------------------------------------------------------

    def export(
        self,
        dataset: Dataset | str,
        *,
        format: str = "parquet",
        compression: str | None = None,
        partition_blocks: int | None = None,
        partition_days: int | None = None,
        max_cost: int | None = None,
        aggregate: bool = False,
        **params: Any,
    ) -> Export:
        """Starts an export job: the whole result of ``dataset`` with these parameters written on the
        server as Parquet (or CSV, ``compression="gzip"`` optional) files of ``partition_blocks`` blocks
        (``partition_days`` days for venues) each. Answers at once with an ``Export``; refusals
        (``max_cost``, budget, parameters) raise typed errors and charge nothing."""
        catalog = None if dataset.startswith("/") else self.catalog
        body = self._export_body(
            catalog,
            dataset,
            aggregate,
            params,
            format=format,
            compression=compression,
            partition_blocks=partition_blocks,
            partition_days=partition_days,
            max_cost=max_cost,
        )
        accepted = self._send("POST", exports.EXPORTS_PATH, json_body=body).json()
        return Export(self, str(accepted["id"]), accepted)

    def export_job(self, export_id: str) -> Export:
        """An export started earlier, by its id."""
        return Export(self, export_id, None)

    def exports(self) -> list[dict[str, Any]]:
        """The key's exports, newest first."""
        return list(self._get_json(exports.EXPORTS_PATH)["exports"])

    def _download_file(self, target: str, dest: Path, expected: tuple[int, str]) -> None:
        sink = None
        try:
            with self._http.stream("GET", target) as r:
                if r.status_code >= 400:
                    r.read()
                    raise self._error(r)
                sink = exports.FileSink(dest, expected)
                for chunk in r.iter_bytes():
                    sink.write(chunk)
            sink.finish()
        finally:
            if sink is not None:
                sink.discard()

    # --- streams and cursors ---------------------------------------------------------------------

    def stream(
        self,
        dataset: Dataset | str,
        *,
        cursor: str | None = None,
        max_reconnects: int = 10,
        reconnect_base: float = 0.5,
        reconnect_max: float = 30.0,
        **params: Any,
    ) -> Iterator[StreamEvent]:
        """The live stream of a raw event dataset: ``Rows``, ``Undo``, ``Progress`` and ``End`` events,
        each with its cursor. Give a start (``block_start`` or ``since``) or ``cursor``; without an end
        (``block_end`` or ``until``) it follows the head. A dropped connection is resumed from the last
        cursor by itself (up to ``max_reconnects`` failures in a row, waiting ``reconnect_base`` seconds
        doubled each time); a 4xx answer or an ``error`` event is raised as a typed error."""
        path = self._event_path(self.catalog, dataset, params, stream=True)
        state = StreamState(cursor, max_reconnects, reconnect_base, reconnect_max)
        wire = stream_params(params)
        attempt = 0
        while True:
            query, headers = state.request(wire)
            try:
                with connect_sse(self._http, "GET", path, params=query, headers=headers) as source:
                    r = source.response
                    if r.status_code >= 400:
                        r.read()
                        delay = self._retry_or_raise(r, attempt)
                        assert delay is not None
                        time.sleep(delay)
                        attempt += 1
                        continue
                    for sse in source.iter_sse():
                        event = state.event(sse)
                        if event is None:
                            continue
                        attempt = 0
                        yield event
                        if isinstance(event, End):
                            return
                raise self._incomplete(ConnectionError("the stream closed before its end"))
            except (httpx.TransportError, ChainqError) as e:
                time.sleep(state.retry_after(e))
                self.reconnects += 1

    def pull(self, dataset: Dataset | str, *, cursor: str, **params: Any) -> Pull:
        """The rows of a raw event dataset after ``cursor``, up to the range limit or the delivered head,
        and ``next_cursor`` to pull from next. A cursor whose block was rolled back raises ``CursorReorged``."""
        return self._pull_answer(self._send("GET", self._pull_target(self.catalog, dataset, cursor, params)))

    # --- discovery and account ------------------------------------------------------------------

    def usage(self, charges: int | None = None) -> Any:
        """The key's plan, limits, budget used and left this month, and its latest charges."""
        return self._get_json("/v1/usage", {"charges": str(charges)} if charges is not None else None)

    def coverage(self, *, family: str | None = None, protocol: str | None = None, network: str | None = None) -> Any:
        """What the store holds, per dataset and network: covered ranges, gaps, newest block."""
        return self._get_json("/v1/coverage", coverage_params(family, protocol, network))["coverage"]

    def protocols(self) -> list[str]:
        return list(self._get_json("/v1/protocols"))

    def tokens(self) -> list[dict[str, Any]]:
        return list(self._get_json("/v1/tokens"))

    def custom_datasets(self) -> Any:
        """The operator's custom event datasets (``GET /v1/evm/custom``)."""
        return self._get_json("/v1/evm/custom")["datasets"]


class Export:
    """One export job on the server: ``wait()`` for it, then ``download(dir)``."""

    def __init__(self, client: Client, export_id: str, accepted: dict[str, Any] | None) -> None:
        self._client = client
        self.id = export_id
        self.accepted = accepted
        """The server's answer when the export was accepted (its ``cost`` and ``partitions``); None when looked up."""

    def __repr__(self) -> str:
        return f"Export({self.id!r})"

    def status(self) -> dict[str, Any]:
        """The export's state: ``status``, ``partitions_done`` of ``partitions``, ``rows``, ``bytes``, ``charged``…"""
        return dict(self._client._send("GET", exports.target_of(self.id)).json())

    def wait(self, progress: bool | None = None, interval: float = 1.0, timeout: float | None = None) -> dict[str, Any]:
        """Reads the status until the export is done and answers it; ``progress=True`` shows partitions done
        (a tqdm bar when tqdm is installed). A failed or cancelled export raises ``ExportFailed``; ``timeout``
        seconds without the end raise ``TimeoutError`` (the export goes on)."""
        waiter = exports.Waiter(self.id, progress if progress is not None else bool(self._client.progress), timeout)
        try:
            while True:
                s = self.status()
                if waiter.done(s):
                    return s
                time.sleep(interval)
        finally:
            waiter.close()

    def cancel(self) -> dict[str, Any]:
        """Cancels a queued or running export (finished partitions stay charged and downloadable),
        or deletes a finished one's files."""
        return dict(self._client._send("DELETE", exports.target_of(self.id)).json())

    def manifest(self) -> dict[str, Any]:
        """The files of a finished export with their rows, size and SHA-256, its columns and totals."""
        return dict(self._client._send("GET", exports.target_of(self.id, "/manifest.json")).json())

    def download(self, directory: str | Path) -> list[Path]:
        """Every file of the manifest into ``directory``: a file already there with the manifest's size and
        SHA-256 is kept; any other is fetched and takes its name only once both match, else
        ``ChecksumMismatch`` is raised and nothing is left of it."""
        root = Path(directory)
        root.mkdir(parents=True, exist_ok=True)
        paths = []
        for dest, expected, target in exports.files_of(self.id, self.manifest(), root):
            if exports.digest(dest) != expected:
                self._client._download_file(target, dest, expected)
            paths.append(dest)
        return paths
