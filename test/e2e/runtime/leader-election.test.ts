/**
 * Two operator processes (fixtures/operator.ts) campaign for one Lease while widgets keep being
 * created. Only the leader reconciles, the two never reconcile at the same time, a killed leader
 * is replaced once its lease expired (within two jittered retry periods after), and a leader shut down with SIGTERM
 * hands over at once because it releases the Lease.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { longestFailoverMs } from "../election/support.ts";
import { stealLease } from "../fixtures/leases.ts";
import {
  assertNeverTogether,
  type OperatorProcess,
  reconcileIntervals,
  runnableIntervals,
  startOperatorProcess,
} from "../fixtures/process.ts";
import { convergedWidgets, installWidgetCrd, Widget, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";

const script = join(fileURLToPath(import.meta.url), "../fixtures/operator.ts");
const leaseDurationMs = 15_000;
const retryPeriodMs = 2_000;
const now = () => performance.timeOrigin + performance.now();

/** Starts an operator process; it is killed, if still running, when the test ends. */
function startOperator(t: TestContext, namespace: string, identity: string): OperatorProcess {
  return startOperatorProcess(t, script, identity, {
    OPERATOR_NAMESPACE: namespace,
    OPERATOR_LEASE: "widgets-ha",
    OPERATOR_IDENTITY: identity,
  });
}

/** Creates a widget every 150 ms until stopped; returns the names created. */
function createContinuously(namespace: string): { stop(): Promise<string[]> } {
  const names: string[] = [];
  let stopped = false;
  const loop = (async () => {
    const client = await testClient();
    for (let i = 0; !stopped; i++) {
      await client.create(Widget, widget(namespace, `w${i}`, `hello w${i}`));
      names.push(`w${i}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return names;
    },
  };
}

/** Every reconcile and leader-only run of `operator` started while it led: after `became-leader`, before `until`. */
function assertOnlyWhileLeading(operator: OperatorProcess, until = Number.POSITIVE_INFINITY): void {
  const [became, ...again] = operator.all("became-leader");
  assert.ok(became, `${operator.identity} became leader`);
  assert.deepEqual(again, [], "led once");
  for (const e of [...operator.all("reconcile-start"), ...operator.all("runnable-start")]) {
    assert.ok(
      e.at >= became.at && e.at <= until,
      `${operator.identity} ran ${e.event} ${e.key ?? ""} while not leading`,
    );
  }
}

/** Each widget key had its ConfigMap created once, by whichever process created it. */
function assertNoDuplicateCreates(...operators: OperatorProcess[]): void {
  const keys = operators.flatMap((o) => o.all("created").map((e) => e.key));
  assert.deepEqual(
    keys.filter((k, i) => keys.indexOf(k) !== i),
    [],
  );
}

/** Starts `a`, waits until it leads, then `b` until it sees `a` leading, and widgets being created. */
async function leaderAndFollower(t: TestContext) {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const a = startOperator(t, ns, "operator-a");
  await a.waitFor((e) => e.event === "became-leader", "lead", 60_000);
  const b = startOperator(t, ns, "operator-b");
  await b.waitFor((e) => e.event === "observed-leader" && e.leader === a.identity, "see a lead", 60_000);
  const creator = createContinuously(ns);
  await eventually(() => a.all("reconcile-end").length >= 10, { what: "a to reconcile" });
  assert.deepEqual(b.all("reconcile-start"), [], "the follower does not reconcile");
  assert.deepEqual(b.all("runnable-start"), [], "nor run the leader-only runnable");
  assert.equal(a.all("runnable-start").length, 1, "the leader runs it");
  return { ns, a, b, creator };
}

async function assertAllConverged(ns: string, names: string[]): Promise<void> {
  const client = await testClient();
  await eventually(
    async () => {
      const converged = await convergedWidgets(client, ns);
      return names.every((n) => converged.get(n) === `hello ${n}`);
    },
    { what: `all ${names.length} widgets to converge`, timeoutMs: 60_000, intervalMs: 500 },
  );
}

test("a SIGKILLed leader is replaced once its lease expired, within two jittered retry periods; the two never reconcile together", async (t) => {
  const { ns, a, b, creator } = await leaderAndFollower(t);

  const killedAt = now();
  a.kill("SIGKILL");
  await a.exited;
  const takeover = await b.waitFor(
    (e) => e.event === "reconcile-start",
    "take over",
    leaseDurationMs + 15_000,
  );
  const failoverMs = Math.round(takeover.at - killedAt);
  t.diagnostic(`failover after SIGKILL: ${failoverMs} ms to the new leader's first reconcile`);
  await eventually(() => b.all("reconcile-end").length >= 10, { what: "b to reconcile" });
  const names = await creator.stop();
  await assertAllConverged(ns, names);

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

test("a leader stopped with SIGTERM releases the Lease: the follower takes over at once, never overlapping", async (t) => {
  const { ns, a, b, creator } = await leaderAndFollower(t);

  const terminatedAt = now();
  a.kill("SIGTERM");
  const takeover = await b.waitFor((e) => e.event === "reconcile-start", "take over", leaseDurationMs);
  const handoverMs = Math.round(takeover.at - terminatedAt);
  t.diagnostic(`handover after SIGTERM: ${handoverMs} ms to the new leader's first reconcile`);
  assert.equal(await a.exited, 0, "a shut down cleanly");
  await eventually(() => b.all("reconcile-end").length >= 10, { what: "b to reconcile" });
  const names = await creator.stop();
  await assertAllConverged(ns, names);

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
  assert.equal(a.all("exited")[0]?.code, 0);
  assertNoDuplicateCreates(a, b);
});

test("a leader whose Lease is taken exits with code 1 at once, and the new holder takes over", async (t) => {
  const { ns, a, b, creator } = await leaderAndFollower(t);

  const stolenAt = await stealLease(await testClient(), "widgets-ha", ns, b.identity);
  assert.equal(await a.exited, 1, "a exited with code 1");
  const exitMs = Math.round(now() - stolenAt);
  const takeover = await b.waitFor((e) => e.event === "reconcile-start", "take over", leaseDurationMs);
  t.diagnostic(
    `a exited ${exitMs} ms after the steal; b reconciled ${Math.round(takeover.at - stolenAt)} ms after it`,
  );
  await eventually(() => b.all("reconcile-end").length >= 10, { what: "b to reconcile" });
  const names = await creator.stop();
  await assertAllConverged(ns, names);

  // a renews every retryPeriod: it sees the Lease taken at its next renew, and exits then.
  assert.ok(exitMs < retryPeriodMs + 5_000, `a exited after ${exitMs} ms`);
  const stopped = a.all("stopped-leading")[0];
  assert.ok(stopped, "a reported that it stopped leading");
  assert.deepEqual(a.all("exited"), [], "a did not return from runManager: it exited");
  // A stolen Lease (unlike an expired one) lets b lead before a notices: they may overlap for up
  // to a retry period, so only what a did after it noticed is checked.
  assertOnlyWhileLeading(a, stopped.at);
  assertOnlyWhileLeading(b);
  assertNoDuplicateCreates(a, b);
});
