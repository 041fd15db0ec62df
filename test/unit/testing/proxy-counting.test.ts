import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { RequestLog } from "../../../src/testing/proxy/counting.ts";
import { describeRequest } from "../../../src/testing/proxy/request-info.ts";

const requests: [string, string][] = [
  ["POST", "/api/v1/namespaces/demo/configmaps"],
  ["GET", "/api/v1/namespaces/demo/configmaps/a"],
  ["GET", "/api/v1/namespaces/demo/configmaps/a"],
  ["GET", "/api/v1/namespaces/demo/configmaps"],
  ["GET", "/api/v1/namespaces/demo/configmaps?watch=true"],
  ["PATCH", "/api/v1/namespaces/demo/pods/p/status"],
  ["PUT", "/api/v1/namespaces/demo/configmaps/a"],
  ["DELETE", "/api/v1/namespaces/demo/configmaps/a"],
  ["DELETE", "/api/v1/namespaces/demo/configmaps"],
  ["GET", "/version"],
];

function filled(capacity = 100) {
  const clock = new FakeClock(1000);
  const log = new RequestLog(capacity, clock);
  const records = requests.map(([method, url]) => log.start(describeRequest(method, url), "tester"));
  return { clock, log, records };
}

describe("proxy: request counting", () => {
  it("counts every request by verb and by resource", () => {
    const { log } = filled();
    assert.deepEqual(log.counts(), {
      total: 10,
      byVerb: { create: 1, get: 3, list: 1, watch: 1, patch: 1, update: 1, delete: 1, deletecollection: 1 },
      byResource: {
        configmaps: { create: 1, get: 2, list: 1, watch: 1, update: 1, delete: 1, deletecollection: 1 },
        "pods/status": { patch: 1 },
      },
    });
    assert.equal(log.mutatingCount(), 5);
  });

  it("records each request with its duration once finished", () => {
    const { clock, log, records } = filled();
    clock.advance(250);
    const first = records[0];
    assert.ok(first);
    first.status = 201;
    log.finish(first);
    const [listed] = log.records();
    assert.deepEqual(listed, {
      id: 1,
      method: "POST",
      path: "/api/v1/namespaces/demo/configmaps",
      verb: "create",
      resource: "configmaps",
      namespace: "demo",
      caller: "tester",
      startedAt: 1000,
      status: 201,
      durationMs: 250,
      faults: [],
    });
    assert.equal(log.records()[4]?.path, "/api/v1/namespaces/demo/configmaps?watch=true");
  });

  it("hands out copies, keeps only the most recent requests, and resets", () => {
    const { log } = filled(3);
    const snapshot = log.counts();
    const records = log.records();
    assert.deepEqual(
      records.map((r) => r.id),
      [8, 9, 10],
    );
    (records[0] as { verb: string }).verb = "changed";
    snapshot.total = 0;
    assert.equal(log.records()[0]?.verb, "delete");
    assert.equal(log.counts().total, 10);
    log.reset();
    assert.deepEqual(log.counts(), { total: 0, byVerb: {}, byResource: {} });
    assert.deepEqual(log.records(), []);
    assert.equal(log.mutatingCount(), 0);
  });

  it("hands out only the requests after an id, and names the last id even once the history is reset", () => {
    const { log } = filled(5);
    assert.equal(log.lastId(), 10);
    assert.deepEqual(
      log.records(7).map((r) => r.id),
      [8, 9, 10],
    );
    assert.deepEqual(log.records(10), []);
    assert.deepEqual(
      log.records(2).map((r) => r.id),
      [6, 7, 8, 9, 10],
      "what the history no longer holds is not handed out",
    );
    log.reset();
    assert.equal(log.lastId(), 10);
    log.start(describeRequest("GET", "/version"));
    assert.deepEqual(
      log.records(10).map((r) => r.id),
      [11],
    );
  });
});
