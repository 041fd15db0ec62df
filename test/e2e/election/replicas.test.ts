/**
 * Two replicas of an operator with leader election, run as deployed (fixtures/deployed.ts) on the
 * run's cluster, campaign for its Lease while Sprockets keep being created. Only the leader
 * reconciles, the two never reconcile at the same time, a crashed leader is replaced once its
 * Lease expired (within two jittered retry periods after), a leader stopped with SIGTERM hands
 * over once its work drained, as it releases the Lease, and a leader whose Lease is taken exits.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { type TestContext, test } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { deploy, type Replica } from "../fixtures/deployed.ts";
import { wallClockMs } from "../fixtures/emit.ts";
import { stealLease } from "../fixtures/leases.ts";
import { assertNeverTogether, reconcileIntervals, runnableIntervals } from "../fixtures/process.ts";
import { mirrorOf, Sprocket, type SprocketObject, sprocketsModule } from "../fixtures/sprockets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import { longestFailoverMs } from "./support.ts";

// The generated Deployment's defaults (controller-runtime's): the test waits them out.
const leaseDurationMs = 15_000;
const retryPeriodMs = 2_000;

/** Creates a Sprocket every 150 ms until stopped; returns those created. */
function createContinuously(namespace: string): { stop(): Promise<SprocketObject[]> } {
  const created: SprocketObject[] = [];
  let stopped = false;
  const loop = (async () => {
    const client = await testClient();
    for (let i = 0; !stopped; i++) {
      const metadata = { name: `s${i}`, namespace };
      const spec = { message: `hello s${i}` };
      created.push(
        await client.create(Sprocket, {
          apiVersion: Sprocket.apiVersion,
          kind: Sprocket.kind,
          metadata,
          spec,
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return created;
    },
  };
}

/** Every reconcile and leader-only run of `replica` started while it led: after `became-leader`, before `until`. */
function assertOnlyWhileLeading(replica: Replica, until = Number.POSITIVE_INFINITY): void {
  const [became, ...again] = replica.all("became-leader");
  assert.ok(became, `${replica.identity} became leader`);
  assert.deepEqual(again, [], "led once");
  for (const e of [...replica.all("reconcile-start"), ...replica.all("runnable-start")]) {
    assert.ok(
      e.at >= became.at && e.at <= until,
      `${replica.identity} ran ${e.event} ${e.key ?? ""} while not leading`,
    );
  }
}

/** Each Sprocket's mirror was created once, by whichever replica created it. */
function assertNoDuplicateCreates(...replicas: Replica[]): void {
  const keys = replicas.flatMap((r) => r.all("created").map((e) => e.key));
  assert.deepEqual(
    keys.filter((k, i) => keys.indexOf(k) !== i),
    [],
  );
}

/** Deploys the operator (a name of its own per test), starts `a`, waits until it leads, then `b` until it sees `a` leading, and Sprockets being created. */
async function leaderAndFollower(t: TestContext) {
  const operator = await deploy(t, { module: sprocketsModule(`ha-${randomBytes(3).toString("hex")}`) });
  const ns = await testNamespace(t);
  const a = await operator.startReplica();
  await a.waitFor((e) => e.event === "became-leader", "lead", 90_000);
  const b = await operator.startReplica();
  await b.waitFor(
    (e) => e.event === "observed-leader" && e.leader === a.holderIdentity,
    "see a lead",
    90_000,
  );
  const creator = createContinuously(ns);
  await eventually(() => a.all("reconcile-end").length >= 10, { what: "a to reconcile" });
  assert.deepEqual(b.all("reconcile-start"), [], "the follower does not reconcile");
  assert.deepEqual(b.all("runnable-start"), [], "nor run the leader-only runnable");
  assert.equal(a.all("runnable-start").length, 1, "the leader runs it");
  return { operator, a, b, creator };
}

async function assertAllConverged(created: SprocketObject[]): Promise<void> {
  const client = await testClient();
  await eventually(
    async () => {
      const mirrors = await Promise.all(
        created.map((s) =>
          client
            .get(ConfigMap, mirrorOf(s).metadata.name ?? "", { namespace: s.metadata.namespace })
            .catch(() => undefined),
        ),
      );
      return mirrors.every((m, i) => m?.data?.message === created[i]?.spec.message);
    },
    { what: `all ${created.length} Sprockets to be mirrored`, timeoutMs: 60_000, intervalMs: 500 },
  );
}

/** Stops the creator and waits until `b` reconciled and everything created converged. */
async function converge(b: Replica, creator: ReturnType<typeof createContinuously>): Promise<void> {
  await eventually(() => b.all("reconcile-end").length >= 10, { what: "b to reconcile" });
  await assertAllConverged(await creator.stop());
}

test("a SIGKILLed leader is replaced once its lease expired, within two jittered retry periods; the two never reconcile together", async (t) => {
  const { operator, a, b, creator } = await leaderAndFollower(t);

  // SIGKILL: a crash, which nothing releases the Lease after (SIGTERM is the next test's, and the rolling update's).
  const killedAt = wallClockMs();
  await operator.stop(a, "SIGKILL");
  const takeover = await b.waitFor(
    (e) => e.event === "reconcile-start",
    "take over",
    leaseDurationMs + 15_000,
  );
  const failoverMs = Math.round(takeover.at - killedAt);
  t.diagnostic(`failover after SIGKILL: ${failoverMs} ms to the new leader's first reconcile`);
  await converge(b, creator);

  assert.ok(
    failoverMs < longestFailoverMs({ leaseDurationMs, retryPeriodMs }),
    `failover took ${failoverMs} ms`,
  );
  assert.ok(failoverMs > leaseDurationMs - retryPeriodMs - 1_000, `b took over after only ${failoverMs} ms`);
  assertNeverTogether(reconcileIntervals(a, killedAt), reconcileIntervals(b));
  await b.waitFor((e) => e.event === "runnable-start", "run the leader-only runnable", 10_000);
  assertNeverTogether(runnableIntervals(a, killedAt), runnableIntervals(b));
  assertOnlyWhileLeading(a, killedAt);
  assertOnlyWhileLeading(b);
  assert.ok((b.all("became-leader")[0]?.at ?? 0) > killedAt, "b led only after a died");
  assertNoDuplicateCreates(a, b);
});

test("a leader stopped with SIGTERM releases the Lease once its work drained: the follower takes over at once, never overlapping", async (t) => {
  const { operator, a, b, creator } = await leaderAndFollower(t);

  const terminatedAt = wallClockMs();
  const exited = operator.stop(a);
  const takeover = await b.waitFor((e) => e.event === "reconcile-start", "take over", leaseDurationMs);
  const handoverMs = Math.round(takeover.at - terminatedAt);
  t.diagnostic(`handover after SIGTERM: ${handoverMs} ms to the new leader's first reconcile`);
  assert.equal(await exited, 0, "a shut down cleanly");
  await converge(b, creator);

  // Released, the Lease is taken at b's next try (every retryPeriod), long before it would expire.
  assert.ok(handoverMs < retryPeriodMs + 5_000, `handover took ${handoverMs} ms`);
  const stopped = a.all("stopped-leading")[0];
  assert.ok(stopped, "a reported that it stopped leading");
  assertNeverTogether(reconcileIntervals(a), reconcileIntervals(b));
  await b.waitFor((e) => e.event === "runnable-start", "run the leader-only runnable", 10_000);
  assert.equal(a.all("runnable-end").length, 1, "a's runnable returned before it exited");
  assertNeverTogether(runnableIntervals(a), runnableIntervals(b));
  assertOnlyWhileLeading(a, stopped.at);
  assertOnlyWhileLeading(b);
  assertNoDuplicateCreates(a, b);
});

test("a leader whose Lease is taken exits with code 1 at once, and the new holder takes over", async (t) => {
  const { operator, a, b, creator } = await leaderAndFollower(t);

  const stolenAt = await stealLease(operator.client, operator.name, operator.namespace, b.holderIdentity);
  assert.equal(await a.exited, 1, "a exited with code 1");
  const exitMs = Math.round(wallClockMs() - stolenAt);
  const takeover = await b.waitFor((e) => e.event === "reconcile-start", "take over", leaseDurationMs);
  t.diagnostic(
    `a exited ${exitMs} ms after the steal; b reconciled ${Math.round(takeover.at - stolenAt)} ms after it`,
  );
  await converge(b, creator);

  // a renews every retryPeriod: it sees the Lease taken at its next renew, and exits then.
  assert.ok(exitMs < retryPeriodMs + 5_000, `a exited after ${exitMs} ms`);
  const stopped = a.all("stopped-leading")[0];
  assert.ok(stopped, "a reported that it stopped leading");
  // A stolen Lease (unlike an expired one) lets b lead before a notices: they may overlap for up
  // to a retry period, so only what a did after it noticed is checked.
  assertOnlyWhileLeading(a, stopped.at);
  assertOnlyWhileLeading(b);
  assertNoDuplicateCreates(a, b);
});
