/** The manager's probes: what fails `/readyz` and `/healthz`, and the names they give. */
import assert from "node:assert/strict";
import { get } from "node:http";
import { describe, it } from "node:test";
import { pino } from "pino";
import { type KubeObject, resourceType } from "../../../src/api/index.ts";
import type { Informer, InformerHealth, InformerScope } from "../../../src/cache/index.ts";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { controller, type HostedController } from "../../../src/controller/index.ts";
import {
  controllersAlive,
  type HealthSource,
  informerCrashLoopLimitMs,
  informersAlive,
  informersSynced,
} from "../../../src/endpoints/health.ts";
import { Manager } from "../../../src/manager/index.ts";
import { fakeConnection, flush } from "../client/support.ts";
import { stubUndici } from "../client/undici-stub.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);

/** An informer of kind `kind` in `scope` whose health is `health` (the rest of it unused). */
function informer(kind: string, scope: InformerScope, health: Partial<InformerHealth>): Informer<KubeObject> {
  const full: InformerHealth = {
    kind,
    state: "synced",
    synced: true,
    failingForMs: 0,
    lastError: undefined,
    restarts: 0,
    ...health,
  };
  return { scope, health: () => full } as unknown as Informer<KubeObject>;
}

function source(informers: Informer<KubeObject>[], controllers: HostedController[] = []): HealthSource {
  return {
    informers: () => informers,
    controllers: () => controllers,
    cachesRunning: () => true,
  };
}

function message(check: () => unknown): string {
  try {
    check();
  } catch (err) {
    return (err as Error).message;
  }
  return "passed";
}

describe("informersSynced (/readyz)", () => {
  it("names each informer not synced yet, with its kind, scope, state and last error", () => {
    const check = informersSynced(
      source([
        informer("v1/ConfigMap", { namespace: "team-a" }, {}),
        informer(
          "example.com/v1/Widget",
          { namespace: "team-a" },
          {
            state: "failing",
            synced: false,
            lastError: new Error('widgets is forbidden: cannot list resource "widgets"'),
          },
        ),
        informer("v1/Node", { labelSelector: "tier=edge" }, { state: "syncing", synced: false }),
      ]),
    );
    assert.equal(
      message(check),
      'not synced: example.com/v1/Widget in namespace "team-a" (failing: widgets is forbidden: cannot list resource "widgets"); ' +
        "v1/Node cluster-wide, labels tier=edge (syncing)",
    );
  });

  it("passes once every informer has synced, failing or not", () => {
    const check = informersSynced(source([informer("v1/Pod", {}, { state: "failing", failingForMs: 9e9 })]));
    assert.equal(check(), true);
  });
});

describe("informersAlive (/healthz)", () => {
  it("fails for an informer that stopped while the caches run", () => {
    const check = informersAlive(source([informer("v1/Secret", { namespace: "ns" }, { state: "stopped" })]));
    assert.equal(message(check), 'died and cannot restart: v1/Secret in namespace "ns" (stopped)');
  });

  it("fails for an informer crash-looping past the limit, and not for a watch that merely fails", () => {
    const crashing = { state: "failing", restarts: 3, lastError: new Error("boom") } as const;
    assert.equal(
      informersAlive(
        source([informer("v1/Pod", {}, { ...crashing, failingForMs: informerCrashLoopLimitMs - 1 })]),
      )(),
      true,
    );
    assert.match(
      message(
        informersAlive(
          source([informer("v1/Pod", {}, { ...crashing, failingForMs: informerCrashLoopLimitMs })]),
        ),
      ),
      /died and cannot restart: v1\/Pod cluster-wide \(failing: boom\)/,
    );
    const away = informer(
      "v1/Pod",
      {},
      { state: "failing", restarts: 0, failingForMs: 10 * informerCrashLoopLimitMs },
    );
    assert.equal(informersAlive(source([away]))(), true, "an apiserver that is away is no reason to restart");
  });
});

describe("controllersAlive (/healthz)", () => {
  it("fails naming the controller whose workers died, and why", () => {
    const healthy = {
      name: "widgets",
      health: () => ({ running: true, deadWorkers: 0, lastError: undefined }),
    };
    const broken = {
      name: "gadgets",
      health: () => ({ running: true, deadWorkers: 2, lastError: new Error("metrics hook bug") }),
    };
    const check = controllersAlive(source([], [healthy, broken] as unknown as HostedController[]));
    assert.equal(message(check), "workers died: gadgets (2 dead: metrics hook bug)");
  });
});

describe("Manager probes over HTTP", () => {
  /** GETs `path` from the manager's health port with node:http (undici is stubbed in these tests). */
  function probe(manager: Manager, path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      get(`http://127.0.0.1:${manager.ports.health}${path}`, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      }).on("error", reject);
    });
  }

  it("/readyz names the informer that cannot list, in the manager's namespace; /healthz passes", async (t) => {
    stubUndici(t, () => ({
      status: 403,
      body: {
        kind: "Status",
        code: 403,
        reason: "Forbidden",
        message: 'widgets is forbidden: cannot list resource "widgets"',
      },
    }));
    const clock = new FakeClock();
    const manager = await Manager.create({
      name: "widgets",
      namespace: "team-a",
      client: new Client(fakeConnection(), { clock }),
      logger: pino({ level: "silent" }),
      metrics: false,
      health: { host: "127.0.0.1", port: 0 },
      clock,
    });
    controller(manager)
      .for(Widget)
      .reconcile(async () => undefined);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    t.after(async () => {
      stop.abort();
      await running;
    });
    for (let i = 0; i < 100 && manager.cache.health()[0]?.lastError === undefined; i++) await flush();
    const ready = await probe(manager, "/readyz");
    assert.equal(ready.status, 500);
    assert.match(
      ready.body,
      /^\[-\]informers-synced failed: not synced: example\.com\/v1\/Widget in namespace "team-a" \(failing: .*forbidden/,
    );
    assert.deepEqual(await probe(manager, "/healthz"), { status: 200, body: "ok" });
    assert.equal(manager.ready, false);
  });
});
