/**
 * The scenario of the sharded-replica tests: three replicas of a sharded operator (a process each,
 * fixtures/replica.ts) share 1,000 Widgets over 16 virtual shards by uid; one is killed with
 * SIGKILL, a fourth joins; every reconcile start and end is audited.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import type { Client } from "../../../src/client/index.ts";
import { scrapeMetric } from "../../../src/testing/index.ts";
import {
  assertNeverTogether,
  assertNoKeyTogether,
  type OperatorProcess,
  reconcileIntervals,
  runnableIntervals,
  startOperatorProcess,
} from "../fixtures/process.ts";
import { convergedWidgets, installWidgetCrd, Widget, widget } from "../fixtures/widgets.ts";
import { eventually } from "../support.ts";

const script = join(fileURLToPath(import.meta.url), "../fixtures/replica.ts");
const shards = 16;
const leaseDurationMs = 8_000;
const widgets = 1_000;
const now = () => performance.timeOrigin + performance.now();

/** Where the replicas run: a cluster's kubeconfig, an admin client of it, a namespace there. */
export interface ReplicaCluster {
  kubeconfig: string;
  client: Client;
  namespace: string;
  /** Whether its apiserver shards lists and watches (else each replica watches the kind whole, once). */
  serverShards: boolean;
}

/** What the scenario measured. */
export interface ShareOutcome {
  /** Widget watch events each of the first three replicas received while the widgets were created. */
  events: number[];
  /** Widgets dropped by each replica's watches because they were outside its shards. */
  outside: number[];
  /** `kubeloop_shard_client_filtered` for Widget on each replica: 1 where the apiserver does not shard. */
  clientFiltered: number[];
  /** Widgets each replica caches (`kubeloop_cache_objects`). */
  cached: number[];
  /** From the SIGKILL to the last of the killed replica's widgets reconciled again by another. */
  takeoverMs: number;
}

function startReplica(t: TestContext, where: ReplicaCluster, identity: string): OperatorProcess {
  return startOperatorProcess(t, script, identity, {
    KUBECONFIG: where.kubeconfig,
    OPERATOR_NAMESPACE: where.namespace,
    OPERATOR_IDENTITY: identity,
    OPERATOR_SHARDS: String(shards),
    OPERATOR_LEASE_MS: String(leaseDurationMs),
    // A takeover waits for the Lease to expire, then for the next list of the Leases (every retry
    // period, jittered up to twice that): 0.5 s keeps it well inside the Lease duration + 5 s.
    OPERATOR_RETRY_MS: "500",
  });
}

/** The shards `replica` holds, as its events tell. */
function held(replica: OperatorProcess): Set<number> {
  const shardsHeld = new Set<number>();
  for (const e of replica.events) {
    if (e.event === "shard-acquired") shardsHeld.add(e.shard as number);
    if (e.event === "shard-released" || e.event === "shard-lost") shardsHeld.delete(e.shard as number);
  }
  return shardsHeld;
}

/** True when `replicas` hold every shard between them, each its fair share (⌊S/R⌋ or ⌈S/R⌉). */
function balanced(replicas: readonly OperatorProcess[]): boolean {
  const counts = replicas.map((r) => held(r).size);
  const all = new Set(replicas.flatMap((r) => [...held(r)]));
  const fair = shards / replicas.length;
  return all.size === shards && counts.every((n) => n >= Math.floor(fair) && n <= Math.ceil(fair));
}

/** The sum of the samples of `name` for Widget in `replica`'s /metrics. */
function widgetMetric(replica: OperatorProcess, name: string): Promise<number> {
  const port = replica.all("started")[0]?.port;
  return scrapeMetric(`http://127.0.0.1:${port}/metrics`, name, { kind: "Widget" });
}

/** Runs `write` for every name, 50 at a time. */
async function forEach(names: readonly string[], write: (name: string) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map(write));
}

async function converged(
  client: Client,
  ns: string,
  names: readonly string[],
  message: (n: string) => string,
) {
  await eventually(
    async () => {
      const configMaps = await convergedWidgets(client, ns);
      return names.every((n) => configMaps.get(n) === message(n));
    },
    { what: `${names.length} widgets converged`, timeoutMs: 120_000, intervalMs: 1_000 },
  );
}

/**
 * Waits until each of `replicas` watches Widgets (by uid) and their ConfigMaps (by the shard
 * label) once for all the shards it holds: its last merge of each covers as many shards as it holds.
 */
async function watchesMerged(replicas: readonly OperatorProcess[]): Promise<void> {
  const mergedKind = (r: OperatorProcess, kind: string) =>
    r.all("watches-merged").findLast((e) => e.kind === kind)?.shards === held(r).size;
  const merged = (r: OperatorProcess) => mergedKind(r, "Widget") && mergedKind(r, "ConfigMap");
  await eventually(() => replicas.every(merged), {
    what: "each replica's shards watched through one Widget watch and one ConfigMap watch",
    timeoutMs: 30_000,
  });
}

/** Whether `replica` runs its leader-only runnable now (started and not ended). */
const runsRunnable = (replica: OperatorProcess) =>
  replica.all("runnable-start").length > replica.all("runnable-end").length;

/** Waits until exactly one of `replicas` runs the leader-only runnable (the holder of shard 0). */
async function oneRunsRunnable(replicas: readonly OperatorProcess[]): Promise<void> {
  await eventually(() => replicas.filter(runsRunnable).length === 1 && replicas.some((r) => held(r).has(0)), {
    what: "one replica, shard 0's holder, running the leader-only runnable",
    timeoutMs: 30_000,
  });
  const runner = replicas.find(runsRunnable);
  assert.ok(runner && held(runner).has(0), `${runner?.identity} runs the runnable without holding shard 0`);
}

/** The keys `replica` reconciled. */
const reconciled = (replica: OperatorProcess) =>
  new Set(replica.all("reconcile-start").map((e) => e.key as string));

/**
 * Runs the scenario on `where`: every widget reconciled, each replica reconciling about its share,
 * a killed replica's widgets reconciled again by the others within the Lease duration + 5 s, the
 * shards rebalanced onto a fourth replica, and no widget reconciled by two replicas at once.
 */
export async function shareWidgets(t: TestContext, where: ReplicaCluster): Promise<ShareOutcome> {
  const { client, namespace: ns } = where;
  await installWidgetCrd(where.kubeconfig);
  const replicas = ["r1", "r2", "r3"].map((identity) => startReplica(t, where, identity));
  await eventually(() => balanced(replicas), {
    what: "three replicas sharing the shards",
    timeoutMs: 90_000,
  });

  await oneRunsRunnable(replicas);
  if (where.serverShards) await watchesMerged(replicas);

  const names = Array.from({ length: widgets }, (_, i) => `w${i}`);
  await forEach(names, (n) => client.create(Widget, widget(ns, n, `hello ${n}`)));
  await converged(client, ns, names, (n) => `hello ${n}`);
  const events = await Promise.all(replicas.map((r) => widgetMetric(r, "kubeloop_watch_events_total")));
  const outside = await Promise.all(
    replicas.map((r) => widgetMetric(r, "kubeloop_watch_outside_shard_total")),
  );
  const clientFiltered = await Promise.all(
    replicas.map((r) => widgetMetric(r, "kubeloop_shard_client_filtered")),
  );
  const cached = await Promise.all(replicas.map((r) => widgetMetric(r, "kubeloop_cache_objects")));
  for (const replica of replicas) {
    const share = reconciled(replica).size / widgets;
    assert.ok(share > 0.15 && share < 0.55, `${replica.identity} reconciled ${share} of the widgets`);
  }

  const [victim, ...survivors] = replicas as [OperatorProcess, ...OperatorProcess[]];
  const victimKeys = reconciled(victim);
  const killedAt = now();
  victim.kill("SIGKILL");
  await victim.exited;
  const reconciledAfterKill = (key: string) =>
    survivors.flatMap((s) => s.all("reconcile-start").filter((e) => e.key === key && e.at > killedAt));
  await eventually(() => [...victimKeys].every((key) => reconciledAfterKill(key).length > 0), {
    what: "the survivors to reconcile the killed replica's widgets",
    timeoutMs: 60_000,
  });
  const takenOver = [...victimKeys].map((key) => Math.min(...reconciledAfterKill(key).map((e) => e.at)));
  const takeoverMs = Math.max(...takenOver) - killedAt;
  assert.ok(
    takeoverMs <= leaseDurationMs + 5_000,
    `the killed replica's widgets were reconciled again after ${takeoverMs} ms`,
  );

  const fourth = startReplica(t, where, "r4");
  const live = [...survivors, fourth];
  await eventually(() => balanced(live), {
    what: "the shards rebalanced onto a fourth replica",
    timeoutMs: 90_000,
  });
  await forEach(names, (n) =>
    client.patch(Widget, n, { spec: { message: `again ${n}` } }, { type: "merge", namespace: ns }),
  );
  await converged(client, ns, names, (n) => `again ${n}`);
  assert.ok(reconciled(fourth).size > 0.1 * widgets, "the fourth replica reconciles its share");
  await oneRunsRunnable(live);
  const ran = [runnableIntervals(victim, killedAt), ...live.map((r) => runnableIntervals(r))];
  for (const [i, a] of ran.entries()) for (const b of ran.slice(i + 1)) assertNeverTogether(a, b);

  assertNoKeyTogether([reconcileIntervals(victim, killedAt), ...live.map((r) => reconcileIntervals(r))]);
  return { events, outside, clientFiltered, cached, takeoverMs };
}

/** The number of widgets of the scenario. */
export const widgetCount = widgets;
