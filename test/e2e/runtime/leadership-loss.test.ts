/**
 * Two managers campaign for one Lease, in this process: `a` talks to the apiserver through the
 * fault proxy, which records every request it sends. `a` leads, and its reconcile keeps writing a
 * ConfigMap every 200 ms while ignoring its signal; `b` stands by with warm caches. Then the
 * Lease is stolen for `b` with the admin client: from the moment `a` sees it lost, no write of
 * `a`'s reaches the apiserver, its reconcile's signal is aborted, its `start()` rejects with
 * `LeadershipLostError`, and `b` reconciles at once.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { controller, type ReconcileContext } from "../../../src/controller/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { startProxy, upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import { stealLease } from "../fixtures/leases.ts";
import { eventually, kubeconfigPath, onCleanup, testClient, testLogger, testNamespace } from "../support.ts";

const timings = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 };
const lease = "beats";

/** What one manager's reconciles of the `trigger` ConfigMap did. */
interface Beats {
  contexts: ReconcileContext<ConfigMapObject>[];
  written: number;
  errors: unknown[];
}

/**
 * A manager of ConfigMaps in `namespace` whose reconcile of `trigger` writes ConfigMap
 * `beat-<identity>` every 200 ms until `stopped()`, whatever its signal says.
 */
async function beatingManager(
  namespace: string,
  identity: string,
  stopped: () => boolean,
  kubeconfig: string,
) {
  const manager = await Manager.create({
    name: `beats-${identity}`,
    namespace,
    config: { kubeconfig },
    clientOptions: { qps: Number.POSITIVE_INFINITY },
    metrics: false,
    health: { host: "127.0.0.1", port: 0 },
    leaderElection: { name: lease, namespace, identity, ...timings },
    gracefulShutdownMs: 1_000,
    logger: testLogger(),
  });
  const beats: Beats = { contexts: [], written: 0, errors: [] };
  controller(manager)
    .for(ConfigMap)
    .reconcile(async (ctx) => {
      if (ctx.request.name !== "trigger") return;
      beats.contexts.push(ctx);
      while (!stopped()) {
        const beat = { n: String(beats.written + beats.errors.length) };
        await ctx.client
          .apply(
            ConfigMap,
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: `beat-${identity}`, namespace },
              data: beat,
            },
            { force: true },
          )
          .then(
            () => beats.written++,
            (err: unknown) => beats.errors.push(err),
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  return { manager, beats };
}

/** How a manager's `start` ended, once it has. */
interface Ending {
  ended: boolean;
  error?: unknown;
}

/** Starts `manager`; stops it when the test ends. */
function run(t: TestContext, manager: Manager, beforeStop: () => void): Ending {
  const stop = new AbortController();
  const ending: Ending = { ended: false };
  const running = manager.start(stop.signal).then(
    () => {
      ending.ended = true;
    },
    (error: unknown) => {
      Object.assign(ending, { ended: true, error });
    },
  );
  onCleanup(t, async () => {
    beforeStop();
    stop.abort();
    await running;
  });
  return ending;
}

test("a leader that loses its Lease writes nothing more; the warm follower takes over at once", async (t) => {
  const ns = await testNamespace(t);
  const admin = await testClient();
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  await admin.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "trigger", namespace: ns },
  });

  const a = await beatingManager(ns, "a", () => stopped, proxy.kubeconfig());
  const aEnded = run(t, a.manager, stop);
  await eventually(() => a.manager.isLeader() && a.beats.written >= 3, { what: "a to lead and write" });

  const b = await beatingManager(ns, "b", () => stopped, kubeconfigPath());
  const bEnded = run(t, b.manager, stop);
  await eventually(() => b.manager.ready, { what: "b's caches to sync" });
  assert.equal(b.manager.isLeader(), false, "b follows");
  assert.ok(b.manager.cache.synced, "the follower's caches are synced before it leads");
  assert.ok(b.manager.cache.informer(ConfigMap).store.get(`${ns}/trigger`), "and hold the trigger");
  assert.equal(b.beats.contexts.length, 0, "a follower does not reconcile");

  const stolenAt = await stealLease(admin, lease, ns, "b");
  const lostAt = await eventually(() => !a.manager.isLeader() && Date.now(), {
    what: "a to see it lost",
    intervalMs: 20,
  });
  await eventually(() => aEnded.ended, { what: "a's start() to end", timeoutMs: 5_000 });
  await eventually(() => b.beats.written >= 3, { what: "b to take over and write" });
  const fencedFrom = a.beats.errors.length;
  await eventually(() => a.beats.errors.length >= fencedFrom + 5, { what: "a's reconcile to keep trying" });

  const aWrites = proxy.requests().filter((r) => r.resource === "configmaps" && r.verb === "patch");
  const late = aWrites.filter((r) => r.startedAt > lostAt + 1_000);
  t.diagnostic(
    `a noticed ${lostAt - stolenAt} ms after the steal; ${aWrites.length} writes of a reached the apiserver, ` +
      `the last ${(aWrites.at(-1)?.startedAt ?? 0) - lostAt} ms after it noticed; ${a.beats.errors.length} refused`,
  );
  assert.deepEqual(late, [], "no write of a's reached the apiserver after it lost the Lease");
  assert.ok(lostAt - stolenAt < timings.renewDeadlineMs, "a noticed before its renew deadline");
  assert.equal((aEnded.error as { code?: string } | undefined)?.code, "KL_LEADERSHIP_LOST");
  const signal = a.beats.contexts[0]?.signal;
  assert.equal(signal?.aborted, true, "a's reconcile was told to stop");
  assert.equal((signal?.reason as { code?: string } | undefined)?.code, "KL_LEADERSHIP_LOST");
  assert.ok(
    a.beats.errors.slice(fencedFrom).every((e) => (e as { code?: string }).code === "KL_WRITE_FENCED"),
    "every later write was refused by the fence",
  );
  assert.equal(b.manager.isLeader(), true);
  assert.equal(bEnded.ended, false);
});
