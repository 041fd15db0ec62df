/**
 * Failures reach the object: a Warning event per failure, aggregated into one Event's series; a
 * child refused as invalid is terminal until the object changes, and stalls the kind's conditions.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pino from "pino";
import { ConfigMap, type ConfigMapObject, type ResourceType } from "../../../src/api/index.ts";
import { ForbiddenError, InvalidError, UnreachableError } from "../../../src/client/index.ts";
import { TerminalError } from "../../../src/controller/index.ts";
import { InvalidChildError } from "../../../src/ownership/index.ts";
import { type Condition, defineConditionSet } from "../../../src/status/index.ts";
import { conflict, FakeStatusClient } from "../status/update-status-support.ts";
import { type Behaviour, cm, flush, harness, unfenced } from "./support.ts";

const CronJobConditions = defineConditionSet({
  summary: "Ready",
  dependents: { CronJobReady: "normal-true" },
});

/** ConfigMaps whose kind declares a condition set, as `defineKind({ conditions })` does. */
const WithConditions = { ...ConfigMap, conditions: CronJobConditions } as ResourceType<ConfigMapObject>;

/** The failure `ensureChild` throws for a CronJob with a bad schedule. */
function invalidCronJob(): InvalidChildError {
  const causes = [
    { field: "spec.schedule", reason: "FieldValueInvalid", message: 'Invalid value: "bogus": unparseable' },
  ];
  const status = { code: 422, reason: "Invalid", message: "CronJob.batch is invalid", details: { causes } };
  return new InvalidChildError(
    "CronJob ns/a-nightly",
    new InvalidError(status, { method: "POST", path: "/" }),
  );
}

/** ConfigMap `a` at `generation`, with a status field of its kind. */
function generation(n: number): ConfigMapObject {
  const base = cm("a", String(n));
  return {
    ...base,
    metadata: { ...base.metadata, generation: n },
    status: { lastSchedule: "t" },
  } as ConfigMapObject;
}

/** A controller whose reconciler throws what `fail` gives for the `i`th call (nothing: succeeds). */
function failing(t: Parameters<typeof harness>[0], fail: (i: number) => unknown, deps = {}) {
  const behaviour: Behaviour = (_call, i) => {
    const error = fail(i);
    if (error !== undefined) throw error;
    return undefined;
  };
  return harness(t, behaviour, {}, deps);
}

describe("Controller: failures reach the object", () => {
  it("records a throwing reconcile as one Warning event with the error's message", async (t) => {
    const h = failing(t, () => new Error("the backup bucket does not exist"));
    h.store.writer.apply(cm("a"));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    const [created, ...others] = h.events.callsOf("create");
    assert.equal(others.length, 0);
    assert.equal(created?.body.type, "Warning");
    assert.equal(created?.body.reason, "ReconcileError");
    assert.equal(created?.body.action, "Reconcile");
    assert.equal(created?.body.note, "the backup bucket does not exist");
    assert.equal(created?.body.regarding?.name, "a");
  });

  it("aggregates repeated failures into one Event whose series counts them", async (t) => {
    const h = failing(t, (i) => (i < 5 ? new Error("the backup bucket does not exist") : undefined));
    h.store.writer.apply(cm("a"));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    for (const backoff of [5, 10, 20, 40, 80]) await h.advance(backoff);
    assert.equal(h.reconciles.length, 6, "five failures with backoff, then a success");
    await h.advance(30_000); // the series update interval
    assert.equal(h.events.callsOf("create").length, 1, "one Event object, not one per retry");
    const [event, ...others] = h.events.events();
    assert.equal(others.length, 0);
    assert.equal(event?.series?.count, 5);
  });

  it("records a TerminalError too", async (t) => {
    const h = failing(t, () => new TerminalError("spec.size must be positive"));
    h.store.writer.apply(cm("a"));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    assert.deepEqual(
      h.events.callsOf("create").map((c) => [c.body.reason, c.body.note]),
      [["ReconcileError", "spec.size must be positive"]],
    );
  });

  const conflict409 = conflict();
  for (const [what, error] of [
    ["a 409 Conflict", conflict409],
    ["a wrapped 409 Conflict", new Error("writing status", { cause: conflict409 })],
    ["an unreachable apiserver", new UnreachableError("https://127.0.0.1:6443", new Error("ECONNREFUSED"))],
    ["a create refused in a namespace being deleted", namespaceTerminating()],
  ] as const) {
    it(`records nothing for ${what}: routine, retried silently`, async (t) => {
      const lines: { level: number; msg: string }[] = [];
      const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      const h = failing(t, (i) => (i < 3 ? error : undefined), { logger });
      h.store.writer.apply(cm("a"));
      void h.run();
      h.source.enqueue("ns/a", "watch:ConfigMap:create");
      await flush();
      for (let step = 0; step < 100 && h.reconciles.length < 4; step++) await h.advance(10);
      assert.equal(h.reconciles.length, 4, "retried until it succeeded");
      assert.equal(h.events.calls.length, 0);
      const failures = lines.filter((l) => l.msg.startsWith("reconcile failed"));
      assert.deepEqual(
        failures.map((l) => l.level),
        [30, 30, 30],
        "logged at info: no error line for what heals itself",
      );
    });
  }

  it("records nothing about an object that is gone", async (t) => {
    const h = failing(t, () => new Error("boom"));
    void h.run();
    h.source.enqueue("ns/gone", "watch:ConfigMap:delete");
    await flush();
    assert.equal(h.events.calls.length, 0);
  });
});

/** The apiserver's 403 for a create in a namespace being deleted (its message, as Kubernetes 1.36 words it). */
function namespaceTerminating(): ForbiddenError {
  const message =
    'configmaps "a" is forbidden: unable to create new content in namespace ns because it is being terminated';
  return new ForbiddenError(
    { code: 403, reason: "Forbidden", message },
    { method: "POST", path: "/api/v1/namespaces/ns/configmaps" },
  );
}

describe("Controller: a child refused as invalid", () => {
  it("is not retried until the generation changes, and stalls the summary condition", async (t) => {
    const status = new FakeStatusClient();
    const h = failing(
      t,
      (i) => (i === 0 ? new Error("ensuring the CronJob", { cause: invalidCronJob() }) : undefined),
      { primary: WithConditions, client: unfenced(status) },
    );
    h.store.writer.apply(generation(1));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(2_000_000); // past the longest backoff
    assert.equal(h.reconciles.length, 1, "no retry");
    assert.ok(h.calls.includes("failed terminal"));
    assert.deepEqual(
      h.events.callsOf("create").map((c) => [c.body.type, c.body.reason, c.body.note]),
      [["Warning", "InvalidChild", invalidCronJob().message]],
      "one event: the status write records no transition events of its own",
    );
    const sent = status.sentStatus("patch") as { conditions: Condition[]; observedGeneration: number };
    const condition = (type: string) => sent.conditions.find((c) => c.type === type);
    assert.equal(status.of("patch").length, 1);
    assert.equal(sent.observedGeneration, 1);
    assert.equal(condition("Ready")?.status, "False");
    assert.equal(condition("Ready")?.reason, "InvalidChild");
    assert.match(
      condition("Ready")?.message ?? "",
      /^CronJob ns\/a-nightly was refused as invalid: spec\.schedule: Invalid value: "bogus": unparseable/,
    );
    assert.equal(condition("Stalled")?.status, "True");
    assert.ok(!("lastSchedule" in sent), "the kind's other status fields are kept");

    h.store.writer.apply(generation(2));
    h.source.enqueue("ns/a", "watch:ConfigMap:update");
    await flush();
    assert.equal(h.reconciles.length, 2, "a new generation brings the key back");
    assert.ok(h.calls.includes("reconciled success 0"));
  });

  it("leaves the condition to the next reconcile when the object changed meanwhile (409)", async (t) => {
    const status = new FakeStatusClient();
    status.writes.push(conflict());
    const h = failing(t, () => invalidCronJob(), {
      primary: WithConditions,
      client: unfenced(status),
    });
    h.store.writer.apply(generation(1));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(2_000_000);
    assert.equal(status.of("patch").length, 1, "one attempt, not recomputed on a newer generation");
    assert.equal(h.reconciles.length, 1, "still terminal: the change's watch event brings the key back");
    assert.ok(!h.calls.some((c) => c.startsWith("handling")));
  });

  it("is terminal and told by its event alone on a kind without a condition set", async (t) => {
    const h = failing(t, () => invalidCronJob());
    h.store.writer.apply(cm("a"));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(2_000_000);
    assert.equal(h.reconciles.length, 1);
    assert.deepEqual(
      h.events.callsOf("create").map((c) => c.body.reason),
      ["InvalidChild"],
    );
    assert.ok(!h.calls.some((c) => c.startsWith("handling")), "no status write was tried");
  });
});
