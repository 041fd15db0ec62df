import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually, testNamespace } from "../support.ts";
import { LeadershipSampler, readLease, since, startCandidate } from "./support.ts";

const microTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

test("of two candidates on one Lease exactly one leads at every sample, and the Lease records it", async (t) => {
  const ns = await testNamespace(t);
  const a = await startCandidate(t, ns, "candidate-a");
  const b = await startCandidate(t, ns, "candidate-b");
  const sampler = new LeadershipSampler([a.elector, b.elector]);
  const leader = await eventually(() => [a, b].find((c) => c.elector.isLeader()), {
    what: "a leader",
    intervalMs: 50,
  });
  const follower = leader === a ? b : a;
  const acquired = await readLease(ns);
  await new Promise((resolve) => setTimeout(resolve, 6_000)); // a sampling window of three renewals
  const samples = sampler.stop();

  assert.ok(samples.total >= 100, `${samples.total} samples`);
  assert.equal(samples.several, 0, "never two leaders");
  assert.equal(leader.elector.isLeader(), true, "the leader keeps renewing");
  assert.equal(follower.elector.isLeader(), false);
  assert.equal(follower.elector.leader, leader.elector.identity);
  const spec = (await readLease(ns)).spec;
  assert.equal(spec?.holderIdentity, leader.elector.identity);
  assert.equal(spec?.leaseDurationSeconds, 15);
  assert.equal(spec?.leaseTransitions, 0);
  assert.match(String(spec?.acquireTime), microTime);
  assert.match(String(spec?.renewTime), microTime);
  assert.equal(spec?.acquireTime, acquired.spec?.acquireTime, "renews keep acquireTime");
  assert.ok(String(spec?.renewTime) > String(acquired.spec?.renewTime), "renews move renewTime");
  assert.deepEqual([...a.errors, ...b.errors], []);
});

test("a graceful release hands the Lease over within one jittered retryPeriod + 1 s", async (t) => {
  const ns = await testNamespace(t);
  const a = await startCandidate(t, ns, "candidate-a");
  await eventually(() => a.elector.isLeader(), { what: "a to lead", intervalMs: 50 });
  const b = await startCandidate(t, ns, "candidate-b");
  await eventually(() => b.elector.leader === "candidate-a", { what: "b to see a", intervalMs: 50 });
  const sampler = new LeadershipSampler([a.elector, b.elector], 20);

  const start = performance.now();
  await a.stop();
  assert.equal(a.elector.isLeader(), false);
  await eventually(() => b.elector.isLeader(), { what: "b to take over", intervalMs: 20, timeoutMs: 10_000 });
  const handover = since(start);
  const samples = sampler.stop();
  t.diagnostic(`graceful handover took ${handover} ms`);

  // A follower retries every retryPeriod × (1 + up to 1.2) (client-go's JitterFactor 1.2).
  const jitteredRetry = b.elector.timings.retryPeriodMs * 2.2;
  assert.ok(handover < jitteredRetry + 1_000, `handover took ${handover} ms`);
  assert.equal(samples.several, 0, "never two leaders");
  const spec = (await readLease(ns)).spec;
  assert.equal(spec?.holderIdentity, "candidate-b");
  assert.equal(spec?.leaseTransitions, 1);
  assert.equal(spec?.leaseDurationSeconds, 15);
  assert.deepEqual([...a.errors, ...b.errors], []);
});
