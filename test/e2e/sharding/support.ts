/**
 * The scenario of the sharded-replica tests: three replicas of a sharded operator (a process each,
 * see fixtures/) share a workload of 1,000 objects (workloads.ts) over 16 virtual shards; one is
 * killed with SIGKILL, a fourth joins; every reconcile start and end is audited.
 */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { Namespace, type ResourceType } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import { startCluster } from "../../../src/cluster/index.ts";
import { scrapeMetric } from "../../../src/testing/index.ts";
import { watch } from "../../../src/watch/index.ts";
import {
  assertNeverTogether,
  assertNoKeyTogether,
  type OperatorProcess,
  reconcileIntervals,
  runnableIntervals,
  startOperatorProcess,
} from "../fixtures/process.ts";
import { eventually, onCleanup } from "../support.ts";

/** The virtual shards the replicas share. */
export const shards = 16;
const leaseDurationMs = 8_000;
const now = () => performance.timeOrigin + performance.now();

/** Where the replicas run: a cluster's kubeconfig, an admin client of it, a namespace there. */
export interface ReplicaCluster {
  kubeconfig: string;
  client: Client;
  /** Where the Leases live (and, for a namespaced workload, its objects). */
  namespace: string;
  /** Whether its apiserver shards lists and watches (else each replica watches the kind whole, once). */
  serverShards: boolean;
}

/**
 * What the replicas run and share: an operator fixture, the objects it reconciles, and how to tell
 * they converged. Reconciles are audited by key `<controller>:<namespace>/<name>`.
 */
export interface Workload {
  /** The replica process (see fixtures/). */
  readonly script: string;
  /** The kind counted: its objects and watch events per replica. */
  readonly type: ResourceType;
  /** The kinds each replica watches once for all its shards, once merged. */
  readonly mergedKinds: readonly string[];
  /** The audit keys of the `kind` objects in `where`, one per object. */
  keys(where: ReplicaCluster): readonly string[];
  /** Installs what the operator needs (its CRDs). */
  install(where: ReplicaCluster): Promise<void>;
  /** Creates the objects. */
  create(where: ReplicaCluster): Promise<void>;
  /** Changes every object's spec. */
  change(where: ReplicaCluster): Promise<void>;
  /** Whether every object holds what its operator makes of its spec: as created, or once changed. */
  converged(where: ReplicaCluster, changed: boolean): Promise<boolean>;
}

/**
 * A control plane of the test's own, stopped when the test ends (after the replicas), with the apiserver's
 * `ShardedListAndWatch` gate as given, and a namespace for the Leases. A workload whose operator
 * watches every namespace needs one: on the run's cluster the conformance kit's operators, which
 * watch every namespace too, would reconcile its objects.
 */
export async function clusterOfItsOwn(t: TestContext, shardedListAndWatch: boolean): Promise<ReplicaCluster> {
  const cluster = await startCluster({
    apiserverArgs: [`--feature-gates=ShardedListAndWatch=${shardedListAndWatch}`],
    // etcd and the apiserver alone: the replicas are what is measured, on a machine shared with the run.
    components: { controllerManager: false, scheduler: false, kwok: false },
    report: () => {},
  });
  onCleanup(t, () => cluster.stop());
  const kubeconfig = cluster.kubeconfigPath;
  const client = new Client(await loadKubeconfig({ kubeconfig }), { qps: Number.POSITIVE_INFINITY });
  onCleanup(t, () => client.close());
  const namespace = "sharded-leases";
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  return { kubeconfig, client, namespace, serverShards: shardedListAndWatch };
}

/** What the scenario measured. */
export interface ShareOutcome {
  /** Watch events of the counted kind each of the first three replicas received while the objects were created. */
  events: number[];
  /** The events a watch of the whole kind received meanwhile: what one unsharded replica would. */
  whole: number;
  /** Objects dropped by each replica's watches because they were outside its shards. */
  outside: number[];
  /** `kubeloop_shard_client_filtered` for the kind on each replica: 1 where the apiserver does not shard. */
  clientFiltered: number[];
  /** Objects of the kind each replica caches (`kubeloop_cache_objects`). */
  cached: number[];
  /** From the SIGKILL to the last of the killed replica's objects reconciled again by another. */
  takeoverMs: number;
}

function startReplica(
  t: TestContext,
  where: ReplicaCluster,
  script: string,
  identity: string,
): OperatorProcess {
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
export function held(replica: OperatorProcess): Set<number> {
  const shardsHeld = new Set<number>();
  for (const e of replica.events) {
    if (e.event === "shard-acquired") shardsHeld.add(e.shard as number);
    if (e.event === "shard-released" || e.event === "shard-lost") shardsHeld.delete(e.shard as number);
  }
  return shardsHeld;
}

/** True when `replicas` hold every shard between them, each its fair share (⌊S/R⌋ or ⌈S/R⌉). */
export function balanced(replicas: readonly OperatorProcess[]): boolean {
  const counts = replicas.map((r) => held(r).size);
  const all = new Set(replicas.flatMap((r) => [...held(r)]));
  const fair = shards / replicas.length;
  return all.size === shards && counts.every((n) => n >= Math.floor(fair) && n <= Math.ceil(fair));
}

/** The sum of the samples of `name` for `kind` in `replica`'s /metrics. */
function kindMetric(replica: OperatorProcess, name: string, kind: string): Promise<number> {
  const port = replica.all("started")[0]?.port;
  return scrapeMetric(`http://127.0.0.1:${port}/metrics`, name, { kind });
}

/** Runs `write` for every item, 50 at a time. */
export async function forEach<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += 50) await Promise.all(items.slice(i, i + 50).map(write));
}

async function converged(where: ReplicaCluster, workload: Workload, changed: boolean): Promise<void> {
  await eventually(() => workload.converged(where, changed), {
    what: `the ${workload.type.kind} objects converged${changed ? " after a change" : ""}`,
    timeoutMs: 120_000,
    intervalMs: 1_000,
  });
}

/** Counts the watch events of the whole of `type` from now until `stop()`, which returns the count. */
function countEvents(client: Client, type: ResourceType): { stop(): number } {
  const stopped = new AbortController();
  let count = 0;
  const counted = (async () => {
    for await (const event of watch(client, type, { signal: stopped.signal })) {
      if (event.type === "initApply" || event.type === "apply" || event.type === "delete") count++;
    }
  })();
  counted.catch(() => {});
  return {
    stop: () => {
      stopped.abort();
      return count;
    },
  };
}

/**
 * Waits until each of `replicas` watches each of `kinds` once for all the shards it holds: its
 * last merge of each covers as many shards as it holds.
 */
async function watchesMerged(replicas: readonly OperatorProcess[], kinds: readonly string[]): Promise<void> {
  const mergedKind = (r: OperatorProcess, kind: string) =>
    r.all("watches-merged").findLast((e) => e.kind === kind)?.shards === held(r).size;
  await eventually(() => replicas.every((r) => kinds.every((kind) => mergedKind(r, kind))), {
    what: `each replica's shards watched through one watch of each of ${kinds.join(", ")}`,
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
 * Runs the scenario on `where`: every object reconciled, each replica reconciling about its share,
 * a killed replica's objects reconciled again by the others within the Lease duration + 5 s, the
 * shards rebalanced onto a fourth replica, and no object reconciled by two replicas at once.
 */
export async function shareObjects(
  t: TestContext,
  where: ReplicaCluster,
  workload: Workload,
): Promise<ShareOutcome> {
  await workload.install(where);
  const start = (identity: string) => startReplica(t, where, workload.script, identity);
  const replicas = ["r1", "r2", "r3"].map(start);
  await eventually(() => balanced(replicas), {
    what: "three replicas sharing the shards",
    timeoutMs: 90_000,
  });

  await oneRunsRunnable(replicas);
  if (where.serverShards) await watchesMerged(replicas, workload.mergedKinds);

  const counting = countEvents(where.client, workload.type);
  await workload.create(where);
  await converged(where, workload, false);
  const whole = counting.stop();
  const metric = (name: string) => Promise.all(replicas.map((r) => kindMetric(r, name, workload.type.kind)));
  const events = await metric("kubeloop_watch_events_total");
  const outside = await metric("kubeloop_watch_outside_shard_total");
  const clientFiltered = await metric("kubeloop_shard_client_filtered");
  const cached = await metric("kubeloop_cache_objects");
  const keys = new Set(workload.keys(where));
  const share = (replica: OperatorProcess) =>
    [...reconciled(replica)].filter((key) => keys.has(key)).length / keys.size;
  for (const replica of replicas) {
    assert.ok(
      share(replica) > 0.15 && share(replica) < 0.55,
      `${replica.identity} reconciled ${share(replica)} of the objects`,
    );
  }

  const [victim, ...survivors] = replicas as [OperatorProcess, ...OperatorProcess[]];
  const victimKeys = reconciled(victim);
  const killedAt = now();
  victim.kill("SIGKILL");
  await victim.exited;
  const reconciledAfterKill = (key: string) =>
    survivors.flatMap((s) => s.all("reconcile-start").filter((e) => e.key === key && e.at > killedAt));
  await eventually(() => [...victimKeys].every((key) => reconciledAfterKill(key).length > 0), {
    what: "the survivors to reconcile the killed replica's objects",
    timeoutMs: 60_000,
  });
  const takenOver = [...victimKeys].map((key) => Math.min(...reconciledAfterKill(key).map((e) => e.at)));
  const takeoverMs = Math.max(...takenOver) - killedAt;
  assert.ok(
    takeoverMs <= leaseDurationMs + 5_000,
    `the killed replica's objects were reconciled again after ${takeoverMs} ms`,
  );

  const fourth = start("r4");
  const live = [...survivors, fourth];
  await eventually(() => balanced(live), {
    what: "the shards rebalanced onto a fourth replica",
    timeoutMs: 90_000,
  });
  await workload.change(where);
  await converged(where, workload, true);
  assert.ok(share(fourth) > 0.1, `the fourth replica reconciles its share, not ${share(fourth)}`);
  await oneRunsRunnable(live);
  const ran = [runnableIntervals(victim, killedAt), ...live.map((r) => runnableIntervals(r))];
  for (const [i, a] of ran.entries()) for (const b of ran.slice(i + 1)) assertNeverTogether(a, b);

  assertNoKeyTogether([reconcileIntervals(victim, killedAt), ...live.map((r) => reconcileIntervals(r))]);
  return { events, whole, outside, clientFiltered, cached, takeoverMs };
}
