/**
 * What a worker survives: reconciles that never yield the event loop, throws outside the
 * reconcile (an errorPolicy, a rate limiter, a logger hook), an apiserver that is away; and how
 * it stops at once when told to.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { ServerError, UnreachableError } from "../../../src/client/index.ts";
import { Action } from "../../../src/controller/index.ts";
import { exponentialRateLimiter, type RateLimiter } from "../../../src/queue/index.ts";
import { flush, harness, recordingControllerMetrics, until } from "./support.ts";

const handled = (calls: string[], source: string) => calls.filter((c) => c === `handling ${source}`).length;

describe("Controller: fairness", () => {
  it("lets a real timer fire while a reconcile that does no I/O keeps returning requeueAfter(0)", async (t) => {
    const started = performance.now();
    let timerFired = false;
    let gaveUp = false;
    // Gives up after 10 s, so that a worker which never yields cannot hang the test run: a timer
    // that fires only then was starved.
    const h = harness(t, () => {
      if (timerFired) return undefined;
      gaveUp = performance.now() - started >= 10_000;
      return gaveUp ? undefined : Action.requeueAfter(0);
    });
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await new Promise((resolve) => setTimeout(resolve, 50));
    timerFired = true;
    assert.ok(!gaveUp, "a 50 ms timer fired only once the reconciler gave up: the worker never yielded");
    // The loop kept going until the timer fired (how often depends on the machine's load: 97 to
    // thousands of times in these 50 ms); what is asserted is that it never let go on its own.
    assert.ok(h.reconciles.length > 1, `the reconciler ran meanwhile (${h.reconciles.length} times)`);
  });
});

describe("Controller: throws outside the reconcile", () => {
  it("survives an errorPolicy that throws: counted, and the key backs off by default", async (t) => {
    const h = harness(
      t,
      (call) => {
        if (call.ctx.request.key === "ns/a") throw new Error("reconcile failed");
        return undefined;
      },
      {
        errorPolicy: () => {
          throw new Error("the policy has a bug");
        },
      },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    assert.equal(handled(h.calls, "errorPolicy"), 1);
    await h.advance(5);
    assert.deepEqual(h.keys(), ["ns/a", "ns/a"], "retried after the default 5 ms");
    assert.deepEqual(h.reconciles[1]?.ctx.triggers, [{ reason: "retry", count: 1 }]);
    h.source.enqueue("ns/b", "watch:ConfigMap:create");
    await flush();
    assert.equal(h.keys().at(-1), "ns/b", "the worker goes on");
  });

  for (const [what, delay] of [
    ["NaN", Number.NaN],
    ["a negative delay", -5],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a throw", new Error("limiter bug")],
  ] as const) {
    it(`falls back to the default backoff when the rate limiter answers ${what}`, async (t) => {
      const broken: RateLimiter = {
        when: () => {
          if (delay instanceof Error) throw delay;
          return delay;
        },
        forget() {},
        retries: () => 0,
      };
      const h = harness(
        t,
        () => {
          throw new Error("reconcile failed");
        },
        { rateLimiter: broken },
      );
      void h.run();
      h.source.enqueue("ns/a", "watch:ConfigMap:create");
      await flush();
      assert.equal(handled(h.calls, "rateLimiter"), 1);
      await h.advance(4);
      assert.equal(h.reconciles.length, 1);
      await h.advance(1);
      assert.equal(h.reconciles.length, 2, "retried after the default 5 ms");
      await h.advance(10);
      assert.equal(h.reconciles.length, 3, "then 10 ms: the default backoff grows");
    });
  }

  it("survives exponentialRateLimiter({ baseDelayMs: 0 }) past 1024 failures", async (t) => {
    const h = harness(
      t,
      () => {
        throw new Error("reconcile failed");
      },
      { rateLimiter: exponentialRateLimiter({ baseDelayMs: 0 }) },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await until(() => handled(h.calls, "rateLimiter") > 0);
    assert.equal(h.reconciles.length, 1_025, "0 ms retries until 0 × 2^1024 is NaN");
    assert.equal(handled(h.calls, "rateLimiter"), 1);
    await h.advance(5);
    assert.equal(h.reconciles.length, 1_026, "then the default backoff");
    h.source.enqueue("ns/b", "watch:ConfigMap:create");
    await until(() => h.keys().includes("ns/b"));
    assert.ok(h.keys().includes("ns/b"), "the worker goes on");
  });

  it("survives a logger hook that throws: counted, and the retry still happens", async (t) => {
    const logger = pino(
      {
        level: "debug",
        hooks: {
          logMethod() {
            throw new Error("log shipping is down");
          },
        },
      },
      new Writable({ write: (_chunk, _encoding, done) => done() }),
    );
    const h = harness(
      t,
      () => {
        throw new Error("reconcile failed");
      },
      {},
      { logger },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    assert.ok(handled(h.calls, "logger") >= 2, "the debug and error lines that threw are counted");
    await h.advance(5);
    assert.equal(h.reconciles.length, 2, "retried after 5 ms");
  });

  it("reports a worker that died: health().deadWorkers", async (t) => {
    const { metrics } = recordingControllerMetrics();
    let handlingFailures = 0;
    const h = harness(
      t,
      () => undefined,
      { concurrency: 2 },
      {
        metrics: {
          ...metrics,
          activeWorkers() {
            throw new Error("metrics hook bug");
          },
          handlingFailed: () => handlingFailures++,
        },
      },
    );
    void h.run();
    assert.deepEqual(h.controller.health(), { running: true, deadWorkers: 0, lastError: undefined });
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    const health = h.controller.health();
    assert.equal(health.deadWorkers, 1);
    assert.match(String(health.lastError), /metrics hook bug/);
    assert.equal(handlingFailures, 1);
  });
});

describe("Controller: an apiserver that is away", () => {
  const unreachable = () => new UnreachableError("https://apiserver:6443", new Error("ECONNREFUSED"));

  /** The gaps between reconciles once the first `failures` have happened, advancing `stepMs` at a time. */
  async function gapsAfter(h: ReturnType<typeof harness>, failures: number, stepMs: number) {
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    while (h.reconciles.length < failures) await h.advance(stepMs);
    const from = h.reconciles.length;
    for (let i = 0; i < 5; i++) {
      const before = h.reconciles.length;
      while (h.reconciles.length === before) await h.advance(stepMs);
    }
    return h.reconciles
      .slice(from - 1)
      .map((r, i, all) => (i === 0 ? 0 : r.at - (all[i - 1]?.at ?? 0)))
      .slice(1);
  }

  it("retries a key that fails only because the apiserver is unreachable at most 2 s apart, however long", async (t) => {
    const h = harness(t, () => {
      throw new Error("ensureChild failed", { cause: unreachable() });
    });
    const gaps = await gapsAfter(h, 30, 50);
    assert.ok(
      gaps.every((gap) => gap >= 950 && gap <= 2_050),
      `gaps after 30 failures: ${gaps.join(", ")} ms`,
    );
  });

  it("keeps the full backoff for a plain 500 (e.g. a failing webhook)", async (t) => {
    const h = harness(t, () => {
      throw new ServerError(
        { code: 500, reason: "InternalError", message: "failed calling webhook" },
        { method: "POST", path: "/api/v1/namespaces/ns/configmaps" },
      );
    });
    const gaps = await gapsAfter(h, 15, 1_000);
    assert.ok(gaps[0] !== undefined && gaps[0] > 60_000, `gaps after 15 failures: ${gaps.join(", ")} ms`);
  });
});

describe("Controller: abort", () => {
  it("aborts every in-flight reconcile at once, drops the queue and returns without waiting", async (t) => {
    const h = harness(t, () => new Promise(() => {}), { concurrency: 2, gracefulShutdownMs: 30_000 });
    let stopped = false;
    void h.run().then(() => {
      stopped = true;
    });
    for (const name of ["a", "b", "c"]) h.source.enqueue(`ns/${name}`, "watch:ConfigMap:create");
    await flush();
    assert.deepEqual(h.keys(), ["ns/a", "ns/b"]);
    const reason = new Error("lost leadership");
    h.controller.abort(reason);
    assert.deepEqual(
      h.reconciles.map((r) => r.ctx.signal.reason),
      [reason, reason],
      "both signals abort in the same turn",
    );
    await flush();
    assert.equal(stopped, true, "no grace period");
    assert.equal(h.source.stopped, 1);
    assert.equal(h.controller.queue.length, 0, "ns/c was dropped");
    assert.equal(h.controller.health().running, false);
  });
});
