"""The TypeScript project: `@acme/web-client`, an API client with utils, vitest tests,
a vendored left-pad, docs (one name with a space) and a binary favicon.
"""
from __future__ import annotations

from .fixtures import ICO_MAGIC, F, fake_binary


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
    "public/favicon.ico": fake_binary(11, 318, ICO_MAGIC),
}
