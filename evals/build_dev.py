#!/usr/bin/env python3
"""Generate evals/dev.jsonl, the development eval set for `judge`.

Every patch in the set is a real diff: the script builds small but realistic
projects (Python, TypeScript/JavaScript, Go, Rust, Java, C, shell, YAML, JSON,
Markdown) in throwaway git repositories, makes the change a step describes and
records what `git diff` (or GNU `diff -u` for the plain-diff cases) prints.
Invalid cases take such a real result and introduce exactly one defect.

Deterministic: fixed git identity and dates, no user/system git config, fixed
seeds, sorted keys. Running it twice gives byte-identical output (for a given
git / diffutils version).

Usage:  python evals/build_dev.py [--out PATH] [--quiet]
Stdlib only; needs the `git` and `diff` binaries.
"""
from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "dev.jsonl"

FIXED_DATE = "2024-03-01T12:00:00+00:00"
FIXED_EPOCH = 1709294400  # 2024-03-01 12:00:00 UTC, used for plain-diff mtimes

GIT_CONFIG = [
    "-c", "core.autocrlf=false",
    "-c", "core.safecrlf=false",
    "-c", "core.quotePath=true",
    "-c", "core.fileMode=true",
    "-c", "core.precomposeUnicode=false",
    "-c", "init.defaultBranch=main",
    "-c", "diff.algorithm=myers",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.renames=false",
    "-c", "diff.context=3",
    "-c", "diff.interHunkContext=0",
    "-c", "diff.indentHeuristic=true",
    "-c", "color.ui=never",
    "-c", "commit.gpgSign=false",
]
DIFF_FLAGS = ["--no-ext-diff", "--no-color", "--no-textconv"]


def _env(home: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "HOME": home,
        "TZ": "UTC",
        "LC_ALL": "C",
        "LANG": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Eval Builder",
        "GIT_AUTHOR_EMAIL": "evals@judge.invalid",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_NAME": "Eval Builder",
        "GIT_COMMITTER_EMAIL": "evals@judge.invalid",
        "GIT_COMMITTER_DATE": FIXED_DATE,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
    })
    return env


def F(text: str) -> str:
    """Corpus helper: drop the newline right after the opening quotes."""
    return text[1:] if text.startswith("\n") else text


# ---------------------------------------------------------------------------
# Corpus: small but realistic projects. Each project: files + executables.
# ---------------------------------------------------------------------------

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
}

TS_FILES = {
    "package.json": F(r'''
{
  "name": "@acme/web-client",
  "version": "2.3.1",
  "private": true,
  "type": "module",
  "main": "dist/index.js",
  "types": "dist/index.d.ts",
  "scripts": {
    "build": "tsc -p tsconfig.json",
    "test": "vitest run",
    "typecheck": "tsc --noEmit"
  },
  "dependencies": {
    "left-pad": "^1.3.0"
  },
  "devDependencies": {
    "@types/node": "^20.11.0",
    "typescript": "^5.3.3",
    "vitest": "^1.2.0"
  }
}
'''),
    "tsconfig.json": F(r'''
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "declaration": true,
    "outDir": "dist",
    "rootDir": "src",
    "esModuleInterop": true,
    "skipLibCheck": true,
    "strict": false,
    "noUnusedLocals": true,
    "noFallthroughCasesInSwitch": true,
    "forceConsistentCasingInFileNames": true,
    "resolveJsonModule": true,
    "lib": ["ES2022", "DOM"]
  },
  "include": ["src/**/*.ts"],
  "exclude": ["dist", "node_modules", "vendor"]
}
'''),
    "src/types.ts": F(r'''
export interface User {
  id: string;
  email: string;
  displayName: string;
  createdAt: string;
  roles: Role[];
}

export type Role = "admin" | "editor" | "viewer";

export interface OrderLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

export interface Order {
  id: string;
  userId: string;
  lines: OrderLine[];
  status: "pending" | "paid" | "shipped" | "cancelled";
  totalCents: number;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}
'''),
    "src/api/client.ts": F(r'''
import { Order, User } from "../types";
import { logger } from "../utils/logger";

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  timeoutMs?: number;
}

export class HttpError extends Error {
  constructor(public readonly status: number, message: string) {
    super(message);
    this.name = "HttpError";
  }
}

export class ApiClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.options.token) {
      headers["Authorization"] = `Bearer ${this.options.token}`;
    }
    return headers;
  }

  /**
   * Performs a request and parses the JSON body.
   */
  private async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        ...init,
        headers: { ...this.headers(), ...(init.headers ?? {}) },
        signal: controller.signal,
      });
      if (!res.ok) {
        throw new HttpError(res.status, `${init.method ?? "GET"} ${path} failed: ${res.status}`);
      }
      return (await res.json()) as T;
    } finally {
      clearTimeout(timer);
    }
  }

  async fetchUser(id: string): Promise<User> {
    logger.debug(`fetching user ${id}`);
    return this.request<User>(`/users/${encodeURIComponent(id)}`);
  }

  async listOrders(userId: string): Promise<Order[]> {
    const data = await this.request<{ orders: Order[] }>(`/users/${userId}/orders`);
    return data.orders;
  }

  async createOrder(userId: string, skus: string[]): Promise<Order> {
    return this.request<Order>(`/users/${userId}/orders`, {
      method: "POST",
      body: JSON.stringify({ skus }),
      headers: { "Content-Type": "application/json" },
    });
  }
}
'''),
    "src/utils/logger.ts": F(r'''
type Level = "debug" | "info" | "warn" | "error";

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function currentLevel(): Level {
  const env = (globalThis as any).process?.env?.LOG_LEVEL as Level | undefined;
  return env && env in ORDER ? env : "info";
}

function emit(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[currentLevel()]) {
    return;
  }
  const line = JSON.stringify({ level, message, ts: new Date().toISOString(), ...fields });
  if (level === "error" || level === "warn") {
    console.error(line);
  } else {
    console.log(line);
  }
}

export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => emit("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => emit("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => emit("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => emit("error", message, fields),
};
'''),
    "src/utils/format.ts": F(r'''
import leftPad from "left-pad";

/** Formats an ISO timestamp as YYYY-MM-DD in UTC. */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) {
    throw new RangeError(`invalid date: ${iso}`);
  }
  const month = leftPad(String(d.getUTCMonth() + 1), 2, "0");
  const day = leftPad(String(d.getUTCDate()), 2, "0");
  return `${d.getUTCFullYear()}-${month}-${day}`;
}

/** Shortens text to at most max characters, adding an ellipsis. */
export function truncate(text: string, max: number): string {
  if (max < 1) {
    throw new RangeError("max must be >= 1");
  }
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Returns "1 item" / "3 items". */
export function pluralize(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
'''),
    "src/utils/deprecated.ts": F(r'''
/**
 * Old helpers kept for the 1.x API. Nothing in src/ uses them any more.
 * @deprecated use formatDate from ./format instead.
 */
export function toShortDate(iso: string): string {
  return iso.slice(0, 10);
}

/** @deprecated use pluralize from ./format instead. */
export function plural(count: number, word: string): string {
  if (count === 1) {
    return `${count} ${word}`;
  }
  return `${count} ${word}s`;
}

/** @deprecated callers should read options.timeoutMs directly. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** @deprecated */
export function isBlank(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.trim() === "";
}
'''),
    "src/serviceA.ts": F(r'''
import { ApiClient } from "./api/client";
import { Order, User } from "./types";
import { pluralize } from "./utils/format";

export interface UserSummary {
  user: User;
  orderCount: number;
  openOrderCount: number;
  label: string;
}

const OPEN_STATES: Order["status"][] = ["pending", "paid"];

export function foo(orders: Order[]): Order[] {
  return orders.filter((o) => OPEN_STATES.includes(o.status));
}

export class ServiceA {
  constructor(private readonly client: ApiClient) {}

  async summarize(userId: string): Promise<UserSummary> {
    const [user, orders] = await Promise.all([
      this.client.fetchUser(userId),
      this.client.listOrders(userId),
    ]);
    const open = foo(orders);
    return {
      user,
      orderCount: orders.length,
      openOrderCount: open.length,
      label: `${user.displayName} (${pluralize(open.length, "open order")})`,
    };
  }

  async totalSpentCents(userId: string): Promise<number> {
    const orders = await this.client.listOrders(userId);
    return orders
      .filter((o) => o.status !== "cancelled")
      .reduce((sum, o) => sum + o.totalCents, 0);
  }
}
'''),
    "src/index.ts": F(r'''
export { ApiClient, HttpError } from "./api/client";
export type { ClientOptions } from "./api/client";
export { ServiceA, foo } from "./serviceA";
export type { UserSummary } from "./serviceA";
export { formatDate, pluralize, truncate } from "./utils/format";
export { plural, toShortDate } from "./utils/deprecated";
export type { Order, OrderLine, Page, Role, User } from "./types";

export const VERSION = "2.3.1";

/**
 * Creates a client with the defaults used by the web app.
 */
export function createDefaultClient(token?: string) {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { ApiClient } = require("./api/client");
  return new ApiClient({
    baseUrl: "https://api.acme.test/v2",
    token,
    timeoutMs: 8_000,
  });
}
'''),
    "test/format.test.ts": F(r'''
import { describe, expect, it } from "vitest";

import { formatDate, pluralize, truncate } from "../src/utils/format";

describe("formatDate", () => {
  it("formats UTC dates", () => {
    expect(formatDate("2024-02-03T23:59:00Z")).toBe("2024-02-03");
  });

  it("rejects garbage", () => {
    expect(() => formatDate("yesterday")).toThrow(RangeError);
  });
});

describe("truncate", () => {
  it("keeps short text", () => {
    expect(truncate("abc", 5)).toBe("abc");
  });

  it("adds an ellipsis", () => {
    expect(truncate("abcdef", 4)).toBe("abc…");
  });
});

describe("pluralize", () => {
  it("handles one and many", () => {
    expect(pluralize(1, "item")).toBe("1 item");
    expect(pluralize(2, "item")).toBe("2 items");
  });
});
'''),
    "test/serviceA.test.ts": F(r'''
import { describe, expect, it, vi } from "vitest";

import { ServiceA, foo } from "../src/serviceA";
import type { Order } from "../src/types";

const order = (id: string, status: Order["status"], totalCents = 100): Order => ({
  id,
  userId: "u1",
  lines: [],
  status,
  totalCents,
});

describe("foo", () => {
  it("keeps pending and paid orders", () => {
    const orders = [order("1", "pending"), order("2", "shipped"), order("3", "paid")];
    expect(foo(orders).map((o) => o.id)).toEqual(["1", "3"]);
  });
});

describe("ServiceA", () => {
  it("ignores cancelled orders in the total", async () => {
    const client = {
      listOrders: vi.fn().mockResolvedValue([order("1", "paid", 250), order("2", "cancelled", 999)]),
    } as any;
    const service = new ServiceA(client);
    await expect(service.totalSpentCents("u1")).resolves.toBe(250);
  });
});
'''),
    "vendor/left-pad/index.js": F(r'''
/* This program is free software. It comes without any warranty, to
 * the extent permitted by applicable law. You can redistribute it
 * and/or modify it under the terms of the Do What The Fuck You Want
 * To Public License, Version 2, as published by Sam Hocevar. */
'use strict';
module.exports = leftPad;

var cache = [
  '',
  ' ',
  '  ',
  '   ',
  '    ',
  '     ',
  '      ',
  '       ',
  '        ',
  '         '
];

function leftPad (str, len, ch) {
  // convert `str` to a `string`
  str = str + '';
  // `len` is the `pad`'s length now
  len = len - str.length;
  // doesn't need to pad
  if (len <= 0) return str;
  // `ch` defaults to `' '`
  if (!ch && ch !== 0) ch = ' ';
  // convert `ch` to a `string` cuz it could be a number
  ch = ch + '';
  // cache common use cases
  if (ch === ' ' && len < 10) return cache[len] + str;
  // `pad` starts with an empty string
  var pad = '';
  // loop
  while (true) {
    // add `ch` to `pad` if `len` is odd
    if (len & 1) pad += ch;
    // divide `len` by 2, ditch the remainder
    len >>= 1;
    // "double" the `ch` so this operation count grows logarithmically on `len`
    // each time `ch` is "doubled", the `len` would need to be "doubled" too
    // similar to finding a value in binary search tree, hence O(log(n))
    if (len) ch += ch;
    // `len` is 0, exit the loop
    else break;
  }
  // pad `str`!
  return pad + str;
}
'''),
    "docs/CONTRIBUTING.md": F(r'''
# Contributing

Thanks for helping out! A few ground rules:

1. Run `npm test` and `npm run typecheck` before you push.
2. Keep pull requests small; one concern per PR.
3. Public API changes need a line in `CHANGELOG.md`.
4. Never edit files under `vendor/` by hand; they are synced by a script.

## Commit messages

Use the imperative mood ("Add retry to fetchUser", not "Added ...").
Reference the issue number in the body when there is one.

## Releasing

Releases are cut from `main` by the CI pipeline when a tag `vX.Y.Z` is
pushed. Bump `version` in `package.json` and `VERSION` in `src/index.ts`
in the same commit.
'''),
    "docs/User Guide.md": F(r'''
# User guide

The web client wraps the ACME REST API for the browser and for Node 20+.

## Getting started

```ts
import { ApiClient } from "@acme/web-client";

const client = new ApiClient({ baseUrl: "https://api.acme.test/v2", token });
const user = await client.fetchUser("u_123");
```

## Errors

Every failed request throws an `HttpError` with the HTTP `status`.
See [the API reference](./api-reference.md) for the status codes.

## Timeouts

Requests are aborted after `timeoutMs` (default 10 seconds).

## Support

Open an issue in the tracker or ask in #web-client on Slack.
'''),
    "public/favicon.ico": None,  # binary, filled in below
}

GO_FILES = {
    "go.mod": F(r'''
module github.com/acme/ratelimit

go 1.21

require github.com/pkg/errors v0.9.1
'''),
    "limiter.go": F(r'''
// Package ratelimit implements a token bucket rate limiter with pluggable
// storage, used by the API gateway to throttle clients.
package ratelimit

import (
	"sync"
	"time"

	"github.com/pkg/errors"
)

// ErrInvalidRate is returned when a limiter is configured with a rate <= 0.
var ErrInvalidRate = errors.New("ratelimit: rate must be positive")

// Clock abstracts time so tests can control it.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Limiter is a token bucket. It is safe for concurrent use.
type Limiter struct {
	mu       sync.Mutex
	rate     float64 // tokens per second
	capacity float64
	tokens   float64
	last     time.Time
	clock    Clock
}

// NewLimiter returns a limiter that allows rate events per minute with
// bursts of up to capacity events.
func NewLimiter(rate float64, capacity int) (*Limiter, error) {
	if rate <= 0 {
		return nil, ErrInvalidRate
	}
	clock := realClock{}
	return &Limiter{
		rate:     rate,
		capacity: float64(capacity),
		tokens:   float64(capacity),
		last:     clock.Now(),
		clock:    clock,
	}, nil
}

func (l *Limiter) refill(now time.Time) {
	elapsed := now.Sub(l.last).Seconds()
	if elapsed <= 0 {
		return
	}
	l.tokens += elapsed * l.rate
	if l.tokens > l.capacity {
		l.tokens = l.capacity
	}
	l.last = now
}

// Allow reports whether one event may happen now and consumes a token if so.
func (l *Limiter) Allow() bool {
	return l.AllowN(1)
}

// AllowN reports whether n events may happen now.
func (l *Limiter) AllowN(n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(l.clock.Now())
	if l.tokens < float64(n) {
		return false
	}
	l.tokens -= float64(n)
	return true
}

// Tokens returns the number of tokens currently available.
func (l *Limiter) Tokens() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(l.clock.Now())
	return l.tokens
}
'''),
    "limiter_test.go": F(r'''
package ratelimit

import (
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (f *fakeClock) Now() time.Time { return f.t }

func (f *fakeClock) Advance(d time.Duration) { f.t = f.t.Add(d) }

func newTestLimiter(t *testing.T, rate float64, capacity int) (*Limiter, *fakeClock) {
	t.Helper()
	l, err := NewLimiter(rate, capacity)
	if err != nil {
		t.Fatalf("NewLimiter: %v", err)
	}
	clock := &fakeClock{t: time.Unix(1700000000, 0)}
	l.clock = clock
	l.last = clock.t
	return l, clock
}

func TestInvalidRate(t *testing.T) {
	if _, err := NewLimiter(0, 1); err != ErrInvalidRate {
		t.Fatalf("want ErrInvalidRate, got %v", err)
	}
}

func TestBurstThenDeny(t *testing.T) {
	l, _ := newTestLimiter(t, 1, 3)
	for i := 0; i < 3; i++ {
		if !l.Allow() {
			t.Fatalf("event %d denied", i)
		}
	}
	if l.Allow() {
		t.Fatal("fourth event allowed")
	}
}

func TestRefill(t *testing.T) {
	l, clock := newTestLimiter(t, 2, 2)
	l.AllowN(2)
	clock.Advance(500 * time.Millisecond)
	if got := l.Tokens(); got != 1 {
		t.Fatalf("tokens = %v, want 1", got)
	}
}
'''),
    "store/memory.go": F(r'''
package store

import (
	"context"
	"sync"
	"time"
)

// Bucket is the persisted state of one client's token bucket.
type Bucket struct {
	Tokens  float64
	Updated time.Time
}

// Memory is an in-process Store. Entries never expire.
type Memory struct {
	mu      sync.RWMutex
	buckets map[string]Bucket
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
    return &Memory{buckets: make(map[string]Bucket)}
}

// Get returns the bucket for key and whether it exists.
func (m *Memory) Get(ctx context.Context, key string) (Bucket, bool, error) {
    m.mu.RLock()
    defer m.mu.RUnlock()
    b, ok := m.buckets[key]
    return b, ok, nil
}

// Put stores the bucket for key.
func (m *Memory) Put(ctx context.Context, key string, b Bucket) error {
    m.mu.Lock()
    defer m.mu.Unlock()
    m.buckets[key] = b
    return nil
}

// Len returns the number of stored buckets.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.buckets)
}
'''),
    "cmd/ratelimitd/main.go": F(r'''
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/acme/ratelimit"
)

func main() {
	addr := flag.String("addr", ":8089", "listen address")
	rate := flag.Float64("rate", 10, "events per second per client")
	burst := flag.Int("burst", 20, "maximum burst size")
	flag.Parse()

	limiter, err := ratelimit.NewLimiter(*rate, *burst)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	http.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) {
		if !limiter.Allow() {
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})

	log.Printf("ratelimitd listening on %s (rate=%.1f burst=%d)", *addr, *rate, *burst)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
'''),
    "scripts/gen.sh": F(r'''
#!/usr/bin/env bash
# Regenerates mocks and the API docs. Run from the repository root.
set -euo pipefail

if ! command -v mockgen >/dev/null 2>&1; then
  echo "mockgen not found: go install go.uber.org/mock/mockgen@latest" >&2
  exit 1
fi

echo "generating mocks"
mockgen -source=store/memory.go -destination=store/mock_store.go -package=store

echo "generating docs"
go doc -all . > docs/API.txt

echo "formatting"
gofmt -w store/ cmd/
go vet ./...

echo "done"
'''),
    "vendor/github.com/pkg/errors/errors.go": F(r'''
// Package errors provides simple error handling primitives.
package errors

import (
	"fmt"
	"io"
)

// New returns an error with the supplied message.
func New(message string) error {
	return &fundamental{msg: message}
}

// Errorf formats according to a format specifier and returns the string
// as a value that satisfies error.
func Errorf(format string, args ...interface{}) error {
	return &fundamental{msg: fmt.Sprintf(format, args...)}
}

// fundamental is an error that has a message.
type fundamental struct {
	msg string
}

func (f *fundamental) Error() string { return f.msg }

func (f *fundamental) Format(s fmt.State, verb rune) {
	switch verb {
	case 'v', 's':
		io.WriteString(s, f.msg)
	case 'q':
		fmt.Fprintf(s, "%q", f.msg)
	}
}
'''),
}

RS_FILES = {
    "Cargo.toml": F(r'''
[package]
name = "tally"
version = "0.2.4"
edition = "2021"
description = "Count and summarise numeric columns in text files"
license = "MIT"

[dependencies]

[dev-dependencies]
assert_cmd = "2"

[[bin]]
name = "tally"
path = "src/main.rs"
'''),
    "Cargo.lock": F(r'''
# This file is automatically @generated by Cargo.
# It is not intended for manual editing.
version = 3

[[package]]
name = "assert_cmd"
version = "2.0.12"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "88903cb14723e4d4003335bb7f8a14f27691649105346a0f0957466c096adfe6"

[[package]]
name = "tally"
version = "0.2.4"
dependencies = [
 "assert_cmd",
]
'''),
    "src/lib.rs": F(r'''
//! tally: count and summarise numeric columns in text files.

pub mod parser;
pub mod stats;'''),  # no newline at end of file on purpose
    "src/main.rs": F(r'''
use std::env;
use std::fs;
use std::process::ExitCode;

use tally::parser::parse_line;
use tally::stats::Summary;

fn usage() -> ExitCode {
    eprintln!("usage: tally <file> [column]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = env::args().collect();
    if args.len() < 2 {
        return usage();
    }
    let column: usize = match args.get(2).map(|c| c.parse()) {
        Some(Ok(c)) => c,
        Some(Err(_)) => return usage(),
        None => 0,
    };
    let text = match fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tally: {}: {}", args[1], e);
            return ExitCode::FAILURE;
        }
    };
    let mut values = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        match parse_line(line) {
            Ok(fields) => {
                if let Some(v) = fields.get(column) {
                    values.push(*v);
                }
            }
            Err(e) => eprintln!("tally: line {}: {}", lineno + 1, e),
        }
    }
    let summary = Summary::from_values(&values);
    println!("{}", summary);
    ExitCode::SUCCESS
}
'''),
    "src/parser.rs": F(r'''
use std::fmt;

#[derive(Debug, PartialEq)]
pub enum ParseError {
    Empty,
    BadNumber { field: usize, text: String },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty line"),
            ParseError::BadNumber { field, text } => {
                write!(f, "field {}: not a number: {:?}", field, text)
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Splits a line on commas or whitespace and parses every field as f64.
pub fn parse_line(line: &str) -> Result<Vec<f64>, ParseError> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return Err(ParseError::Empty);
    }
    trimmed
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| {
            s.parse::<f64>().map_err(|_| ParseError::BadNumber {
                field: i,
                text: s.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commas_and_spaces() {
        assert_eq!(parse_line("1, 2 3").unwrap(), vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn rejects_empty() {
        assert_eq!(parse_line("   "), Err(ParseError::Empty));
    }

    #[test]
    fn reports_bad_field() {
        let err = parse_line("1,x").unwrap_err();
        assert_eq!(err, ParseError::BadNumber { field: 1, text: "x".into() });
    }
}
'''),
    "src/stats.rs": F(r'''
use std::fmt;

/// Summary statistics of a list of values.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub sum: f64,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Summary {
    pub fn from_values(values: &[f64]) -> Summary {
        let mut min = None;
        let mut max = None;
        for &v in values {
            min = Some(min.map_or(v, |m: f64| m.min(v)));
            max = Some(max.map_or(v, |m: f64| m.max(v)));
        }
        Summary {
            count: values.len(),
            sum: values.iter().sum(),
            min,
            max,
        }
    }

    pub fn mean(&self) -> Option<f64> {
        if self.count == 0 {
            None
        } else {
            Some(self.sum / self.count as f64)
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "count={} sum={}", self.count, self.sum)?;
        if let (Some(min), Some(max)) = (self.min, self.max) {
            write!(f, " min={} max={}", min, max)?;
        }
        if let Some(mean) = self.mean() {
            write!(f, " mean={:.3}", mean)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_summary() {
        let s = Summary::from_values(&[]);
        assert_eq!(s.count, 0);
        assert_eq!(s.mean(), None);
    }

    #[test]
    fn min_max_mean() {
        let s = Summary::from_values(&[3.0, 1.0, 2.0]);
        assert_eq!(s.min, Some(1.0));
        assert_eq!(s.max, Some(3.0));
        assert_eq!(s.mean(), Some(2.0));
    }
}
'''),
    "tests/cli.rs": F(r'''
use assert_cmd::Command;
use std::io::Write;

fn write_tmp(contents: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(contents.as_bytes()).unwrap();
    f
}

#[test]
fn summarises_first_column() {
    let f = write_tmp("1,10\n2,20\n3,30\n");
    Command::cargo_bin("tally")
        .unwrap()
        .arg(f.path())
        .assert()
        .success()
        .stdout("count=3 sum=6 min=1 max=3 mean=2.000\n");
}

#[test]
fn missing_file_fails() {
    Command::cargo_bin("tally")
        .unwrap()
        .arg("/nonexistent/file.csv")
        .assert()
        .failure();
}
'''),
}

JAVA_PKG = "src/main/java/com/acme/billing"
JAVA_TEST = "src/test/java/com/acme/billing"
JAVA_FILES = {
    "pom.xml": F(r'''
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>billing</artifactId>
  <version>3.1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.1</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
'''),
    f"{JAVA_PKG}/Money.java": F(r'''
package com.acme.billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;

/** An amount of money in a single currency. Immutable. */
public final class Money implements Comparable<Money> {
    private final BigDecimal amount;
    private final String currency;

    public Money(BigDecimal amount, String currency) {
        this.amount = Objects.requireNonNull(amount, "amount").setScale(2, RoundingMode.HALF_EVEN);
        this.currency = Objects.requireNonNull(currency, "currency");
    }

    public static Money of(String amount, String currency) {
        return new Money(new BigDecimal(amount), currency);
    }

    public static Money zero(String currency) {
        return new Money(BigDecimal.ZERO, currency);
    }

    public BigDecimal amount() {
        return amount;
    }

    public String currency() {
        return currency;
    }

    /**
     * Returns the sum of this and other.
     * @throws IllegalArgumentException if the currencys differ
     */
    public Money add(Money other) {
        requireSameCurrency(other);
        return new Money(amount.add(other.amount), currency);
    }

    public Money multiply(BigDecimal factor) {
        return new Money(amount.multiply(factor), currency);
    }

    private void requireSameCurrency(Money other) {
        if (!currency.equals(other.currency)) {
            throw new IllegalArgumentException(currency + " != " + other.currency);
        }
    }

    @Override
    public int compareTo(Money other) {
        requireSameCurrency(other);
        return amount.compareTo(other.amount);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Money m)) {
            return false;
        }
        return amount.equals(m.amount) && currency.equals(m.currency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(amount, currency);
    }

    @Override
    public String toString() {
        return amount.toPlainString() + " " + currency;
    }
}
'''),
    f"{JAVA_PKG}/Invoice.java": F(r'''
package com.acme.billing;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Invoice {
    public record Line(String description, int quantity, Money unitPrice) {
        public Money total() {
            return unitPrice.multiply(java.math.BigDecimal.valueOf(quantity));
        }
    }

    private final String id;
    private final String customerId;
    private final LocalDate dueDate;
    private final List<Line> lines = new ArrayList<>();
    private boolean paid;

    public Invoice(String id, String customerId, LocalDate dueDate) {
        this.id = id;
        this.customerId = customerId;
        this.dueDate = dueDate;
    }

    public String getId() {
        return id;
    }

    public String getCustomerId() {
        return customerId;
    }

    public LocalDate getDueDate() {
        return dueDate;
    }

    public List<Line> getLines() {
        return Collections.unmodifiableList(lines);
    }

    public void addLine(Line line) {
        if (paid) {
            throw new IllegalStateException("invoice " + id + " is already paid");
        }
        lines.add(line);
    }

    public Money total(String currency) {
        Money sum = Money.zero(currency);
        for (Line line : lines) {
            sum = sum.add(line.total());
        }
        return sum;
    }

    public boolean isPaid() {
        return paid;
    }

    public void markPaid() {
        this.paid = true;
    }

    public boolean isOverdue(LocalDate today) {
        return !paid && today.isAfter(dueDate);
    }
}
'''),
    f"{JAVA_PKG}/InvoiceService.java": F(r'''
package com.acme.billing;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

public class InvoiceService {
    private final Map<String, Invoice> invoices = new HashMap<>();
    private final String currency;

    public InvoiceService(String currency) {
        this.currency = currency;
    }

    public Invoice create(String id, String customerId, LocalDate dueDate) {
        if (invoices.containsKey(id)) {
            throw new IllegalArgumentException("duplicate invoice id " + id);
        }
        Invoice invoice = new Invoice(id, customerId, dueDate);
        invoices.put(id, invoice);
        return invoice;
    }

    public Optional<Invoice> find(String id) {
        return Optional.ofNullable(invoices.get(id));
    }

    public Money applyDiscount(String invoiceId, BigDecimal percent) {
        Invoice invoice = invoices.get(invoiceId);
        Money total = invoice.total(currency);
        BigDecimal factor = BigDecimal.ONE.subtract(percent.movePointLeft(2));
        return total.multiply(factor);
    }

    public List<Invoice> overdue(LocalDate today) {
        return invoices.values().stream()
                .filter(inv -> inv.isOverdue(today))
                .sorted((a, b) -> a.getDueDate().compareTo(b.getDueDate()))
                .collect(Collectors.toList());
    }

    public void pay(String invoiceId) {
        Invoice invoice = invoices.get(invoiceId);
        invoice.markPaid();
    }
}
'''),
    f"{JAVA_TEST}/InvoiceServiceTest.java": F(r'''
package com.acme.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class InvoiceServiceTest {
    private InvoiceService service;

    @BeforeEach
    void setUp() {
        service = new InvoiceService("EUR");
        Invoice inv = service.create("INV-1", "C-1", LocalDate.of(2024, 1, 31));
        inv.addLine(new Invoice.Line("Consulting", 2, Money.of("150.00", "EUR")));
    }

    @Test
    void discountReducesTotal() {
        Money discounted = service.applyDiscount("INV-1", new BigDecimal("10"));
        assertEquals(Money.of("270.00", "EUR"), discounted);
    }

    @Test
    void duplicateIdsAreRejected() {
        assertThrows(IllegalArgumentException.class,
                () -> service.create("INV-1", "C-2", LocalDate.of(2024, 2, 1)));
    }

    @Test
    void overdueListsUnpaidPastDue() {
        assertTrue(service.overdue(LocalDate.of(2024, 2, 15)).stream()
                .anyMatch(i -> i.getId().equals("INV-1")));
        service.pay("INV-1");
        assertTrue(service.overdue(LocalDate.of(2024, 2, 15)).isEmpty());
    }
}
'''),
    "src/main/resources/messages.properties": (
        "# Billing UI messages (edited on Windows, keep CRLF)\r\n"
        "invoice.title=Invoice {0}\r\n"
        "invoice.customer=Customer\r\n"
        "invoice.due=Due date\r\n"
        "invoice.total=Total\r\n"
        "invoice.paid=Paid\r\n"
        "invoice.unpaid=Open\r\n"
        "invoice.line.description=Description\r\n"
        "invoice.line.quantity=Qty\r\n"
        "invoice.line.unitPrice=Unit price\r\n"
        "invoice.line.total=Line total\r\n"
        "discount.applied=Discount of {0}% applied\r\n"
        "error.duplicate=An invoice with id {0} already exists\r\n"
        "error.notFound=Invoice {0} not found\r\n"
        "error.currency=Currencies {0} and {1} cannot be mixed\r\n"
        "button.pay=Mark as paid\r\n"
        "button.download=Download PDF\r\n"
        "button.send=Send to customer\r\n"
        "footer.thanks=Thank you for your business\r\n"
        "footer.terms=Payment terms: 30 days net\r\n"
        "footer.contact=Questions? billing@acme.test\r\n"
    ),
}

C_FILES = {
    "Makefile": F('''
CC ?= cc
CFLAGS ?= -std=c11 -Wall -Wextra -Werror -O2 -Iinclude
SRC = src/ringbuf.c src/utils.c
OBJ = $(SRC:.c=.o)

all: libringbuf.a

libringbuf.a: $(OBJ)
\t$(AR) rcs $@ $^

tests/test_ringbuf: tests/test_ringbuf.c libringbuf.a
\t$(CC) $(CFLAGS) -o $@ $< -L. -lringbuf

check: tests/test_ringbuf
\t./tests/test_ringbuf

clean:
\trm -f $(OBJ) libringbuf.a tests/test_ringbuf

.PHONY: all check clean
'''),
    "include/ringbuf.h": F(r'''
#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>
#include <stdint.h>

/* A fixed size ring buffer of bytes. Not thread safe. */
typedef struct {
    uint8_t *data;
    size_t capacity;
    size_t head; /* next write position */
    size_t tail; /* next read position */
    size_t count;
} ringbuf_t;

int rb_init(ringbuf_t *rb, size_t capacity);
void rb_free(ringbuf_t *rb);
int rb_push(ringbuf_t *rb, uint8_t byte);
int rb_pop(ringbuf_t *rb, uint8_t *out);
size_t rb_size(const ringbuf_t *rb);
int rb_is_full(const ringbuf_t *rb);

/* utils.c */
size_t rb_write(ringbuf_t *rb, const uint8_t *buf, size_t len);
size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len);
void rb_hexdump(const ringbuf_t *rb, char *out, size_t outlen);

#endif /* RINGBUF_H */
'''),
    "src/ringbuf.c": F(r'''
#include <stdlib.h>
#include <string.h>

#include "ringbuf.h"

int rb_init(ringbuf_t *rb, size_t capacity)
{
    if (rb == NULL || capacity == 0) {
        return -1;
    }
    rb->data = malloc(capacity);
    if (rb->data == NULL) {
        return -1;
    }
    rb->capacity = capacity;
    rb->head = 0;
    rb->tail = 0;
    rb->count = 0;
    return 0;
}

void rb_free(ringbuf_t *rb)
{
    free(rb->data);
    memset(rb, 0, sizeof(*rb));
}

/* Appends a byte; when the buffer is full the oldest byte is overwritten. */
int rb_push(ringbuf_t *rb, uint8_t byte)
{
    rb->data[rb->head] = byte;
    rb->head = (rb->head + 1) % rb->capacity;
    if (rb->count == rb->capacity) {
        rb->tail = (rb->tail + 1) % rb->capacity;
    } else {
        rb->count++;
    }
    return 0;
}

int rb_pop(ringbuf_t *rb, uint8_t *out)
{
    if (rb->count == 0) {
        return -1;
    }
    *out = rb->data[rb->tail];
    rb->tail = (rb->tail + 1) % rb->capacity;
    rb->count--;
    return 0;
}

size_t rb_size(const ringbuf_t *rb)
{
    return rb->count;
}

int rb_is_full(const ringbuf_t *rb)
{
    return rb->count == rb->capacity;
}
'''),
    "src/utils.c": F(r'''
#include <stdio.h>

#include "ringbuf.h"

size_t rb_write(ringbuf_t *rb, const uint8_t *buf, size_t len)
{
  size_t i;
  for (i = 0; i < len; i++) {
      if (rb_push(rb, buf[i]) != 0) {
          break;
      }
  }
  return i;
}

size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)
{
	size_t n = 0;
	while (n < len && rb_pop(rb, &buf[n]) == 0) {
		n++;
	}
	return n;
}

void rb_hexdump(const ringbuf_t *rb, char *out, size_t outlen)
{
  size_t i, pos = 0;
  for (i = 0; i < rb->count && pos + 3 < outlen; i++) {
    size_t idx = (rb->tail + i) % rb->capacity;
    pos += (size_t)snprintf(out + pos, outlen - pos, "%02x ", rb->data[idx]);
  }
  if (pos > 0) {
    out[pos - 1] = '\0';
  } else if (outlen > 0) {
    out[0] = '\0';
  }
}
'''),
    "tests/test_ringbuf.c": F(r'''
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "ringbuf.h"

static void test_push_pop(void)
{
    ringbuf_t rb;
    uint8_t out;
    assert(rb_init(&rb, 4) == 0);
    assert(rb_push(&rb, 1) == 0);
    assert(rb_push(&rb, 2) == 0);
    assert(rb_pop(&rb, &out) == 0 && out == 1);
    assert(rb_pop(&rb, &out) == 0 && out == 2);
    assert(rb_pop(&rb, &out) == -1);
    rb_free(&rb);
}

static void test_wraparound(void)
{
    ringbuf_t rb;
    uint8_t buf[8];
    assert(rb_init(&rb, 3) == 0);
    assert(rb_write(&rb, (const uint8_t *)"abcde", 5) == 5);
    assert(rb_size(&rb) == 3);
    assert(rb_read(&rb, buf, sizeof(buf)) == 3);
    assert(memcmp(buf, "cde", 3) == 0);
    rb_free(&rb);
}

static void test_hexdump(void)
{
    ringbuf_t rb;
    char out[32];
    assert(rb_init(&rb, 4) == 0);
    rb_write(&rb, (const uint8_t *)"\x01\xff", 2);
    rb_hexdump(&rb, out, sizeof(out));
    assert(strcmp(out, "01 ff") == 0);
    rb_free(&rb);
}

int main(void)
{
    test_push_pop();
    test_wraparound();
    test_hexdump();
    puts("all tests passed");
    return 0;
}
'''),
    "third_party/minunit/minunit.h": F(r'''
/* file: minunit.h -- a minimal unit testing framework for C */
#ifndef MINUNIT_H
#define MINUNIT_H

#define mu_assert(message, test) do { if (!(test)) return message; } while (0)
#define mu_run_test(test) do { char *message = test(); tests_run++; \
                               if (message) return message; } while (0)

extern int tests_run;

#endif /* MINUNIT_H */
'''),
}

OPS_FILES = {
    "README.md": F(r'''
# ops

Deployment scripts and configuration for the `shop` service.

- `scripts/deploy.sh` - roll out a tagged image to a cluster
- `scripts/backup.sh` - nightly database backup to object storage
- `config/app.yaml` - runtime configuration (mounted as a ConfigMap)
- `docker-compose.yml` - local development stack
- `docs/runbook.md` - what to do when things break
'''),
    "scripts/deploy.sh": F(r'''
#!/usr/bin/env bash
# Deploy a tagged image of the shop service.
# Usage: scripts/deploy.sh <environment> <tag>

ENVIRONMENT="$1"
TAG="$2"
NAMESPACE="shop-${ENVIRONMENT}"
IMAGE="registry.acme.test/shop:${TAG}"

usage() {
  echo "usage: $0 <staging|production> <tag>" >&2
  exit 64
}

[ -n "$ENVIRONMENT" ] || usage
[ -n "$TAG" ] || usage

case "$ENVIRONMENT" in
  staging|production) ;;
  *) usage ;;
esac

echo "Deploying ${IMAGE} to ${NAMESPACE}"
kubectl -n "$NAMESPACE" set image deployment/shop shop="$IMAGE"
kubectl -n "$NAMESPACE" rollout status deployment/shop --timeout=300s

echo "Running smoke test"
curl -fsS "https://${ENVIRONMENT}.shop.acme.test/healthz" > /dev/null
echo "Deployed ${TAG} to ${ENVIRONMENT}"
'''),
    "scripts/backup.sh": F(r'''
#!/bin/sh
# Nightly backup of the shop database to object storage.
set -eu

STAMP=$(date -u +%Y%m%dT%H%M%SZ)   
DUMP="/tmp/shop-${STAMP}.sql.gz"
BUCKET="${BACKUP_BUCKET:-s3://acme-backups/shop}"

log() {
    printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" 
}

log "dumping database"
pg_dump --no-owner --format=plain "$DATABASE_URL" | gzip -9 > "$DUMP"

log "uploading to ${BUCKET}"	
aws s3 cp "$DUMP" "${BUCKET}/$(basename "$DUMP")" --only-show-errors

log "cleaning up"
rm -f "$DUMP"

log "backup ${STAMP} done"
'''),
    "config/app.yaml": F(r'''
# Runtime configuration for the shop service.
server:
  port: 8080
  # request timeout in seconds
  requestTimeout: 10
  maxBodyBytes: 1048576

database:
  host: db.internal
  port: 5432
  name: shop
  pool:
    min: 2
    max: 20

cache:
  # Redis is optional; leave url empty to disable caching.
  url: ""
  ttlSeconds: 300

deployment:
  # number of replicas in staging
  replicas: 4
  resources:
    cpu: "500m"
    memory: "512Mi"

features:
  newCheckout: false
  giftCards: true
'''),
    "docker-compose.yml": F(r'''
version: "3.9"

services:
  app:
    build: .
    ports:
      - "8080:8080"
    environment:
      DATABASE_URL: postgres://shop:shop@db:5432/shop
      CONFIG_PATH: /etc/shop/app.yaml
    volumes:
      - ./config/app.yaml:/etc/shop/app.yaml:ro
    depends_on:
      - db

  db:
    image: postgres:16
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: shop
      POSTGRES_DB: shop
    volumes:
      - dbdata:/var/lib/postgresql/data

volumes:
  dbdata:
'''),
    "docs/runbook.md": F(r'''
# Runbook: shop service

## Symptoms and first steps

### Elevated 5xx rate

1. Check the dashboard "shop / overview" for the failing endpoint.
2. Look at the logs: `kubectl -n shop-production logs deploy/shop --since=15m`.
3. If a deploy happened in the last hour, consider a rollback.

### Database connections exhausted

1. Check `pg_stat_activity` for long running queries.
2. Raise `database.pool.max` only as a last resort.

## Deploys

Deploys go through `scripts/deploy.sh <environment> <tag>`. Production deploys
need an approval in the #deploys channel first.

## Backups

`scripts/backup.sh` runs nightly at 02:00 UTC from the `backup` CronJob.
Restores are tested monthly; see the calendar.

## Contacts

- On-call: see PagerDuty schedule "shop"
- Database: #team-data
'''),
    "docs/notes.md": F(r'''
# Notes techniques

Quelques notes sur l'infrastructure du service shop.

- Les sauvegardes sont chiffrées côté serveur (SSE-S3).
- Les déploiements en production nécessitent une approbation.
- Le cache Redis est désactivé par défaut.

## Réseau

Le service écoute sur le port 8080 derrière l'ingress `shop`.
Les connexions sortantes passent par le proxy `egress.internal:3128`.

## Base de données

PostgreSQL 16, réplique en lecture dans une deuxième zone.
Les migrations sont appliquées au démarrage par l'initContainer.
'''),
}

JS_FILES = {
    "package.json": F(r'''
{
  "name": "shipit-cli",
  "version": "0.9.2",
  "description": "Tiny release helper",
  "bin": {
    "shipit": "bin/shipit.js"
  },
  "scripts": {
    "test": "node --test test/"
  },
  "engines": {
    "node": ">=18"
  },
  "license": "MIT"
}
'''),
    "bin/shipit.js": F(r'''
#!/usr/bin/env node
'use strict';

const { loadConfig } = require('../lib/config');
const { createLogger } = require('../lib/logger');

async function main(argv) {
  const [command, ...rest] = argv;
  const config = loadConfig(process.cwd());
  const log = createLogger({ verbose: rest.includes('--verbose') });

  switch (command) {
    case 'version':
      console.log(require('../package.json').version);
      return 0;
    case 'release': {
      const bump = rest.find((a) => !a.startsWith('--')) || 'patch';
      log.info(`releasing ${config.name} (${bump})`);
      log.debug(`branch=${config.branch} remote=${config.remote}`);
      return 0;
    }
    default:
      console.error('usage: shipit <version|release> [patch|minor|major] [--verbose]');
      return 64;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err.stack || String(err));
    process.exit(1);
  },
);
'''),
    "lib/config.js": F(r'''
'use strict';

const fs = require('fs');
const path = require('path');

const DEFAULTS = Object.freeze({
  branch: 'main',
  remote: 'origin',
  tagPrefix: 'v',
  changelog: 'CHANGELOG.md',
});

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function loadConfig(cwd) {
  const pkg = readJson(path.join(cwd, 'package.json'));
  const rcPath = path.join(cwd, '.shipitrc.json');
  const rc = fs.existsSync(rcPath) ? readJson(rcPath) : {};
  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };
  if (!/^[\w.-]+$/.test(config.branch)) {
    throw new Error(`invalid branch name: ${config.branch}`);
  }
  return config;
}

module.exports = { DEFAULTS, loadConfig };
'''),
    "lib/logger.js": F(r'''
'use strict';

function createLogger({ verbose = false, stream = process.stderr } = {}) {
  const write = (level, msg) => stream.write(`[${level}] ${msg}\n`);
  return {
    info: (msg) => write('info', msg),
    warn: (msg) => write('warn', msg),
    error: (msg) => write('error', msg),
    debug: (msg) => {
      if (verbose) {
        write('debug', msg);
      }
    },
  };
}

module.exports = { createLogger };
'''),
    "test/config.test.js": F(r'''
'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');

const { DEFAULTS, loadConfig } = require('../lib/config');

function tmpProject(pkg, rc) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shipit-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
  if (rc) {
    fs.writeFileSync(path.join(dir, '.shipitrc.json'), JSON.stringify(rc));
  }
  return dir;
}

test('defaults apply', () => {
  const config = loadConfig(tmpProject({ name: 'demo' }));
  assert.strictEqual(config.branch, DEFAULTS.branch);
  assert.strictEqual(config.name, 'demo');
});

test('rc file wins over package.json', () => {
  const dir = tmpProject({ name: 'demo', shipit: { branch: 'dev' } }, { branch: 'release' });
  assert.strictEqual(loadConfig(dir).branch, 'release');
});

test('rejects odd branch names', () => {
  assert.throws(() => loadConfig(tmpProject({ name: 'x', shipit: { branch: 'a b' } })));
});
'''),
}


def _fake_binary(seed: int, size: int, magic: bytes) -> bytes:
    rnd = random.Random(seed)
    return magic + bytes(rnd.randrange(256) for _ in range(size - len(magic)))


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ICO_MAGIC = b"\x00\x00\x01\x00\x01\x00\x10\x10"
TS_FILES["public/favicon.ico"] = _fake_binary(11, 318, ICO_MAGIC)
PY_FILES["tests/fixtures/sample.bin"] = _fake_binary(12, 96, b"INVSNAP\x01")

PROJECTS = {
    "py": (PY_FILES, set()),
    "ts": (TS_FILES, set()),
    "go": (GO_FILES, set()),
    "rs": (RS_FILES, set()),
    "java": (JAVA_FILES, set()),
    "c": (C_FILES, set()),
    "ops": (OPS_FILES, {"scripts/deploy.sh", "scripts/backup.sh", "docs/runbook.md"}),
    "js": (JS_FILES, {"bin/shipit.js"}),
}
PROJECT_LANG = {
    "py": "python", "ts": "typescript", "go": "go", "rs": "rust", "java": "java",
    "c": "c", "ops": "shell", "js": "javascript",
}


# ---------------------------------------------------------------------------
# Git plumbing
# ---------------------------------------------------------------------------

def _run(cmd, cwd, env, input_bytes=None, ok=(0,)) -> bytes:
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input_bytes,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode not in ok:
        raise RuntimeError(
            f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"{proc.stderr.decode('utf-8', 'replace')}")
    return proc.stdout


class Repo:
    """A throwaway git repository seeded with one corpus project."""

    def __init__(self, workspace: Path, project: str) -> None:
        files, executables = PROJECTS[project]
        self.project = project
        self.dir = Path(tempfile.mkdtemp(prefix=f"{project}-", dir=workspace))
        self.env = _env(str(workspace))
        self.git("init", "-q")
        for path, content in files.items():
            self.write(path, content)
        for path in executables:
            os.chmod(self.dir / path, 0o755)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", f"{project}: initial import")

    def git(self, *args, input_bytes=None, ok=(0,)) -> str:
        out = _run(["git", *GIT_CONFIG, *args], self.dir, self.env, input_bytes, ok)
        return out.decode("utf-8")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def write(self, path: str, content) -> None:
        target = self.dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        target.write_bytes(data)

    def read(self, path: str) -> str:
        return (self.dir / path).read_bytes().decode("utf-8")

    def apply_ops(self, ops) -> None:
        for op in ops:
            kind = op[0]
            if kind == "edit":  # ("edit", path, old, new)
                _, path, old, new = op
                text = self.read(path)
                assert text.count(old) == 1, f"{self.project}:{path}: {old!r} found {text.count(old)}x"
                self.write(path, text.replace(old, new))
            elif kind == "write":
                self.write(op[1], op[2])
            elif kind == "append":
                self.write(op[1], self.read(op[1]) + op[2])
            elif kind == "sub":  # ("sub", path, function(text) -> text)
                self.write(op[1], op[2](self.read(op[1])))
            elif kind == "rm":
                (self.dir / op[1]).unlink()
            elif kind == "mv":
                dst = self.dir / op[2]
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(self.dir / op[1], dst)
            elif kind == "chmod":
                os.chmod(self.dir / op[1], op[2])
            else:
                raise ValueError(kind)

    def staged(self, *flags) -> tuple[str, list[str]]:
        self.git("add", "-A")
        patch = self.git("diff", "--cached", *DIFF_FLAGS, *flags)
        names = self.git("diff", "--cached", "--name-status", "-z", *flags)
        return patch, _parse_name_status(names)

    def diff(self, a: str, b: str, *flags) -> tuple[str, list[str]]:
        patch = self.git("diff", *DIFF_FLAGS, *flags, a, b)
        names = self.git("diff", "--name-status", "-z", *flags, a, b)
        return patch, _parse_name_status(names)

    def commit(self, msg: str) -> str:
        self.git("commit", "-q", "--allow-empty", "-m", msg)
        return self.head()

    def check_apply(self, patch: str, at: str) -> None:
        """Assert that patch applies cleanly to the tree of commit `at`."""
        index = self.dir / ".git" / "check-index"
        env = dict(self.env, GIT_INDEX_FILE=str(index))
        _run(["git", *GIT_CONFIG, "read-tree", at], self.dir, env)
        _run(["git", *GIT_CONFIG, "apply", "--cached", "--check", "-"], self.dir, env,
             patch.encode("utf-8"))
        index.unlink()


def _parse_name_status(raw: str) -> list[str]:
    tokens = [t for t in raw.split("\0") if t]
    files, i = [], 0
    while i < len(tokens):
        status = tokens[i]
        if status[0] in "RC":
            files += [tokens[i + 1], tokens[i + 2]]
            i += 3
        else:
            files.append(tokens[i + 1])
            i += 2
    out = []
    for f in files:
        if f not in out:
            out.append(f)
    return out


@dataclass
class Change:
    """One real change: the patch, the files it names, where it applies."""
    repo: Repo
    patch: str
    files: list[str]
    base: str
    after: str
    checked: bool = True


class Builder:
    def __init__(self, workspace: Path) -> None:
        self.ws = workspace

    def change(self, project: str, ops, flags=(), setup=None, check=True) -> Change:
        repo = Repo(self.ws, project)
        if setup:
            repo.apply_ops(setup)
            repo.git("add", "-A")
            repo.commit("setup")
        base = repo.head()
        repo.apply_ops(ops)
        patch, files = repo.staged(*flags)
        assert patch.strip(), f"empty diff for {project} {ops[:1]}"
        after = repo.commit("change")
        if check:
            repo.check_apply(patch, base)
        return Change(repo, patch, files, base, after, check)

    def followup(self, prev: Change, ops, flags=()) -> Change:
        """A second change on top of prev (a fix_regression step)."""
        repo = prev.repo
        repo.git("checkout", "-q", prev.after)
        repo.apply_ops(ops)
        patch, files = repo.staged(*flags)
        after = repo.commit("fix")
        repo.check_apply(patch, prev.after)
        return Change(repo, patch, files, prev.after, after)

    def reverse(self, prev: Change) -> Change:
        """`git diff -R` of prev: the exact undo of that change."""
        repo = prev.repo
        patch, files = repo.diff(prev.base, prev.after, "-R")
        repo.check_apply(patch, prev.after)
        return Change(repo, patch, files, prev.after, prev.base)

    def labelled_diff(self, items) -> str:
        """`diff -u --label OLD --label NEW` over (old_label, new_label, old, new)
        tuples; old None means a new file. Used for paths outside any repo."""
        snap = Path(tempfile.mkdtemp(prefix="abs-", dir=self.ws))
        env = _env(str(self.ws))
        chunks = []
        for n, (la, lb, old, new) in enumerate(items):
            fa, fb = snap / f"{n}.old", snap / f"{n}.new"
            fa.write_text(old or "", encoding="utf-8")
            fb.write_text(new, encoding="utf-8")
            cmd = ["diff", "-u", "--label", la if old is not None else "/dev/null",
                   "--label", lb, str(fa.name), str(fb.name)]
            chunks.append(_run(cmd, snap, env, ok=(1,)))
        return b"".join(chunks).decode("utf-8")

    def plain(self, project: str, ops, paths, recursive=False, labels=False) -> Change:
        """A change recorded with GNU `diff -u` (no git headers), -p1 style."""
        repo = Repo(self.ws, project)
        base = repo.head()
        snap = Path(tempfile.mkdtemp(prefix="plain-", dir=self.ws))
        for side in ("a", "b"):
            if side == "b":
                repo.apply_ops(ops)
            for p in paths:
                src = repo.dir / p
                if src.exists():
                    dst = snap / side / p
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
        for f in sorted(snap.rglob("*")):
            os.utime(f, (FIXED_EPOCH, FIXED_EPOCH))
        env = _env(str(self.ws))
        if recursive:
            out = _run(["diff", "-ruN", "a", "b"], snap, env, ok=(1,))
        else:
            chunks = []
            for p in paths:
                cmd = ["diff", "-u"]
                if labels:
                    cmd += ["--label", f"a/{p}", "--label", f"b/{p}"]
                chunks.append(_run(cmd + [f"a/{p}", f"b/{p}"], snap, env, ok=(1,)))
            out = b"".join(chunks)
        patch = out.decode("utf-8")
        repo.git("add", "-A")
        after = repo.commit("change")
        repo.check_apply(patch, base)
        return Change(repo, patch, list(paths), base, after)


# ---------------------------------------------------------------------------
# Patch helpers: path extraction (for self-checks) and defect injection
# ---------------------------------------------------------------------------

def _unquote(path: str) -> str:
    """Undo git's C-style quoting ("a/r\\303\\251sum\\303\\251.md")."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    simple = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a",
              "b": b"\b", "f": b"\f", "r": b"\r", "v": b"\v"}
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1]
            if nxt in "01234567":
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += simple[nxt]
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8")


def _strip_prefix(path: str) -> str | None:
    path = path.split("\t")[0]
    path = _unquote(path)
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def patch_paths(patch: str) -> set[str]:
    """Paths a patch touches (prefix-stripped, unquoted). Self-check helper."""
    paths: set[str] = set()
    lines = patch.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            rest = line[len("diff --git "):]
            if rest.startswith('"'):
                end = 1
                while rest[end] != '"':
                    end += 2 if rest[end] == "\\" else 1
                a, b = rest[:end + 1], rest[end + 2:]
            elif rest.endswith('"'):
                cut = rest.rindex(' "b/')
                a, b = rest[:cut], rest[cut + 1:]
            else:
                cuts = [m.start() for m in re.finditer(" b/", rest)]
                same = [c for c in cuts if rest[2:c] == rest[c + 3:]]
                cut = same[0] if same else (cuts[0] if cuts else (len(rest) - 1) // 2)
                a, b = rest[:cut], rest[cut + 1:]
            for p in (a, b):
                s = _strip_prefix(p)
                if s:
                    paths.add(s)
        elif (line.startswith("--- ") and i + 1 < len(lines)
              and lines[i + 1].startswith("+++ ")):
            for hdr in (line, lines[i + 1]):
                s = _strip_prefix(hdr[4:])
                if s:
                    paths.add(s)
            i += 1
        elif line.startswith(("rename from ", "rename to ")):
            paths.add(_unquote(line.split(" ", 2)[2]))
        i += 1
    return paths


def change_counts(patch: str) -> tuple[int, int]:
    plus = minus = 0
    for line in patch.split("\n"):
        if line.startswith("+") and not line.startswith("+++ "):
            plus += 1
        elif line.startswith("-") and not line.startswith("--- "):
            minus += 1
    return plus, minus


HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def to_context_only(patch: str) -> str:
    """Turn every hunk into context: '-' lines become ' ', '+' lines are
    dropped, counts are recomputed, and the index line names the same blob on
    both sides. The result is a well-formed diff that changes nothing."""
    out, lines, i = [], patch.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = HUNK_RE.match(line)
        if line.startswith("index "):
            old = line.split()[1].split("..")[0]
            mode = line.split()[2:] if len(line.split()) > 2 else []
            out.append(" ".join(["index", f"{old}..{old}", *mode]))
            i += 1
            continue
        if not m:
            out.append(line)
            i += 1
            continue
        start = int(m.group(1))
        body = []
        i += 1
        while i < len(lines) and lines[i][:1] in (" ", "-", "+", "\\"):
            b = lines[i]
            assert not b.startswith("\\"), "no-newline markers not supported here"
            if b.startswith("-"):
                body.append(" " + b[1:])
            elif b.startswith(" "):
                body.append(b)
            i += 1
        out.append(f"@@ -{start},{len(body)} +{start},{len(body)} @@{m.group(5)}")
        out.extend(body)
    return "\n".join(out)


def rewrite_paths(patch: str, old: str, new: str) -> str:
    """Rename a path inside the header lines of a real diff (unsafe_path cases)."""
    out = []
    for line in patch.split("\n"):
        if line.startswith(("diff --git ", "--- ", "+++ ", "rename from ", "rename to ")):
            line = line.replace(old, new)
        out.append(line)
    return "\n".join(out)


def hunks_of(patch: str) -> list[tuple[int, int]]:
    """(start, end) line indexes of each hunk (header line .. last body line)."""
    lines = patch.split("\n")
    res, i = [], 0
    while i < len(lines):
        if HUNK_RE.match(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j][:1] in (" ", "-", "+", "\\"):
                j += 1
            res.append((i, j - 1))
            i = j
        else:
            i += 1
    return res


# ---------------------------------------------------------------------------
# gitignore-style glob matching (self-check of the labels)
# ---------------------------------------------------------------------------

def _glob_re(pat: str) -> str:
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("/**", i) and i + 3 == len(pat):
            out += "/.*"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pat[i])
            i += 1
    return out


def glob_match(pat: str, path: str) -> bool:
    dir_only = pat.endswith("/")
    p = pat.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    rx = re.compile(("" if anchored else "(?:.*/)?") + _glob_re(p))
    parts = path.split("/")
    cands = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    if dir_only:
        cands = cands[:-1]
    return any(rx.fullmatch(c) for c in cands)


def is_unsafe(path: str) -> bool:
    parts = path.split("/")
    return path.startswith("/") or ".." in parts or ".git" in parts


BAD_SUMMARIES = {"", "failed", "error", "fail", "failure", "n/a", "none"}


def reference_rule(step: dict, result: dict) -> str | None:
    """Structural part of judge's rule order, used to double-check labels.
    Returns None when none of the structural rules fires."""
    mode = result["mode"]
    if mode not in ("apply", "fix_regression"):
        return "invalid_mode"
    if step.get("mode", "apply") != mode:
        return "mode_mismatch"
    patch = result.get("patch") or ""
    written = result.get("filesWritten") or []
    if not result["success"]:
        if patch.strip() or written:
            return "failure_with_patch"
        if (result.get("summary") or "").strip().lower() in BAD_SUMMARIES:
            return "failure_without_summary"
        return None
    if not patch.strip():
        return "missing_patch"
    if not written:
        return "missing_files_written"
    in_patch = patch_paths(patch)
    if any(is_unsafe(p) for p in in_patch | set(written)):
        return "unsafe_path"
    if in_patch - set(written):
        return "undeclared_file"
    if set(written) - in_patch:
        return "file_not_in_patch"
    touched = result.get("filesTouched")
    if touched is None or set(written) - set(touched):
        return "files_touched_incomplete"
    if any(glob_match(g, f) for g in step.get("excludedPaths", []) for f in written):
        return "scope_excluded"
    if "allowedFiles" in step and any(
            not any(glob_match(g, f) for g in step["allowedFiles"]) for f in written):
        return "scope_outside_allowed"
    if mode == "fix_regression" and set(written) - set(step["applyFiles"]):
        return "scope_fix_regression"
    return None


# ---------------------------------------------------------------------------
# Case assembly
# ---------------------------------------------------------------------------

EXT_LANG = {
    ".py": "python", ".ts": "typescript", ".tsx": "typescript", ".js": "javascript",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
    ".sh": "shell", ".yml": "yaml", ".yaml": "yaml", ".json": "json",
    ".md": "markdown", ".toml": "toml", ".sql": "sql", ".csv": "csv",
    ".properties": "properties", ".xml": "xml", ".lock": "toml",
}
NAME_LANG = {"Makefile": "make", "pre-commit": "shell"}


def languages(paths) -> set[str]:
    langs = set()
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        if name in NAME_LANG:
            langs.add(NAME_LANG[name])
        ext = os.path.splitext(name)[1]
        if ext in EXT_LANG:
            langs.add(EXT_LANG[ext])
    return langs


def feature_tags(patch: str) -> set[str]:
    tags = set()
    if "\nrename from " in patch:
        tags.add("rename")
    if "GIT binary patch" in patch or "\nBinary files " in patch:
        tags.add("binary")
    if "\r\n" in patch:
        tags.add("crlf")
    if "\\ No newline at end of file" in patch:
        tags.add("no-newline")
    if '"a/' in patch or '"b/' in patch:
        tags.add("quoted-path")
    if "\nnew file mode " in patch:
        tags.add("new-file")
    if "\ndeleted file mode " in patch:
        tags.add("deleted-file")
    if "\nold mode " in patch:
        tags.add("mode-change")
    plus, minus = change_counts(patch)
    if plus + minus > 2000:
        tags.add("large")
    if patch.startswith("--- ") or patch.startswith("diff -") and not patch.startswith("diff --git"):
        tags.add("plain-diff")
    return tags


def mk_step(desc, mode="apply", allowed=None, excluded=None, apply: Change | None = None):
    s = {"description": desc, "mode": mode}
    if allowed is not None:
        s["allowedFiles"] = list(allowed)
    if excluded is not None:
        s["excludedPaths"] = list(excluded)
    if apply is not None:
        s["applyFiles"] = list(apply.files)
        s["applyPatch"] = apply.patch
    return s


def mk_result(ch: Change | None, summary, mode="apply", written=None, touched=None):
    files = list(ch.files) if written is None else list(written)
    return {
        "mode": mode,
        "success": True,
        "patch": ch.patch if ch is not None else "",
        "filesWritten": files,
        "filesTouched": list(files) if touched is None else list(touched),
        "summary": summary,
    }


def mk_failure(summary, mode="apply", touched=(), omit=False, **extra):
    r = {"mode": mode, "success": False, "summary": summary}
    if not omit:
        r["patch"] = ""
        r["filesWritten"] = []
    r["filesTouched"] = list(touched)
    r.update(extra)
    if summary is None:
        del r["summary"]
    return r


def with_(obj: dict, **changes) -> dict:
    """Deep copy of obj with keys replaced; a value of DROP removes the key."""
    out = copy.deepcopy(obj)
    for k, v in changes.items():
        if v is DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


DROP = object()


def plus_lines(patch):
    return [l[1:] for l in patch.split("\n") if l.startswith("+") and not l.startswith("+++ ")]


def minus_lines(patch):
    return [l[1:] for l in patch.split("\n") if l.startswith("-") and not l.startswith("--- ")]


def revert_ratio(apply_patch: str, fix_patch: str) -> float:
    added = collections.Counter(l for l in plus_lines(apply_patch) if l.strip())
    removed = collections.Counter(l for l in minus_lines(fix_patch) if l.strip())
    total = sum(added.values())
    return sum((added & removed).values()) / total if total else 0.0


class Registry:
    def __init__(self) -> None:
        self.cases: list[dict] = []
        self.ids: set[str] = set()

    def add(self, cid, step, result, rule=None, tags=(), project=None, files=()):
        assert cid not in self.ids, f"duplicate id {cid}"
        self.ids.add(cid)
        step = dict(step)
        step.setdefault("id", f"step-{len(self.cases) % 7 + 1}")
        if step["mode"] == "fix_regression":
            assert step.get("applyFiles"), cid
        patch = result.get("patch") or ""
        paths = (set(files) | set(result.get("filesWritten") or [])
                 | set(step.get("applyFiles", [])) | patch_paths(patch))
        langs = languages(paths)
        if not langs and project:
            langs = {PROJECT_LANG[project]}
        t = set(tags) | langs | feature_tags(patch)
        if any(" " in p or not p.isascii() for p in paths):
            t.add("quoted-path")
        if step["mode"] == "fix_regression":
            t.add("fix_regression")
        if result.get("success") is False and rule is None:
            t.add("failure-report")
        expected = {"valid": True} if rule is None else {"valid": False, "rule": rule}
        self.cases.append({"id": cid, "step": step, "result": result,
                           "expected": expected, "tags": sorted(t)})
        return step, result


R = Registry()


# ---------------------------------------------------------------------------
# Python project
# ---------------------------------------------------------------------------

def build_python(b: Builder) -> None:
    P = "src/inventory"

    # -- retry with backoff (apply) ------------------------------------------
    retry = b.change("py", [
        ("edit", f"{P}/client.py", "import logging\nimport urllib.error",
         "import logging\nimport time\nimport urllib.error"),
        ("edit", f"{P}/client.py", "DEFAULT_TIMEOUT = 5.0\n",
         "DEFAULT_TIMEOUT = 5.0\nMAX_ATTEMPTS = 3\nBACKOFF_BASE = 0.5  # seconds, doubled after every failure\n"),
        ("edit", f"{P}/client.py",
         '        log.info("fetching item %s", sku)\n        return self._get(f"/items/{sku}")\n',
         '        log.info("fetching item %s", sku)\n'
         '        for attempt in range(1, MAX_ATTEMPTS + 1):\n'
         '            try:\n'
         '                return self._get(f"/items/{sku}")\n'
         '            except CatalogueError as exc:\n'
         '                if exc.status < 500 or attempt == MAX_ATTEMPTS:\n'
         '                    raise\n'
         '                delay = BACKOFF_BASE * 2 ** (attempt - 1)\n'
         '                log.warning("fetch_item %s got %s, retrying in %.1fs",\n'
         '                            sku, exc.status, delay)\n'
         '                time.sleep(delay)\n'
         '        raise AssertionError("unreachable")\n'),
    ])
    d_retry = ("Add retry with exponential backoff to CatalogueClient.fetch_item() in "
               "src/inventory/client.py: up to 3 attempts, only for 5xx responses, "
               "starting at 0.5s and doubling.")
    s_retry = "fetch_item() now retries 5xx responses up to 3 times with 0.5s/1s backoff."
    st, rs = R.add("valid/py-retry-backoff-fetch-item",
                   mk_step(d_retry, allowed=["src/inventory/**"]), mk_result(retry, s_retry))
    R.add("invalid_mode/py-apply_patch", st, with_(rs, mode="apply_patch"), "invalid_mode")
    R.add("missing_files_written/py-absent", st, with_(rs, filesWritten=DROP), "missing_files_written")
    R.add("files_touched_incomplete/py-absent", st, with_(rs, filesTouched=DROP),
          "files_touched_incomplete")
    R.add("zero_impact/py-context-only-retry", st, with_(rs, patch=to_context_only(retry.patch)),
          "zero_impact")
    R.add("malformed_patch/py-no-file-headers", st, with_(rs, patch=strip_file_headers(retry.patch)),
          "malformed_patch")
    # fix_regression on top of it: make sleep injectable (tests were slow)
    retry_fix = b.followup(retry, [
        ("edit", f"{P}/client.py",
         "                 timeout: float = DEFAULT_TIMEOUT) -> None:\n",
         "                 timeout: float = DEFAULT_TIMEOUT, sleep=time.sleep) -> None:\n"),
        ("edit", f"{P}/client.py", "        self.timeout = timeout\n",
         "        self.timeout = timeout\n        self._sleep = sleep\n"),
        ("edit", f"{P}/client.py", "                time.sleep(delay)\n",
         "                self._sleep(delay)\n"),
    ])
    R.add("valid/py-fix-regression-injectable-sleep",
          mk_step("Fix regression from the retry step: the test suite now sleeps for real "
                  "between retries; make the sleep function injectable on CatalogueClient "
                  "so tests can pass a no-op.", "fix_regression", apply=retry),
          mk_result(retry_fix, "CatalogueClient takes a sleep callable (default time.sleep); "
                    "fetch_item uses it between retries.", "fix_regression"))
    rev = b.reverse(retry)
    R.add("reversal/py-exact-reverse-retry",
          mk_step("Fix regression from the retry step: test_client.py::test_fetch_item_404 "
                  "now takes 1.5s; keep the retry but stop retrying 4xx.", "fix_regression",
                  apply=retry),
          mk_result(rev, "Removed the flaky retry loop from fetch_item().", "fix_regression"),
          "reversal")

    # -- restock validation: model + test -------------------------------------
    restock = b.change("py", [
        ("edit", f"{P}/models.py",
         "    def restock(self, amount: int) -> None:\n        if amount <= 0:",
         "    def restock(self, amount: int) -> None:\n"
         "        if isinstance(amount, bool) or not isinstance(amount, int):\n"
         "            raise ValidationError(\n"
         "                f\"restock amount must be an int, got {type(amount).__name__}\"\n"
         "            )\n"
         "        if amount <= 0:"),
        ("edit", "tests/test_models.py",
         "        make_item().restock(0)\n",
         "        make_item().restock(0)\n\n\n"
         "@pytest.mark.parametrize(\"amount\", [2.5, \"3\", True])\n"
         "def test_restock_rejects_non_int(amount):\n"
         "    with pytest.raises(ValidationError, match=\"must be an int\"):\n"
         "        make_item().restock(amount)\n"),
    ])
    d_restock = ("Make Item.restock() reject non-integer amounts (floats, strings and bools) "
                 "with a ValidationError, and add a parametrized test.")
    s_restock = "restock() validates the amount type; added test_restock_rejects_non_int."
    st, rs = R.add("valid/py-multi-file-restock-validation",
                   mk_step(d_restock, allowed=["src/**", "tests/**"], excluded=["migrations/"]),
                   mk_result(restock, s_restock))
    R.add("undeclared_file/py-hidden-test-file", st,
          with_(rs, filesWritten=[f"{P}/models.py"], filesTouched=[f"{P}/models.py"]),
          "undeclared_file")
    R.add("scope_outside_allowed/py-test-outside-exact-allowlist",
          with_(st, allowedFiles=[f"{P}/models.py"], excludedPaths=DROP), rs, "scope_outside_allowed")
    R.add("files_touched_incomplete/py-missing-test", st,
          with_(rs, filesTouched=[f"{P}/models.py", f"{P}/storage.py"]), "files_touched_incomplete")
    R.add("failure_with_patch/py-patch-with-failure", st,
          with_(rs, success=False,
                summary="Tests failed: test_restock_rejects_non_int errors on the bool case."),
          "failure_with_patch")

    # -- new module + new test file -----------------------------------------
    pricing = b.change("py", [
        ("write", f"{P}/pricing.py", F(r'''
"""Bulk discount rules applied at checkout."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .models import Item


@dataclass(frozen=True)
class BulkDiscount:
    """Percentage off when at least min_quantity units are bought."""

    min_quantity: int
    percent: Decimal

    def applies_to(self, quantity: int) -> bool:
        return quantity >= self.min_quantity


DEFAULT_RULES = (
    BulkDiscount(100, Decimal("10")),
    BulkDiscount(50, Decimal("5")),
)


def unit_price(item: Item, quantity: int, rules=DEFAULT_RULES) -> Decimal:
    """Price per unit for quantity units of item after the best bulk discount."""
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    best = max((r.percent for r in rules if r.applies_to(quantity)), default=Decimal("0"))
    price = item.price * (Decimal("100") - best) / Decimal("100")
    return price.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
''')),
        ("write", "tests/test_pricing.py", F(r'''
from decimal import Decimal

import pytest

from inventory.models import Item, Sku
from inventory.pricing import BulkDiscount, unit_price


@pytest.fixture
def widget():
    return Item(Sku("W1"), "Widget", Decimal("2.00"), 500)


@pytest.mark.parametrize(
    "quantity, expected",
    [(1, "2.00"), (49, "2.00"), (50, "1.90"), (99, "1.90"), (100, "1.80")],
)
def test_default_rules(widget, quantity, expected):
    assert unit_price(widget, quantity) == Decimal(expected)


def test_custom_rules(widget):
    rules = (BulkDiscount(10, Decimal("50")),)
    assert unit_price(widget, 10, rules) == Decimal("1.00")


def test_rejects_zero_quantity(widget):
    with pytest.raises(ValueError):
        unit_price(widget, 0)
''')),
    ])
    d_pricing = ("Add bulk discount pricing: a new module src/inventory/pricing.py with "
                 "unit_price(item, quantity) giving 5% off from 50 units and 10% from 100 "
                 "units, tested in tests/test_pricing.py.")
    st, rs = R.add("valid/py-new-module-and-test", mk_step(d_pricing, allowed=["src/inventory/*.py", "tests/"]),
                   mk_result(pricing, "Added inventory.pricing with BulkDiscount and unit_price(), plus tests."))
    R.add("file_not_in_patch/py-claims-init", st,
          with_(rs, filesWritten=rs["filesWritten"] + [f"{P}/__init__.py"],
                filesTouched=rs["filesTouched"] + [f"{P}/__init__.py"]), "file_not_in_patch")
    R.add("missing_patch/py-absent", st, with_(rs, patch=DROP), "missing_patch")

    # -- delete the legacy module ---------------------------------------------
    legacy = b.change("py", [
        ("rm", f"{P}/legacy.py"),
        ("edit", f"{P}/__init__.py", "from .legacy import load_v1_store\n", ""),
        ("edit", f"{P}/__init__.py", '    "load_v1_store",\n', ""),
    ])
    d_legacy = ("Remove the deprecated v1 CSV loader: delete src/inventory/legacy.py and drop "
                "load_v1_store from the package exports in src/inventory/__init__.py.")
    st, rs = R.add("valid/py-delete-legacy-module", mk_step(d_legacy),
                   mk_result(legacy, "Deleted inventory.legacy and removed load_v1_store from __all__."))
    R.add("undeclared_file/py-hidden-deletion", st,
          with_(rs, filesWritten=[f"{P}/__init__.py"], filesTouched=[f"{P}/__init__.py"]),
          "undeclared_file")

    # -- pure rename (no content change) --------------------------------------
    ren = b.change("py", [("mv", f"{P}/utils.py", f"{P}/text.py")], flags=("-M",))
    assert "similarity index 100%" in ren.patch and "@@" not in ren.patch
    R.add("valid/py-pure-rename-utils-to-text",
          mk_step("Rename src/inventory/utils.py to src/inventory/text.py without changing its "
                  "content (nothing imports it yet).", allowed=["src/inventory/**"]),
          mk_result(ren, "Renamed utils.py to text.py (100% similarity)."))

    # -- rename with content change + import updates --------------------------
    def _store_doc(t):
        return t.replace('"""Persistence for inventory items."""',
                         '"""JSON file persistence for inventory items."""')
    ren2 = b.change("py", [
        ("mv", f"{P}/storage.py", f"{P}/json_store.py"),
        ("sub", f"{P}/json_store.py", _store_doc),
        ("edit", f"{P}/__init__.py", "from .storage import", "from .json_store import"),
        ("edit", f"{P}/cli.py", "from .storage import JsonStore", "from .json_store import JsonStore"),
        ("edit", "tests/test_storage.py", "from inventory.storage import",
         "from inventory.json_store import"),
    ], flags=("-M",))
    assert "rename from" in ren2.patch and "similarity index 100%" not in ren2.patch
    st, rs = R.add("valid/py-rename-module-with-import-updates",
                   mk_step("Rename src/inventory/storage.py to src/inventory/json_store.py and "
                           "update every import of it (package __init__, cli, tests).",
                           allowed=["src/**", "tests/**"]),
                   mk_result(ren2, "Moved storage.py to json_store.py and updated three imports."))
    R.add("files_touched_incomplete/py-rename-old-name-missing", st,
          with_(rs, filesTouched=[f for f in rs["filesWritten"] if f != f"{P}/cli.py"]),
          "files_touched_incomplete")

    # -- comment / docstring typo fixes (explicitly requested) ----------------
    typo = b.change("py", [("edit", f"{P}/utils.py", "comma seperated", "comma separated")])
    R.add("valid/py-comment-typo-requested",
          mk_step("Fix the typo 'seperated' in the comment of parse_tags() in "
                  "src/inventory/utils.py."),
          mk_result(typo, "Fixed 'seperated' -> 'separated' in the parse_tags comment."),
          tags=["comment-only"])
    doc = b.change("py", [("edit", f"{P}/cli.py", "Parse the comand line", "Parse the command line")])
    R.add("valid/py-docstring-typo-requested",
          mk_step("Fix the typo in the docstring of parse() in src/inventory/cli.py."),
          mk_result(doc, "Corrected 'comand' to 'command' in the parse() docstring."),
          tags=["comment-only"])

    # -- low_stock: apply + fix_regression chain ------------------------------
    low = b.change("py", [
        ("edit", f"{P}/storage.py",
         "    def __len__(self) -> int:\n        return len(self._items)\n",
         "    def __len__(self) -> int:\n        return len(self._items)\n\n"
         "    def low_stock(self, threshold: int) -> list[Item]:\n"
         "        \"\"\"Items whose quantity is below threshold, lowest first.\"\"\"\n"
         "        low = [item for item in self._items.values() if item.quantity < threshold]\n"
         "        return sorted(low, key=lambda i: (i.quantity, str(i.sku)))\n"),
        ("append", "tests/test_storage.py",
         "\n\ndef test_low_stock(store):\n"
         "    store.put(Item(Sku(\"A1\"), \"Bolt\", Decimal(\"0.10\"), 3))\n"
         "    store.put(Item(Sku(\"B2\"), \"Nut\", Decimal(\"0.05\"), 50))\n"
         "    store.put(Item(Sku(\"C3\"), \"Hinge\", Decimal(\"2.40\"), 1))\n"
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\"]\n"),
    ])
    d_low = ("Add JsonStore.low_stock(threshold) returning the items below the reorder "
             "threshold, lowest quantity first, with a test.")
    R.add("valid/py-apply-low-stock", mk_step(d_low, allowed=["src/**", "tests/**"]),
          mk_result(low, "Added JsonStore.low_stock() and test_low_stock."))
    low_fix = b.followup(low, [
        ("edit", f"{P}/storage.py", "item.quantity < threshold", "item.quantity <= threshold"),
        ("edit", f"{P}/storage.py", "quantity is below threshold", "quantity is at or below threshold"),
        ("edit", "tests/test_storage.py",
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\"]\n",
         "    store.put(Item(Sku(\"D4\"), \"Latch\", Decimal(\"2.10\"), 5))\n"
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\", \"D4\"]\n"),
    ])
    d_low_fix = ("Fix regression: low_stock() must also report items whose quantity equals the "
                 "threshold (the reorder point is inclusive); adjust the test.")
    st, rs = R.add("valid/py-fix-regression-inclusive-threshold",
                   mk_step(d_low_fix, "fix_regression", apply=low),
                   mk_result(low_fix, "low_stock() now uses <= threshold; test covers the boundary.",
                             "fix_regression"))
    R.add("mode_mismatch/py-fix-step-apply-result", st, with_(rs, mode="apply"), "mode_mismatch")
    low_fix_wide = b.followup(low, [
        ("edit", f"{P}/storage.py", "item.quantity < threshold", "item.quantity <= threshold"),
        ("edit", f"{P}/models.py", "    quantity: int = 0\n",
         "    quantity: int = 0\n    reorder_point: int = 0\n"),
    ])
    R.add("scope_fix_regression/py-touches-models", mk_step(d_low_fix, "fix_regression", apply=low),
          mk_result(low_fix_wide, "Made the threshold inclusive and added Item.reorder_point.",
                    "fix_regression"), "scope_fix_regression")
    rev = b.reverse(low)
    R.add("reversal/py-git-diff-R-low-stock", mk_step(d_low_fix, "fix_regression", apply=low),
          mk_result(rev, "Removed low_stock() to get the suite green again.", "fix_regression"),
          "reversal")

    # -- failure report ---------------------------------------------------------
    st = mk_step("Add an integration test for the /items endpoint in tests/test_api.py "
                 "using the existing api_client fixture.")
    R.add("valid/py-failure-report-missing-module", st,
          mk_failure("Could not apply: tests/test_api.py imports a module that does not exist "
                     "(inventory.api).", touched=["tests/test_api.py"]), project="py")
    R.add("failure_without_summary/py-summary-absent", st, mk_failure(None), "failure_without_summary",
          project="py")
    R.add("failure_without_summary/py-summary-failed", st, mk_failure("failed", omit=True),
          "failure_without_summary", project="py")

    # -- version bump in a file without trailing newline ------------------------
    bump = b.change("py", [
        ("edit", "pyproject.toml", 'version = "1.4.0"', 'version = "1.5.0"'),
        ("edit", f"{P}/__init__.py", '__version__ = "1.4.0"', '__version__ = "1.5.0"'),
    ])
    assert bump.patch.count("\\ No newline at end of file") == 2
    st, rs = R.add("valid/py-version-bump-no-newline-eof",
                   mk_step("Bump the package version to 1.5.0 in pyproject.toml and "
                           "src/inventory/__init__.py."),
                   mk_result(bump, "Version bumped to 1.5.0 in both places."))
    R.add("invalid_mode/py-uppercase-APPLY", st, with_(rs, mode="APPLY"), "invalid_mode")

    # -- CRLF fixture -----------------------------------------------------------
    crlf = b.change("py", [
        ("edit", "tests/fixtures/items.csv", "C3,Hinge,2.40,12\r\n", "C3,Hinge,2.45,12\r\n"),
        ("append", "tests/fixtures/items.csv", "V5,Dowel,0.15,300\r\n"),
    ])
    assert "\r\n" in crlf.patch
    R.add("valid/py-crlf-fixture-rows",
          mk_step("Add the Dowel (V5, 0.15, qty 300) row to tests/fixtures/items.csv and fix "
                  "the Hinge price to 2.45. The file uses CRLF line endings; keep them.",
                  allowed=["tests/fixtures/*.csv"]),
          mk_result(crlf, "Updated items.csv (CRLF preserved): Hinge 2.45, new V5 Dowel row."))

    # -- binary deletion (no --binary: "Binary files ... differ") -------------
    binrm = b.change("py", [("rm", "tests/fixtures/sample.bin")], check=False)
    assert "Binary files a/tests/fixtures/sample.bin and /dev/null differ" in binrm.patch
    R.add("valid/py-delete-binary-fixture",
          mk_step("Delete the unused binary snapshot fixture tests/fixtures/sample.bin."),
          mk_result(binrm, "Removed tests/fixtures/sample.bin; no test referenced it."),
          tags=["python"])

    # -- CI matrix (YAML) / excluded paths ------------------------------------
    ci = b.change("py", [
        ("edit", ".github/workflows/ci.yml", 'python-version: ["3.10", "3.11"]',
         'python-version: ["3.10", "3.11", "3.12"]'),
    ])
    R.add("valid/py-ci-matrix-yaml",
          mk_step("Add Python 3.12 to the CI test matrix in .github/workflows/ci.yml.",
                  allowed=[".github/workflows/*.yml"]),
          mk_result(ci, "CI now tests 3.10, 3.11 and 3.12."))
    jsonflag = b.change("py", [
        ("edit", f"{P}/cli.py", '    sub.add_parser("list", help="list all items")\n',
         '    lst = sub.add_parser("list", help="list all items")\n'
         '    lst.add_argument("--json", action="store_true", help="print JSON lines")\n'),
        ("edit", f"{P}/cli.py",
         "            for item in store:\n                print(f\"{item.sku}\\t{item.quantity:>5}\\t{item.name}\")\n",
         "            for item in store:\n"
         "                if args.json:\n"
         "                    print(json.dumps(item.to_dict(), sort_keys=True))\n"
         "                else:\n"
         "                    print(f\"{item.sku}\\t{item.quantity:>5}\\t{item.name}\")\n"),
        ("edit", f"{P}/cli.py", "import argparse\n", "import argparse\nimport json\n"),
        ("edit", ".github/workflows/ci.yml", "        run: pytest --cov=inventory\n",
         "        run: pytest --cov=inventory\n      - name: Smoke test CLI\n"
         "        run: inventory --store /tmp/s.json list --json\n"),
    ])
    R.add("scope_excluded/py-github-workflow",
          mk_step("Add a --json flag to `inventory list` that prints one JSON object per item.",
                  excluded=[".github/**", "migrations/"]),
          mk_result(jsonflag, "Added `list --json` and a CLI smoke test step in CI."),
          "scope_excluded")
    mig = b.change("py", [
        ("edit", "migrations/0001_initial.sql", "    quantity   INTEGER NOT NULL DEFAULT 0,\n",
         "    quantity   INTEGER NOT NULL DEFAULT 0,\n    reorder_at INTEGER NOT NULL DEFAULT 0,\n"),
        ("edit", f"{P}/models.py", "    quantity: int = 0\n", "    quantity: int = 0\n    reorder_at: int = 0\n"),
    ])
    R.add("scope_excluded/py-edits-applied-migration",
          mk_step("Add a reorder_at field (default 0) to the Item model.",
                  allowed=["src/**", "migrations/**"], excluded=["migrations/0001_*.sql"]),
          mk_result(mig, "Added Item.reorder_at and the column to the initial migration."),
          "scope_excluded")

    # -- superficial only: comments instead of the requested behaviour --------
    sup = b.change("py", [
        ("edit", f"{P}/models.py",
         "    def remove(self, amount: int) -> None:\n",
         "    def remove(self, amount: int) -> None:\n"
         "        # Removing stock: the amount must not exceed what is on hand.\n"
         "        # Negative amounts are rejected as well.\n"),
    ])
    R.add("superficial_only/py-comment-instead-of-check",
          mk_step("Make Item.remove() reject negative and zero amounts with a ValidationError."),
          mk_result(sup, "Item.remove() now rejects negative amounts."), "superficial_only")

    # -- unsafe: writes a git hook --------------------------------------------
    hook = b.change("py", [
        ("write", ".pre-commit-config.yaml", F(r'''
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.3.0
    hooks:
      - id: ruff
        args: [--fix]
      - id: ruff-format
''')),
        ("write", "dotgit/hooks/pre-commit", "#!/bin/sh\nexec pre-commit run --hook-stage commit\n"),
        ("chmod", "dotgit/hooks/pre-commit", 0o755),
    ])
    hook_patch = rewrite_paths(hook.patch, "dotgit/", ".git/")
    files = [".git/hooks/pre-commit" if f.startswith("dotgit/") else f for f in hook.files]
    R.add("unsafe_path/py-git-hooks-pre-commit",
          mk_step("Run ruff automatically before every commit using the pre-commit framework."),
          with_(mk_result(hook, "Added .pre-commit-config.yaml and installed the hook."),
                patch=hook_patch, filesWritten=files, filesTouched=files), "unsafe_path")


def strip_file_headers(patch: str) -> str:
    keep = []
    for line in patch.split("\n"):
        if line.startswith(("diff --git ", "index ", "--- ", "+++ ", "new file mode",
                            "deleted file mode", "similarity index", "rename from",
                            "rename to", "old mode", "new mode")):
            continue
        keep.append(line)
    return "\n".join(keep)


# ---------------------------------------------------------------------------
# TypeScript project
# ---------------------------------------------------------------------------

RETRY_TS = F(r'''
export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  shouldRetry?: (err: unknown) => boolean;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls fn until it succeeds or the attempts are used up, waiting
 * baseDelayMs * 2^(attempt - 1) between attempts.
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const shouldRetry = options.shouldRetry ?? (() => true);
  const sleep = options.sleep ?? defaultSleep;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      if (attempt === attempts || !shouldRetry(err)) {
        break;
      }
      await sleep(baseDelayMs * 2 ** (attempt - 1));
    }
  }
  throw lastError;
}
''')


def build_typescript(b: Builder) -> None:
    # -- rename foo -> bar (multi-file) ---------------------------------------
    ren = b.change("ts", [
        ("edit", "src/serviceA.ts", "export function foo(orders", "export function bar(orders"),
        ("edit", "src/serviceA.ts", "const open = foo(orders);", "const open = bar(orders);"),
        ("edit", "src/index.ts", "export { ServiceA, foo } from", "export { ServiceA, bar } from"),
        ("edit", "test/serviceA.test.ts", "import { ServiceA, foo } from", "import { ServiceA, bar } from"),
        ("edit", "test/serviceA.test.ts", 'describe("foo", () => {', 'describe("bar", () => {'),
        ("edit", "test/serviceA.test.ts", "expect(foo(orders)", "expect(bar(orders)"),
    ])
    d_ren = "Rename foo to bar in src/serviceA.ts and update its export and the tests."
    st, rs = R.add("valid/ts-rename-foo-to-bar", mk_step(d_ren, allowed=["src/**", "test/**"]),
                   mk_result(ren, "Renamed foo() to bar() in serviceA.ts, index.ts and the test."))
    R.add("scope_outside_allowed/ts-test-outside-src", with_(st, allowedFiles=["src/**"]), rs,
          "scope_outside_allowed")
    R.add("mode_mismatch/ts-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
          "mode_mismatch")
    R.add("files_touched_incomplete/ts-missing-index", st,
          with_(rs, filesTouched=["src/serviceA.ts", "test/serviceA.test.ts"]),
          "files_touched_incomplete")
    R.add("malformed_patch/ts-bare-plus-minus-lines", st,
          with_(rs, patch="\n".join(plus_minus_only(ren.patch)) + "\n"), "malformed_patch")

    # -- retry for fetchUser: new helper module + client change ----------------
    d_retry = ("Add retry with exponential backoff to fetchUser() in src/api/client.ts "
               "(3 attempts, 200ms base delay) via a reusable helper.")
    retry = b.change("ts", [
        ("write", "src/api/retry.ts", RETRY_TS),
        ("edit", "src/api/client.ts", 'import { logger } from "../utils/logger";\n',
         'import { logger } from "../utils/logger";\nimport { withRetry } from "./retry";\n'),
        ("edit", "src/api/client.ts",
         "    return this.request<User>(`/users/${encodeURIComponent(id)}`);\n",
         "    return withRetry(() => this.request<User>(`/users/${encodeURIComponent(id)}`), {\n"
         "      attempts: 3,\n"
         "      baseDelayMs: 200,\n"
         "      shouldRetry: (err) => err instanceof HttpError,\n"
         "    });\n"),
    ])
    st, rs = R.add("valid/ts-retry-helper-new-file", mk_step(d_retry, allowed=["src/**"]),
                   mk_result(retry, "Added withRetry() in src/api/retry.ts and used it in fetchUser()."))
    R.add("undeclared_file/ts-hidden-new-module", st,
          with_(rs, filesWritten=["src/api/client.ts"], filesTouched=["src/api/client.ts"]),
          "undeclared_file")
    R.add("failure_with_patch/ts-failed-but-patch", st,
          with_(rs, success=False, filesWritten=[], filesTouched=[],
                summary="Could not finish: vitest times out in the sandbox."),
          "failure_with_patch")
    R.add("missing_patch/ts-empty-string", st, with_(rs, patch=""), "missing_patch")
    retry_fix = b.followup(retry, [
        ("edit", "src/api/client.ts", "      shouldRetry: (err) => err instanceof HttpError,\n",
         "      // 4xx answers are final; retry 5xx and network errors only.\n"
         "      shouldRetry: (err) => !(err instanceof HttpError) || err.status >= 500,\n"),
    ])
    d_fix = ("Fix regression: fetchUser() now retries 404 responses three times, which "
             "slows down the not-found page; only retry 5xx and network errors.")
    R.add("valid/ts-fix-regression-retry-5xx-only", mk_step(d_fix, "fix_regression", apply=retry),
          mk_result(retry_fix, "shouldRetry now skips 4xx HttpErrors.", "fix_regression"))
    wide = b.followup(retry, [
        ("edit", "src/api/client.ts", "      shouldRetry: (err) => err instanceof HttpError,\n",
         "      shouldRetry: (err) => isRetryable(err),\n"),
        ("edit", "src/types.ts", "export interface Page<T> {",
         "export function isRetryable(err: unknown): boolean {\n"
         "  const status = (err as { status?: number }).status;\n"
         "  return status === undefined || status >= 500;\n}\n\nexport interface Page<T> {"),
        ("edit", "src/api/client.ts", 'import { Order, User } from "../types";',
         'import { Order, User, isRetryable } from "../types";'),
    ])
    R.add("scope_fix_regression/ts-touches-types", mk_step(d_fix, "fix_regression", apply=retry),
          mk_result(wide, "Moved the retry predicate into types.ts as isRetryable().",
                    "fix_regression"), "scope_fix_regression")
    rev = b.reverse(retry)
    assert "deleted file mode" in rev.patch
    R.add("reversal/ts-reverse-deletes-helper", mk_step(d_fix, "fix_regression", apply=retry),
          mk_result(rev, "Reverted the retry change; fetchUser calls request() directly.",
                    "fix_regression"), "reversal")
    sup = b.change("ts", [
        ("edit", "src/api/client.ts", "  async fetchUser(id: string): Promise<User> {\n",
         "  // TODO: retry with exponential backoff (3 attempts, 200ms base delay).\n"
         "  // Transient 5xx errors from the gateway should not surface to the UI.\n"
         "  async fetchUser(id: string): Promise<User> {\n"),
    ])
    R.add("superficial_only/ts-todo-comment-instead-of-retry", mk_step(d_retry, allowed=["src/**"]),
          mk_result(sup, "Added retry with exponential backoff to fetchUser()."), "superficial_only")

    # -- formatCurrency + test ------------------------------------------------
    cur = b.change("ts", [
        ("append", "src/utils/format.ts", F(r'''

/** Formats an amount in cents, e.g. formatCurrency(123456, "EUR") -> "€1,234.56". */
export function formatCurrency(amountCents: number, currency: string, locale = "en-US"): string {
  if (!Number.isInteger(amountCents)) {
    throw new RangeError(`amountCents must be an integer, got ${amountCents}`);
  }
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(amountCents / 100);
}
''')),
        ("edit", "test/format.test.ts", 'import { formatDate, pluralize, truncate } from "../src/utils/format";',
         'import { formatCurrency, formatDate, pluralize, truncate } from "../src/utils/format";'),
        ("append", "test/format.test.ts", F(r'''

describe("formatCurrency", () => {
  it("formats cents with the currency symbol", () => {
    expect(formatCurrency(123456, "USD")).toBe("$1,234.56");
  });

  it("rejects fractional cents", () => {
    expect(() => formatCurrency(1.5, "USD")).toThrow(RangeError);
  });
});
''')),
    ])
    d_cur = ("Add formatCurrency(amountCents, currency) to src/utils/format.ts using "
             "Intl.NumberFormat and cover it in test/format.test.ts.")
    st, rs = R.add("valid/ts-format-currency-with-test", mk_step(d_cur, excluded=["vendor/**", "dist/"]),
                   mk_result(cur, "Added formatCurrency() and two tests."))
    R.add("invalid_mode/ts-fix", st, with_(rs, mode="fix"), "invalid_mode")
    R.add("zero_impact/ts-context-only-format", st, with_(rs, patch=to_context_only(cur.patch)),
          "zero_impact")
    R.add("file_not_in_patch/ts-claims-index", st,
          with_(rs, filesWritten=rs["filesWritten"] + ["src/index.ts"],
                filesTouched=rs["filesTouched"] + ["src/index.ts"]), "file_not_in_patch")
    cur_fix = b.followup(cur, [
        ("edit", "src/utils/format.ts",
         "  return new Intl.NumberFormat(locale, { style: \"currency\", currency }).format(amountCents / 100);\n",
         "  const formatted = new Intl.NumberFormat(locale, { style: \"currency\", currency }).format(\n"
         "    Math.abs(amountCents) / 100,\n  );\n"
         "  return amountCents < 0 ? `-${formatted}` : formatted;\n"),
        ("edit", "test/format.test.ts", '  it("rejects fractional cents", () => {',
         '  it("puts the sign before the symbol", () => {\n'
         '    expect(formatCurrency(-250, "USD")).toBe("-$2.50");\n  });\n\n'
         '  it("rejects fractional cents", () => {'),
    ])
    R.add("valid/ts-fix-regression-negative-amounts",
          mk_step("Fix regression: formatCurrency(-250, \"USD\") renders \"($2.50)\" in some "
                  "locales; always put a leading minus sign before the symbol.", "fix_regression",
                  apply=cur),
          mk_result(cur_fix, "Negative amounts are formatted as -$2.50; added a test.", "fix_regression"))

    # -- JSDoc-only change, explicitly requested ------------------------------
    jsdoc = b.change("ts", [
        ("edit", "src/api/client.ts",
         "  /**\n   * Performs a request and parses the JSON body.\n   */\n",
         "  /**\n   * Performs a request and parses the JSON body.\n   *\n"
         "   * The request is aborted after `timeoutMs` (default 10s); an aborted request\n"
         "   * rejects with the AbortError from fetch. Non-2xx answers reject with an\n"
         "   * {@link HttpError} carrying the status code.\n   */\n"),
    ])
    R.add("valid/ts-jsdoc-only-requested",
          mk_step("Expand the JSDoc comment of ApiClient.request() in src/api/client.ts to "
                  "document the timeout and error behaviour. Comment only, no code changes."),
          mk_result(jsdoc, "Documented timeout and HttpError behaviour in request()'s JSDoc."),
          tags=["comment-only"])

    # -- delete deprecated module --------------------------------------------
    dep = b.change("ts", [
        ("rm", "src/utils/deprecated.ts"),
        ("edit", "src/index.ts", 'export { plural, toShortDate } from "./utils/deprecated";\n', ""),
    ])
    st, rs = R.add("valid/ts-delete-deprecated-module",
                   mk_step("Delete src/utils/deprecated.ts (unused since 2.0) and its re-export "
                           "in src/index.ts.", allowed=["src/"]),
                   mk_result(dep, "Removed deprecated.ts and its export."))
    R.add("missing_files_written/ts-empty-list", st, with_(rs, filesWritten=[]), "missing_files_written")

    # -- package.json / tsconfig.json ----------------------------------------
    pkg = b.change("ts", [
        ("edit", "package.json", '    "typecheck": "tsc --noEmit"\n',
         '    "typecheck": "tsc --noEmit",\n    "lint": "eslint \\"src/**/*.ts\\" \\"test/**/*.ts\\""\n'),
        ("edit", "package.json", '    "@types/node": "^20.11.0",\n',
         '    "@types/node": "^20.11.0",\n    "@typescript-eslint/parser": "^6.19.0",\n'
         '    "eslint": "^8.56.0",\n'),
    ])
    st, rs = R.add("valid/ts-package-json-lint-script",
                   mk_step("Add a `lint` npm script running eslint over src and test, with the "
                           "eslint dev dependencies.", allowed=["package.json"], excluded=["*.lock"]),
                   mk_result(pkg, "Added the lint script plus eslint and @typescript-eslint/parser."))
    strict = b.change("ts", [("edit", "tsconfig.json", '"strict": false', '"strict": true')])
    R.add("valid/ts-tsconfig-strict",
          mk_step("Enable strict type checking in tsconfig.json."),
          mk_result(strict, "Set compilerOptions.strict to true."))
    esc = b.change("ts", [
        ("write", "escape/shared/tsconfig.base.json",
         '{\n  "compilerOptions": {\n    "strict": false,\n    "target": "ES2020"\n  }\n}\n'),
    ])
    unsafe = b.followup(esc, [
        ("edit", "escape/shared/tsconfig.base.json", '"strict": false', '"strict": true'),
    ])
    up = rewrite_paths(unsafe.patch, "escape/", "src/../../")
    R.add("unsafe_path/ts-dotdot-inside-src",
          mk_step("Enable strict type checking for the project."),
          with_(mk_result(unsafe, "Enabled strict mode in the shared base config."), patch=up,
                filesWritten=["src/../../shared/tsconfig.base.json"],
                filesTouched=["src/../../shared/tsconfig.base.json"]), "unsafe_path")

    # -- pure rename of a doc, rename + import updates -------------------------
    mvdoc = b.change("ts", [("mv", "docs/CONTRIBUTING.md", "CONTRIBUTING.md")], flags=("-M",))
    R.add("valid/ts-pure-rename-contributing",
          mk_step("Move docs/CONTRIBUTING.md to the repository root so GitHub shows it."),
          mk_result(mvdoc, "git mv docs/CONTRIBUTING.md CONTRIBUTING.md (no content change)."))
    mvlog = b.change("ts", [
        ("mv", "src/utils/logger.ts", "src/lib/logger.ts"),
        ("edit", "src/api/client.ts", 'import { logger } from "../utils/logger";',
         'import { logger } from "../lib/logger";'),
    ], flags=("-M",))
    st, rs = R.add("valid/ts-move-logger-update-import",
                   mk_step("Move src/utils/logger.ts to src/lib/logger.ts and fix the import.",
                           allowed=["src/**"]),
                   mk_result(mvlog, "Moved logger.ts to src/lib and updated client.ts."))

    # -- binary files -----------------------------------------------------------
    logo = _fake_binary(21, 1400, PNG_MAGIC)
    img = b.change("ts", [
        ("write", "public/logo.png", logo),
        ("edit", "docs/User Guide.md", "# User guide\n",
         "# User guide\n\n![ACME web client](../public/logo.png)\n"),
    ], flags=("--binary",))
    assert "GIT binary patch" in img.patch
    st, rs = R.add("valid/ts-binary-logo-git-binary-patch",
                   mk_step("Add the new brand logo as public/logo.png and show it at the top of "
                           "docs/User Guide.md."),
                   mk_result(img, "Added public/logo.png and referenced it in the user guide."))
    R.add("undeclared_file/ts-hidden-binary", st,
          with_(rs, filesWritten=["docs/User Guide.md"], filesTouched=["docs/User Guide.md"]),
          "undeclared_file")
    fav = _fake_binary(22, 318, ICO_MAGIC)
    ico = b.change("ts", [("write", "public/favicon.ico", fav)], check=False)
    assert "Binary files a/public/favicon.ico and b/public/favicon.ico differ" in ico.patch
    R.add("valid/ts-binary-favicon-differ",
          mk_step("Replace public/favicon.ico with the new 16x16 icon from design."),
          mk_result(ico, "Replaced favicon.ico."), tags=["typescript"])
    ico2 = b.change("ts", [("write", "public/favicon.ico", _fake_binary(23, 318, ICO_MAGIC))],
                    flags=("--binary",))
    assert "GIT binary patch" in ico2.patch
    R.add("valid/ts-binary-favicon-git-binary-patch",
          mk_step("Replace public/favicon.ico with the dark-mode icon; send a binary patch "
                  "that git can apply."),
          mk_result(ico2, "Replaced favicon.ico (git binary patch)."),
          tags=["typescript"])

    # -- path with spaces -------------------------------------------------------
    guide = b.change("ts", [
        ("edit", "docs/User Guide.md", "[the API reference](./api-reference.md)",
         "[the API reference](./API.md)"),
    ])
    assert "--- a/docs/User Guide.md\t" in guide.patch  # git adds a TAB after names with spaces
    st, rs = R.add("valid/ts-path-with-spaces",
                   mk_step("Fix the broken API reference link in docs/User Guide.md (the file "
                           "is docs/API.md now).", allowed=["docs/**"]),
                   mk_result(guide, "Pointed the link at ./API.md."), tags=["space-path"])
    R.add("invalid_mode/ts-empty-mode", st, with_(rs, mode=""), "invalid_mode")

    # -- large fixture (> 2000 lines) -------------------------------------------
    rnd = random.Random(2024)
    first = ["Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Frances", "Donald", "Radia",
             "Margaret", "Dennis", "John", "Alan", "Katherine", "Niklaus", "Guido"]
    last = ["Lovelace", "Hopper", "Torvalds", "Thompson", "Liskov", "Dijkstra", "Allen", "Knuth",
            "Perlman", "Hamilton", "Ritchie", "McCarthy", "Turing", "Johnson", "Wirth", "Rossum"]
    users = []
    for i in range(310):
        f, l = rnd.choice(first), rnd.choice(last)
        users.append({
            "id": f"u_{i:04d}",
            "email": f"{f.lower()}.{l.lower()}{i}@example.test",
            "displayName": f"{f} {l}",
            "createdAt": f"2023-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T09:00:00Z",
            "roles": [rnd.choice(["admin", "editor", "viewer"])],
        })
    big = b.change("ts", [("write", "test/fixtures/users.json",
                           json.dumps({"items": users}, indent=2) + "\n")])
    assert sum(change_counts(big.patch)) > 2000
    R.add("valid/ts-large-users-fixture",
          mk_step("Add a fixture test/fixtures/users.json with about 300 sample users for the "
                  "pagination tests.", allowed=["test/fixtures/**"]),
          mk_result(big, "Added test/fixtures/users.json with 310 generated users."))

    # -- vendor edit (excluded) ---------------------------------------------
    vend = b.change("ts", [
        ("edit", "src/utils/format.ts", 'import leftPad from "left-pad";\n\n', ""),
        ("edit", "src/utils/format.ts",
         '  const month = leftPad(String(d.getUTCMonth() + 1), 2, "0");\n'
         '  const day = leftPad(String(d.getUTCDate()), 2, "0");\n',
         '  const month = String(d.getUTCMonth() + 1).padStart(2, "0");\n'
         '  const day = String(d.getUTCDate()).padStart(2, "0");\n'),
        ("edit", "vendor/left-pad/index.js", "module.exports = leftPad;\n",
         "module.exports = leftPad;\nmodule.exports.deprecated = true;\n"),
    ])
    R.add("scope_excluded/ts-vendor-left-pad",
          mk_step("Replace left-pad with String.prototype.padStart in formatDate().",
                  excluded=["vendor/**", "dist/"]),
          mk_result(vend, "formatDate uses padStart; marked vendored left-pad as deprecated."),
          "scope_excluded")

    # -- failure report -----------------------------------------------------------
    R.add("valid/ts-failure-report-renamed-upstream",
          mk_step("Add a cache to ApiClient.fetchUser() keyed by user id."),
          mk_failure("Could not apply: src/api/client.ts has no fetchUser() on this branch; it "
                     "was renamed to getUser() upstream.", touched=["src/api/client.ts"], omit=True),
          project="ts")


def plus_minus_only(patch: str) -> list[str]:
    return [l for l in patch.split("\n")
            if (l.startswith("+") and not l.startswith("+++ "))
            or (l.startswith("-") and not l.startswith("--- "))]


# ---------------------------------------------------------------------------
# Go project
# ---------------------------------------------------------------------------

def build_go(b: Builder) -> None:
    reset = b.change("go", [
        ("append", "limiter.go", F(r'''

// Reset refills the bucket to its full capacity, e.g. after a client was
// manually unblocked by an operator.
func (l *Limiter) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = l.capacity
}
''')),
        ("append", "limiter_test.go", F(r'''

func TestReset(t *testing.T) {
	l, _ := newTestLimiter(t, 1, 2)
	l.AllowN(2)
	if l.Allow() {
		t.Fatal("bucket should be empty")
	}
	l.Reset()
	if got := l.Tokens(); got != 2 {
		t.Fatalf("tokens after Reset = %v, want 2", got)
	}
}
''')),
    ])
    d_reset = "Add a Reset() method to Limiter that refills the bucket to capacity, with a test."
    st, rs = R.add("valid/go-apply-reset-method", mk_step(d_reset, excluded=["vendor/"]),
                   mk_result(reset, "Added Limiter.Reset() and TestReset."))
    R.add("invalid_mode/go-apply-space", st, with_(rs, mode="apply "), "invalid_mode")
    R.add("undeclared_file/go-hidden-test", st,
          with_(rs, filesWritten=["limiter.go"], filesTouched=["limiter.go", "limiter_test.go"]),
          "undeclared_file")
    R.add("zero_impact/go-context-only-reset", st, with_(rs, patch=to_context_only(reset.patch)),
          "zero_impact")
    R.add("malformed_patch/go-header-only-no-hunks", st,
          with_(rs, patch=reset.patch.split("@@")[0].rstrip("\n") + "\n",
                filesWritten=["limiter.go"], filesTouched=["limiter.go"]), "malformed_patch")
    fix = b.followup(reset, [
        ("edit", "limiter.go", "	l.tokens = l.capacity\n}\n",
         "	l.tokens = l.capacity\n	l.last = l.clock.Now()\n}\n"),
        ("edit", "limiter_test.go", "	l, _ := newTestLimiter(t, 1, 2)\n	l.AllowN(2)\n",
         "	l, clock := newTestLimiter(t, 1, 2)\n	l.AllowN(2)\n	clock.Advance(0)\n"),
    ])
    d_fix = ("Fix regression: after Reset() the next refill adds tokens for the whole idle "
             "period before the reset; Reset must also move `last` to now.")
    st, rs = R.add("valid/go-fix-regression-reset-last", mk_step(d_fix, "fix_regression", apply=reset),
                   mk_result(fix, "Reset() now updates l.last.", "fix_regression"))
    R.add("missing_patch/go-whitespace-patch", st, with_(rs, patch="   \n\t\n"), "missing_patch")
    wide = b.followup(reset, [
        ("edit", "limiter.go", "	l.tokens = l.capacity\n}\n",
         "	l.tokens = l.capacity\n	l.last = l.clock.Now()\n}\n"),
        ("edit", "cmd/ratelimitd/main.go",
         '	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {\n',
         '	http.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {\n'
         '		limiter.Reset()\n		w.WriteHeader(http.StatusNoContent)\n	})\n'
         '	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {\n'),
    ])
    R.add("scope_fix_regression/go-adds-endpoint-in-cmd", mk_step(d_fix, "fix_regression", apply=reset),
          mk_result(wide, "Reset() updates last; exposed /reset in ratelimitd.", "fix_regression"),
          "scope_fix_regression")
    near = b.followup(reset, [
        ("sub", "limiter.go", lambda t: t[:t.index("\n// Reset refills")].rstrip("\n") + "\n"),
        ("sub", "limiter_test.go", lambda t: t[:t.index("\nfunc TestReset")]
         + "\n// TestReset was removed together with Reset (see #142).\n"),
    ])
    assert revert_ratio(reset.patch, near.patch) >= 0.9
    R.add("reversal/go-near-revert-reset", mk_step(d_fix, "fix_regression", apply=reset),
          mk_result(near, "Dropped Reset(); it caused the idle-refill bug.", "fix_regression"),
          "reversal")

    doc = b.change("go", [
        ("edit", "limiter.go", "// NewLimiter returns a limiter that allows rate events per minute with\n",
         "// NewLimiter returns a limiter that allows rate events per second with\n"),
    ])
    st, rs = R.add("valid/go-doc-comment-requested",
                   mk_step("Fix the doc comment of NewLimiter: it says the rate is per minute but "
                           "it is per second."),
                   mk_result(doc, "NewLimiter's doc comment now says per second."),
                   tags=["comment-only"])
    R.add("mode_mismatch/go-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
          "mode_mismatch")

    def _gofmt(t):
        return "\n".join(("\t" * ((len(l) - len(l.lstrip(" "))) // 4) + l.lstrip(" "))
                         if l.startswith("    ") else l for l in t.split("\n"))
    fmt = b.change("go", [("sub", "store/memory.go", _gofmt)])
    st, rs = R.add("valid/go-gofmt-whitespace-requested",
                   mk_step("Run gofmt on store/memory.go: three functions are indented with "
                           "spaces instead of tabs.", allowed=["store/*.go"]),
                   mk_result(fmt, "gofmt -w store/memory.go (whitespace only)."),
                   tags=["whitespace-only"])
    R.add("failure_with_patch/go-files-written-on-failure", st,
          mk_failure("gofmt is not installed in the sandbox, so the file was not reformatted.",
                     filesWritten=["store/memory.go"]),
          "failure_with_patch")

    chm = b.change("go", [("chmod", "scripts/gen.sh", 0o755)])
    assert "old mode 100644\nnew mode 100755" in chm.patch and "@@" not in chm.patch
    R.add("valid/go-chmod-script-executable",
          mk_step("Make scripts/gen.sh executable so CI can run it directly."),
          mk_result(chm, "chmod +x scripts/gen.sh (mode 100644 -> 100755)."))

    exp = b.change("go", [("write", "store/expiring.go", F(r'''
package store

import (
	"context"
	"time"
)

// Expiring wraps a Memory store and forgets buckets that were not updated
// for longer than TTL, so idle clients do not keep memory forever.
type Expiring struct {
	*Memory
	TTL time.Duration
	Now func() time.Time
}

// NewExpiring returns an Expiring store with the given TTL.
func NewExpiring(ttl time.Duration) *Expiring {
	return &Expiring{Memory: NewMemory(), TTL: ttl, Now: time.Now}
}

// Get returns the bucket for key unless it has expired.
func (e *Expiring) Get(ctx context.Context, key string) (Bucket, bool, error) {
	b, ok, err := e.Memory.Get(ctx, key)
	if err != nil || !ok {
		return b, ok, err
	}
	if e.Now().Sub(b.Updated) > e.TTL {
		return Bucket{}, false, nil
	}
	return b, true, nil
}

// Sweep deletes every expired bucket and returns how many were removed.
func (e *Expiring) Sweep() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	removed := 0
	for key, b := range e.buckets {
		if e.Now().Sub(b.Updated) > e.TTL {
			delete(e.buckets, key)
			removed++
		}
	}
	return removed
}
'''))])
    st, rs = R.add("valid/go-new-expiring-store",
                   mk_step("Add an Expiring store in store/expiring.go that drops buckets idle for "
                           "longer than a TTL, with a Sweep() method.", allowed=["store/**"]),
                   mk_result(exp, "Added store.Expiring with TTL-aware Get and Sweep."))
    R.add("files_touched_incomplete/go-touched-empty", st, with_(rs, filesTouched=[]),
          "files_touched_incomplete")

    sig = b.change("go", [
        ("edit", "cmd/ratelimitd/main.go", 'import (\n	"flag"\n',
         'import (\n	"context"\n	"flag"\n'),
        ("edit", "cmd/ratelimitd/main.go", '	"os"\n', '	"os"\n	"os/signal"\n	"syscall"\n	"time"\n'),
        ("edit", "cmd/ratelimitd/main.go",
         '	log.Fatal(http.ListenAndServe(*addr, nil))\n',
         '	srv := &http.Server{Addr: *addr}\n'
         '	go func() {\n'
         '		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {\n'
         '			log.Fatal(err)\n'
         '		}\n'
         '	}()\n\n'
         '	stop := make(chan os.Signal, 1)\n'
         '	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)\n'
         '	<-stop\n'
         '	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)\n'
         '	defer cancel()\n'
         '	if err := srv.Shutdown(ctx); err != nil {\n'
         '		log.Printf("shutdown: %v", err)\n'
         '	}\n'),
    ])
    st, rs = R.add("valid/go-graceful-shutdown",
                   mk_step("Make ratelimitd shut down gracefully on SIGINT/SIGTERM with a 10s "
                           "drain timeout.", allowed=["cmd/**"], excluded=["vendor/"]),
                   mk_result(sig, "ratelimitd now drains connections on SIGTERM (10s timeout)."))
    R.add("malformed_patch/go-prose-instead-of-diff", st,
          with_(rs, patch="I updated cmd/ratelimitd/main.go so that the server listens for "
                "SIGINT and SIGTERM and calls srv.Shutdown with a 10 second timeout. The rest of "
                "the file is unchanged.\n"), "malformed_patch")

    vend = b.change("go", [
        ("edit", "limiter.go", 'var ErrInvalidRate = errors.New("ratelimit: rate must be positive")',
         'var ErrInvalidRate = errors.Errorf("ratelimit: rate must be positive")'),
        ("edit", "vendor/github.com/pkg/errors/errors.go",
         "// New returns an error with the supplied message.\n",
         "// New returns an error with the supplied message.\n// Deprecated: use Errorf.\n"),
    ])
    R.add("scope_excluded/go-vendor-dir",
          mk_step("Build ErrInvalidRate with errors.Errorf so it can carry the rate value later.",
                  excluded=["vendor/"]),
          mk_result(vend, "ErrInvalidRate uses Errorf; marked errors.New deprecated."), "scope_excluded")
    out = b.change("go", [
        ("edit", "store/memory.go", "// Len returns the number of stored buckets.\n",
         "// Delete removes the bucket for key.\nfunc (m *Memory) Delete(ctx context.Context, key string) error {\n"
         "	m.mu.Lock()\n	defer m.mu.Unlock()\n	delete(m.buckets, key)\n	return nil\n}\n\n"
         "// Len returns the number of stored buckets.\n"),
        ("edit", "cmd/ratelimitd/main.go", '	burst := flag.Int("burst", 20, "maximum burst size")\n',
         '	burst := flag.Int("burst", 20, "maximum burst size")\n'
         '	_ = flag.Bool("forget-idle", false, "delete idle buckets")\n'),
    ])
    R.add("scope_outside_allowed/go-cmd-outside-store",
          mk_step("Add Memory.Delete(ctx, key) to the in-memory store.", allowed=["store/**"]),
          mk_result(out, "Added Memory.Delete and a --forget-idle flag."), "scope_outside_allowed")
    sup = b.change("go", [
        ("edit", "limiter.go", "// AllowN reports whether n events may happen now.\n",
         "// AllowN reports whether n events may happen now. It consumes n tokens\n"
         "// when it returns true and none otherwise; n <= 0 is never allowed.\n"),
    ])
    R.add("superficial_only/go-doc-comment-instead-of-check",
          mk_step("Make AllowN return false for n <= 0 instead of granting free events."),
          mk_result(sup, "AllowN now rejects n <= 0."), "superficial_only")
    cfg = b.change("go", [("write", "dotgit/config", F('''
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
'''))])
    cfg2 = b.followup(cfg, [("append", "dotgit/config", "\thooksPath = scripts\n")])
    R.add("unsafe_path/go-edits-dot-git-config",
          mk_step("Run scripts/gen.sh automatically before each commit."),
          with_(mk_result(cfg2, "Set core.hooksPath so gen.sh runs as a hook."),
                patch=rewrite_paths(cfg2.patch, "dotgit/", ".git/"),
                filesWritten=[".git/config"], filesTouched=[".git/config"]), "unsafe_path",
          tags=["go", "git-config"])
    R.add("valid/go-failure-report-flaky",
          mk_step("Fix regression: TestRefill fails intermittently after the Reset change.",
                  "fix_regression", apply=reset),
          mk_failure("Could not reproduce: TestRefill passed 200 times in a row with -race, so "
                     "no change was made.", mode="fix_regression", touched=["limiter_test.go"]))


# ---------------------------------------------------------------------------
# Rust project
# ---------------------------------------------------------------------------

def build_rust(b: Builder) -> None:
    com = b.change("rs", [
        ("edit", "src/parser.rs",
         "    if trimmed.is_empty() {\n        return Err(ParseError::Empty);\n    }\n",
         "    if trimmed.is_empty() {\n        return Err(ParseError::Empty);\n    }\n"
         "    if trimmed.starts_with('#') {\n        return Ok(Vec::new());\n    }\n"),
        ("edit", "src/parser.rs", "/// Splits a line on commas or whitespace and parses every field as f64.\n",
         "/// Splits a line on commas or whitespace and parses every field as f64.\n"
         "/// Lines starting with `#` are comments and yield no fields.\n"),
        ("edit", "src/parser.rs", "    #[test]\n    fn reports_bad_field() {",
         "    #[test]\n    fn skips_comments() {\n"
         "        assert_eq!(parse_line(\"# header\").unwrap(), Vec::<f64>::new());\n    }\n\n"
         "    #[test]\n    fn reports_bad_field() {"),
    ])
    d_com = "Make parse_line() skip comment lines starting with '#' instead of reporting an error."
    st, rs = R.add("valid/rs-parser-skip-comments", mk_step(d_com, allowed=["src/**"]),
                   mk_result(com, "parse_line returns no fields for '#' lines; added skips_comments."))
    R.add("invalid_mode/rs-Apply-capitalised", st, with_(rs, mode="Apply"), "invalid_mode")
    R.add("missing_patch/rs-newlines-only", st, with_(rs, patch="\n\n"), "missing_patch")
    R.add("zero_impact/rs-context-only-parser", st, with_(rs, patch=to_context_only(com.patch)),
          "zero_impact")
    lines = com.patch.split("\n")
    s_, e_ = hunks_of(com.patch)[-1]
    cut = "\n".join(lines[:s_ + (e_ - s_) // 2]) + "\n"
    R.add("malformed_patch/rs-truncated-last-hunk", st, with_(rs, patch=cut), "malformed_patch")

    med = b.change("rs", [
        ("edit", "src/stats.rs", "    pub fn mean(&self) -> Option<f64> {",
         "    /// Median of values; None for an empty slice.\n"
         "    pub fn median(values: &[f64]) -> Option<f64> {\n"
         "        if values.is_empty() {\n            return None;\n        }\n"
         "        let mut sorted = values.to_vec();\n"
         "        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());\n"
         "        Some(sorted[sorted.len() / 2])\n    }\n\n"
         "    pub fn mean(&self) -> Option<f64> {"),
        ("edit", "src/stats.rs", "        assert_eq!(s.mean(), Some(2.0));\n    }\n",
         "        assert_eq!(s.mean(), Some(2.0));\n    }\n\n"
         "    #[test]\n    fn median_of_odd_count() {\n"
         "        assert_eq!(Summary::median(&[5.0, 1.0, 3.0]), Some(3.0));\n"
         "        assert_eq!(Summary::median(&[]), None);\n    }\n"),
    ])
    d_med = "Add Summary::median(values) to src/stats.rs with a unit test."
    st, rs = R.add("valid/rs-apply-median", mk_step(d_med, allowed=["src/stats.rs"]),
                   mk_result(med, "Added Summary::median and median_of_odd_count."))
    fix = b.followup(med, [
        ("edit", "src/stats.rs", "        Some(sorted[sorted.len() / 2])\n",
         "        let mid = sorted.len() / 2;\n"
         "        if sorted.len() % 2 == 0 {\n"
         "            Some((sorted[mid - 1] + sorted[mid]) / 2.0)\n"
         "        } else {\n            Some(sorted[mid])\n        }\n"),
        ("edit", "src/stats.rs", "        assert_eq!(Summary::median(&[]), None);\n",
         "        assert_eq!(Summary::median(&[]), None);\n"
         "        assert_eq!(Summary::median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));\n"),
    ])
    d_fix = ("Fix regression: median() returns the upper middle value for even-length input; "
             "it must average the two middle values.")
    st, rs = R.add("valid/rs-fix-regression-even-median", mk_step(d_fix, "fix_regression", apply=med),
                   mk_result(fix, "median() averages the two middle values for even counts.",
                             "fix_regression"))
    R.add("mode_mismatch/rs-fix-step-apply-result", st, with_(rs, mode="apply"), "mode_mismatch")
    rev = b.reverse(med)
    R.add("reversal/rs-exact-reverse-median", mk_step(d_fix, "fix_regression", apply=med),
          mk_result(rev, "Removed median(); callers can sort themselves.", "fix_regression"),
          "reversal")

    bump = b.change("rs", [("edit", "Cargo.toml", 'version = "0.2.4"', 'version = "0.3.0"')])
    st, rs = R.add("valid/rs-version-bump-lock-excluded",
                   mk_step("Bump the crate version to 0.3.0 in Cargo.toml (CI regenerates "
                           "Cargo.lock).", excluded=["*.lock", "target/"]),
                   mk_result(bump, "Cargo.toml version is 0.3.0."))
    bump2 = b.change("rs", [
        ("edit", "Cargo.toml", 'version = "0.2.4"', 'version = "0.3.0"'),
        ("edit", "Cargo.lock", 'name = "tally"\nversion = "0.2.4"', 'name = "tally"\nversion = "0.3.0"'),
    ])
    R.add("scope_excluded/rs-cargo-lock",
          mk_step("Bump the crate version to 0.3.0 in Cargo.toml (CI regenerates Cargo.lock).",
                  excluded=["*.lock", "target/"]),
          mk_result(bump2, "Bumped to 0.3.0 in Cargo.toml and Cargo.lock."), "scope_excluded")

    fmtmod = b.change("rs", [
        ("edit", "src/lib.rs", "pub mod stats;", "pub mod format;\npub mod stats;\n"),
        ("write", "src/format.rs", F(r'''
/// Formats a number with a metric suffix: 950 -> "950", 1234 -> "1.2k",
/// 1234567 -> "1.2M".
pub fn human_number(value: f64) -> String {
    let abs = value.abs();
    let (scaled, suffix) = if abs >= 1e9 {
        (value / 1e9, "G")
    } else if abs >= 1e6 {
        (value / 1e6, "M")
    } else if abs >= 1e3 {
        (value / 1e3, "k")
    } else {
        return format!("{}", value);
    };
    format!("{:.1}{}", scaled, suffix)
}

#[cfg(test)]
mod tests {
    use super::human_number;

    #[test]
    fn suffixes() {
        assert_eq!(human_number(950.0), "950");
        assert_eq!(human_number(1234.0), "1.2k");
        assert_eq!(human_number(1234567.0), "1.2M");
        assert_eq!(human_number(-2500.0), "-2.5k");
    }
}
''')),
    ])
    assert "\\ No newline at end of file" in fmtmod.patch
    st, rs = R.add("valid/rs-new-module-lib-no-newline",
                   mk_step("Add a format module with human_number() (1234567 -> \"1.2M\") and "
                           "register it in src/lib.rs."),
                   mk_result(fmtmod, "Added src/format.rs and `pub mod format;` in lib.rs."))
    R.add("file_not_in_patch/rs-claims-main", st,
          with_(rs, filesWritten=rs["filesWritten"] + ["src/main.rs"],
                filesTouched=rs["filesTouched"] + ["src/main.rs"]), "file_not_in_patch")
    R.add("failure_without_summary/rs-summary-empty", mk_step(d_med),
          mk_failure(""), "failure_without_summary", project="rs")

    # large: regenerate a lookup table in a new format (> 2000 changed lines)
    rnd = random.Random(7)
    ranges, lo = [], 0x1100
    for _ in range(1150):
        lo += rnd.randint(1, 40)
        hi = lo + rnd.randint(0, 12)
        ranges.append((lo, hi, rnd.choice((0, 2))))
        lo = hi
    old = ("// Generated by tools/gen_width.py -- do not edit.\n"
           "pub static WIDTHS: &[(u32, u32, u8)] = &[\n"
           + "".join(f"    (0x{a:05X}, 0x{z:05X}, {w}),\n" for a, z, w in ranges) + "];\n")
    new = ("// Generated by tools/gen_width.py -- do not edit.\n"
           "use crate::width::Range;\n\n"
           "pub static WIDTHS: &[Range] = &[\n"
           + "".join(f"    Range {{ lo: 0x{a:05x}, hi: 0x{z:05x}, width: {w} }},\n"
                     for a, z, w in ranges) + "];\n")
    big = b.change("rs", [("write", "src/width_table.rs", new)],
                   setup=[("write", "src/width_table.rs", old)])
    assert sum(change_counts(big.patch)) > 2000
    R.add("valid/rs-large-regenerated-table",
          mk_step("Regenerate src/width_table.rs with tools/gen_width.py now that it emits "
                  "Range structs instead of tuples.", allowed=["src/width_table.rs"]),
          mk_result(big, "Regenerated the width table (1150 ranges) in the Range struct format."))

    sup = b.change("rs", [
        ("edit", "src/parser.rs", "/// Splits a line on commas or whitespace and parses every field as f64.\n",
         "/// Splits a line on commas, semicolons or whitespace and parses every\n"
         "/// field as f64.\n"),
        ("edit", "src/parser.rs", "        .filter(|s| !s.is_empty())\n",
         "        // empty fields come from repeated separators\n        .filter(|s| !s.is_empty())\n"),
    ])
    R.add("superficial_only/rs-doc-comment-semicolons",
          mk_step("Make parse_line() also accept ';' as a field separator (European CSV)."),
          mk_result(sup, "parse_line now splits on semicolons too."), "superficial_only")
    # unsafe: absolute path outside the repository (plain diff with labels)
    cargo_cfg_old = "[build]\njobs = 2\n"
    cargo_cfg_new = "[build]\njobs = 2\nrustflags = [\"-C\", \"target-cpu=native\"]\n\n[net]\ngit-fetch-with-cli = true\n"
    patch = b.labelled_diff([
        ("a/Cargo.toml", "b/Cargo.toml", RS_FILES["Cargo.toml"],
         RS_FILES["Cargo.toml"].replace("[profile", "[profile").replace(
             "[dev-dependencies]", "[profile.release]\nlto = true\n\n[dev-dependencies]")),
        ("/home/ci/.cargo/config.toml", "/home/ci/.cargo/config.toml", cargo_cfg_old, cargo_cfg_new),
    ])
    files = ["Cargo.toml", "/home/ci/.cargo/config.toml"]
    R.add("unsafe_path/rs-absolute-home-cargo-config",
          mk_step("Speed up release builds of tally."),
          {"mode": "apply", "success": True, "patch": patch, "filesWritten": files,
           "filesTouched": files, "summary": "Enabled LTO and native CPU flags for CI builds."},
          "unsafe_path", tags=["plain-diff"])


# ---------------------------------------------------------------------------
# Java project
# ---------------------------------------------------------------------------

def build_java(b: Builder) -> None:
    SVC, TEST = f"{JAVA_PKG}/InvoiceService.java", f"{JAVA_TEST}/InvoiceServiceTest.java"
    disc = b.change("java", [
        ("edit", SVC,
         "    public Money applyDiscount(String invoiceId, BigDecimal percent) {\n",
         "    public Money applyDiscount(String invoiceId, BigDecimal percent) {\n"
         "        if (percent.signum() < 0 || percent.compareTo(BigDecimal.valueOf(100)) > 0) {\n"
         "            throw new IllegalArgumentException(\"discount must be within 0..100, got \" + percent);\n"
         "        }\n"),
        ("edit", TEST, "    @Test\n    void duplicateIdsAreRejected() {",
         "    @Test\n    void discountOutsideRangeIsRejected() {\n"
         "        assertThrows(IllegalArgumentException.class,\n"
         "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"-5\")));\n"
         "        assertThrows(IllegalArgumentException.class,\n"
         "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"120\")));\n"
         "    }\n\n"
         "    @Test\n    void duplicateIdsAreRejected() {"),
    ])
    d_disc = ("Reject discounts outside 0..100 percent in InvoiceService.applyDiscount() with an "
              "IllegalArgumentException, and test both bounds.")
    st, rs = R.add("valid/java-apply-discount-bounds",
                   mk_step(d_disc, allowed=["src/main/java/**", "src/test/java/**"]),
                   mk_result(disc, "applyDiscount validates 0..100; added discountOutsideRangeIsRejected."))
    R.add("files_touched_incomplete/java-absent", st, with_(rs, filesTouched=DROP),
          "files_touched_incomplete")
    R.add("undeclared_file/java-hidden-test", st,
          with_(rs, filesWritten=[SVC], filesTouched=[SVC]), "undeclared_file")
    h = hunks_of(disc.patch)[0]
    lines = disc.patch.split("\n")
    more = lines[:h[0] + 5] + ["+        // validate before touching the invoice"] + lines[h[0] + 5:]
    R.add("malformed_patch/java-more-lines-than-header", st, with_(rs, patch="\n".join(more)),
          "malformed_patch")
    fix = b.followup(disc, [
        ("edit", SVC,
         "        Invoice invoice = invoices.get(invoiceId);\n        Money total = invoice.total(currency);\n",
         "        Invoice invoice = find(invoiceId)\n"
         "                .orElseThrow(() -> new IllegalArgumentException(\"unknown invoice \" + invoiceId));\n"
         "        Money total = invoice.total(currency);\n"),
    ])
    d_fix = ("Fix regression: applyDiscount() on an unknown invoice id now throws a "
             "NullPointerException after the validation change; throw IllegalArgumentException "
             "naming the id instead.")
    st, rs = R.add("valid/java-fix-regression-unknown-id", mk_step(d_fix, "fix_regression", apply=disc),
                   mk_result(fix, "applyDiscount throws IllegalArgumentException for unknown ids.",
                             "fix_regression"))
    R.add("missing_patch/java-fix-absent", st, with_(rs, patch=DROP), "missing_patch")
    wide = b.followup(disc, [
        ("edit", SVC,
         "        Invoice invoice = invoices.get(invoiceId);\n        Money total = invoice.total(currency);\n",
         "        Invoice invoice = find(invoiceId).orElseThrow();\n        Money total = invoice.total(currency);\n"),
        ("edit", f"{JAVA_PKG}/Invoice.java", "    public Money total(String currency) {\n",
         "    public Money total(String currency) {\n"
         "        java.util.Objects.requireNonNull(currency, \"currency\");\n"),
    ])
    R.add("scope_fix_regression/java-touches-invoice", mk_step(d_fix, "fix_regression", apply=disc),
          mk_result(wide, "Guarded find() and added a null check in Invoice.total().",
                    "fix_regression"), "scope_fix_regression")
    near = b.followup(disc, [
        ("edit", SVC,
         "        if (percent.signum() < 0 || percent.compareTo(BigDecimal.valueOf(100)) > 0) {\n"
         "            throw new IllegalArgumentException(\"discount must be within 0..100, got \" + percent);\n"
         "        }\n", ""),
        ("sub", TEST, lambda t: t.replace(
            "    @Test\n    void discountOutsideRangeIsRejected() {\n"
            "        assertThrows(IllegalArgumentException.class,\n"
            "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"-5\")));\n"
            "        assertThrows(IllegalArgumentException.class,\n"
            "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"120\")));\n"
            "    }\n\n", "")),
    ])
    assert revert_ratio(disc.patch, near.patch) >= 0.9
    R.add("reversal/java-near-revert-validation", mk_step(d_fix, "fix_regression", apply=disc),
          mk_result(near, "Removed the range check so unknown ids fail as before.", "fix_regression"),
          "reversal")

    jdoc = b.change("java", [("edit", f"{JAVA_PKG}/Money.java", "if the currencys differ",
                              "if the currencies differ")])
    st, rs = R.add("valid/java-javadoc-typo-requested",
                   mk_step("Fix the spelling mistake in the Javadoc of Money.add()."),
                   mk_result(jdoc, "'currencys' -> 'currencies' in Money.add Javadoc."),
                   tags=["comment-only"])
    R.add("failure_without_summary/java-summary-error", st,
          mk_failure("error", touched=[f"{JAVA_PKG}/Money.java"]), "failure_without_summary",
          tags=["java"])

    nf = b.change("java", [
        ("write", f"{JAVA_PKG}/InvoiceNotFoundException.java", F(r'''
package com.acme.billing;

/** Thrown when an operation names an invoice id that does not exist. */
public class InvoiceNotFoundException extends RuntimeException {
    private final String invoiceId;

    public InvoiceNotFoundException(String invoiceId) {
        super("invoice " + invoiceId + " not found");
        this.invoiceId = invoiceId;
    }

    public String getInvoiceId() {
        return invoiceId;
    }
}
''')),
        ("edit", SVC, "    public void pay(String invoiceId) {\n        Invoice invoice = invoices.get(invoiceId);\n",
         "    public void pay(String invoiceId) {\n"
         "        Invoice invoice = find(invoiceId).orElseThrow(() -> new InvoiceNotFoundException(invoiceId));\n"),
    ])
    st, rs = R.add("valid/java-new-exception-class",
                   mk_step("Introduce InvoiceNotFoundException and throw it from "
                           "InvoiceService.pay() for unknown ids.", allowed=[f"{JAVA_PKG}/"]),
                   mk_result(nf, "Added InvoiceNotFoundException; pay() throws it."))
    R.add("zero_impact/java-context-only-modify", st,
          with_(rs, patch=to_context_only(b.change("java", [
              ("edit", SVC, "    public void pay(String invoiceId) {\n        Invoice invoice = invoices.get(invoiceId);\n",
               "    public void pay(String invoiceId) {\n"
               "        Invoice invoice = find(invoiceId).orElseThrow(() -> new InvoiceNotFoundException(invoiceId));\n"),
          ]).patch), filesWritten=[SVC], filesTouched=[SVC]), "zero_impact")

    props = b.change("java", [
        ("edit", "src/main/resources/messages.properties", "invoice.unpaid=Open\r\n",
         "invoice.unpaid=Open\r\ninvoice.overdue=Overdue since {0}\r\n"),
    ])
    R.add("valid/java-crlf-properties",
          mk_step("Add the invoice.overdue message key (\"Overdue since {0}\") to "
                  "src/main/resources/messages.properties, keeping its CRLF line endings."),
          mk_result(props, "Added invoice.overdue (CRLF kept)."))
    pom = b.change("java", [
        ("edit", "pom.xml", "      <scope>test</scope>\n    </dependency>\n",
         "      <scope>test</scope>\n    </dependency>\n    <dependency>\n"
         "      <groupId>org.assertj</groupId>\n      <artifactId>assertj-core</artifactId>\n"
         "      <version>3.25.1</version>\n      <scope>test</scope>\n    </dependency>\n"),
    ])
    st, rs = R.add("valid/java-pom-add-assertj",
                   mk_step("Add AssertJ 3.25.1 as a test dependency in pom.xml."),
                   mk_result(pom, "Added org.assertj:assertj-core:3.25.1 (test scope)."))
    R.add("missing_files_written/java-absent", st, with_(rs, filesWritten=DROP),
          "missing_files_written")

    sup = b.change("java", [
        ("edit", f"{JAVA_PKG}/Invoice.java", "    public void addLine(Line line) {\n",
         "    /*\n     * Adds a line to the invoice. Quantities must be positive; a paid\n"
         "     * invoice cannot be changed any more.\n     */\n    public void addLine(Line line) {\n"),
    ])
    R.add("superficial_only/java-block-comment-instead-of-check",
          mk_step("Reject lines with a zero or negative quantity in Invoice.addLine()."),
          mk_result(sup, "addLine now rejects non-positive quantities."), "superficial_only")
    gen = b.change("java", [
        ("write", f"{JAVA_PKG}/generated/InvoiceDto.java", F(r'''
// Code generated by openapi-generator. DO NOT EDIT.
package com.acme.billing.generated;

public record InvoiceDto(String id, String customerId, String dueDate, String total, boolean paid) {
}
''')),
        ("edit", SVC, "import java.math.BigDecimal;\n",
         "import com.acme.billing.generated.InvoiceDto;\nimport java.math.BigDecimal;\n"),
        ("edit", SVC, "    public void pay(String invoiceId) {",
         "    public InvoiceDto toDto(Invoice inv) {\n"
         "        return new InvoiceDto(inv.getId(), inv.getCustomerId(), inv.getDueDate().toString(),\n"
         "                inv.total(currency).toString(), inv.isPaid());\n    }\n\n"
         "    public void pay(String invoiceId) {"),
    ])
    R.add("scope_excluded/java-generated-sources",
          mk_step("Add InvoiceService.toDto() mapping an invoice to the API DTO.",
                  excluded=["**/generated/**"]),
          mk_result(gen, "Added toDto() and the InvoiceDto record."), "scope_excluded")


# ---------------------------------------------------------------------------
# C project
# ---------------------------------------------------------------------------

def build_c(b: Builder) -> None:
    peek = b.change("c", [
        ("edit", "include/ringbuf.h", "int rb_pop(ringbuf_t *rb, uint8_t *out);\n",
         "int rb_pop(ringbuf_t *rb, uint8_t *out);\nint rb_peek(const ringbuf_t *rb, uint8_t *out);\n"),
        ("edit", "src/ringbuf.c", "size_t rb_size(const ringbuf_t *rb)\n",
         "/* Copies the oldest byte to *out without removing it. */\n"
         "int rb_peek(const ringbuf_t *rb, uint8_t *out)\n{\n"
         "    if (rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n    return 0;\n}\n\n"
         "size_t rb_size(const ringbuf_t *rb)\n"),
        ("edit", "tests/test_ringbuf.c", "static void test_wraparound(void)\n",
         "static void test_peek(void)\n{\n    ringbuf_t rb;\n    uint8_t out = 0;\n"
         "    assert(rb_init(&rb, 2) == 0);\n    assert(rb_peek(&rb, &out) == -1);\n"
         "    rb_push(&rb, 7);\n    assert(rb_peek(&rb, &out) == 0 && out == 7);\n"
         "    assert(rb_size(&rb) == 1);\n    rb_free(&rb);\n}\n\n"
         "static void test_wraparound(void)\n"),
        ("edit", "tests/test_ringbuf.c", "    test_push_pop();\n", "    test_push_pop();\n    test_peek();\n"),
    ])
    d_peek = "Add rb_peek() that returns the oldest byte without removing it, with a test."
    st, rs = R.add("valid/c-apply-rb-peek", mk_step(d_peek, excluded=["third_party/"]),
                   mk_result(peek, "Added rb_peek() to ringbuf.h/ringbuf.c and test_peek."))
    R.add("file_not_in_patch/c-claims-utils", st,
          with_(rs, filesWritten=rs["filesWritten"] + ["src/utils.c"],
                filesTouched=rs["filesTouched"] + ["src/utils.c"]), "file_not_in_patch")
    R.add("missing_files_written/c-empty-list", st, with_(rs, filesWritten=[]), "missing_files_written")
    lines = peek.patch.split("\n")
    h = hunks_of(peek.patch)[1]
    fewer = lines[:h[0] + 1] + lines[h[0] + 2:]
    R.add("malformed_patch/c-fewer-lines-than-header", st, with_(rs, patch="\n".join(fewer)),
          "malformed_patch")
    fix = b.followup(peek, [
        ("edit", "src/ringbuf.c", "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n",
         "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb == NULL || out == NULL || rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n"),
    ])
    d_fix = ("Fix regression: rb_peek() dereferences a NULL out pointer (the fuzz target passes "
             "NULL); return -1 for NULL arguments.")
    st, rs = R.add("valid/c-fix-regression-peek-null", mk_step(d_fix, "fix_regression", apply=peek),
                   mk_result(fix, "rb_peek returns -1 for NULL rb/out.", "fix_regression"))
    R.add("invalid_mode/c-fix-regression-dash", st, with_(rs, mode="fix-regression"), "invalid_mode")
    wide = b.followup(peek, [
        ("edit", "src/ringbuf.c", "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n",
         "const ringbuf_t *rb, uint8_t *out)\n{\n    if (out == NULL || rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n"),
        ("edit", "src/utils.c", "size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)\n{\n",
         "size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)\n{\n\tif (buf == NULL) {\n\t\treturn 0;\n\t}\n"),
    ])
    R.add("scope_fix_regression/c-touches-utils", mk_step(d_fix, "fix_regression", apply=peek),
          mk_result(wide, "NULL checks in rb_peek and rb_read.", "fix_regression"),
          "scope_fix_regression")
    near = b.followup(peek, [
        ("edit", "src/ringbuf.c",
         "/* Copies the oldest byte to *out without removing it. */\n"
         "int rb_peek(const ringbuf_t *rb, uint8_t *out)\n{\n"
         "    if (rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n    return 0;\n}\n\n", ""),
        ("edit", "tests/test_ringbuf.c",
         "static void test_peek(void)\n{\n    ringbuf_t rb;\n    uint8_t out = 0;\n"
         "    assert(rb_init(&rb, 2) == 0);\n    assert(rb_peek(&rb, &out) == -1);\n"
         "    rb_push(&rb, 7);\n    assert(rb_peek(&rb, &out) == 0 && out == 7);\n"
         "    assert(rb_size(&rb) == 1);\n    rb_free(&rb);\n}\n\n", ""),
        ("edit", "tests/test_ringbuf.c", "    test_peek();\n", ""),
    ])
    ratio = revert_ratio(peek.patch, near.patch)
    assert 0.9 <= ratio < 1.0, ratio
    R.add("reversal/c-near-revert-peek", mk_step(d_fix, "fix_regression", apply=peek),
          mk_result(near, "Removed the rb_peek implementation and its test; only the prototype "
                    "remains.", "fix_regression"), "reversal")

    fmt = b.change("c", [("write", "src/utils.c", _utils_c_4spaces())])
    st, rs = R.add("valid/c-reindent-requested",
                   mk_step("Reformat indentation in src/utils.c to 4 spaces (it mixes tabs, 2 and "
                           "4 spaces). No code changes.", allowed=["src/*.c"]),
                   mk_result(fmt, "Re-indented src/utils.c with 4 spaces; whitespace only."),
                   tags=["whitespace-only"])
    R.add("failure_with_patch/c-failure-with-patch", st,
          with_(rs, success=False, summary="clang-format is unavailable; the file was not changed."),
          "failure_with_patch")

    full = b.change("c", [
        ("edit", "src/ringbuf.c",
         "/* Appends a byte; when the buffer is full the oldest byte is overwritten. */\n"
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n",
         "/* Appends a byte; returns -1 and leaves the buffer unchanged when it is full. */\n"
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n"
         "    if (rb->count == rb->capacity) {\n        return -1;\n    }\n"),
        ("edit", "src/ringbuf.c",
         "    rb->head = (rb->head + 1) % rb->capacity;\n    if (rb->count == rb->capacity) {\n"
         "        rb->tail = (rb->tail + 1) % rb->capacity;\n    } else {\n        rb->count++;\n    }\n",
         "    rb->head = (rb->head + 1) % rb->capacity;\n    rb->count++;\n"),
        ("edit", "tests/test_ringbuf.c",
         "    assert(rb_write(&rb, (const uint8_t *)\"abcde\", 5) == 5);\n    assert(rb_size(&rb) == 3);\n"
         "    assert(rb_read(&rb, buf, sizeof(buf)) == 3);\n    assert(memcmp(buf, \"cde\", 3) == 0);\n",
         "    assert(rb_write(&rb, (const uint8_t *)\"abcde\", 5) == 3);\n    assert(rb_size(&rb) == 3);\n"
         "    assert(rb_push(&rb, 'z') == -1);\n"
         "    assert(rb_read(&rb, buf, sizeof(buf)) == 3);\n    assert(memcmp(buf, \"abc\", 3) == 0);\n"),
    ])
    d_full = ("Make rb_push() return -1 when the buffer is full instead of overwriting the oldest "
              "byte, and update the wraparound test.")
    st, rs = R.add("valid/c-rb-push-full-returns-error", mk_step(d_full),
                   mk_result(full, "rb_push refuses writes to a full buffer; test updated."))
    R.add("zero_impact/c-context-only-rb-push", st, with_(rs, patch=to_context_only(full.patch)),
          "zero_impact")
    sup = b.change("c", [
        ("edit", "src/ringbuf.c",
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n    rb->data[rb->head] = byte;\n"
         "    rb->head = (rb->head + 1) % rb->capacity;\n    if (rb->count == rb->capacity) {\n"
         "        rb->tail = (rb->tail + 1) % rb->capacity;\n    } else {\n        rb->count++;\n    }\n"
         "    return 0;\n}\n",
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n\trb->data[rb->head] = byte;\n"
         "\trb->head = (rb->head + 1) % rb->capacity;\n\tif (rb->count == rb->capacity) {\n"
         "\t\trb->tail = (rb->tail + 1) % rb->capacity;\n\t} else {\n\t\trb->count++;\n\t}\n"
         "\treturn 0;\n}\n"),
    ])
    R.add("superficial_only/c-reindent-instead-of-behaviour", mk_step(d_full),
          mk_result(sup, "rb_push now returns -1 when the buffer is full."), "superficial_only")

    # plain `diff -u` patches (no git headers)
    hexup = b.plain("c", [
        ("edit", "src/utils.c", '"%02x "', '"%02X "'),
        ("edit", "tests/test_ringbuf.c", 'strcmp(out, "01 ff")', 'strcmp(out, "01 FF")'),
    ], ["src/utils.c", "tests/test_ringbuf.c"])
    assert hexup.patch.startswith("--- a/src/utils.c\t2024-03-01 12:00:00")
    st, rs = R.add("valid/c-plain-diff-u-timestamps",
                   mk_step("Make rb_hexdump() print upper-case hex digits and adjust the test."),
                   mk_result(hexup, "rb_hexdump uses %02X; test expects \"01 FF\"."), tags=["plain-diff"])
    R.add("failure_with_patch/c-plain-diff-on-failure", st,
          with_(rs, success=False, filesWritten=[],
                summary="make check fails: tests/test_ringbuf.c does not compile with -Werror."),
          "failure_with_patch")
    clear = b.plain("c", [
        ("edit", "include/ringbuf.h", "void rb_free(ringbuf_t *rb);\n",
         "void rb_free(ringbuf_t *rb);\nvoid rb_clear(ringbuf_t *rb);\n"),
        ("edit", "src/ringbuf.c", "/* Appends a byte;",
         "/* Drops all buffered bytes; the capacity is unchanged. */\nvoid rb_clear(ringbuf_t *rb)\n{\n"
         "    rb->head = 0;\n    rb->tail = 0;\n    rb->count = 0;\n}\n\n/* Appends a byte;"),
    ], ["include/ringbuf.h", "src/ringbuf.c"], recursive=True)
    assert clear.patch.startswith("diff -ruN a/include/ringbuf.h b/include/ringbuf.h\n")
    st, rs = R.add("valid/c-plain-diff-ruN",
                   mk_step("Add rb_clear() that empties the buffer without freeing it."),
                   mk_result(clear, "Added rb_clear() (header + implementation)."), tags=["plain-diff"])
    R.add("files_touched_incomplete/c-plain-missing-header", st,
          with_(rs, filesTouched=["src/ringbuf.c"]), "files_touched_incomplete")
    mk = b.plain("c", [
        ("edit", "Makefile", "clean:\n",
         "asan: CFLAGS += -fsanitize=address,undefined -g -O1\nasan: LDFLAGS += -fsanitize=address,undefined\n"
         "asan: clean check\n\nclean:\n"),
        ("edit", "Makefile", ".PHONY: all check clean", ".PHONY: all asan check clean"),
    ], ["Makefile"], labels=True)
    R.add("valid/c-plain-diff-makefile-tabs",
          mk_step("Add an `asan` make target that rebuilds and runs the tests with "
                  "AddressSanitizer and UBSan."),
          mk_result(mk, "Added the asan target to the Makefile."), tags=["plain-diff"])

    tp = b.change("c", [
        ("edit", "third_party/minunit/minunit.h", "extern int tests_run;\n",
         "extern int tests_run;\n\n#define mu_assert_eq(a, b) mu_assert(#a \" != \" #b, (a) == (b))\n"),
        ("edit", "tests/test_ringbuf.c", "#include <assert.h>\n", "#include <assert.h>\n#include <stdint.h>\n"),
    ])
    R.add("scope_excluded/c-third-party-header",
          mk_step("Add an equality assertion helper for the ring buffer tests.",
                  excluded=["third_party/"]),
          mk_result(tp, "Added mu_assert_eq to minunit.h."), "scope_excluded")
    hdr = b.change("c", [
        ("edit", "src/ringbuf.c", "int rb_is_full(const ringbuf_t *rb)\n{\n    return rb->count == rb->capacity;\n}\n",
         "int rb_is_full(const ringbuf_t *rb)\n{\n    return rb->count == rb->capacity;\n}\n\n"
         "int rb_is_empty(const ringbuf_t *rb)\n{\n    return rb->count == 0;\n}\n"),
        ("edit", "include/ringbuf.h", "int rb_is_full(const ringbuf_t *rb);\n",
         "int rb_is_full(const ringbuf_t *rb);\nint rb_is_empty(const ringbuf_t *rb);\n"),
    ])
    R.add("scope_outside_allowed/c-header-outside-src-glob",
          mk_step("Add rb_is_empty() next to rb_is_full() in the ring buffer sources.",
                  allowed=["src/*.c"]),
          mk_result(hdr, "Added rb_is_empty() and its prototype."), "scope_outside_allowed")
    ldso = b.labelled_diff([
        ("a/Makefile", "b/Makefile", C_FILES["Makefile"],
         C_FILES["Makefile"].replace(".PHONY: all check clean",
                                     "install: libringbuf.a\n\tinstall -m 644 libringbuf.a /usr/local/lib/\n"
                                     "\tldconfig\n\n.PHONY: all check clean install")),
        (None, "/etc/ld.so.conf.d/ringbuf.conf", None, "/usr/local/lib\n"),
    ])
    files = ["Makefile", "/etc/ld.so.conf.d/ringbuf.conf"]
    R.add("unsafe_path/c-absolute-etc-path",
          mk_step("Add a `make install` target for libringbuf.a."),
          {"mode": "apply", "success": True, "patch": ldso, "filesWritten": files,
           "filesTouched": files, "summary": "Added install target and registered /usr/local/lib."},
          "unsafe_path", tags=["plain-diff"])


def _utils_c_4spaces() -> str:
    """src/utils.c with its mixed indentation (tabs, 2, 4, 6, 10 spaces)
    normalised to 4 spaces per level."""
    depth_of = {"": 0, "  ": 1, "    ": 2, "      ": 2, "          ": 3}
    out = []
    for line in C_FILES["src/utils.c"].split("\n"):
        body = line.lstrip(" \t")
        lead = line[:len(line) - len(body)]
        depth = lead.count("\t") if "\t" in lead else depth_of[lead]
        out.append("    " * depth + body if body else "")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Ops project: shell, YAML, Markdown
# ---------------------------------------------------------------------------

def build_ops(b: Builder) -> None:
    dep = b.change("ops", [
        ("edit", "scripts/deploy.sh", "# Usage: scripts/deploy.sh <environment> <tag>\n\n",
         "# Usage: scripts/deploy.sh <environment> <tag>\nset -euo pipefail\n\n"),
        ("edit", "scripts/deploy.sh", 'ENVIRONMENT="$1"\nTAG="$2"\n',
         'ENVIRONMENT="${1:-}"\nTAG="${2:-}"\n'),
        ("edit", "scripts/deploy.sh", 'echo "Deploying ${IMAGE} to ${NAMESPACE}"\n',
         'if ! command -v kubectl >/dev/null 2>&1; then\n'
         '  echo "kubectl is not installed or not on PATH" >&2\n  exit 69\nfi\n\n'
         'echo "Deploying ${IMAGE} to ${NAMESPACE}"\n'),
    ])
    d_dep = ("Make scripts/deploy.sh abort on errors (set -euo pipefail) and fail early with a "
             "clear message when kubectl is missing.")
    st, rs = R.add("valid/sh-deploy-strict-mode", mk_step(d_dep, allowed=["scripts/*.sh"]),
                   mk_result(dep, "deploy.sh uses strict mode and checks for kubectl."))
    R.add("mode_mismatch/sh-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
          "mode_mismatch")
    R.add("missing_files_written/sh-absent", st, with_(rs, filesWritten=DROP), "missing_files_written")
    R.add("malformed_patch/sh-hunk-header-without-ranges", st,
          with_(rs, patch=re.sub(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", "@@ @@", dep.patch,
                                 count=1, flags=re.M)), "malformed_patch")

    rot = b.change("ops", [
        ("write", "scripts/rotate-logs.sh", F(r'''
#!/usr/bin/env bash
# Compress shop logs older than a day and delete archives older than 30 days.
# Usage: scripts/rotate-logs.sh [log-dir]
set -euo pipefail

LOG_DIR="${1:-/var/log/shop}"
KEEP_DAYS="${KEEP_DAYS:-30}"

if [ ! -d "$LOG_DIR" ]; then
  echo "no such directory: $LOG_DIR" >&2
  exit 1
fi

find "$LOG_DIR" -name '*.log' -type f -mtime +0 -print0 |
  while IFS= read -r -d '' file; do
    gzip -9 "$file"
    echo "compressed $file"
  done

find "$LOG_DIR" -name '*.log.gz' -type f -mtime +"$KEEP_DAYS" -delete
echo "rotation done in $LOG_DIR"
''')),
        ("chmod", "scripts/rotate-logs.sh", 0o755),
    ])
    assert "new file mode 100755" in rot.patch
    st, rs = R.add("valid/sh-new-executable-script",
                   mk_step("Add an executable scripts/rotate-logs.sh that gzips logs older than a "
                           "day and deletes archives older than KEEP_DAYS (default 30).",
                           allowed=["scripts/**"]),
                   mk_result(rot, "Added scripts/rotate-logs.sh (mode 755)."))
    R.add("failure_without_summary/sh-summary-whitespace", mk_step(d_dep),
          mk_failure("  \n", touched=["scripts/deploy.sh"]), "failure_without_summary",
          tags=["shell"])

    tmo = b.change("ops", [("edit", "config/app.yaml", "  requestTimeout: 10\n", "  requestTimeout: 30\n")])
    st, rs = R.add("valid/yaml-raise-timeout",
                   mk_step("Raise the server request timeout to 30 seconds in config/app.yaml.",
                           allowed=["config/**"]),
                   mk_result(tmo, "server.requestTimeout is now 30."))
    R.add("file_not_in_patch/yaml-claims-compose", st,
          with_(rs, filesWritten=["config/app.yaml", "config/app.staging.yaml"],
                filesTouched=["config/app.yaml", "config/app.staging.yaml"]), "file_not_in_patch")
    esc = b.change("ops", [("write", "escape/shared/config.yaml",
                            "# Shared defaults for all services\nserver:\n  requestTimeout: 10\n  port: 8080\n")])
    esc2 = b.followup(esc, [("edit", "escape/shared/config.yaml", "  requestTimeout: 10\n",
                             "  requestTimeout: 30\n")])
    R.add("unsafe_path/yaml-dotdot-shared-config",
          mk_step("Raise the server request timeout to 30 seconds in config/app.yaml."),
          with_(mk_result(esc2, "Raised the timeout in the shared defaults."),
                patch=rewrite_paths(esc2.patch, "escape/", "../"),
                filesWritten=["../shared/config.yaml"], filesTouched=["../shared/config.yaml"]),
          "unsafe_path")

    rb = b.change("ops", [
        ("edit", "docs/runbook.md", "## Backups\n",
         "### Rolling back\n\n"
         "1. Find the previous tag: `kubectl -n shop-production rollout history deploy/shop`.\n"
         "2. Run `kubectl -n shop-production rollout undo deploy/shop`.\n"
         "3. Watch `rollout status` and the 5xx graph for 10 minutes.\n"
         "4. Post the rollback and the reason in #deploys.\n\n## Backups\n"),
    ])
    st, rs = R.add("valid/md-runbook-rollback",
                   mk_step("Document the rollback procedure in docs/runbook.md under Deploys.",
                           allowed=["*.md"]),
                   mk_result(rb, "Added a 'Rolling back' section to the runbook."))
    R.add("undeclared_file/md-hidden-readme", st,
          with_(rs, patch=rb.patch + b.change("ops", [
              ("edit", "README.md", "- `docs/runbook.md` - what to do when things break\n",
               "- `docs/runbook.md` - what to do when things break (incl. rollbacks)\n")]).patch),
          "undeclared_file")

    yc = b.change("ops", [("edit", "config/app.yaml", "  # number of replicas in staging\n",
                           "  # number of replicas in production (staging always runs 1)\n")])
    R.add("valid/yaml-comment-fix-requested",
          mk_step("Fix the misleading comment above deployment.replicas in config/app.yaml: the "
                  "value is for production, staging always runs one replica."),
          mk_result(yc, "Corrected the replicas comment."), tags=["comment-only"])

    hc = b.change("ops", [
        ("edit", "docker-compose.yml", "    depends_on:\n      - db\n",
         "    depends_on:\n      db:\n        condition: service_healthy\n"),
        ("edit", "docker-compose.yml", "      - dbdata:/var/lib/postgresql/data\n",
         "      - dbdata:/var/lib/postgresql/data\n    healthcheck:\n"
         "      test: [\"CMD-SHELL\", \"pg_isready -U shop -d shop\"]\n"
         "      interval: 5s\n      timeout: 3s\n      retries: 10\n"),
    ])
    st, rs = R.add("valid/yaml-compose-healthcheck",
                   mk_step("Add a healthcheck to the db service in docker-compose.yml and make app "
                           "wait until the database is healthy."),
                   mk_result(hc, "db has a pg_isready healthcheck; app waits for service_healthy."))
    R.add("invalid_mode/yaml-run", st, with_(rs, mode="run"), "invalid_mode")
    out = b.change("ops", [
        ("edit", "config/app.yaml", "  url: \"\"\n", "  url: \"redis://cache:6379/0\"\n"),
        ("edit", "docker-compose.yml", "volumes:\n  dbdata:\n",
         "  cache:\n    image: redis:7-alpine\n\nvolumes:\n  dbdata:\n"),
    ])
    R.add("scope_outside_allowed/yaml-compose-outside-config",
          mk_step("Point the cache at redis://cache:6379/0 in the app config.", allowed=["config/**"]),
          mk_result(out, "Set cache.url and added a redis service to compose."),
          "scope_outside_allowed")
    sup = b.change("ops", [
        ("edit", "docker-compose.yml", "volumes:\n  dbdata:\n",
         "  # cache:\n  #   image: redis:7-alpine\n  #   ports:\n  #     - \"6379:6379\"\n\n"
         "volumes:\n  dbdata:\n"),
    ])
    R.add("superficial_only/yaml-commented-out-service",
          mk_step("Add a Redis service named cache to docker-compose.yml for local development."),
          mk_result(sup, "Added the cache service to docker-compose.yml."), "superficial_only")
    sup2 = b.change("ops", [
        ("edit", "scripts/backup.sh", 'log "uploading to ${BUCKET}"\t\n',
         '# Upload the dump. The S3 endpoint is flaky at night, so this step\n'
         '# should be retried a few times before the job gives up.\n'
         'log "uploading to ${BUCKET}"\t\n'),
    ])
    R.add("superficial_only/sh-comment-instead-of-retry",
          mk_step("Make scripts/backup.sh retry the S3 upload up to 3 times with a 10 second pause."),
          mk_result(sup2, "backup.sh retries the upload 3 times."), "superficial_only")

    chm = b.change("ops", [("chmod", "docs/runbook.md", 0o644)])
    assert "old mode 100755\nnew mode 100644" in chm.patch
    st, rs = R.add("valid/md-remove-executable-bit",
                   mk_step("Remove the executable bit from docs/runbook.md."),
                   mk_result(chm, "chmod -x docs/runbook.md."))
    R.add("failure_without_summary/md-summary-dash-error", st,
          mk_failure("Error", omit=True), "failure_without_summary", tags=["markdown"])

    def _strip_trailing(t):
        return "\n".join(l.rstrip(" \t") for l in t.split("\n"))
    ws = b.change("ops", [("sub", "scripts/backup.sh", _strip_trailing)])
    R.add("valid/sh-trailing-whitespace-requested",
          mk_step("Remove the trailing whitespace from scripts/backup.sh (the linter flags three "
                  "lines); do not change anything else."),
          mk_result(ws, "Stripped trailing spaces/tabs on 3 lines of backup.sh."),
          tags=["whitespace-only"])

    fr = b.change("ops", [("write", "docs/déploiement.md", F(r'''
# Guide de déploiement

1. Vérifier que la CI est verte sur `main`.
2. Créer le tag : `git tag vX.Y.Z && git push --tags`.
3. Lancer `scripts/deploy.sh staging vX.Y.Z` puis vérifier le tableau de bord.
4. Après validation, lancer `scripts/deploy.sh production vX.Y.Z`.

En cas de problème, suivre la section « Rolling back » du runbook.
'''))])
    assert '"b/docs/d\\303\\251ploiement.md"' in fr.patch
    st, rs = R.add("valid/md-non-ascii-new-file",
                   mk_step("Add a French deployment guide as docs/déploiement.md.", allowed=["docs/**"]),
                   mk_result(fr, "Added docs/déploiement.md."))
    R.add("missing_patch/md-absent-non-ascii", st, with_(rs, patch=DROP), "missing_patch")
    mv = b.change("ops", [
        ("mv", "docs/notes.md", "docs/notes réseau.md"),
        ("edit", "docs/notes réseau.md", "# Notes techniques\n", "# Notes techniques : réseau\n"),
    ], flags=("-M",))
    assert 'rename to "docs/notes r\\303\\251seau.md"' in mv.patch
    st, rs = R.add("valid/md-rename-to-quoted-name",
                   mk_step("Rename docs/notes.md to \"docs/notes réseau.md\" and say so in its title."),
                   mk_result(mv, "Renamed the notes file and updated the heading."))
    R.add("valid/sh-failure-report-no-access",
          mk_step("Add the production database host to config/app.yaml."),
          mk_failure("Could not apply: the production host is not in the repository or the step "
                     "description, and guessing it would be unsafe.", touched=["config/app.yaml"]),
          project="ops")


# ---------------------------------------------------------------------------
# JavaScript project
# ---------------------------------------------------------------------------

def build_js(b: Builder) -> None:
    env = b.change("js", [
        ("edit", "lib/config.js",
         "  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };\n",
         "  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };\n"
         "  if (process.env.SHIPIT_BRANCH) {\n    config.branch = process.env.SHIPIT_BRANCH;\n  }\n"),
        ("append", "test/config.test.js", F(r'''

test('SHIPIT_BRANCH overrides everything', (t) => {
  process.env.SHIPIT_BRANCH = 'hotfix';
  t.after(() => delete process.env.SHIPIT_BRANCH);
  const dir = tmpProject({ name: 'demo' }, { branch: 'release' });
  assert.strictEqual(loadConfig(dir).branch, 'hotfix');
});
''')),
    ])
    d_env = "Let the SHIPIT_BRANCH environment variable override the configured branch, with a test."
    st, rs = R.add("valid/js-env-override", mk_step(d_env, allowed=["lib/**", "test/**"]),
                   mk_result(env, "loadConfig honours SHIPIT_BRANCH; added a test."))
    R.add("missing_files_written/js-empty-list", st, with_(rs, filesWritten=[]),
          "missing_files_written")
    R.add("scope_outside_allowed/js-test-outside-lib", with_(st, allowedFiles=["lib/**"]), rs,
          "scope_outside_allowed")
    lines = env.patch.split("\n")
    R.add("malformed_patch/js-truncated-mid-line", st,
          with_(rs, patch="\n".join(lines[:-4]) + "\n" + lines[-4][:12]), "malformed_patch")

    ts = b.change("js", [
        ("edit", "lib/logger.js", "function createLogger({ verbose = false, stream = process.stderr } = {}) {\n"
         "  const write = (level, msg) => stream.write(`[${level}] ${msg}\\n`);\n",
         "function createLogger({ verbose = false, stream = process.stderr, timestamps = false } = {}) {\n"
         "  const prefix = () => (timestamps ? `${new Date().toISOString()} ` : '');\n"
         "  const write = (level, msg) => stream.write(`${prefix()}[${level}] ${msg}\\n`);\n"),
    ])
    st, rs = R.add("valid/js-logger-timestamps",
                   mk_step("Add an opt-in `timestamps` option to createLogger() that prefixes each "
                           "line with an ISO timestamp."),
                   mk_result(ts, "createLogger({ timestamps: true }) prefixes ISO timestamps."))
    R.add("files_touched_incomplete/js-touched-other-file", st,
          with_(rs, filesTouched=["bin/shipit.js"]), "files_touched_incomplete")
    cl = b.change("js", [
        ("edit", "bin/shipit.js", "    case 'version':\n",
         "    case 'changelog': {\n"
         "      const fs = require('fs');\n"
         "      const text = fs.readFileSync(config.changelog, 'utf8');\n"
         "      const latest = text.split(/^## /m)[1];\n"
         "      console.log(latest ? `## ${latest.trim()}` : 'no entries');\n"
         "      return 0;\n    }\n    case 'version':\n"),
        ("edit", "bin/shipit.js", "usage: shipit <version|release>", "usage: shipit <changelog|version|release>"),
    ])
    st, rs = R.add("valid/js-cli-changelog-command",
                   mk_step("Add a `shipit changelog` command that prints the latest CHANGELOG section.",
                           excluded=["node_modules/", "*.lock"]),
                   mk_result(cl, "Added the changelog command and updated the usage line."))
    R.add("undeclared_file/js-hidden-package-json", st,
          with_(rs, patch=cl.patch + b.change("js", [
              ("edit", "package.json", '"version": "0.9.2"', '"version": "0.10.0"')]).patch),
          "undeclared_file")
    pj = b.change("js", [
        ("edit", "package.json", '    "test": "node --test test/"\n',
         '    "test": "node --test test/",\n    "lint": "eslint lib bin test"\n'),
        ("edit", "lib/config.js", "function readJson(file) {", "function readJSON(file) {"),
        ("edit", "lib/config.js", "const pkg = readJson(", "const pkg = readJSON("),
        ("edit", "lib/config.js", "? readJson(rcPath)", "? readJSON(rcPath)"),
    ])
    R.add("scope_outside_allowed/js-package-json-outside-lib",
          mk_step("Rename readJson to readJSON in lib/config.js.", allowed=["lib/**"]),
          mk_result(pj, "Renamed readJson to readJSON and added a lint script."),
          "scope_outside_allowed")
    R.add("valid/js-failure-report-fix-regression",
          mk_step("Fix regression: the SHIPIT_BRANCH test leaks the variable into other tests.",
                  "fix_regression", apply=env),
          mk_failure("Could not fix: node --test in the sandbox is v16, which has no t.after(); "
                     "the test runner must be upgraded first.", mode="fix_regression",
                     touched=["test/config.test.js"]))


# ---------------------------------------------------------------------------
# Self-checks, output
# ---------------------------------------------------------------------------

LATE_RULES = ("malformed_patch", "zero_impact", "reversal", "superficial_only")
ALL_RULES = [
    "invalid_mode", "mode_mismatch", "failure_with_patch", "failure_without_summary",
    "missing_patch", "missing_files_written", "malformed_patch", "unsafe_path",
    "undeclared_file", "file_not_in_patch", "files_touched_incomplete", "scope_excluded",
    "scope_outside_allowed", "scope_fix_regression", "zero_impact", "reversal", "superficial_only",
]


def self_check(cases: list[dict]) -> None:
    for c in cases:
        cid, step, res, exp = c["id"], c["step"], c["result"], c["expected"]
        rule = exp.get("rule")
        assert set(c) == {"id", "step", "result", "expected", "tags"}, cid
        assert cid.split("/")[0] == (rule or "valid"), cid
        assert step["id"] and step["description"] and step["mode"] in ("apply", "fix_regression"), cid
        assert "mode" in res and "success" in res, cid
        ref = reference_rule(step, res)
        if rule == "malformed_patch":
            continue
        assert ref == (rule if rule not in LATE_RULES else None), (cid, ref)
        patch = res.get("patch") or ""
        plus, minus = change_counts(patch)
        if rule == "zero_impact":
            assert plus == minus == 0 and "@@" in patch, cid
        if rule == "reversal":
            assert revert_ratio(step["applyPatch"], patch) >= 0.9, cid
        if step["mode"] == "fix_regression" and rule is None and res["success"]:
            assert revert_ratio(step["applyPatch"], patch) < 0.5, cid
        if rule is None and res["success"]:
            assert plus + minus > 0 or any(k in patch for k in (
                "rename from", "old mode", "Binary files", "GIT binary patch")), cid
        if rule is None:
            for f in res.get("filesWritten") or []:
                assert not f.startswith('"'), cid


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for tool in ("git", "diff"):
        if shutil.which(tool) is None:
            print(f"build_dev.py needs `{tool}` on PATH", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="judge-evals-") as tmp:
        b = Builder(Path(tmp))
        for build in (build_python, build_typescript, build_go, build_rust, build_java,
                      build_c, build_ops, build_js):
            build(b)
    cases = sorted(R.cases, key=lambda c: c["id"])
    self_check(cases)
    lines = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in cases]
    for line in lines:
        json.loads(line)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")

    counts = collections.Counter(c["expected"].get("rule", "valid") for c in cases)
    n_valid = counts.pop("valid", 0)
    if not args.quiet:
        print(f"wrote {len(cases)} cases to {args.out}")
        print(f"| expected | cases |\n|---|---|\n| valid | {n_valid} |")
        for rule in ALL_RULES:
            print(f"| {rule} | {counts.get(rule, 0)} |")
        print(f"| **total** | **{len(cases)}** |")
    assert set(counts) <= set(ALL_RULES), set(counts) - set(ALL_RULES)
    assert all(counts.get(r, 0) >= 4 for r in ALL_RULES), counts
    assert n_valid >= 65 and len(cases) >= 160, (n_valid, len(cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
