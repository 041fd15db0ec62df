/**
 * What a fleet shows of its clusters: each engaged cluster's manager metrics on the fleet's
 * registry labelled `cluster` (gone once it is disengaged, with no growth over engage/disengage
 * cycles), and, given a host manager, the fleet's check on its `/readyz` and the clusters on its
 * live page beside its own controllers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { request } from "undici";
import { Client } from "../../../src/client/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { LIVE_PATH, type LiveState } from "../../../src/endpoints/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { METRICS } from "../../../src/metrics/index.ts";
import { fakeConnection } from "../client/support.ts";
import { until } from "../controller/support.ts";
import { refusedConnection, startedFleet, tickUntil, Widget } from "./support.ts";

/** Polls `done` until it holds, 10 s at most. */
async function eventually(done: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The series of `text` (a scrape) labelled with a cluster, by cluster. */
function clusterSeries(text: string): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const cluster = /[{,]cluster="([^"]+)"/.exec(line)?.[1];
    if (cluster) by.set(cluster, [...(by.get(cluster) ?? []), line]);
  }
  return by;
}

const catalogued = new Set<string>(Object.values(METRICS).map((m) => m.name));
const baseName = (line: string) => (line.split("{")[0] ?? "").replace(/_(bucket|sum|count)$/, "");

describe("a fleet's clusters on its registry", () => {
  it("shows each engaged cluster's manager metrics under the catalogue's names, labelled with the cluster, until it is disengaged", async () => {
    const { fleet, provider, stop } = startedFleet();
    await until(() => provider.sink !== undefined);
    provider.sink?.engage("east", refusedConnection());
    provider.sink?.engage("west", refusedConnection());
    const requested = async (cluster: string) =>
      (await fleet.registry.metrics()).includes(`host="apiserver",cluster="${cluster}"}`);
    await eventually(
      async () => (await requested("east")) && (await requested("west")),
      "both clusters' requests",
    );
    const text = await fleet.registry.metrics();
    for (const cluster of ["east", "west"]) {
      assert.match(
        text,
        new RegExp(`^kubeloop_informer_synced\\{kind="Widget",cluster="${cluster}"\\} 0$`, "m"),
      );
      assert.match(
        text,
        new RegExp(
          `^workqueue_unfinished_work_seconds\\{name="widget",controller="widget",cluster="${cluster}"\\} 0$`,
          "m",
        ),
      );
      assert.match(
        text,
        new RegExp(
          `^rest_client_requests_total\\{code="<error>",method="GET",host="apiserver",cluster="${cluster}"\\} \\d+$`,
          "m",
        ),
      );
    }
    const names = [...clusterSeries(text).values()].flat().map(baseName);
    assert.deepEqual(
      names.filter((name) => !catalogued.has(name)),
      [],
      "every series is a catalogue metric",
    );
    assert.equal(text.match(/^# TYPE kubeloop_informer_synced /gm)?.length, 1, "one family per name");

    provider.sink?.disengage("east", "Secret deleted");
    await until(() => fleet.clusters().length === 1);
    const after = clusterSeries(await fleet.registry.metrics());
    assert.deepEqual([...after.keys()], ["west"]);
    await stop();
    assert.deepEqual([...clusterSeries(await fleet.registry.metrics()).keys()], []);
  });

  it("does not grow over engage and disengage cycles", async () => {
    const { fleet, provider, stop } = startedFleet();
    await until(() => provider.sink !== undefined);
    const cycle = async () => {
      provider.sink?.engage("east", refusedConnection());
      await until(() => fleet.clusters()[0]?.engaged === true);
      assert.ok(clusterSeries(await fleet.registry.metrics()).has("east"));
      provider.sink?.disengage("east", "Secret deleted");
      await until(() => fleet.clusters().length === 0);
      return {
        metrics: fleet.registry.getMetricsAsArray().length,
        lines: (await fleet.registry.metrics()).length,
      };
    };
    const first = await cycle();
    for (let i = 0; i < 5; i++) assert.deepEqual(await cycle(), first);
    assert.deepEqual([...clusterSeries(await fleet.registry.metrics()).keys()], []);
    await stop();
  });
});

describe("a fleet given a host manager", () => {
  it("adds its check to the host's /readyz, its clusters to the host's live page, and its clusters' series beside the host's own", async (t) => {
    const host = await Manager.create({
      name: "hub",
      client: new Client(fakeConnection()),
      logger: pino({ level: "silent" }),
      metrics: false,
      health: { host: "127.0.0.1", port: 0 },
      livePage: true,
      leaderElection: false,
    });
    controller(host)
      .for(Widget)
      .reconcile(async () => undefined);
    const managers = new Map<string, Manager>();
    const { fleet, provider, clock, stop } = startedFleet(
      {
        manager: host,
        setup: (manager, cluster) => {
          managers.set(cluster.name, manager);
          return controller(manager)
            .for(Widget)
            .reconcile(async () => undefined);
        },
        probeWith: async (client) => {
          if (client.connection.server.endsWith(":2")) throw new Error("connect ECONNREFUSED");
        },
      },
      [new Error("watch failed")],
    );
    const stopping = new AbortController();
    const hostRunning = host.start(stopping.signal);
    t.after(async () => {
      await stop();
      stopping.abort();
      await hostRunning;
    });
    await eventually(async () => host.ports.health !== undefined, "the host's health port");
    const get = async (path: string) => {
      const res = await request(`http://127.0.0.1:${host.ports.health}${path}`);
      return { status: res.statusCode, body: await res.body.text() };
    };
    const failing = await get("/readyz?verbose");
    assert.equal(failing.status, 500);
    assert.match(failing.body, /^\[-\]fleet failed: cluster providers failing: driven$/m);

    await tickUntil(clock, () => provider.sink !== undefined);
    provider.sink?.ready();
    provider.sink?.engage("east", refusedConnection());
    provider.sink?.engage("west", { ...refusedConnection(), server: "https://127.0.0.1:2" });
    await tickUntil(
      clock,
      () =>
        fleet
          .clusters()
          .map((c) => c.reason)
          .join() === "discovered,unreachable",
    );
    assert.match((await get("/readyz?verbose")).body, /^\[\+\]fleet ok$/m);

    host.metrics.controller("widget").reconciled("success", 0.5);
    managers.get("east")?.metrics.controller("widget").reconciled("error", 0.25);
    const text = await fleet.registry.metrics();
    assert.equal(fleet.registry, host.metrics.registry);
    assert.match(text, /^controller_runtime_reconcile_total\{controller="widget",result="success"\} 1$/m);
    assert.match(
      text,
      /^controller_runtime_reconcile_total\{controller="widget",result="error",cluster="east"\} 1$/m,
    );

    const state = JSON.parse((await get(`${LIVE_PATH}/state.json`)).body) as LiveState;
    assert.deepEqual(
      state.controllers[0]?.reconciles.byResult,
      { success: 1 },
      "the host's own reconciles only",
    );
    const [east, west] = state.clusters ?? [];
    assert.deepEqual(west, {
      name: "west",
      engaged: false,
      reason: "unreachable",
      synced: false,
      informers: 0,
    });
    assert.deepEqual(
      { ...east, manager: undefined },
      { name: "east", engaged: true, reason: "discovered", synced: false, informers: 1, manager: undefined },
    );
    assert.equal(east?.manager?.ready, false);
    assert.deepEqual(
      east?.manager?.controllers.map((c) => [c.name, c.kind, c.reconciles.byResult]),
      [["widget", "example.com/v1/Widget", { error: 1 }]],
    );
    assert.deepEqual(
      east?.manager?.informers.map((i) => [i.kind, i.state]),
      [["example.com/v1/Widget", "syncing"]],
    );
  });
});
