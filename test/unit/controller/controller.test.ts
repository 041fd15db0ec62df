import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { Action, TerminalError } from "../../../src/controller/index.ts";
import { eventually } from "../../../src/testing/index.ts";
import { cm, deferred, flush, harness, until } from "./support.ts";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("Controller: the reconcile context", () => {
  it("hands the reconciler the request, the cached object, the triggers, the clock and a fresh reconcileID", async (t) => {
    const h = harness(t);
    h.store.writer.apply(cm("a", "7"));
    h.controller.enqueue("ns/a", "watch:ConfigMap:create");
    h.controller.enqueue("ns/a", "owned:Secret:update");
    h.controller.enqueue("ns/a", "watch:ConfigMap:create");
    h.controller.enqueue("gone", "watch:ConfigMap:delete");
    void h.run();
    await eventually(() => h.reconciles.length >= 2, { intervalMs: 1, what: "both keys reconciled" });
    const [first, second] = h.reconciles;
    assert.deepEqual(first?.ctx.request, { key: "ns/a", namespace: "ns", name: "a" });
    assert.equal(first?.ctx.object?.metadata.resourceVersion, "7");
    assert.deepEqual(first?.ctx.triggers, [
      { reason: "watch:ConfigMap:create", count: 2 },
      { reason: "owned:Secret:update", count: 1 },
    ]);
    assert.equal(first?.ctx.controller, "widgets");
    assert.match(first?.ctx.reconcileID ?? "", uuid);
    assert.equal(first?.ctx.signal.aborted, false);
    assert.equal(first?.ctx.clock, h.clock);
    assert.deepEqual(second?.ctx.request, { key: "gone", name: "gone" });
    assert.equal(second?.ctx.object, undefined, "an object that is not cached is undefined");
    assert.notEqual(second?.ctx.reconcileID, first?.ctx.reconcileID);
  });

  it("logs with the object's namespace and name beside the operator's logger name, never over it", async (t) => {
    const lines: string[] = [];
    const logger = pino({ name: "widgets-operator" }, { write: (line: string) => void lines.push(line) });
    const h = harness(t, ({ ctx }) => void ctx.log.info("hello"), {}, { logger });
    h.controller.enqueue("ns/a", "manual");
    void h.run();
    await flush();
    const record = JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
    assert.equal(record.msg, "hello");
    assert.equal(record.name, "widgets-operator");
    assert.deepEqual([record.controller, record.namespace, record.object], ["widgets", "ns", "a"]);
    assert.equal(record.reconcileID, h.reconciles[0]?.ctx.reconcileID);
  });

  it("reports drift repairs and condition transitions to the metrics, and nothing else", async (t) => {
    const h = harness(t);
    h.controller.enqueue("ns/a", "manual");
    void h.run();
    await flush();
    const report = h.reconciles[0]?.ctx.report;
    report?.driftRepaired("ConfigMap", "kubectl-edit");
    report?.conditionTransitioned("ConfigMap", "Ready", "True");
    assert.deepEqual(Object.keys(report ?? {}).sort(), ["conditionTransitioned", "driftRepaired"]);
    assert.deepEqual(h.calls.slice(-2), ["drift ConfigMap kubectl-edit", "transition ConfigMap Ready True"]);
  });

  it("counts every trigger", async (t) => {
    const h = harness(t);
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    h.controller.enqueue("ns/b", "manual");
    await until(() => h.keys().length === 2);
    assert.deepEqual(
      h.calls.filter((c) => c.startsWith("triggered")),
      ["triggered watch:ConfigMap:create", "triggered manual"],
    );
    assert.deepEqual(h.keys(), ["ns/a", "ns/b"]);
  });
});

describe("Controller: outcomes", () => {
  it("forgets a key after success: no retry, and its failure backoff starts over", async (t) => {
    const h = harness(t, (_call, i) => {
      if (i < 2) throw new Error("not yet");
      return undefined;
    });
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(5);
    assert.equal(h.controller.queue.retries("ns/a"), 2);
    await h.advance(10);
    assert.equal(h.reconciles.length, 3);
    assert.equal(h.controller.queue.retries("ns/a"), 0);
    await h.advance(3_600_000);
    assert.equal(h.reconciles.length, 3);
    assert.ok(h.calls.includes("reconciled success 0"));
  });

  it("requeues after Action.requeueAfter with reason requeue-after", async (t) => {
    const h = harness(t, (_call, i) => (i === 0 ? Action.requeueAfter(3_000) : Action.awaitChange()));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(2_999);
    assert.equal(h.reconciles.length, 1);
    await h.advance(1);
    assert.equal(h.reconciles.length, 2);
    assert.equal(h.reconciles[1]?.at, 13_000);
    assert.deepEqual(h.reconciles[1]?.ctx.triggers, [{ reason: "requeue-after", count: 1 }]);
    assert.deepEqual(
      h.calls.filter((c) => c.startsWith("reconciled") || c.startsWith("triggered")),
      [
        "triggered watch:ConfigMap:create",
        "reconciled requeue_after 0",
        "triggered requeue-after",
        "reconciled success 0",
      ],
    );
  });

  it("requeues at once for requeueAfter(0), counted as requeue_after", async (t) => {
    const h = harness(t, (_call, i) => (i === 0 ? Action.requeueAfter(0) : undefined));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await flush();
    assert.equal(h.reconciles.length, 2);
    assert.ok(h.calls.includes("reconciled requeue_after 0"));
  });

  it("requeues after the key's rate-limited backoff for Action.requeue(), counted as requeue", async (t) => {
    const h = harness(t, (_call, i) => (i < 3 ? Action.requeue() : undefined));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    for (const [i, delay] of [5, 10, 20].entries()) {
      await h.advance(delay - 1);
      assert.equal(h.reconciles.length, i + 1, `requeue ${i + 1} waits ${delay} ms`);
      await h.advance(1);
      assert.equal(h.reconciles.length, i + 2);
      assert.deepEqual(h.reconciles.at(-1)?.ctx.triggers, [{ reason: "requeue", count: 1 }]);
    }
    assert.equal(h.controller.queue.retries("ns/a"), 0, "the success that followed reset the backoff");
    assert.deepEqual(
      h.calls.filter((c) => c.startsWith("reconciled")),
      ["reconciled requeue 0", "reconciled requeue 0", "reconciled requeue 0", "reconciled success 0"],
    );
    assert.equal(h.calls.filter((c) => c.startsWith("failed")).length, 0, "a requeue is no error");
  });

  it("retries a failing key with growing per-key backoff and reason retry", async (t) => {
    const h = harness(t, () => {
      throw new Error("apiserver said no");
    });
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    for (const [i, delay] of [5, 10, 20, 40].entries()) {
      await h.advance(delay - 1);
      assert.equal(h.reconciles.length, i + 1, `retry ${i + 1} waits ${delay} ms`);
      await h.advance(1);
      assert.equal(h.reconciles.length, i + 2);
      assert.deepEqual(h.reconciles.at(-1)?.ctx.triggers, [{ reason: "retry", count: 1 }]);
    }
    assert.equal(h.calls.filter((c) => c === "failed retriable").length, 5);
    assert.equal(h.calls.filter((c) => c === "triggered retry").length, 5);
    assert.equal(h.calls.filter((c) => c === "reconciled error 0").length, 5);
  });

  it("does not retry a TerminalError", async (t) => {
    const h = harness(t, () => {
      throw new TerminalError("spec.size must be positive");
    });
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(3_600_000);
    assert.equal(h.reconciles.length, 1);
    assert.deepEqual(
      h.calls.filter((c) => c.startsWith("failed") || c.startsWith("reconciled")),
      ["failed terminal", "reconciled error 0"],
    );
    assert.equal(h.controller.queue.retries("ns/a"), 0);
    h.source.enqueue("ns/a", "watch:ConfigMap:update");
    await flush();
    assert.equal(h.reconciles.length, 2, "a change brings the key back");
  });

  for (const [how, error] of [
    ["as the cause of another error", new Error("ensure failed", { cause: new TerminalError("bad spec") })],
    ["inside an AggregateError", new AggregateError([new Error("x"), new TerminalError("bad spec")])],
    ["as any error with code KL_TERMINAL", Object.assign(new Error("bad spec"), { code: "KL_TERMINAL" })],
  ] as const) {
    it(`does not retry a TerminalError wrapped ${how}`, async (t) => {
      const h = harness(t, () => {
        throw error;
      });
      void h.run();
      h.source.enqueue("ns/a", "watch:ConfigMap:create");
      await flush();
      await h.advance(3_600_000);
      assert.equal(h.reconciles.length, 1);
      assert.ok(h.calls.includes("failed terminal"));
    });
  }

  it("lets errorPolicy choose when to retry", async (t) => {
    const seen: [unknown, string][] = [];
    const boom = new Error("rate limited by a cloud API");
    const h = harness(
      t,
      (_call, i) => {
        if (i < 2) throw boom;
        return undefined;
      },
      {
        errorPolicy: (err, request) => {
          seen.push([err, request.key]);
          return seen.length === 1 ? Action.requeueAfter(7_000) : undefined;
        },
      },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    assert.deepEqual(seen, [[boom, "ns/a"]]);
    await h.advance(6_999);
    assert.equal(h.reconciles.length, 1);
    await h.advance(1);
    assert.equal(h.reconciles.length, 2);
    assert.deepEqual(h.reconciles[1]?.ctx.triggers, [{ reason: "requeue-after", count: 1 }]);
    await h.advance(5);
    assert.equal(h.reconciles.length, 3, "undefined falls back to the default backoff");
    assert.deepEqual(h.reconciles[2]?.ctx.triggers, [{ reason: "retry", count: 1 }]);
  });

  it("measures reconcile time on the clock", async (t) => {
    const h = harness(t, () => {
      h.clock.advance(1_500);
      return undefined;
    });
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    assert.ok(h.calls.includes("reconciled success 1.5"));
  });
});

describe("Controller: concurrency", () => {
  it("never reconciles one key twice at once, even with concurrency 4", async (t) => {
    const gates = new Map<number, ReturnType<typeof deferred<void>>>();
    const running = new Map<string, number>();
    let overlap = false;
    let peak = 0;
    const h = harness(
      t,
      async (call, i) => {
        const key = call.ctx.request.key;
        running.set(key, (running.get(key) ?? 0) + 1);
        overlap ||= (running.get(key) ?? 0) > 1;
        peak = Math.max(
          peak,
          [...running.values()].reduce((a, b) => a + b, 0),
        );
        const gate = deferred();
        gates.set(i, gate);
        await gate.promise;
        running.set(key, (running.get(key) ?? 1) - 1);
        return undefined;
      },
      { concurrency: 4 },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    h.source.enqueue("ns/a", "watch:ConfigMap:update");
    h.source.enqueue("ns/b", "watch:ConfigMap:create");
    h.source.enqueue("ns/c", "watch:ConfigMap:create");
    await flush();
    assert.deepEqual(h.keys(), ["ns/a", "ns/b", "ns/c"], "other keys run while ns/a is in flight");
    gates.get(0)?.resolve();
    await flush();
    assert.deepEqual(h.keys(), ["ns/a", "ns/b", "ns/c", "ns/a"], "ns/a runs again once it is done");
    assert.deepEqual(h.reconciles[3]?.ctx.triggers, [{ reason: "watch:ConfigMap:update", count: 1 }]);
    for (const gate of gates.values()) gate.resolve();
    await flush();
    assert.equal(overlap, false);
    assert.equal(peak, 3);
    assert.ok(h.calls.includes("max 4"));
  });

  it("runs at most `concurrency` reconciles at once", async (t) => {
    const gate = deferred();
    const h = harness(t, () => gate.promise.then(() => undefined), { concurrency: 2 });
    void h.run();
    for (const name of ["a", "b", "c", "d"]) h.source.enqueue(`ns/${name}`, "watch:ConfigMap:create");
    await flush();
    assert.deepEqual(h.keys(), ["ns/a", "ns/b"]);
    assert.deepEqual(
      h.calls.filter((c) => c.startsWith("active")),
      ["active 1", "active 2"],
    );
    gate.resolve();
    await flush();
    await flush();
    assert.deepEqual(h.keys(), ["ns/a", "ns/b", "ns/c", "ns/d"]);
    assert.equal(h.calls.filter((c) => c.startsWith("active")).at(-1), "active 0");
  });
});

describe("Controller: resync", () => {
  it("re-queues every cached key with reason resync, every period (±10 %)", async (t) => {
    const h = harness(t, () => undefined, { resyncPeriodMs: 60_000 });
    h.store.writer.apply(cm("a"));
    h.store.writer.apply(cm("b"));
    void h.run();
    await h.advance(53_999);
    assert.equal(h.reconciles.length, 0);
    await h.advance(66_000 - 53_999);
    assert.deepEqual(h.keys().sort(), ["ns/a", "ns/b"]);
    assert.ok(h.reconciles.every((r) => r.ctx.triggers[0]?.reason === "resync"));
    h.store.writer.apply(cm("c"));
    await h.advance(66_000);
    assert.deepEqual(h.keys().slice(2).sort(), ["ns/a", "ns/b", "ns/c"]);
  });

  it("does not resync with a period of 0", async (t) => {
    const h = harness(t, () => undefined, { resyncPeriodMs: 0 });
    h.store.writer.apply(cm("a"));
    void h.run();
    await h.advance(100 * 3_600_000);
    assert.equal(h.reconciles.length, 0);
    assert.equal(h.clock.pending, 0);
  });

  it("resyncs every 10 h by default", async (t) => {
    const h = harness(t, () => undefined, { resyncPeriodMs: undefined });
    h.store.writer.apply(cm("a"));
    void h.run();
    await h.advance(9 * 3_600_000 - 1);
    assert.equal(h.reconciles.length, 0);
    await h.advance(2 * 3_600_000 + 1);
    assert.deepEqual(h.keys(), ["ns/a"]);
  });
});

describe("Controller: shutdown", () => {
  it("stops its sources, drops queued keys and lets in-flight reconciles finish", async (t) => {
    const gate = deferred();
    const h = harness(t, () => gate.promise.then(() => undefined));
    const running = h.run();
    assert.equal(h.source.started, 1);
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    h.source.enqueue("ns/b", "watch:ConfigMap:create");
    h.stop.abort();
    await flush();
    assert.equal(h.source.stopped, 1);
    let stopped = false;
    void running.then(() => {
      stopped = true;
    });
    await flush();
    assert.equal(stopped, false, "waits for the reconcile in flight");
    gate.resolve();
    await running;
    assert.deepEqual(h.keys(), ["ns/a"]);
    assert.equal(h.reconciles[0]?.ctx.signal.aborted, false);
    h.controller.enqueue("ns/c", "manual");
    await flush();
    assert.deepEqual(h.keys(), ["ns/a"]);
  });

  it("aborts in-flight reconciles once gracefulShutdownMs has passed", async (t) => {
    const h = harness(
      t,
      (call) =>
        new Promise((_resolve, reject) => {
          call.ctx.signal.addEventListener("abort", () => reject(call.ctx.signal.reason));
        }),
      { gracefulShutdownMs: 5_000 },
    );
    const running = h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    h.stop.abort();
    await flush();
    await h.advance(4_999);
    const signal = h.reconciles[0]?.ctx.signal;
    assert.equal(signal?.aborted, false);
    await h.advance(1);
    assert.equal(signal?.aborted, true);
    assert.match(String((signal?.reason as Error | undefined)?.message), /grace period/);
    await running;
    assert.equal(h.reconciles.length, 1, "the aborted reconcile is not retried after shutdown");
  });

  it("returns at once when stopped with nothing in flight", async (t) => {
    const h = harness(t);
    h.stop.abort();
    await h.run();
    assert.equal(h.source.started, 1);
    assert.equal(h.source.stopped, 1);
    assert.equal(h.clock.pending, 0, "the grace timer is cancelled");
  });
});
