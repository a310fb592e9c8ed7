"""The asynchronous twin of Client, for pipelines that already run an event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
from httpx_sse import aconnect_sse

from . import catalog as catalog_mod
from . import exports, frames
from ._base import BaseClient, Call, Cost, cost_of, coverage_params
from .catalog import Catalog
from .endpoints import Dataset
from .errors import ChainqError
from .plan import Request
from .stream import End, Pull, StreamEvent, StreamState, stream_params


class AsyncClient(BaseClient):
    """``Client`` with every call a coroutine: ``await c.events(…)``. Same arguments, same answers."""

    def __init__(self, url: str | None = None, api_key: str | None = None, **options: Any) -> None:
        super().__init__(url, api_key, **options)
        self._http = httpx.AsyncClient(base_url=self.url, headers=self._headers, timeout=self.timeout)
        self._catalog_lock = asyncio.Lock()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _send(self, method: str, target: str, *, json_body: Any = None) -> httpx.Response:
        attempt = 0
        while True:
            try:
                r = await self._http.request(method, target, json=json_body)
            except (httpx.RemoteProtocolError, httpx.ReadError) as e:
                raise self._incomplete(e) from e
            delay = self._retry_or_raise(r, attempt)
            if delay is None:
                return r
            await asyncio.sleep(delay)
            attempt += 1

    async def _get_json(self, target: str, params: dict[str, str] | None = None) -> Any:
        if params:
            target = Request(path=target, params=tuple(params.items())).target
        return (await self._send("GET", target)).json()

    async def export(
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
    ) -> AsyncExport:
        """``Client.export`` as a coroutine; the handle's methods are coroutines too."""
        catalog = None if dataset.startswith("/") else await self.catalog()
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
        accepted = (await self._send("POST", exports.EXPORTS_PATH, json_body=body)).json()
        return AsyncExport(self, str(accepted["id"]), accepted)

    def export_job(self, export_id: str) -> AsyncExport:
        """An export started earlier, by its id."""
        return AsyncExport(self, export_id, None)

    async def exports(self) -> list[dict[str, Any]]:
        """The key's exports, newest first."""
        return list((await self._get_json(exports.EXPORTS_PATH))["exports"])

    async def _download_file(self, target: str, dest: Path, expected: tuple[int, str]) -> None:
        sink = None
        try:
            async with self._http.stream("GET", target) as r:
                if r.status_code >= 400:
                    await r.aread()
                    raise self._error(r)
                sink = exports.FileSink(dest, expected)
                async for chunk in r.aiter_bytes():
                    sink.write(chunk)
            sink.finish()
        finally:
            if sink is not None:
                sink.discard()

    async def catalog(self) -> Catalog:
        """The server's endpoints and parameters, read once."""
        async with self._catalog_lock:
            if self._catalog is None:
                await self.refresh_catalog()
            assert self._catalog is not None
            return self._catalog

    async def refresh_catalog(self) -> Catalog:
        openapi = (await self._send("GET", "/openapi.json")).json()
        custom = await self._get_json("/v1/evm/custom")
        self._catalog = catalog_mod.from_documents(openapi, custom)
        return self._catalog

    async def events(
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
        """As ``Client.events``."""
        self._check_output(output)
        call = self._plan(await self.catalog(), dataset, "raw", params, max_cost, chunk_blocks, chunk_seconds)
        return frames.convert(await self._run(call, progress), output)

    async def aggregate(
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
        """As ``Client.aggregate``."""
        self._check_output(output)
        call = self._plan(await self.catalog(), dataset, "aggregate", params, max_cost, chunk_blocks, chunk_seconds)
        return frames.convert(await self._run(call, progress), output)

    async def cost(
        self,
        dataset: Dataset | str,
        *,
        aggregate: bool = False,
        chunk_blocks: int | None = None,
        chunk_seconds: int | None = None,
        **params: Any,
    ) -> Cost:
        """As ``Client.cost``."""
        call = self._plan(
            await self.catalog(),
            dataset,
            "aggregate" if aggregate else "raw",
            params,
            None,
            chunk_blocks,
            chunk_seconds,
        )
        return await self._price(call)

    async def _bounded(self, requests: list[Request], work: Any) -> list[Any]:
        gate = asyncio.Semaphore(self.max_in_flight)

        async def one(req: Request) -> Any:
            async with gate:
                return await work(req)

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def _price(self, call: Call) -> Cost:
        async def one(req: Request) -> Any:
            return (await self._send("POST", "/v1/calculate-cost", json_body={"query": req.target})).json()

        return cost_of(await self._bounded(call.requests, one))

    async def _run(self, call: Call, progress: bool | None) -> pa.Table:
        n = len(call.requests)
        show = self._show_progress(progress, n)
        if n > 1:
            self._admit(call, await self._price(call), show)
        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(total=n, desc=call.endpoint.id, unit="req")

        async def fetch(req: Request) -> pa.Table:
            body = (await self._send("GET", req.target)).content
            if bar is not None:
                bar.update(1)
            return frames.table_of(body, call.fmt)

        try:
            return frames.concat(await self._bounded(call.requests, fetch))  # gather keeps the order
        finally:
            if bar is not None:
                bar.close()

    async def stream(
        self,
        dataset: Dataset | str,
        *,
        cursor: str | None = None,
        max_reconnects: int = 10,
        reconnect_base: float = 0.5,
        reconnect_max: float = 30.0,
        **params: Any,
    ) -> AsyncIterator[StreamEvent]:
        """``Client.stream`` as an async iterator: ``async for event in c.stream(…)``."""
        path = self._event_path(await self.catalog(), dataset, params, stream=True)
        state = StreamState(cursor, max_reconnects, reconnect_base, reconnect_max)
        wire = stream_params(params)
        attempt = 0
        while True:
            query, headers = state.request(wire)
            try:
                async with aconnect_sse(self._http, "GET", path, params=query, headers=headers) as source:
                    r = source.response
                    if r.status_code >= 400:
                        await r.aread()
                        delay = self._retry_or_raise(r, attempt)
                        assert delay is not None
                        await asyncio.sleep(delay)
                        attempt += 1
                        continue
                    async for sse in source.aiter_sse():
                        event = state.event(sse)
                        if event is None:
                            continue
                        attempt = 0
                        yield event
                        if isinstance(event, End):
                            return
                raise self._incomplete(ConnectionError("the stream closed before its end"))
            except (httpx.TransportError, ChainqError) as e:
                await asyncio.sleep(state.retry_after(e))
                self.reconnects += 1

    async def pull(self, dataset: Dataset | str, *, cursor: str, **params: Any) -> Pull:
        """``Client.pull``, awaited."""
        target = self._pull_target(await self.catalog(), dataset, cursor, params)
        return self._pull_answer(await self._send("GET", target))

    async def usage(self, charges: int | None = None) -> Any:
        return await self._get_json("/v1/usage", {"charges": str(charges)} if charges is not None else None)

    async def coverage(
        self, *, family: str | None = None, protocol: str | None = None, network: str | None = None
    ) -> Any:
        return (await self._get_json("/v1/coverage", coverage_params(family, protocol, network)))["coverage"]

    async def protocols(self) -> list[str]:
        return list(await self._get_json("/v1/protocols"))

    async def tokens(self) -> list[dict[str, Any]]:
        return list(await self._get_json("/v1/tokens"))

    async def custom_datasets(self) -> Any:
        return (await self._get_json("/v1/evm/custom"))["datasets"]


class AsyncExport:
    """``Export`` with every call a coroutine."""

    def __init__(self, client: AsyncClient, export_id: str, accepted: dict[str, Any] | None) -> None:
        self._client = client
        self.id = export_id
        self.accepted = accepted

    def __repr__(self) -> str:
        return f"AsyncExport({self.id!r})"

    async def status(self) -> dict[str, Any]:
        return dict((await self._client._send("GET", exports.target_of(self.id))).json())

    async def wait(
        self, progress: bool | None = None, interval: float = 1.0, timeout: float | None = None
    ) -> dict[str, Any]:
        waiter = exports.Waiter(self.id, progress if progress is not None else bool(self._client.progress), timeout)
        try:
            while True:
                s = await self.status()
                if waiter.done(s):
                    return s
                await asyncio.sleep(interval)
        finally:
            waiter.close()

    async def cancel(self) -> dict[str, Any]:
        return dict((await self._client._send("DELETE", exports.target_of(self.id))).json())

    async def manifest(self) -> dict[str, Any]:
        return dict((await self._client._send("GET", exports.target_of(self.id, "/manifest.json"))).json())

    async def download(self, directory: str | Path) -> list[Path]:
        root = Path(directory)
        root.mkdir(parents=True, exist_ok=True)
        paths = []
        for dest, expected, target in exports.files_of(self.id, await self.manifest(), root):
            # Hashing a large file blocks; it runs in a thread so the event loop goes on.
            if await asyncio.to_thread(exports.digest, dest) != expected:
                await self._client._download_file(target, dest, expected)
            paths.append(dest)
        return paths
