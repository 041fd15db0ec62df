import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ForbiddenError } from "../../../src/client/index.ts";
import { apiError, configMap, setup } from "./support.ts";

describe("EventRecorder: a new event", () => {
  it("creates one events.k8s.io/v1 Event with every field, named after the regarding object", async () => {
    const { client, recorder } = setup();
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "backup-1", namespace: "shop", uid: "j1" },
    };
    recorder.normal(configMap("settings"), "Created", "Create", "created Job backup-1", { related: job });
    await recorder.flush();

    assert.equal(client.calls.length, 1);
    const [call] = client.callsOf("create");
    assert.ok(call);
    assert.equal(call.namespace, "shop");
    assert.match(call.name, /^settings\.[0-9a-f]{16,}$/);
    assert.deepEqual(call.body, {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: call.name, namespace: "shop" },
      eventTime: "2025-01-02T03:04:05.678000Z",
      type: "Normal",
      reason: "Created",
      action: "Create",
      note: "created Job backup-1",
      regarding: {
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "shop",
        name: "settings",
        uid: "uid-settings",
        resourceVersion: "7",
      },
      related: { apiVersion: "batch/v1", kind: "Job", namespace: "shop", name: "backup-1", uid: "j1" },
      reportingController: "example.com/widget-controller",
      reportingInstance: "widget-controller-0",
    });
    assert.deepEqual(recorder.stats, {
      recorded: 1,
      created: 1,
      seriesUpdates: 0,
      droppedRateLimited: 0,
      droppedQueueFull: 0,
      failed: 0,
    });
  });

  it("returns before anything is sent", () => {
    const { client, recorder } = setup();
    recorder.warning(configMap("settings"), "Failed", "Reconcile", "boom");
    assert.equal(client.calls.length, 0);
  });

  it("puts events about cluster-scoped objects in the default namespace", async () => {
    const { client, recorder } = setup();
    recorder.normal(
      { apiVersion: "v1", kind: "Node", metadata: { name: "node-a", uid: "n1" } },
      "Cordoned",
      "Cordon",
      "",
    );
    await recorder.flush();
    const [call] = client.callsOf("create");
    assert.equal(call?.namespace, "default");
    assert.deepEqual(call?.body.regarding, { apiVersion: "v1", kind: "Node", name: "node-a", uid: "n1" });
    assert.equal("note" in (call?.body ?? {}), false, "an empty note is left out");
  });

  it("accepts an ObjectReference as the regarding object", async () => {
    const { client, recorder } = setup();
    const ref = { apiVersion: "v1", kind: "Pod", namespace: "shop", name: "web-0", uid: "p1" };
    recorder.normal(ref, "Evicted", "Evict", "evicted");
    await recorder.flush();
    assert.deepEqual(client.callsOf("create")[0]?.body.regarding, ref);
  });

  it("cuts the note to 1024 bytes of UTF-8 without splitting a character, and reason and action to 128", async () => {
    const { client, recorder } = setup();
    recorder.warning(configMap("settings"), "R".repeat(200), "A".repeat(200), `x${"é".repeat(1000)}`);
    await recorder.flush();
    const body = client.callsOf("create")[0]?.body;
    assert.equal(
      Buffer.byteLength(body?.note ?? ""),
      1023,
      "1 + 511 two-byte characters; the 512th would split",
    );
    assert.equal(body?.note, `x${"é".repeat(511)}`);
    assert.equal(body?.reason, "R".repeat(128));
    assert.equal(body?.action, "A".repeat(128));
  });

  it("makes the name a DNS subdomain that fits in 253 characters", async () => {
    const { client, recorder } = setup();
    recorder.normal(
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "System:Controller:x" },
      },
      "Seen",
      "Observe",
    );
    recorder.normal(configMap("a".repeat(253)), "Seen", "Observe");
    await recorder.flush();
    const [first, second] = client.callsOf("create").map((c) => c.name);
    assert.match(first ?? "", /^system-controller-x\.[0-9a-f]+$/);
    assert.ok((second ?? "").length <= 253);
    assert.match(second ?? "", /^a+\.[0-9a-f]+$/);
  });

  it("logs and counts a malformed call instead of throwing", async () => {
    const { client, logger, recorder } = setup();
    assert.doesNotThrow(() => recorder.normal(configMap("settings"), "", "Create", "no reason"));
    assert.doesNotThrow(() =>
      recorder.normal({ apiVersion: "v1", kind: "ConfigMap", metadata: {} }, "Created", "Create"),
    );
    assert.doesNotThrow(() =>
      recorder.event(configMap("settings"), "Error" as "Warning", "Created", "Create"),
    );
    await recorder.flush();
    assert.equal(client.calls.length, 0);
    assert.equal(recorder.stats.failed, 3);
    assert.deepEqual(
      logger.lines.map((l) => l.msg),
      [
        "event not recorded: reason is empty; the apiserver requires it",
        "event not recorded: the regarding object has no name",
        "event not recorded: type Error is not Normal or Warning",
      ],
    );
  });

  it("does not throw or reject when the API fails, and logs the failure with its error", async () => {
    const { client, logger, recorder } = setup();
    client.faults.push(() => apiError(ForbiddenError, 403, "Forbidden"));
    assert.doesNotThrow(() => recorder.normal(configMap("settings"), "Created", "Create", "x"));
    await recorder.flush();
    assert.equal(client.calls.length, 1, "a permanent error is not retried");
    assert.equal(recorder.stats.failed, 1);
    assert.equal(logger.lines.length, 1);
    assert.match(logger.lines[0]?.msg ?? "", /could not write event: giving up after 1 attempt/);
    const obj = logger.lines[0]?.obj as { err: unknown; event: { name: string; reason: string } };
    assert.ok(obj.err instanceof ForbiddenError);
    assert.equal(obj.event.reason, "Created");
  });

  it("forgets an event it could not create, so the next occurrence tries again as a new event", async () => {
    const { client, recorder } = setup();
    client.faults.push(() => apiError(ForbiddenError, 403, "Forbidden"));
    recorder.normal(configMap("settings"), "Created", "Create", "x");
    await recorder.flush();
    recorder.normal(configMap("settings"), "Created", "Create", "x");
    await recorder.flush();
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ["create", "create"],
    );
    assert.equal(client.events().length, 1);
    assert.equal(client.events()[0]?.series, undefined);
  });
});
