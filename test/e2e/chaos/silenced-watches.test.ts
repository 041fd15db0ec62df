/**
 * The silenced-watches scenario (`scenario.ts`) with settings that keep `npm test` short: the
 * silence lasts `KUBELOOP_CHAOS_SILENCE_MS` (default 20 s), the informers relist every 20 s, and the
 * watches' gap detection is off, so that what the watches lost only the relist can find. After the
 * silence, everything must converge within a few relist periods (plus the work itself under the
 * same faults), and kubeloop_cache_divergence_total must count what was missed. The defaults are
 * tested by `silenced-watches-defaults.test.ts`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeRun, silencedWatches } from "./scenario.ts";

const silenceMs = Number(process.env.KUBELOOP_CHAOS_SILENCE_MS ?? 20_000);
const relistMs = 20_000;
/** What the work itself may take once the caches are right: Jobs run by kwok, requests at 200 ms, retried 500s. */
const workMs = 15_000;

test("every watch silenced while LoadTests, ProxyRoutes and a MyProxy's children change, under 500s and latency: the relists alone repair the caches", {
  timeout: 600_000,
}, async (t) => {
  const figures = await silencedWatches(t, {
    silenceMs,
    convergeWithinMs: 3 * relistMs + workMs,
    cache: {
      // A relist every 20 s instead of 4 min keeps the test short. With gap detection off
      // (an infinite gapMs), no watch resumes from before the silence: the relists must find it all.
      informer: { relist: { periodMs: relistMs }, watch: { gapMs: Number.POSITIVE_INFINITY } },
    },
  });
  t.diagnostic(describeRun(silenceMs, figures));
  assert.ok(figures.lost > 0, "the silence swallowed watch events");
  assert.equal(figures.gapResumes, 0, "no watch resumed from before the silence");
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  assert.ok(
    total(figures.divergences.loadtest) > 0,
    "the LoadTest operator's relists counted what its watches missed",
  );
  assert.ok(total(figures.divergences.myproxy) > 0, "myproxy's relists counted what its watches missed");
  assert.ok(
    (figures.divergences.loadtest["LoadTest:added"] ?? 0) >= 1,
    "a LoadTest created during the silence was found by a relist",
  );
  assert.ok(
    (figures.divergences.loadtest["LoadTest:deleted"] ?? 0) >= 1,
    "the LoadTest deleted during the silence was found by a relist",
  );
  assert.ok(
    (figures.divergences.myproxy["Deployment:deleted"] ?? 0) >= 1,
    "the MyProxy's Deployment deleted during the silence was found by a relist",
  );
});
