/**
 * A fleet's clusters spread over its replicas, end to end: the hub (the run's cluster) holds the
 * kubeconfig Secrets of three member clusters (`testFleet`), and three fleet replicas,
 * processes of their own (fixtures/fleet-replica.ts), share them with a Lease per cluster in the
 * hub. Every cluster is engaged by exactly one replica; a replica killed with SIGKILL has its
 * clusters reconciled by another within the Lease duration + 2 s; and the replicas' printed
 * reconcile intervals show no key (`<cluster>/<namespace>/<name>`) reconciled by two at once.
 * Then a rolling update, as a Deployment's: three new replicas replace three old ones one at a
 * time (a new one started and a member, then an old one stopped with SIGTERM and exited) while a
 * writer keeps changing every member's ConfigMap; each old replica exits 0 having released its
 * cluster after its reconciles drained, every change is reconciled, the new replicas end up with
 * a cluster each, and no key was reconciled by two replicas at once.
 */
import assert from "node:assert/strict";
import { after, before, describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigMap, Lease, type LeaseObject } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { readLeaseRecord } from "../../../src/election/index.ts";
import { type TestFleet, testFleet } from "../../../src/testing/index.ts";
import {
  assertNoKeyTogether,
  killAtEnd,
  type OperatorEvent,
  OperatorProcess,
  reconcileIntervals,
  tsxScript,
} from "../fixtures/process.ts";
import { eventually, testClient } from "../support.ts";

/**
 * Shorter than the default Lease (15 s) only to keep the takeover and the rollouts quick; the
 * timings are derived as client-go derives them (renew deadline 2/3, retry 1/12 of the Lease), and
 * the election at its defaults is what the sharded rolling-update e2e runs.
 */
const LEASE_MS = 6000;
/** The label of the member ConfigMaps the replicas reconcile. */
const WORK_LABEL = "fleet.kubeloop.dev/work";
const script = fileURLToPath(new URL("./fixtures/fleet-replica.ts", import.meta.url));
/** The member ConfigMap the replicas reconcile, and its reconcile key in cluster `c`. */
const WORK = { name: "work", namespace: "default" };
const workKey = (cluster: string) => `${cluster}/${WORK.namespace}/${WORK.name}`;

/** The clusters `replica` engages now, from its printed engagements. */
function engagedBy(replica: OperatorProcess): Set<string> {
  const engaged = new Set<string>();
  for (const e of replica.events) {
    if (e.event === "engaged") engaged.add(e.cluster as string);
    if (e.event === "disengaged") engaged.delete(e.cluster as string);
  }
  return engaged;
}

/** Whether each of `clusters` is engaged by exactly one of `replicas`, and each replica engages at most `most`. */
function sharedOnce(replicas: OperatorProcess[], clusters: string[], most: number): boolean {
  const sets = replicas.map(engagedBy);
  const once = clusters.every((c) => sets.filter((s) => s.has(c)).length === 1);
  return once && sets.every((s) => s.size <= most);
}

/** A change of a member's work ConfigMap: `data.gen` set to `gen`, sent at `at` (epoch ms). */
interface Change {
  cluster: string;
  gen: number;
  at: number;
}

/** Sets `data.gen` of each member's work ConfigMap in turn, one change every 100 ms, until stopped. */
function changeContinuously(clients: ReadonlyMap<string, Client>): {
  changes: Change[];
  stop(): Promise<void>;
} {
  const changes: Change[] = [];
  const clusters = [...clients.keys()];
  let stopped = false;
  const loop = (async () => {
    for (let gen = 1; !stopped; gen++) {
      const cluster = clusters[gen % clusters.length] as string;
      const at = Date.now();
      const patch = { data: { gen: String(gen) } };
      await clients
        .get(cluster)
        ?.patch(ConfigMap, WORK.name, patch, { type: "merge", namespace: WORK.namespace });
      changes.push({ cluster, gen, at });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    changes,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * How long after it was sent each of `changes` was first reconciled by one of `replicas` (a
 * reconcile of its cluster saw its `gen` or a later one), in ms; `undefined` while one is not.
 */
function reconcileLatencies(
  changes: readonly Change[],
  replicas: readonly OperatorProcess[],
): number[] | undefined {
  const starts = replicas.flatMap((r) => r.all("reconcile-start"));
  const latencies: number[] = [];
  for (const change of changes) {
    const seen = starts.filter((e) => e.key === workKey(change.cluster) && Number(e.gen) >= change.gen);
    if (seen.length === 0) return undefined;
    latencies.push(Math.min(...seen.map((e) => e.at)) - change.at);
  }
  return latencies;
}

/**
 * What went wrong when `old`, stopped with SIGTERM at `stoppedAt`, let go of `clusters`: each must
 * be released (its Lease) after `old` disengaged it and its last reconcile of it ended, `old` must
 * not reconcile it afterwards, and no other of `replicas` may reconcile it after `stoppedAt` before
 * that release. Empty when nothing did.
 */
function releaseFaults(
  old: OperatorProcess,
  clusters: readonly string[],
  replicas: readonly OperatorProcess[],
  stoppedAt: number,
): string[] {
  const events = old.events;
  const faults: string[] = [];
  for (const cluster of clusters) {
    const released = events.findIndex((e) => e.event === "cluster-released" && e.cluster === cluster);
    const mine = (e: OperatorEvent) => e.key === workKey(cluster) || e.cluster === cluster;
    const last = events.findLastIndex(
      (e) => mine(e) && e.event !== "cluster-released" && e.event !== "cluster-held",
    );
    const releasedAt = events[released]?.at ?? Number.POSITIVE_INFINITY;
    const early = replicas
      .filter((r) => r !== old)
      .flatMap((r) => r.all("reconcile-start"))
      .find((e) => e.key === workKey(cluster) && e.at > stoppedAt && e.at < releasedAt);
    const disengaged = events.findIndex((e) => e.event === "disengaged" && e.cluster === cluster);
    if (released < 0) faults.push(`${old.identity} never released ${cluster}`);
    else if (disengaged < 0 || disengaged > released)
      faults.push(`${old.identity} released ${cluster} engaged`);
    else if (last > released)
      faults.push(`${old.identity} ${events[last]?.event} ${cluster} after releasing it`);
    if (events[last]?.event === "reconcile-start")
      faults.push(`${old.identity} left a reconcile of ${cluster} open`);
    if (early) faults.push(`${early.identity} reconciled ${cluster} before ${old.identity} released it`);
  }
  return faults;
}

describe("a fleet's clusters spread over three replicas", () => {
  let members: TestFleet;
  /** A client of each member, by its name. */
  const clients = new Map<string, Client>();
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    const scope = { name: "multicluster replicas", after: (fn: () => unknown) => cleanups.push(fn) };
    members = await testFleet(await testClient(), scope, { members: 3, join: true });
    for (const m of members.members) {
      clients.set(m.name, m.client);
      await m.client.create(ConfigMap, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { ...WORK, labels: { [WORK_LABEL]: "true" } },
      });
    }
  });

  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  /** Starts replica `identity` as a process, killed at the end of `t` if still running. */
  const replica = (t: TestContext, identity: string): OperatorProcess => {
    const env = {
      OPERATOR_IDENTITY: identity,
      HUB_NAMESPACE: members.namespace,
      OPERATOR_LEASE_MS: String(LEASE_MS),
      WORK_LABEL,
    };
    const operator = new OperatorProcess(identity, tsxScript(script, env));
    killAtEnd(t, operator);
    return operator;
  };

  it("engages each cluster on one replica, takes a killed replica's over within Lease + 2 s, never two at once", async (t) => {
    const clusters = members.members.map((m) => m.name);
    const replicas = ["r0", "r1", "r2"].map((id) => replica(t, id));
    await eventually(() => sharedOnce(replicas, clusters, 1), {
      what: "every cluster engaged by exactly one replica, one each",
      timeoutMs: 90_000,
    });
    const victim = replicas[1] as OperatorProcess;
    const orphaned = [...engagedBy(victim)];
    await eventually(
      () => orphaned.every((c) => victim.all("reconcile-end").some((e) => String(e.key).startsWith(`${c}/`))),
      { what: "the victim reconciling its cluster before it is killed" },
    );
    victim.kill("SIGKILL");
    const killedAt = Date.now();
    await victim.exited;
    const survivors = replicas.filter((r) => r !== victim);
    const takenAt = await eventually(
      () => {
        const starts = survivors.flatMap((r) => r.all("reconcile-start"));
        const taken = orphaned.map((c) =>
          starts.find((e) => e.at > killedAt && String(e.key).startsWith(`${c}/`)),
        );
        return taken.every(Boolean) ? Math.max(...taken.map((e) => e?.at ?? 0)) : undefined;
      },
      { what: `${orphaned.join(",")} reconciled by a survivor`, timeoutMs: LEASE_MS + 20_000 },
    );
    const takeoverMs = takenAt - killedAt;
    t.diagnostic(`takeover of ${orphaned.join(",")}: ${takeoverMs} ms after SIGKILL (Lease ${LEASE_MS} ms)`);
    assert.ok(takeoverMs <= LEASE_MS + 2000, `taken over in ${takeoverMs} ms`);
    await eventually(() => sharedOnce(survivors, clusters, 2), { what: "shared by the survivors" });
    assertNoKeyTogether([
      reconcileIntervals(replicas[0] as OperatorProcess),
      reconcileIntervals(victim, killedAt),
      reconcileIntervals(replicas[2] as OperatorProcess),
    ]);
  });

  /** Whether replica `identity` holds its membership Lease in the hub. */
  const isMember = async (identity: string): Promise<boolean> => {
    const { items } = await (await testClient()).list(Lease, { namespace: members.namespace });
    const member = (l: LeaseObject) => l.metadata.name?.includes("-fleet-member-") ?? false;
    return items.some((l) => member(l) && readLeaseRecord(l).holderIdentity === identity);
  };

  it("rolls three replicas over one at a time with SIGTERM under changes: clean exits, every change reconciled, never two at once", async (t) => {
    const clusters = members.members.map((m) => m.name);
    const old = ["a0", "a1", "a2"].map((id) => replica(t, id));
    await eventually(() => sharedOnce(old, clusters, 1), {
      what: "every cluster engaged by exactly one old replica",
      timeoutMs: 90_000,
    });
    const writer = changeContinuously(clients);
    const fresh: OperatorProcess[] = [];
    const faults: string[] = [];
    const exits: (number | string)[] = [];
    let inReconcile = 0;
    for (const [i, victim] of old.entries()) {
      const next = replica(t, `b${i}`);
      fresh.push(next);
      await eventually(() => isMember(next.identity), {
        what: `${next.identity} a member`,
        timeoutMs: 60_000,
      });
      const held = [...engagedBy(victim)];
      assert.ok(held.length > 0, `${victim.identity} holds a cluster when stopped`);
      const since = Date.now();
      await victim.waitFor((e) => e.event === "reconcile-start" && e.at > since, "a reconcile begun");
      victim.kill("SIGTERM");
      const stoppedAt = Date.now();
      await eventually(() => !victim.running, { what: `${victim.identity} exited`, timeoutMs: 30_000 });
      exits.push(await victim.exited);
      const open = reconcileIntervals(victim).some((r) => r.start < stoppedAt && r.end > stoppedAt);
      inReconcile += open ? 1 : 0;
      faults.push(...releaseFaults(victim, held, [...old, ...fresh], stoppedAt));
    }
    await eventually(() => sharedOnce(fresh, clusters, 1), {
      what: "every cluster engaged by exactly one new replica, one each",
      timeoutMs: 60_000,
    });
    await writer.stop();
    const replicas = [...old, ...fresh];
    const latencies = await eventually(() => reconcileLatencies(writer.changes, replicas), {
      what: "every change reconciled",
      timeoutMs: 60_000,
    });
    const sorted = latencies.map(Math.round).sort((a, b) => a - b);
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? 0;
    t.diagnostic(
      `${writer.changes.length} changes, reconciled after p50 ${sorted[sorted.length >> 1]} ms, p99 ${p99} ms, max ${sorted.at(-1)} ms; ` +
        `${inReconcile} of ${old.length} old replicas stopped mid-reconcile`,
    );
    assert.deepEqual(exits, [0, 0, 0], "each old replica exits 0 after SIGTERM");
    assert.ok(
      old.every((r) => r.all("exited").length === 1),
      "each old replica's fleet stopped",
    );
    assert.deepEqual(
      faults,
      [],
      "each old replica released its cluster after draining it, before another took it",
    );
    assertNoKeyTogether(replicas.map((r) => reconcileIntervals(r)));
  });
});
