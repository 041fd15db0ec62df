import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually, testNamespace } from "../support.ts";
import { LeadershipSampler, longestFailoverMs, readLease, since, startCandidate } from "./support.ts";

test("a crashed leader is replaced once its lease expired, within two jittered retry periods after that", async (t) => {
  const ns = await testNamespace(t);
  // A crash: renewals stop and nothing releases the Lease.
  const a = await startCandidate(t, ns, "candidate-a", { releaseOnCancel: false });
  await eventually(() => a.elector.isLeader(), { what: "a to lead", intervalMs: 50 });
  const b = await startCandidate(t, ns, "candidate-b");
  await eventually(() => b.elector.leader === "candidate-a", { what: "b to see a", intervalMs: 50 });
  const sampler = new LeadershipSampler([a.elector, b.elector]);

  const start = performance.now();
  await a.stop();
  assert.equal(
    (await readLease(ns)).spec?.holderIdentity,
    "candidate-a",
    "the crashed leader left its Lease",
  );
  await eventually(() => b.elector.isLeader(), { what: "b to take over", intervalMs: 50, timeoutMs: 30_000 });
  const failover = since(start);
  const samples = sampler.stop();
  t.diagnostic(`failover after a crash took ${failover} ms`);

  const { leaseDurationMs, retryPeriodMs } = b.elector.timings;
  assert.ok(failover < longestFailoverMs({ leaseDurationMs, retryPeriodMs }), `failover took ${failover} ms`);
  assert.ok(failover > leaseDurationMs - retryPeriodMs - 1_000, `b took over after only ${failover} ms`);
  assert.equal(samples.several, 0, "never two leaders");
  const spec = (await readLease(ns)).spec;
  assert.equal(spec?.holderIdentity, "candidate-b");
  assert.equal(spec?.leaseTransitions, 1);
  assert.equal(spec?.leaseDurationSeconds, 15);
  assert.deepEqual([...a.errors, ...b.errors], []);
});
