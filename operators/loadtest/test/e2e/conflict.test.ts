/**
 * bug 1.7.9: a status write that loses a race (409 Conflict) is recomputed from a fresh read, not
 * retried with the stale object, and its events are recorded once. The operator talks to the
 * apiserver through kubeloop's fault-injecting proxy, which holds its first status write long
 * enough for the test to change the LoadTest underneath it: a real conflict.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventObject } from "kubeloop";
import { startProxy, upstreamFromKubeconfig } from "kubeloop/testing/proxy";
import { kubeconfigPath } from "../../../../test/e2e/support.ts";
import { LoadTest } from "../../api.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  operatorEvents,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("bug 1.7.9: a conflicting status write is recomputed from a fresh read; events are recorded once", async (t) => {
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  const { namespace } = await startOperator(t, { credentials: async () => proxy.kubeconfig() });
  t.after(() => proxy.stop()); // after the operator stopped
  const isStatusPatch = (r: { verb: string; resource?: string; name?: string }) =>
    r.verb === "patch" && r.resource === "loadtests/status" && r.name === "raced";
  proxy.inject({ verb: "patch", resource: "loadtests/status", name: "raced", times: 1 }, { latencyMs: 3000 });

  await createLoadTest(namespace, "raced", { count: 2 });
  await eventually(() => proxy.requests().find((r) => isStatusPatch(r) && r.status === undefined), {
    what: "the operator's first status write held by the proxy",
  });
  const client = await testClient();
  await client.patch(
    LoadTest,
    "raced",
    { metadata: { labels: { touched: "yes" } } },
    { type: "merge", namespace },
  );
  await eventually(() => proxy.requests().find((r) => isStatusPatch(r) && r.status === 409), {
    what: "the held write answered 409 Conflict",
  });

  const done = await waitForLoadTest(
    namespace,
    "raced",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "done",
  );
  assert.deepEqual([conditionOf(done, "Completed")?.reason, done.status?.completions], ["Succeeded", "2/2"]);
  assert.equal(done.metadata.labels?.touched, "yes");
  const log = proxy.requests();
  const conflict = log.find((r) => isStatusPatch(r) && r.status === 409)?.id ?? Number.POSITIVE_INFINITY;
  const reread = log.find((r) => r.id > conflict && r.verb === "get" && r.resource === "loadtests/status");
  assert.ok(reread, "the object is read again after the conflict");
  assert.ok(
    log.some((r) => r.id > (reread?.id ?? 0) && isStatusPatch(r) && r.status === 200),
    "and the recomputed status written",
  );
  // Events are recorded in the background: wait for the last one before counting.
  const occurrencesIn = (events: EventObject[], reason: string) =>
    events.filter((e) => e.reason === reason).reduce((n, e) => n + (e.series?.count ?? 1), 0);
  const events = await eventually(
    async () => {
      const recorded = await operatorEvents(namespace, "raced");
      return occurrencesIn(recorded, "Succeeded") > 0 && recorded;
    },
    { what: "the Succeeded event" },
  );
  const occurrences = (reason: string) => occurrencesIn(events, reason);
  // The held write carried the transition to WorkersStarting; after its 409 the status is recomputed
  // from a fresh read, which on a loaded machine may already find the workers done and write
  // Succeeded directly: that transition was never stored, so its event may be absent. What the bug
  // made was the event recorded twice, for the write and its retry.
  assert.ok(
    occurrences("WorkersStarting") <= 1,
    "the first transition's event at most once, though written twice",
  );
  assert.equal(occurrences("Succeeded"), 1);
});
