"""Export jobs: started, waited for, downloaded with every file checked against its manifest, against the real
server; a file corrupted on disk is fetched again, and a cancelled export raises ExportFailed."""

from __future__ import annotations

import asyncio
import hashlib
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import chainq

ETH_FIRST = 23_910_000
USDC = {"network": "ETH", "token": "USDC", "block_start": ETH_FIRST, "block_end": ETH_FIRST + 999}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_export_wait_download_checks_every_file_and_holds_the_query_rows(
    client: chainq.Client, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = client.export("evm/erc20/transfer", format="parquet", partition_blocks=250, **USDC)
    assert job.accepted is not None and job.accepted["partitions"] == 4
    done = job.wait(progress=True, interval=0.05)
    assert done["status"] == "done" and done["partitions_done"] == 4
    manifest = job.manifest()
    paths = job.download(tmp_path)
    assert [p.name for p in paths] == [
        f"part-{ETH_FIRST + 250 * i}-{ETH_FIRST + 250 * i + 249}.parquet" for i in range(4)
    ]
    for path, entry in zip(paths, manifest["files"], strict=True):
        assert path.stat().st_size == entry["bytes"]
        assert _sha256(path) == entry["sha256"]
    rows = sum(pq.read_table(p).num_rows for p in paths)
    assert rows == manifest["totals"]["rows"] == len(client.events("evm/erc20/transfer", output="arrow", **USDC))
    assert job.id in [e["id"] for e in client.exports()]
    # The progress went somewhere the user sees: a tqdm bar (or lines without tqdm) on stderr.
    assert job.id in capsys.readouterr().err


def test_download_keeps_valid_files_and_fetches_again_one_corrupted_on_disk(
    client: chainq.Client, tmp_path: Path
) -> None:
    job = client.export("evm/erc20/transfer", format="csv", compression="gzip", partition_blocks=500, **USDC)
    job.wait(interval=0.05)
    first, second = job.download(tmp_path)
    good = second.read_bytes()
    second.write_bytes(good[:-1] + bytes([good[-1] ^ 0xFF]))
    kept_mtime = first.stat().st_mtime_ns
    job.download(tmp_path)
    assert second.read_bytes() == good
    assert first.stat().st_mtime_ns == kept_mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.name, second.name])


def test_refusals_are_typed_and_a_cancelled_export_raises_export_failed(client: chainq.Client) -> None:
    with pytest.raises(chainq.CostOverLimit):
        client.export("evm/erc20/transfer", max_cost=10, **USDC)
    with pytest.raises(chainq.NotFound):
        client.export_job("exp_nope").status()
    job = client.export(
        "evm/erc20/transfer", format="csv", partition_blocks=10, **{**USDC, "block_end": ETH_FIRST + 9_999}
    )
    status = job.status()
    while status["status"] == "queued" or (status["status"] == "running" and status["partitions_done"] == 0):
        time.sleep(0.02)
        status = job.status()
    cancelled = job.cancel()
    if cancelled["status"] == "done":
        return  # all 1,000 partitions were written before the cancel arrived
    with pytest.raises(chainq.ExportFailed) as failed:
        job.wait(interval=0.05)
    assert failed.value.export["status"] == "cancelled"
    assert 0 < cancelled["partitions_done"] < 1_000


def test_async_export_downloads_the_same_files(client: chainq.Client, url: str, tmp_path: Path) -> None:
    sync = client.export("evm/erc20/transfer", partition_blocks=500, **USDC)
    sync.wait(interval=0.05)
    expected = sync.download(tmp_path / "sync")

    async def run() -> list[Path]:
        async with chainq.AsyncClient(url, api_key=client.api_key, progress=False) as c:
            job = await c.export("evm/erc20/transfer", partition_blocks=500, **USDC)
            status = await job.wait(interval=0.05)
            assert status["status"] == "done"
            manifest = await job.manifest()
            paths = await job.download(tmp_path / "async")
            assert [_sha256(p) for p in paths] == [f["sha256"] for f in manifest["files"]]
            return paths

    paths = asyncio.run(run())
    assert [p.name for p in paths] == [p.name for p in expected]
    for mine, theirs in zip(paths, expected, strict=True):
        assert pq.read_table(mine).equals(pq.read_table(theirs))
