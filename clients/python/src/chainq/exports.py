"""Export jobs (``POST /v1/exports``): a query's whole result written on the server as one file per
partition, followed until done and downloaded with every file checked against the manifest."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from .errors import ChecksumMismatch, ExportFailed, InvalidParameter

EXPORTS_PATH = "/v1/exports"
FINISHED = ("done", "failed", "cancelled")


def request_body(
    path: str,
    params: Mapping[str, Any],
    *,
    format: str,
    compression: str | None,
    partition_blocks: int | None,
    partition_days: int | None,
    max_cost: int | None,
) -> dict[str, Any]:
    """The API's export request: the endpoint's own parameters (lists joined with commas, as in a query string)
    and the file options."""
    if format not in ("parquet", "csv"):
        raise InvalidParameter(f"format must be parquet or csv, not {format!r}", code="invalid_parameter")
    wire = {k: ",".join(map(str, v)) if isinstance(v, list | tuple) else v for k, v in params.items() if v is not None}
    options = {
        "compression": compression,
        "partition_blocks": partition_blocks,
        "partition_days": partition_days,
        "max_cost": max_cost,
    }
    return {"endpoint": path, "params": wire, "format": format, **{k: v for k, v in options.items() if v is not None}}


def file_name(name: str) -> str:
    """A manifest's file name, refused when it could leave the target directory."""
    if name in ("", ".", "..") or os.path.basename(name) != name:
        raise ValueError(f"the manifest names a file outside the export: {name!r}")
    return name


def digest(path: Path) -> tuple[int, str] | None:
    """Size and SHA-256 (hex) of a file on disk, or None when there is none."""
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return None
    h = hashlib.sha256()
    size = 0
    with f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


def expected_of(entry: Mapping[str, Any]) -> tuple[int, str]:
    return int(entry["bytes"]), str(entry["sha256"])


def finished(status: Mapping[str, Any]) -> bool:
    """True once the export is done; raises ExportFailed when it failed or was cancelled."""
    if status.get("status") == "done":
        return True
    if status.get("status") in FINISHED:
        raise ExportFailed(status)
    return False


class Progress(Protocol):
    def show(self, status: Mapping[str, Any]) -> None: ...
    def close(self) -> None: ...


class _NoProgress:
    def show(self, status: Mapping[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass


class _Bar:
    """Partitions done of the total, on a tqdm bar."""

    def __init__(self, export_id: str) -> None:
        from tqdm.auto import tqdm

        self._bar = tqdm(desc=export_id, unit="part")
        self._done = 0

    def show(self, status: Mapping[str, Any]) -> None:
        self._bar.total = int(status.get("partitions") or 0)
        done = int(status.get("partitions_done") or 0)
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        self._bar.close()


class _Lines:
    """Without tqdm: one line on stderr whenever a partition finishes."""

    def __init__(self, export_id: str) -> None:
        self._id = export_id
        self._last: tuple[Any, Any] | None = None

    def show(self, status: Mapping[str, Any]) -> None:
        now = (status.get("status"), status.get("partitions_done"))
        if now != self._last:
            print(
                f"chainq: {self._id} {now[0]}: {now[1]}/{status.get('partitions')} partitions",
                file=sys.stderr,
            )
            self._last = now

    def close(self) -> None:
        pass


def progress_for(export_id: str, wanted: bool) -> Progress:
    if not wanted:
        return _NoProgress()
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return _Lines(export_id)
    return _Bar(export_id)


def target_of(export_id: str, suffix: str = "") -> str:
    return f"{EXPORTS_PATH}/{export_id}{suffix}"


def files_of(export_id: str, manifest: Mapping[str, Any], root: Path) -> list[tuple[Path, tuple[int, str], str]]:
    """Each file of a manifest: where it goes in ``root``, its expected size and SHA-256, and where to fetch it."""
    out = []
    for entry in manifest["files"]:
        name = file_name(str(entry["name"]))
        out.append((root / name, expected_of(entry), target_of(export_id, f"/files/{name}")))
    return out


class FileSink:
    """One file being downloaded: written beside its destination as ``.part``, hashed as it goes, and given its
    name only once its size and SHA-256 match the manifest (else ``ChecksumMismatch``, and nothing is left)."""

    def __init__(self, dest: Path, expected: tuple[int, str]) -> None:
        self._dest = dest
        self._expected = expected
        self._partial = dest.with_name(dest.name + ".part")
        self._hash = hashlib.sha256()
        self._size = 0
        self._out = self._partial.open("wb")

    def write(self, chunk: bytes) -> None:
        self._hash.update(chunk)
        self._size += len(chunk)
        self._out.write(chunk)

    def finish(self) -> None:
        self._out.close()
        got = (self._size, self._hash.hexdigest())
        if got != self._expected:
            raise ChecksumMismatch(self._dest.name, self._expected, got)
        self._partial.replace(self._dest)

    def discard(self) -> None:
        """Removes what is left of an unfinished download (nothing once ``finish`` succeeded)."""
        self._out.close()
        self._partial.unlink(missing_ok=True)


class Waiter:
    """The rule of ``Export.wait``: shows each status, answers once done, raises ``ExportFailed`` when the
    export failed or was cancelled and ``TimeoutError`` after ``timeout`` seconds (the export goes on)."""

    def __init__(self, export_id: str, progress: bool, timeout: float | None) -> None:
        self._id = export_id
        self._timeout = timeout
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._shown = progress_for(export_id, progress)

    def done(self, status: Mapping[str, Any]) -> bool:
        self._shown.show(status)
        if finished(status):
            return True
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise TimeoutError(f"export {self._id} still {status.get('status')} after {self._timeout} s")
        return False

    def close(self) -> None:
        self._shown.close()
