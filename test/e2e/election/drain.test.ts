/**
 * A leader told to stop (a rolling update's SIGTERM) keeps its Lease renewed while its in-flight
 * reconcile drains, for longer than a lease duration, and releases it only after: the follower
 * never reconciles while the old leader still does. If the renewals fail during that drain,
 * leadership is lost a renew deadline after the last successful one: from that moment the old
 * leader's writes are refused and its reconcile aborted, before the follower can take over.
 * Two managers in this process, with the default timings (lease 15 s, renew deadline 10 s, retry
 * 2 s, graceful shutdown 30 s), campaign for one Lease; `a` talks through a fault proxy.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { ConfigMap, type ConfigMapObject, Lease } from "../../../src/api/index.ts";
import { controller, type ReconcileContext } from "../../../src/controller/index.ts";
import { defaultElectionTimings } from "../../../src/election/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { startProxy, upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import { eventually, kubeconfigPath, onCleanup, testClient, testLogger, testNamespace } from "../support.ts";

const lease = "drain";
const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = defaultElectionTimings;

/** What one manager's reconciles of the `trigger` ConfigMap did, with times (epoch ms). */
interface Trace {
  starts: number[];
  ends: number[];
  contexts: ReconcileContext<ConfigMapObject>[];
  /** When the first reconcile's signal aborted. */
  abortedAt?: number;
  written: number[];
  refused: unknown[];
}

/** A manager of ConfigMaps in `namespace` whose reconcile of `trigger` runs `work`. */
async function drainingManager(
  namespace: string,
  identity: string,
  kubeconfig: string,
  work: (ctx: ReconcileContext<ConfigMapObject>, trace: Trace) => Promise<void>,
) {
  const manager = await Manager.create({
    name: `drain-${identity}`,
    namespace,
    config: { kubeconfig },
    clientOptions: { qps: Number.POSITIVE_INFINITY },
    metrics: false,
    health: { host: "127.0.0.1", port: 0 },
    leaderElection: { name: lease, namespace, identity },
    logger: testLogger(),
  });
  const trace: Trace = { starts: [], ends: [], contexts: [], written: [], refused: [] };
  controller(manager)
    .for(ConfigMap)
    .reconcile(async (ctx) => {
      if (ctx.request.name !== "trigger") return;
      trace.starts.push(Date.now());
      trace.contexts.push(ctx);
      ctx.signal.addEventListener("abort", () => (trace.abortedAt ??= Date.now()), { once: true });
      try {
        await work(ctx, trace);
      } finally {
        trace.ends.push(Date.now());
      }
    });
  return { manager, trace };
}

/** Writes ConfigMap `beat-<identity>` through the reconcile's client, noting whether it went through. */
async function beat(ctx: ReconcileContext<ConfigMapObject>, trace: Trace, identity: string): Promise<void> {
  const { namespace = "" } = ctx.request;
  const body = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `beat-${identity}`, namespace },
  } as const;
  await ctx.client.apply(ConfigMap, { ...body, data: { at: String(Date.now()) } }, { force: true }).then(
    () => trace.written.push(Date.now()),
    (err: unknown) => trace.refused.push(err),
  );
}

/** Starts `manager`; returns a function that stops it and how its start ended. Stopped when the test ends. */
function run(t: TestContext, manager: Manager) {
  const stop = new AbortController();
  const ending: { ended: boolean; error?: unknown } = { ended: false };
  const running = manager.start(stop.signal).then(
    () => Object.assign(ending, { ended: true }),
    (error: unknown) => Object.assign(ending, { ended: true, error }),
  );
  onCleanup(t, async () => {
    stop.abort();
    await running;
  });
  return { stop: () => stop.abort(), ending };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A namespace with the `trigger` ConfigMap both managers reconcile. */
async function withTrigger(t: TestContext): Promise<string> {
  const ns = await testNamespace(t);
  const trigger = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "trigger", namespace: ns },
  } as const;
  await (await testClient()).create(ConfigMap, trigger);
  return ns;
}

test("a leader told to stop keeps its Lease renewed while its reconcile drains, and the follower starts after it", async (t) => {
  const ns = await withTrigger(t);
  let stoppedAt = Number.POSITIVE_INFINITY;
  // Told to stop, the reconcile still needs a lease duration and a half to finish (a slow external call).
  const drainMs = 1.5 * leaseDurationMs;
  const a = await drainingManager(ns, "a", kubeconfigPath(), async (ctx, trace) => {
    while (Date.now() < stoppedAt + drainMs) await sleep(200);
    await beat(ctx, trace, "a");
  });
  const aRun = run(t, a.manager);
  await eventually(() => a.trace.starts.length === 1, { what: "a to lead and reconcile" });
  const b = await drainingManager(ns, "b", kubeconfigPath(), async () => {});
  run(t, b.manager);
  await eventually(() => b.manager.ready, { what: "b's caches to sync" });

  stoppedAt = Date.now();
  aRun.stop();
  await sleep(leaseDurationMs + retryPeriodMs);
  const held = (await (await testClient()).get(Lease, lease, { namespace: ns })).spec;
  assert.equal(
    held?.holderIdentity,
    "a",
    "a still holds the Lease a lease duration after it was told to stop",
  );
  assert.ok(Date.parse(String(held?.renewTime)) > stoppedAt + leaseDurationMs - 2 * retryPeriodMs, "renewed");
  assert.deepEqual(b.trace.starts, [], "b has not reconciled");

  await eventually(() => aRun.ending.ended, { what: "a to stop", timeoutMs: drainMs + 15_000 });
  await eventually(() => b.trace.starts.length > 0, { what: "b to take over", timeoutMs: 15_000 });
  const [aEnd] = a.trace.ends;
  const [bStart] = b.trace.starts;
  t.diagnostic(
    `a's reconcile ended ${Math.round((aEnd ?? 0) - stoppedAt)} ms after the stop; b started ${Math.round((bStart ?? 0) - (aEnd ?? 0))} ms later`,
  );
  assert.equal(aRun.ending.error, undefined, "a stopped cleanly");
  assert.equal(a.trace.written.length, 1, "a's last write, while it still held the Lease, went through");
  assert.equal(a.trace.contexts[0]?.signal.aborted, false, "a's reconcile was never aborted");
  assert.ok(aEnd !== undefined && bStart !== undefined && bStart > aEnd, "b reconciled only after a's drain");
  assert.ok(
    (bStart ?? 0) - (aEnd ?? 0) < 2.2 * retryPeriodMs + 2_000,
    "a released the Lease: b took it at once",
  );
});

test("renewals failing during the drain lose leadership a renew deadline after the last one: a's writes are fenced before b starts", async (t) => {
  const ns = await withTrigger(t);
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  // Told to stop, the reconcile keeps writing until its signal aborts (the grace of 30 s, or a loss).
  const a = await drainingManager(ns, "a", proxy.kubeconfig(), async (ctx, trace) => {
    while (!ctx.signal.aborted) {
      await beat(ctx, trace, "a");
      await sleep(250);
    }
  });
  const aRun = run(t, a.manager);
  await eventually(() => a.trace.written.length >= 3, { what: "a to lead and write" });
  const b = await drainingManager(ns, "b", kubeconfigPath(), async () => {});
  run(t, b.manager);
  await eventually(() => b.manager.ready, { what: "b's caches to sync" });

  aRun.stop();
  await sleep(2 * retryPeriodMs); // a renews while it drains
  const failedFrom = Date.now();
  proxy.inject({ resource: "leases" }, { status: 503 });
  await eventually(() => a.trace.abortedAt !== undefined, {
    what: "a's reconcile to be aborted",
    timeoutMs: 20_000,
  });
  const lostAt = a.trace.abortedAt ?? 0;
  await eventually(() => b.trace.starts.length > 0, { what: "b to take over", timeoutMs: 30_000 });
  await eventually(() => aRun.ending.ended, { what: "a to stop" });

  const reason = a.trace.contexts[0]?.signal.reason as { code?: string } | undefined;
  const aWrites = proxy.requests().filter((r) => r.resource === "configmaps" && r.verb === "patch");
  const late = aWrites.filter((r) => r.startedAt > lostAt + 200);
  t.diagnostic(
    `renewals failing from ${failedFrom}; a lost leadership ${lostAt - failedFrom} ms later; b started ${(b.trace.starts[0] ?? 0) - lostAt} ms after that`,
  );
  assert.equal(reason?.code, "KL_LEADERSHIP_LOST", "aborted because leadership was lost, not by the grace");
  assert.ok(
    lostAt - failedFrom <= renewDeadlineMs + 1_000,
    `lost ${lostAt - failedFrom} ms after renewals failed`,
  );
  assert.deepEqual(late, [], "no write of a's reached the apiserver after it lost the Lease");
  assert.ok((b.trace.starts[0] ?? 0) > lostAt, "b started after a was fenced");
  assert.equal((aRun.ending.error as { code?: string } | undefined)?.code, "KL_LEADERSHIP_LOST");
});
