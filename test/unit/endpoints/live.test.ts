/**
 * The live page's JSON, built from the manager's metrics registry, its controllers' last
 * reconciles, its informers and its leadership; and who may read it.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, it } from "node:test";
import { request } from "undici";
import type { KubeObject } from "../../../src/api/index.ts";
import type { Informer, InformerHealth } from "../../../src/cache/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import type { HostedController, ReconcileRecord } from "../../../src/controller/index.ts";
import { livePageHtml, livePageScript } from "../../../src/endpoints/internal/live-page.ts";
import {
  LIVE_PATH,
  type LiveSource,
  type LiveState,
  leadershipOf,
  liveState,
  serveLive,
} from "../../../src/endpoints/live.ts";
import { ManagerMetrics, serveEndpoints } from "../../../src/manager/index.ts";

const proxy = { apiVersion: "example.dev/v1", kind: "MyProxy" };
const configMap = { apiVersion: "v1", kind: "ConfigMap" };

function record(key: string, startedAt: number, seconds: number, extra: Partial<ReconcileRecord> = {}) {
  const item = {
    key,
    reasons: [{ reason: "owned:ConfigMap:update", count: 1 }],
    priority: 0,
    queuedAt: startedAt - 2,
    startedAt,
  };
  return { item, seconds, result: "success" as const, ...extra };
}

function controller(name: string, records: ReconcileRecord[], deadWorkers = 0): HostedController {
  const health = () => ({ running: true, deadWorkers, lastError: undefined });
  return { name, primary: proxy, health, recentReconciles: () => records } as unknown as HostedController;
}

function informer(type: { apiVersion: string; kind: string }, size: number, health: Partial<InformerHealth>) {
  const full = {
    kind: type.kind,
    state: "synced",
    synced: true,
    failingForMs: 0,
    restarts: 0,
    lastError: undefined,
  };
  return {
    type,
    scope: { namespace: "team-a" },
    store: { size },
    health: () => ({ ...full, ...health }),
  } as unknown as Informer<KubeObject>;
}

/** A source on real metrics: a controller that reconciled 3 times (one error), queued keys, a divergence, a drift repair. */
function source(controllers: HostedController[]): LiveSource {
  const clock = new FakeClock(1_000_000);
  const metrics = new ManagerMetrics(clock, { processMetrics: false });
  const hooks = metrics.controller("myproxy");
  hooks.reconciled("success", 0.25);
  hooks.reconciled("success", 0.5);
  hooks.reconciled("error", 0.25);
  hooks.queue.depth(2, 0);
  hooks.queue.depth(5, -100);
  hooks.activeWorkers(1);
  hooks.driftRepaired("ConfigMap", "kubectl-edit");
  hooks.driftRepaired("ConfigMap", "kubectl-edit");
  metrics.informer({ ...configMap, plural: "configmaps", namespaced: true }).diverged?.("added");
  return {
    name: "myproxy",
    registry: metrics.registry,
    clock,
    ready: () => true,
    controllers: () => controllers,
    informers: () => [
      informer(proxy, 3, {}),
      informer(configMap, 7, { state: "failing", restarts: 2, lastError: new Error("403 Forbidden") }),
    ],
    leadership: () => leadershipOf(undefined, undefined, []),
  };
}

describe("liveState", () => {
  it("reads counts, latency, queue depth by priority, active workers and drift from the metrics registry", async () => {
    const state = await liveState(source([controller("myproxy", [])]));
    assert.equal(state.time, 1_000_000);
    assert.equal(state.ready, true);
    const [c] = state.controllers;
    assert.deepEqual(
      { name: c?.name, kind: c?.kind, depth: c?.depth, active: c?.active, reconciles: c?.reconciles },
      {
        name: "myproxy",
        kind: "example.dev/v1/MyProxy",
        depth: { "0": 2, "-100": 5 },
        active: 1,
        reconciles: { byResult: { success: 2, error: 1 }, seconds: 1 },
      },
    );
    assert.deepEqual(state.drift, [{ kind: "ConfigMap", culprit: "kubectl-edit", repairs: 2 }]);
  });

  it("lists each controller's last reconciles with key, triggers, times, result and the error's message", async () => {
    const failed = record("team-a/b", 1_000, 0.1, { result: "error", error: new Error("conflict") });
    const state = await liveState(source([controller("myproxy", [failed, record("team-a/a", 900, 0.05)])]));
    assert.deepEqual(state.controllers[0]?.recent, [
      {
        key: "team-a/b",
        triggers: [{ reason: "owned:ConfigMap:update", count: 1 }],
        priority: 0,
        queuedAt: 998,
        startedAt: 1_000,
        seconds: 0.1,
        result: "error",
        error: "conflict",
      },
      {
        key: "team-a/a",
        triggers: [{ reason: "owned:ConfigMap:update", count: 1 }],
        priority: 0,
        queuedAt: 898,
        startedAt: 900,
        seconds: 0.05,
        result: "success",
      },
    ]);
  });

  it("merges the instances of a sharded controller: one entry, newest finished first, as many as one keeps", async () => {
    const shard0 = [record("a/3", 3_000, 0), record("a/1", 1_000, 0)];
    const shard1 = [record("b/2", 1_000, 1.5), record("b/0", 0, 0)];
    const state = await liveState(source([controller("myproxy", shard0), controller("myproxy", shard1, 1)]));
    assert.equal(state.controllers.length, 1);
    assert.deepEqual(
      state.controllers[0]?.recent.map((r) => r.key),
      ["a/3", "b/2"],
      "by end time (b/2 ran 1.5 s), two: the longest instance's count",
    );
    assert.equal(state.controllers[0]?.deadWorkers, 1);
  });

  it("describes each informer: scope, state, objects, restarts, last error and its kind's relist divergence", async () => {
    const state = await liveState(source([]));
    assert.deepEqual(state.informers, [
      {
        kind: "example.dev/v1/MyProxy",
        namespace: "team-a",
        state: "synced",
        synced: true,
        objects: 3,
        restarts: 0,
        divergence: {},
      },
      {
        kind: "v1/ConfigMap",
        namespace: "team-a",
        state: "failing",
        synced: true,
        objects: 7,
        restarts: 2,
        lastError: "403 Forbidden",
        divergence: { added: 1 },
      },
    ]);
  });
});

describe("leadershipOf", () => {
  it("says single without election, the Lease's holder with it, and the shards held with sharding", () => {
    assert.deepEqual(leadershipOf(undefined, undefined, []), { mode: "single", leading: true });
    const elector = { identity: "pod-b", leader: "pod-a", isLeader: () => false };
    assert.deepEqual(leadershipOf(elector, undefined, []), {
      mode: "leader-election",
      leading: false,
      identity: "pod-b",
      leader: "pod-a",
    });
    const coordinator = { identity: "pod-c", shards: 8 };
    assert.deepEqual(leadershipOf(undefined, coordinator, [0, 5]), {
      mode: "sharding",
      leading: true,
      identity: "pod-c",
      shards: { held: [0, 5], total: 8 },
    });
    assert.equal(leadershipOf(undefined, coordinator, [5]).leading, false, "shard 0's holder leads");
  });
});

/** What {@link serveLive} answers a client at `remoteAddress` sending `headers` (by default, a loopback Host). */
async function answer(
  path: string,
  remoteAddress: string,
  headers: Record<string, string> = { host: "127.0.0.1:8081" },
) {
  const sent = { status: 0, headers: {} as Record<string, string>, body: "" };
  const res = {
    headersSent: false,
    writeHead(status: number, headers: Record<string, string> = {}) {
      Object.assign(sent, { status, headers });
      return this;
    },
    end(body = "") {
      sent.body = body;
      return this;
    },
  } as unknown as ServerResponse;
  const req = { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
  const handled = await serveLive(req, res, path, async () => ({ name: "x" }) as LiveState);
  return { handled, ...sent };
}

describe("serveLive", () => {
  it("refuses clients that are not on loopback, naming kubectl port-forward", async () => {
    for (const path of [LIVE_PATH, `${LIVE_PATH}/state.json`]) {
      const { status, body } = await answer(path, "10.244.1.7");
      assert.equal(status, 403);
      assert.match(body, /loopback clients only.*kubectl port-forward/);
    }
  });

  it("refuses a Host that does not name loopback, as a DNS-rebound page or a forwarding sidecar sends", async () => {
    for (const host of ["evil.example:8081", "127.0.0.1.evil.example:8081", "10.244.1.7:8081", "myop.svc"]) {
      for (const path of [LIVE_PATH, `${LIVE_PATH}/state.json`]) {
        const { status, body } = await answer(path, "127.0.0.1", { host });
        assert.equal(status, 403, `${host} ${path}`);
        assert.match(body, /addressed as 127\.0\.0\.1, localhost or \[::1\]/);
      }
    }
    assert.equal((await answer(LIVE_PATH, "127.0.0.1", {})).status, 403, "no Host at all");
  });

  it("serves a Host naming loopback, with a port or without, whatever the case", async () => {
    for (const host of ["127.0.0.1:8081", "localhost:9000", "[::1]:8081", "LOCALHOST:8081", "localhost"]) {
      assert.equal((await answer(`${LIVE_PATH}/state.json`, "127.0.0.1", { host })).status, 200, host);
    }
  });

  it("refuses a request from a page of another origin, and serves its own origin's", async () => {
    const host = "127.0.0.1:8081";
    for (const origin of ["http://evil.example", "http://localhost:8081", "https://127.0.0.1:8081", "null"]) {
      const { status, body } = await answer(`${LIVE_PATH}/state.json`, "127.0.0.1", { host, origin });
      assert.equal(status, 403, origin);
      assert.match(body, /another origin/);
    }
    const own = await answer(`${LIVE_PATH}/state.json`, "127.0.0.1", {
      host,
      origin: "http://127.0.0.1:8081",
    });
    assert.equal(own.status, 200);
  });

  it("serves loopback clients (IPv4, IPv6, IPv4-mapped) the page with a CSP that admits its one script", async () => {
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const { status, headers, body } = await answer(LIVE_PATH, address);
      assert.equal(status, 200);
      assert.equal(body, livePageHtml);
      const hash = createHash("sha256").update(livePageScript).digest("base64");
      assert.ok(headers["content-security-policy"]?.includes(`script-src 'sha256-${hash}'`));
      assert.match(headers["content-security-policy"] ?? "", /default-src 'none'/);
    }
  });

  it("tells a client without JavaScript (curl) where the data is: a <noscript> linking the JSON", async () => {
    const { body } = await answer(LIVE_PATH, "127.0.0.1");
    const noscript = /<noscript>([\s\S]*?)<\/noscript>/.exec(body)?.[1] ?? "";
    assert.ok(noscript.includes(`${LIVE_PATH}/state.json`), noscript);
    const href = /href="([^"]+)"/.exec(noscript)?.[1] ?? "";
    assert.equal(new URL(href, `http://127.0.0.1:8081${LIVE_PATH}`).pathname, `${LIVE_PATH}/state.json`);
  });

  it("serves a script that parses (it is text in a template literal, where an escape is easily lost)", () => {
    assert.doesNotThrow(() => new Function(livePageScript));
    assert.ok(livePageHtml.includes(`<script>${livePageScript}</script>`));
  });

  it("serves the JSON, 404 under its path otherwise, and leaves other paths alone", async () => {
    assert.deepEqual(
      { ...(await answer(`${LIVE_PATH}/state.json`, "127.0.0.1")), headers: undefined },
      { handled: true, status: 200, headers: undefined, body: '{"name":"x"}' },
    );
    assert.equal((await answer(`${LIVE_PATH}/other`, "127.0.0.1")).status, 404);
    assert.equal((await answer("/debug/kubeloopish", "127.0.0.1")).handled, false);
  });

  it("is served beside the probes by the endpoints server, and only when asked", async (t) => {
    const live = async () => liveState(source([controller("myproxy", [record("team-a/a", 900, 0.05)])]));
    const health = { healthz: {}, readyz: {} };
    const on = await serveEndpoints("127.0.0.1", 0, { health, live });
    const off = await serveEndpoints("127.0.0.1", 0, { health });
    t.after(() => {
      for (const { server } of [on, off]) server.close();
    });
    const res = await request(`http://127.0.0.1:${on.port}${LIVE_PATH}/state.json`);
    const state = (await res.body.json()) as LiveState;
    assert.equal(state.controllers[0]?.recent[0]?.key, "team-a/a");
    const none = await request(`http://127.0.0.1:${off.port}${LIVE_PATH}`);
    assert.equal(none.statusCode, 404);
    await none.body.dump();
  });

  it("leaves the probes answering any Host, as the kubelet sends the pod's IP", async (t) => {
    const live = async () => ({ name: "x" }) as LiveState;
    const ok = () => true;
    const { server, port } = await serveEndpoints("127.0.0.1", 0, {
      health: { healthz: { ping: ok }, readyz: { ping: ok } },
      live,
    });
    t.after(() => server.close());
    const headers = { host: "10.244.1.7:8081" };
    for (const path of ["/healthz", "/readyz"]) {
      const res = await request(`http://127.0.0.1:${port}${path}`, { headers });
      assert.equal(res.statusCode, 200, path);
      assert.equal(await res.body.text(), "ok");
    }
    const page = await request(`http://127.0.0.1:${port}${LIVE_PATH}`, { headers });
    assert.equal(page.statusCode, 403);
    await page.body.dump();
  });
});
