/**
 * A fleet's clusters spread over its replicas, end to end: the hub (the run's cluster) holds the
 * kubeconfig Secrets of three member clusters (`testFleet`), and three fleet replicas,
 * processes of their own (fixtures/fleet-replica.ts), share them with a Lease per cluster in the
 * hub. Every cluster is engaged by exactly one replica; a replica killed with SIGKILL has its
 * clusters reconciled by another within the Lease duration + 2 s; and the replicas' printed
 * reconcile intervals show no key (`<cluster>/<namespace>/<name>`) reconciled by two at once.
 */
import assert from "node:assert/strict";
import { after, before, describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigMap } from "../../../src/api/index.ts";
import { type TestFleet, testFleet } from "../../../src/testing/index.ts";
import {
  assertNoKeyTogether,
  killAtEnd,
  OperatorProcess,
  reconcileIntervals,
  tsxScript,
} from "../fixtures/process.ts";
import { eventually, testClient } from "../support.ts";

const LEASE_MS = 6000;
/** The label of the member ConfigMaps the replicas reconcile. */
const WORK_LABEL = "fleet.kubeloop.dev/work";
const script = fileURLToPath(new URL("./fixtures/fleet-replica.ts", import.meta.url));

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

describe("a fleet's clusters spread over three replicas", () => {
  let members: TestFleet;
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    const scope = { name: "multicluster replicas", after: (fn: () => unknown) => cleanups.push(fn) };
    members = await testFleet(await testClient(), scope, { members: 3, join: true });
    for (const m of members.members) {
      await m.client.create(ConfigMap, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "work", namespace: "default", labels: { [WORK_LABEL]: "true" } },
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
});
