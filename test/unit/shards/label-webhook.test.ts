/**
 * The shard label webhook: the patch it answers a create with, which kinds a sharded operator
 * serves it for, and its configuration in the generated manifests (failure tolerant).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pino } from "pino";
import { ConfigMap, Namespace } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { controller, recordDeclarations } from "../../../src/controller/index.ts";
import { manifestsOf } from "../../../src/generate/index.ts";
import { defineOperator, shardLabelWebhooks } from "../../../src/operator/index.ts";
import { operatorManager } from "../../../src/operator/operator.ts";
import { hashBucket, shardHash } from "../../../src/sharding/index.ts";
import {
  type AdmissionRequest,
  shardLabelWebhook,
  validating,
  webhookName,
} from "../../../src/webhook/index.ts";
import { fakeConnection } from "../client/support.ts";
import { Widget } from "../schema/fixtures.ts";

/** An AdmissionRequest of `operation` on a ConfigMap in `namespace`. */
function request(operation: "CREATE" | "UPDATE", namespace: string, labels?: Record<string, string>) {
  const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace, labels } };
  return {
    uid: "u-1",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    operation,
    namespace,
    name: "c",
    object,
    userInfo: { username: "someone" },
  } as unknown as AdmissionRequest;
}

const patchOf = (answer: { patch?: string }) =>
  answer.patch ? JSON.parse(Buffer.from(answer.patch, "base64").toString()) : undefined;

describe("shardLabelWebhook", () => {
  const webhook = shardLabelWebhook(ConfigMap);
  const ctx = {} as never;

  test("labels an object created with its namespace's hash bucket, with or without labels of its own", async () => {
    const bucket = String(hashBucket(shardHash("team-a")));
    const bare = await webhook.admit(request("CREATE", "team-a"), ctx);
    assert.equal(bare.allowed, true);
    assert.equal(bare.patchType, "JSONPatch");
    assert.deepEqual(patchOf(bare), [
      { op: "add", path: "/metadata/labels", value: { "kubeloop.dev/shard": bucket } },
    ]);
    const labelled = await webhook.admit(request("CREATE", "team-a", { app: "x" }), ctx);
    assert.deepEqual(patchOf(labelled), [
      { op: "add", path: "/metadata/labels/kubeloop.dev~1shard", value: bucket },
    ]);
  });

  test("changes nothing on update, nor an object already carrying its bucket", async () => {
    const bucket = String(hashBucket(shardHash("team-a")));
    assert.deepEqual(await webhook.admit(request("UPDATE", "team-a"), ctx), { allowed: true });
    assert.deepEqual(
      await webhook.admit(request("CREATE", "team-a", { "kubeloop.dev/shard": bucket }), ctx),
      { allowed: true },
    );
  });

  test("is failure tolerant, sent creates only, on a path and name of its own", () => {
    assert.deepEqual(webhook.match, { failurePolicy: "Ignore", operations: ["CREATE"] });
    assert.equal(webhook.path, "/shard-label--v1-configmap");
    assert.equal(webhookName(webhook), "sconfigmap-v1.core.kubeloop.dev");
    assert.ok(webhook.timeoutSeconds <= 5, "a webhook down never holds a create long");
  });
});

const widgets = defineOperator({
  name: "widgets",
  kinds: [Widget],
  webhooks: [validating(Widget, () => undefined)],
  setup(host) {
    controller(host)
      .for(Widget)
      .owns(ConfigMap)
      .reconcile(async () => undefined);
    controller(host, "namespaces")
      .for(Namespace)
      .reconcile(async () => undefined);
  },
});

describe("shardLabelWebhooks", () => {
  const declared = recordDeclarations(widgets.setup);

  test("sharded by namespace: one per namespaced kind the controllers reconcile", async () => {
    const webhooks = shardLabelWebhooks(widgets.definition, {}, await declared);
    assert.deepEqual(
      webhooks.map((w) => w.resource),
      [Widget],
    );
  });

  test("none without sharding, nor sharded by uid (no uid exists at mutating admission)", async () => {
    assert.deepEqual(shardLabelWebhooks(widgets.definition, undefined, await declared), []);
    assert.deepEqual(shardLabelWebhooks(widgets.definition, { key: "uid" }, await declared), []);
  });

  test("none for an operator that serves no webhook of its own: no certificate for the label alone", async () => {
    const plain = { ...widgets.definition, webhooks: [] };
    assert.deepEqual(shardLabelWebhooks(plain, {}, await declared), []);
    const files = await manifestsOf(defineOperator(plain), { sharding: { shards: 32 } });
    assert.equal(files.get("webhooks.yaml"), undefined, "no webhooks.yaml, so no cert-manager Issuer");
  });

  test("generated into the manifests of a sharded operator as a MutatingWebhookConfiguration that ignores failures", async () => {
    const files = await manifestsOf(widgets, { sharding: { shards: 32 } });
    const webhooks = files.get("webhooks.yaml") ?? "";
    assert.match(webhooks, /kind: MutatingWebhookConfiguration/);
    assert.match(webhooks, /path: \/shard-label-example-kubeloop-dev-v1-widget/);
    assert.match(webhooks, /failurePolicy: Ignore/);
    assert.doesNotMatch(
      (await manifestsOf(widgets)).get("webhooks.yaml") ?? "",
      /shard-label/,
      "not sharded: no shard label webhook",
    );
  });

  test("learned at a sharded operator's start from the same single recording run of its setup as its shards", async () => {
    let runs = 0;
    const counted = defineOperator({
      ...widgets.definition,
      setup: (host) => {
        runs++;
        return widgets.setup(host);
      },
    });
    await operatorManager(counted, {
      client: new Client(fakeConnection()),
      logger: pino({ level: "silent" }),
      metrics: false,
      health: false,
      sharding: {},
    });
    assert.equal(runs, 1, "setup ran once before any shard is held");
  });
});
