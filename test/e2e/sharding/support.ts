/**
 * The scenario of the sharded-replica tests: three replicas of a sharded operator, run as deployed
 * (test/e2e/fixtures/deployed.ts: the generated Deployment's args with `--shards`, pod identities,
 * the generated RBAC and the shards' default timings), share a workload of 1,000 objects
 * (workloads.ts) over 16 virtual shards; one is killed with SIGKILL, a fourth joins; every
 * reconcile start and end is audited.
 */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import type { ResourceType } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import {
  inRanges,
  SHARD_LABEL,
  type ShardRange,
  shardHash,
  splitHashSpace,
} from "../../../src/sharding/index.ts";
import { watch } from "../../../src/watch/index.ts";
import { longestFailoverMs } from "../election/support.ts";
import { type DeployedOperator, deploy, ownCluster, type Replica } from "../fixtures/deployed.ts";
import { wallClockMs } from "../fixtures/emit.ts";
import {
  assertNeverTogether,
  assertNoKeyTogether,
  type OperatorProcess,
  reconcileIntervals,
  runnableIntervals,
} from "../fixtures/process.ts";
import { eventually, onCleanup } from "../support.ts";

/** The virtual shards the replicas share. */
export const shards = 16;
/** The shards' default Lease timings, which the generated Deployment keeps. */
const timings = { leaseDurationMs: 15_000, retryPeriodMs: 2_000 };

/** Where the replicas run: a cluster's kubeconfig, an admin client of it, a namespace there. */
export interface ReplicaCluster {
  kubeconfig: string;
  client: Client;
  /** A namespace for a workload's objects. */
  namespace: string;
  /** Whether its apiserver shards lists and watches (else each replica watches the kind whole, once). */
  serverShards: boolean;
}

/**
 * What the replicas run and share: an operator fixture, the objects it reconciles, and how to tell
 * they converged. Reconciles are audited by key `<controller>:<namespace>/<name>`.
 */
export interface Workload {
  /** The operator module's text (fixtures/operators.ts), run in `where`. */
  module(where: ReplicaCluster): string;
  /** Its `kubeloop generate` flags: the shards and their key, and what else it needs. */
  readonly generate: readonly string[];
  /** The kind counted: its objects and watch events per replica. */
  readonly type: ResourceType;
  /** The kinds each replica watches once for all its shards, once merged. */
  readonly mergedKinds: readonly string[];
  /** The audit keys of the `kind` objects in `where`, one per object. */
  keys(where: ReplicaCluster): readonly string[];
  /** Installs what the operator needs besides its generated manifests. */
  install?(where: ReplicaCluster): Promise<void>;
  /** Creates the objects. */
  create(where: ReplicaCluster): Promise<void>;
  /** Changes every object's spec. */
  change(where: ReplicaCluster): Promise<void>;
  /** Whether every object holds what its operator makes of its spec: as created, or once changed. */
  converged(where: ReplicaCluster, changed: boolean): Promise<boolean>;
}

/**
 * A control plane of the test's own (fixtures/deployed.ts), with the apiserver's
 * `ShardedListAndWatch` gate as given. A workload whose operator watches every namespace needs
 * one: on the run's cluster the conformance kit's operators, which watch every namespace too,
 * would reconcile its objects.
 */
export async function clusterOfItsOwn(t: TestContext, shardedListAndWatch: boolean): Promise<ReplicaCluster> {
  const kubeconfig = await ownCluster(t, [`--feature-gates=ShardedListAndWatch=${shardedListAndWatch}`]);
  const client = new Client(await loadKubeconfig({ kubeconfig }), { qps: Number.POSITIVE_INFINITY });
  onCleanup(t, () => client.close());
  return { kubeconfig, client, namespace: "sharded", serverShards: shardedListAndWatch };
}

/** What the scenario measured. */
export interface ShareOutcome {
  /** Watch events of the counted kind each of the first three replicas received while the objects were created. */
  events: number[];
  /** The events a watch of the whole kind received meanwhile: what one unsharded replica would. */
  whole: number;
  /**
   * The objects made meanwhile whose first watch event carried no shard label: 0 where the
   * operator's mutating webhook labels each at creation.
   */
  firstUnlabelled: number;
  /** Objects dropped by each replica's watches because they were outside its shards. */
  outside: number[];
  /** `kubeloop_shard_client_filtered` for the kind on each replica: 1 where the apiserver does not shard. */
  clientFiltered: number[];
  /** `kubeloop_shard_labelled` for the kind on each replica: 1 where it is placed by the shard label. */
  labelled: number[];
  /** Objects of the kind each replica caches (`kubeloop_cache_objects`). */
  cached: number[];
  /** From the SIGKILL to the last of the killed replica's objects reconciled again by another. */
  takeoverMs: number;
  /** What the four live replicas received while every object's spec changed, their watches merged. */
  steady: SteadyEvents;
}

/** Watch events of the counted kind over a phase: per live replica, and of a watch of the whole kind. */
export interface SteadyEvents {
  /** What each replica received. */
  events: number[];
  /** What a watch of the whole kind received. */
  whole: number;
  /** The part of the objects in each replica's shards (by the hash of their namespace). */
  shares: number[];
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

/** True when `replicas` hold every one of `count` shards between them, each its fair share (⌊S/R⌋ or ⌈S/R⌉). */
export function balanced(replicas: readonly OperatorProcess[], count = shards): boolean {
  const counts = replicas.map((r) => held(r).size);
  const all = new Set(replicas.flatMap((r) => [...held(r)]));
  const fair = count / replicas.length;
  return all.size === count && counts.every((n) => n >= Math.floor(fair) && n <= Math.ceil(fair));
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

/** What a watch of the whole kind received over a phase. */
interface WholeWatch {
  /** Its events. */
  readonly events: number;
  /** The objects it first saw without the shard label (an ADDED event of an object made unlabelled). */
  readonly firstUnlabelled: number;
}

/** Counts the watch events of the whole of `type` from now until `stop()`, which returns the counts. */
function countEvents(client: Client, type: ResourceType): { stop(): WholeWatch } {
  const stopped = new AbortController();
  let events = 0;
  const seen = new Set<string>();
  let firstUnlabelled = 0;
  const counted = (async () => {
    for await (const event of watch(client, type, { signal: stopped.signal })) {
      if (event.type === "init" || event.type === "initDone") continue;
      events++;
      const { uid = "", labels = {} } = event.object.metadata;
      if (event.type === "apply" && !seen.has(uid) && !(SHARD_LABEL in labels)) firstUnlabelled++;
      seen.add(uid);
    }
  })();
  counted.catch(() => {});
  return {
    stop: () => {
      stopped.abort();
      return { events, firstUnlabelled };
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

/**
 * Why a takeover did not end: the killed replica's keys no survivor reconciled since `killedAt`,
 * each with the last replica that began reconciling it before, and the shards each survivor holds
 * and acquired since.
 */
function untakenOver(
  victim: OperatorProcess,
  survivors: readonly OperatorProcess[],
  victimKeys: ReadonlySet<string>,
  killedAt: number,
): string {
  const last = lastStarts([victim, ...survivors]);
  const missing = [...victimKeys].filter((key) => (last.get(key)?.at ?? 0) <= killedAt);
  const keys = missing.slice(0, 10).map((key) => `${key} (last by ${last.get(key)?.by.identity})`);
  const shardsOf = survivors.map((r) => {
    const acquired = r
      .all("shard-acquired")
      .filter((e) => (e.at as number) > killedAt)
      .map((e) => e.shard);
    return `${r.identity} holds [${[...held(r)].sort((a, b) => a - b)}], acquired [${acquired}] since`;
  });
  return `${missing.length} key(s) not reconciled again: ${keys.join(", ")}; ${shardsOf.join("; ")}`;
}

/** Each key's last reconcile begun among `replicas`: by which replica, and when. */
function lastStarts(replicas: readonly OperatorProcess[]): Map<string, { by: OperatorProcess; at: number }> {
  const last = new Map<string, { by: OperatorProcess; at: number }>();
  for (const by of replicas) {
    for (const e of by.all("reconcile-start")) {
      const at = e.at as number;
      if ((last.get(e.key as string)?.at ?? Number.NEGATIVE_INFINITY) < at)
        last.set(e.key as string, { by, at });
    }
  }
  return last;
}

/** The keys whose last reconcile begun among `replicas` was begun by `replica`. */
function lastReconciledBy(replica: OperatorProcess, replicas: readonly OperatorProcess[]): Set<string> {
  return new Set([...lastStarts(replicas)].filter(([, { by }]) => by === replica).map(([key]) => key));
}

/** The keys `replica` reconciled. */
const reconciled = (replica: OperatorProcess) =>
  new Set(replica.all("reconcile-start").map((e) => e.key as string));

/**
 * Changes every object's spec once `live` watch through merged watches, and counts the watch events
 * of the kind each replica received meanwhile, beside those of a watch of the whole kind.
 */
async function steadyEvents(
  where: ReplicaCluster,
  workload: Workload,
  operator: DeployedOperator,
  live: readonly Replica[],
): Promise<SteadyEvents> {
  await watchesMerged(live, workload.mergedKinds);
  const received = () =>
    Promise.all(
      live.map((r) => operator.metric(r, "kubeloop_watch_events_total", { kind: workload.type.kind })),
    );
  const before = await received();
  const counting = countEvents(where.client, workload.type);
  await workload.change(where);
  await converged(where, workload, true);
  const whole = counting.stop().events;
  const after = await received();
  const keys = workload.keys(where);
  const ranges = splitHashSpace(shards);
  const inShards = (replica: Replica, key: string) => {
    const namespace = key.slice(key.indexOf(":") + 1).split("/")[0] ?? "";
    return [...held(replica)].some((i) => inRanges(shardHash(namespace), [ranges[i] as ShardRange]));
  };
  return {
    events: after.map((n, i) => n - (before[i] ?? 0)),
    whole,
    shares: live.map((r) => keys.filter((key) => inShards(r, key)).length / keys.length),
  };
}

/**
 * Runs the scenario on `where`: every object reconciled, each replica reconciling about its share,
 * a killed replica's objects reconciled again by the others within a Lease duration, two jittered
 * retry periods and 10 s, the shards rebalanced onto a fourth replica, and no object reconciled
 * by two replicas at once.
 */
export async function shareObjects(
  t: TestContext,
  where: ReplicaCluster,
  workload: Workload,
): Promise<ShareOutcome> {
  await workload.install?.(where);
  const operator = await deploy(t, {
    module: workload.module(where),
    generate: [`--shards=${shards}`, "--replicas=3", ...workload.generate],
    kubeconfig: where.kubeconfig,
  });
  const replicas = [
    await operator.startReplica(),
    await operator.startReplica(),
    await operator.startReplica(),
  ];
  await eventually(() => balanced(replicas), {
    what: "three replicas sharing the shards",
    timeoutMs: 90_000,
  });

  await oneRunsRunnable(replicas);
  if (where.serverShards) await watchesMerged(replicas, workload.mergedKinds);

  const counting = countEvents(where.client, workload.type);
  await workload.create(where);
  await converged(where, workload, false);
  const { events: whole, firstUnlabelled } = counting.stop();
  const metric = (name: string) =>
    Promise.all(replicas.map((r) => operator.metric(r, name, { kind: workload.type.kind })));
  const events = await metric("kubeloop_watch_events_total");
  const outside = await metric("kubeloop_watch_outside_shard_total");
  const clientFiltered = await metric("kubeloop_shard_client_filtered");
  const labelled = await metric("kubeloop_shard_labelled");
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

  const [victim, ...survivors] = replicas as [Replica, ...Replica[]];
  const killedAt = wallClockMs();
  // The keys the victim held when killed: those it was the last to begin reconciling. A key it
  // reconciled while holding a shard that moved to a survivor before the kill (replicas still even
  // out their shares after the first balance) is the survivor's, reconciled by it when it took the shard.
  const victimKeys = lastReconciledBy(victim, replicas);
  assert.ok(victimKeys.size > 0, `${victim.identity} held no key when killed`);
  // SIGKILL: a crash, after which nothing releases the shards (rolling-update.test.ts stops replicas with SIGTERM).
  await operator.stop(victim, "SIGKILL");
  const reconciledAfterKill = (key: string) =>
    survivors.flatMap((s) => s.all("reconcile-start").filter((e) => e.key === key && e.at > killedAt));
  await eventually(() => [...victimKeys].every((key) => reconciledAfterKill(key).length > 0), {
    what: "the survivors to reconcile the killed replica's objects",
    timeoutMs: 60_000,
  }).catch((err: Error) => {
    throw new Error(`${err.message}: ${untakenOver(victim, survivors, victimKeys, killedAt)}`);
  });
  const takenOver = [...victimKeys].map((key) => Math.min(...reconciledAfterKill(key).map((e) => e.at)));
  const takeoverMs = Math.max(...takenOver) - killedAt;
  // The shards' Leases expire, the survivors see it at their next list (every retry period,
  // jittered), take them, sync their caches and reconcile what they hold.
  assert.ok(
    takeoverMs <= longestFailoverMs(timings, 10_000),
    `the killed replica's objects were reconciled again after ${takeoverMs} ms`,
  );

  const fourth = await operator.startReplica();
  const live = [...survivors, fourth];
  await eventually(() => balanced(live), {
    what: "the shards rebalanced onto a fourth replica",
    timeoutMs: 90_000,
  });
  const steady = await steadyEvents(where, workload, operator, live);
  assert.ok(share(fourth) > 0.1, `the fourth replica reconciles its share, not ${share(fourth)}`);
  await oneRunsRunnable(live);
  const ran = [runnableIntervals(victim, killedAt), ...live.map((r) => runnableIntervals(r))];
  for (const [i, a] of ran.entries()) for (const b of ran.slice(i + 1)) assertNeverTogether(a, b);

  assertNoKeyTogether([reconcileIntervals(victim, killedAt), ...live.map((r) => reconcileIntervals(r))]);
  return { events, whole, firstUnlabelled, outside, clientFiltered, labelled, cached, takeoverMs, steady };
}
