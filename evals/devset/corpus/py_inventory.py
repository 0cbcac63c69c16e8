"""The Python project: `inventory`, a stock-keeping package with a CLI, tests, SQL
migrations, a CRLF CSV fixture, a binary fixture and a GitHub workflow.
"""
from __future__ import annotations

from .fixtures import F, fake_binary


PY_FILES = {
    "pyproject.toml": F(r'''
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "inventory"
version = "1.4.0"
description = "Stock keeping service for the warehouse team"
readme = "README.md"
requires-python = ">=3.10"
dependencies = []

[project.optional-dependencies]
dev = ["pytest>=7", "pytest-cov", "ruff"]

[project.scripts]
inventory = "inventory.cli:main"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-q"

[tool.ruff]
line-length = 100
target-version = "py310"
'''),
    "README.md": F(r'''
# inventory

Stock keeping service for the warehouse team. It keeps a JSON store of items,
syncs prices from the upstream catalogue and exposes a small CLI.

## Install

```sh
python -m venv .venv
. .venv/bin/activate
pip install -e '.[dev]'
```

## Usage

```sh
inventory add ABC123 "Blue widget" 12.50 --quantity 10
inventory list
inventory remove ABC123 3
```

## Development

Run the tests with `pytest`. The catalogue client talks to
`CATALOGUE_URL` (default `http://localhost:8080`); the tests never touch the
network.

## Layout

- `src/inventory/models.py` - domain objects (`Sku`, `Item`)
- `src/inventory/storage.py` - the JSON backed store
- `src/inventory/client.py` - HTTP client for the catalogue service
- `src/inventory/cli.py` - command line entry point
'''),
    "src/inventory/__init__.py": F(r'''
"""Stock keeping for the warehouse team.

The public API is re-exported here so callers can write
``from inventory import Item, JsonStore``.
"""
from .models import Item, Sku, ValidationError
from .storage import JsonStore, StorageError
from .client import CatalogueClient, CatalogueError
from .legacy import load_v1_store

__all__ = [
    "CatalogueClient",
    "CatalogueError",
    "Item",
    "JsonStore",
    "Sku",
    "StorageError",
    "ValidationError",
    "load_v1_store",
]

__version__ = "1.4.0"'''),  # no newline at end of file on purpose
    "src/inventory/models.py": F(r'''
"""Domain models for the inventory service."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Optional


class ValidationError(ValueError):
    """Raised when a model is constructed or changed with invalid data."""


@dataclass(frozen=True)
class Sku:
    code: str

    def __post_init__(self) -> None:
        if not self.code or not self.code.isalnum():
            raise ValidationError(f"invalid SKU code: {self.code!r}")

    def __str__(self) -> str:
        return self.code.upper()


@dataclass
class Item:
    sku: Sku
    name: str
    price: Decimal
    quantity: int = 0
    tags: list[str] = field(default_factory=list)
    updated_at: Optional[datetime] = None

    def total_value(self) -> Decimal:
        return self.price * self.quantity

    def restock(self, amount: int) -> None:
        if amount <= 0:
            raise ValidationError("restock amount must be positive")
        self.quantity += amount
        self.updated_at = datetime.now(timezone.utc)

    def remove(self, amount: int) -> None:
        if amount > self.quantity:
            raise ValidationError(
                f"cannot remove {amount} of {self.sku}: only {self.quantity} left"
            )
        self.quantity -= amount
        self.updated_at = datetime.now(timezone.utc)

    def to_dict(self) -> dict:
        return {
            "sku": str(self.sku),
            "name": self.name,
            "price": str(self.price),
            "quantity": self.quantity,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Item":
        return cls(
            sku=Sku(data["sku"]),
            name=data["name"],
            price=Decimal(data["price"]),
            quantity=int(data.get("quantity", 0)),
            tags=list(data.get("tags", [])),
        )
'''),
    "src/inventory/storage.py": F(r'''
"""Persistence for inventory items."""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Iterator

from .models import Item, Sku

log = logging.getLogger(__name__)


class StorageError(RuntimeError):
    """The store file is missing, unreadable or corrupt."""


class JsonStore:
    """Stores items in a single JSON file, rewritten atomically on save."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._items: dict[str, Item] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise StorageError(f"corrupt store {self.path}: {exc}") from exc
        for entry in raw.get("items", []):
            item = Item.from_dict(entry)
            self._items[str(item.sku)] = item
        log.debug("loaded %d items from %s", len(self._items), self.path)

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        payload = {"items": [item.to_dict() for item in self._items.values()]}
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    def get(self, sku: Sku) -> Item | None:
        return self._items.get(str(sku))

    def put(self, item: Item) -> None:
        self._items[str(item.sku)] = item

    def delete(self, sku: Sku) -> bool:
        return self._items.pop(str(sku), None) is not None

    def __iter__(self) -> Iterator[Item]:
        return iter(sorted(self._items.values(), key=lambda i: str(i.sku)))

    def __len__(self) -> int:
        return len(self._items)
'''),
    "src/inventory/client.py": F(r'''
"""HTTP client for the upstream catalogue service."""
from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 5.0


class CatalogueError(RuntimeError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"catalogue returned {status}: {message}")
        self.status = status


class CatalogueClient:
    """Thin wrapper around the catalogue REST API."""

    def __init__(self, base_url: str, token: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def _get(self, path: str) -> Any:
        req = urllib.request.Request(self.base_url + path, headers=self._headers())
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise CatalogueError(exc.code, exc.reason) from exc

    def fetch_item(self, sku: str) -> dict[str, Any]:
        log.info("fetching item %s", sku)
        return self._get(f"/items/{sku}")

    def list_items(self, page: int = 1, per_page: int = 50) -> list[dict[str, Any]]:
        data = self._get(f"/items?page={page}&per_page={per_page}")
        return data.get("items", [])
'''),
    "src/inventory/utils.py": F(r'''
"""Small helpers shared across the inventory package."""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

_SLUG_RE = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """Return a lowercase, dash separated slug for text."""
    return _SLUG_RE.sub("-", text.lower()).strip("-")


def parse_price(raw: str) -> Decimal:
    """Parse a price like '12.50' or '$12.5' into a Decimal with two places.

    Raises ValueError if the string is not a price.
    """
    cleaned = raw.strip().lstrip("$").replace(",", "")
    if not cleaned:
        raise ValueError("empty price")
    value = Decimal(cleaned)
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def chunked(items, size):
    """Yield successive lists of at most size elements."""
    if size <= 0:
        raise ValueError("size must be positive")
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def parse_tags(raw: str) -> list[str]:
    # Split a comma seperated list of tags and drop the empty entries.
    return [t.strip().lower() for t in raw.split(",") if t.strip()]
'''),
    "src/inventory/legacy.py": F(r'''
"""Reader for the v1 store format (CSV). Deprecated since 1.2."""
from __future__ import annotations

import csv
import warnings
from decimal import Decimal
from pathlib import Path

from .models import Item, Sku


def load_v1_store(path: Path) -> list[Item]:
    """Load items from a v1 CSV store. Use JsonStore for new data."""
    warnings.warn(
        "load_v1_store is deprecated; migrate to JsonStore",
        DeprecationWarning,
        stacklevel=2,
    )
    items = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            items.append(
                Item(
                    sku=Sku(row["sku"]),
                    name=row["name"],
                    price=Decimal(row["price"]),
                    quantity=int(row["qty"]),
                )
            )
    return items
'''),
    "src/inventory/cli.py": F(r'''
"""Command line interface: ``inventory add|list|remove``."""
from __future__ import annotations

import argparse
import os
import sys
from decimal import Decimal
from pathlib import Path

from .models import Item, Sku, ValidationError
from .storage import JsonStore

DEFAULT_STORE = Path(os.environ.get("INVENTORY_STORE", "inventory.json"))


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse the comand line arguments and return the namespace."""
    parser = argparse.ArgumentParser(prog="inventory")
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE)
    sub = parser.add_subparsers(dest="command", required=True)

    add = sub.add_parser("add", help="add a new item")
    add.add_argument("sku")
    add.add_argument("name")
    add.add_argument("price", type=Decimal)
    add.add_argument("--quantity", type=int, default=0)

    sub.add_parser("list", help="list all items")

    remove = sub.add_parser("remove", help="remove stock of an item")
    remove.add_argument("sku")
    remove.add_argument("amount", type=int)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    store = JsonStore(args.store)
    try:
        if args.command == "add":
            store.put(Item(Sku(args.sku), args.name, args.price, args.quantity))
        elif args.command == "list":
            for item in store:
                print(f"{item.sku}\t{item.quantity:>5}\t{item.name}")
        elif args.command == "remove":
            item = store.get(Sku(args.sku))
            if item is None:
                print(f"unknown SKU {args.sku}", file=sys.stderr)
                return 1
            item.remove(args.amount)
    except ValidationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    store.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''),
    "tests/test_models.py": F(r'''
from decimal import Decimal

import pytest

from inventory.models import Item, Sku, ValidationError


def make_item(quantity: int = 5) -> Item:
    return Item(Sku("ABC123"), "Blue widget", Decimal("12.50"), quantity)


def test_sku_rejects_symbols():
    with pytest.raises(ValidationError):
        Sku("AB-12")


def test_sku_str_is_upper_case():
    assert str(Sku("abc123")) == "ABC123"


def test_total_value():
    assert make_item(4).total_value() == Decimal("50.00")


def test_restock_adds_quantity():
    item = make_item(1)
    item.restock(3)
    assert item.quantity == 4
    assert item.updated_at is not None


def test_restock_rejects_zero():
    with pytest.raises(ValidationError):
        make_item().restock(0)


def test_remove_too_many():
    with pytest.raises(ValidationError, match="only 5 left"):
        make_item().remove(6)


def test_round_trip_dict():
    item = make_item()
    assert Item.from_dict(item.to_dict()) == item
'''),
    "tests/test_storage.py": F(r'''
import json
from decimal import Decimal

import pytest

from inventory.models import Item, Sku
from inventory.storage import JsonStore, StorageError


@pytest.fixture
def store(tmp_path):
    return JsonStore(tmp_path / "store.json")


def test_put_get(store):
    item = Item(Sku("A1"), "Bolt", Decimal("0.10"), 100)
    store.put(item)
    assert store.get(Sku("A1")) is item


def test_save_and_reload(store):
    store.put(Item(Sku("A1"), "Bolt", Decimal("0.10"), 100))
    store.save()
    again = JsonStore(store.path)
    assert len(again) == 1
    assert again.get(Sku("A1")).quantity == 100


def test_corrupt_file(tmp_path):
    path = tmp_path / "store.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(StorageError):
        JsonStore(path)


def test_iteration_is_sorted(store):
    for code in ("C3", "A1", "B2"):
        store.put(Item(Sku(code), code, Decimal("1"), 1))
    assert [str(i.sku) for i in store] == ["A1", "B2", "C3"]


def test_saved_file_is_sorted_json(store):
    store.put(Item(Sku("A1"), "Bolt", Decimal("0.10"), 1))
    store.save()
    data = json.loads(store.path.read_text(encoding="utf-8"))
    assert data["items"][0]["sku"] == "A1"
'''),
    "tests/fixtures/items.csv": (
        "sku,name,price,qty\r\n"
        "A1,Bolt,0.10,100\r\n"
        "A2,Nut,0.05,250\r\n"
        "B7,Washer,0.02,1000\r\n"
        "C3,Hinge,2.40,12\r\n"
        "D9,Bracket,3.15,40\r\n"
        "E4,Spring,0.75,60\r\n"
        "F2,Gasket,1.10,35\r\n"
        "G8,Rivet,0.04,800\r\n"
        "H5,Clamp,4.90,18\r\n"
        "J6,Pulley,7.25,9\r\n"
        "K1,Bearing,5.60,22\r\n"
        "L3,Grommet,0.12,400\r\n"
        "M7,Shim,0.08,500\r\n"
        "N2,Anchor,0.35,150\r\n"
        "P4,Latch,2.10,30\r\n"
        "Q9,Hook,0.65,75\r\n"
        "R3,Pin,0.03,900\r\n"
        "S8,Bushing,1.45,44\r\n"
        "T6,Caster,6.80,16\r\n"
        "U1,Knob,0.90,70\r\n"
    ),
    "migrations/0001_initial.sql": F(r'''
-- Initial schema for the SQL backed store (experimental).
CREATE TABLE items (
    sku        TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    price      NUMERIC(10, 2) NOT NULL,
    quantity   INTEGER NOT NULL DEFAULT 0,
    updated_at TIMESTAMP
);

CREATE TABLE item_tags (
    sku  TEXT NOT NULL REFERENCES items(sku) ON DELETE CASCADE,
    tag  TEXT NOT NULL,
    PRIMARY KEY (sku, tag)
);

CREATE INDEX idx_items_name ON items(name);

CREATE TABLE stock_moves (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    sku        TEXT NOT NULL REFERENCES items(sku),
    delta      INTEGER NOT NULL,
    reason     TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
'''),
    ".github/workflows/ci.yml": F(r'''
name: ci

on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.10", "3.11"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - name: Install
        run: pip install -e '.[dev]'
      - name: Lint
        run: ruff check src tests
      - name: Test
        run: pytest --cov=inventory
'''),
    # binary, so it cannot be a literal: deterministic bytes behind a made-up magic
    "tests/fixtures/sample.bin": fake_binary(12, 96, b"INVSNAP\x01"),
}
