"""The server's published catalog, read at runtime so the client never falls behind the server.

Built-in endpoints come from ``/openapi.json`` (operations carrying ``x-chainq``); custom
datasets, which that document leaves out, from ``GET /v1/evm/custom``. Keyword arguments are
checked against it before any request, so a typo fails naming the parameter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import NotFound, UnknownParameter

# The parameters every EVM raw endpoint takes; custom datasets take these plus `contract` and
# one filter per address input (docs/custom-datasets.md, "Query it").
_EVM_RAW_COMMON = (
    "network",
    "block_start",
    "block_end",
    "since",
    "until",
    "format",
    "verbose",
    "with_time",
    "link",
    "max_cost",
)


@dataclass(frozen=True)
class Param:
    name: str
    required: bool = False
    type: str = "string"
    enum: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Operation:
    """One route: the raw rows or the aggregate of a dataset."""

    path: str
    kind: str
    params: Mapping[str, Param]

    def check(self, dataset: str, given: Iterable[str]) -> None:
        for name in given:
            if name not in self.params:
                known = ", ".join(sorted(self.params))
                raise UnknownParameter(
                    f"{dataset} ({self.kind}) does not take '{name}'; it takes: {known}",
                    code="unknown_parameter",
                    body={"parameter": name},
                )


@dataclass(frozen=True)
class Endpoint:
    """A dataset (``family/protocol/event``) and its routes."""

    id: str
    family: str
    formats: tuple[str, ...]
    default_format: str
    networks: tuple[str, ...] = ()
    max_days: int | None = None
    summary: str = ""
    raw: Operation | None = None
    aggregate: Operation | None = None
    custom: bool = False


@dataclass
class Catalog:
    endpoints: dict[str, Endpoint] = field(default_factory=dict)

    def endpoint(self, dataset: str) -> Endpoint:
        e = self.endpoints.get(dataset)
        if e is None:
            known = ", ".join(sorted(self.endpoints))
            raise NotFound(f"unknown endpoint '{dataset}'; the server serves: {known}", code="not_found")
        return e

    def describe(self) -> str:
        """Every endpoint with its parameters, one per line (what `help(client)` cannot know statically)."""
        lines = []
        for e in sorted(self.endpoints.values(), key=lambda x: x.id):
            for op in (e.raw, e.aggregate):
                if op is None:
                    continue
                params = ", ".join(f"{p.name}{'*' if p.required else ''}" for p in op.params.values())
                lines.append(f"{e.id} [{op.kind}]: {params}")
        return "\n".join(lines)


def _param(raw: Mapping[str, Any]) -> Param:
    schema = raw.get("schema") or {}
    enum = schema.get("enum") or ()
    return Param(
        name=str(raw["name"]),
        required=bool(raw.get("required")),
        type=str(schema.get("type", "string")),
        enum=tuple(str(v) for v in enum),
        description=str(raw.get("description", "")),
    )


def from_documents(openapi: Mapping[str, Any], custom: Mapping[str, Any] | None) -> Catalog:
    cat = Catalog()
    pending: dict[str, dict[str, Any]] = {}
    for path, item in (openapi.get("paths") or {}).items():
        op = (item or {}).get("get")
        x = op.get("x-chainq") if isinstance(op, Mapping) else None
        if not isinstance(op, Mapping) or not isinstance(x, Mapping):
            continue
        params = {p.name: p for p in (_param(q) for q in op.get("parameters", []) if q.get("in") == "query")}
        entry = pending.setdefault(
            str(x["dataset"]),
            {
                "family": str(x.get("family", "")),
                "formats": tuple(str(f) for f in x.get("formats", ())),
                "default_format": str(x.get("default_format", "json")),
                "networks": tuple(str(n) for n in x.get("networks", ())),
                "max_days": x.get("max_days") if isinstance(x.get("max_days"), int) else None,
                "summary": str(op.get("summary", "")),
            },
        )
        entry[str(x.get("kind", "raw"))] = Operation(path=str(path), kind=str(x.get("kind", "raw")), params=params)
    for dataset, e in pending.items():
        cat.endpoints[dataset] = Endpoint(id=dataset, **e)
    for d in _custom_events(custom):
        cat.endpoints[d.id] = d
    return cat


def _custom_events(listing: Mapping[str, Any] | None) -> list[Endpoint]:
    out: list[Endpoint] = []
    datasets = (listing or {}).get("datasets")
    for ds in datasets if isinstance(datasets, list) else []:
        name = str(ds.get("name", ""))
        networks = ds.get("networks")
        events = ds.get("events")
        for ev in events if isinstance(events, list) else []:
            event = str(ev.get("event", ""))
            names = [*_EVM_RAW_COMMON, "contract", *_address_inputs(ev)]
            out.append(
                Endpoint(
                    id=f"evm/custom/{name}/{event}",
                    family="evm",
                    formats=("json", "csv", "parquet"),
                    default_format="json",
                    networks=tuple(str(k) for k in networks) if isinstance(networks, Mapping) else (),
                    summary=str(ev.get("signature", "")),
                    raw=Operation(
                        path=str(ev.get("path", f"/v1/evm/custom/{name}/events/{event}")),
                        kind="raw",
                        params={n: Param(name=n, required=n == "network") for n in names},
                    ),
                    custom=True,
                )
            )
    return out


def _address_inputs(event: Mapping[str, Any]) -> list[str]:
    """The address inputs, each a filter parameter: the listing describes their columns as `address <name>…`."""
    cols = event.get("columns")
    return [
        str(c["name"])
        for c in (cols if isinstance(cols, list) else [])
        if isinstance(c, Mapping) and str(c.get("description", "")).startswith(f"address {c.get('name')}")
    ]
