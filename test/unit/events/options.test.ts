import assert from "node:assert/strict";
import { hostname } from "node:os";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { ForbiddenError } from "../../../src/client/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import {
  EventRecorder,
  type EventRecorderOptions,
  InvalidRecorderOptionError,
  objectReference,
} from "../../../src/events/index.ts";
import { apiError, configMap, FakeEventClient } from "./support.ts";

function make(options: Partial<EventRecorderOptions>): EventRecorder {
  return new EventRecorder(new FakeEventClient(), { reportingController: "example.com/widgets", ...options });
}

describe("EventRecorder options", () => {
  it("defaults the reporting instance to the controller name and the host name", () => {
    const recorder = make({});
    assert.equal(recorder.reportingController, "example.com/widgets");
    assert.equal(recorder.reportingInstance, `widgets-${hostname()}`.slice(0, 128));
  });

  for (const [option, value] of [
    ["reportingController", ""],
    ["reportingController", "Example.com/widgets"],
    ["reportingController", "example.com/-widgets"],
    ["reportingController", `example.com/${"w".repeat(64)}`],
    ["reportingInstance", ""],
    ["reportingInstance", "i".repeat(129)],
    ["maxQueued", 0],
    ["seriesWindowMs", -1],
    ["seriesUpdateIntervalMs", Number.NaN],
  ] as const) {
    it(`rejects ${option} = ${JSON.stringify(value)} with KL_EVENTS_INVALID_OPTION`, () => {
      assert.throws(
        () => make({ [option]: value }),
        (err) =>
          err instanceof InvalidRecorderOptionError &&
          hasCode(err, "KL_EVENTS_INVALID_OPTION") &&
          err.option === option,
      );
    });
  }

  it("rejects a bad rate limit or retry setting, naming the nested option", () => {
    const cases: [Partial<EventRecorderOptions>, string][] = [
      [{ rateLimit: { burst: 0 } }, "rateLimit.burst"],
      [{ rateLimit: { refillIntervalMs: 0 } }, "rateLimit.refillIntervalMs"],
      [{ retry: { attempts: 1.5 } }, "retry.attempts"],
      [{ retry: { maxDelayMs: Number.POSITIVE_INFINITY } }, "retry.maxDelayMs"],
    ];
    for (const [options, option] of cases) {
      assert.throws(
        () => make(options),
        (err) => err instanceof InvalidRecorderOptionError && err.option === option,
      );
    }
  });

  it("accepts a pino logger as is", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const client = new FakeEventClient();
    client.faults.push(() => apiError(ForbiddenError, 403, "Forbidden"));
    const recorder = new EventRecorder(client, {
      reportingController: "example.com/widgets",
      logger: pino(stream),
    });
    recorder.normal(configMap("settings"), "Created", "Create");
    await recorder.flush();
    const line = JSON.parse(lines[0] ?? "{}") as {
      level: number;
      msg: string;
      err: { type: string };
      event: { reason: string };
    };
    assert.equal(line.level, 40);
    assert.match(line.msg, /could not write event/);
    assert.equal(line.err.type, "ForbiddenError");
    assert.equal(line.event.reason, "Created");
  });
});

describe("objectReference", () => {
  it("takes apiVersion, kind, namespace, name, uid and resourceVersion from an object and leaves out what is absent", () => {
    const obj = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop", uid: "u", resourceVersion: "9", labels: { a: "b" } },
    };
    assert.deepEqual(objectReference(obj), {
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "shop",
      name: "web",
      uid: "u",
      resourceVersion: "9",
    });
    assert.deepEqual(objectReference({ apiVersion: "v1", kind: "Node", metadata: { name: "n" } }), {
      apiVersion: "v1",
      kind: "Node",
      name: "n",
    });
  });

  it("passes a reference through", () => {
    const ref = { kind: "Pod", name: "p", fieldPath: "spec.containers{web}" };
    assert.equal(objectReference(ref), ref);
  });
});
