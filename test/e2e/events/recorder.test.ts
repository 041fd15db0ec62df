import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  Event,
  type EventObject,
  Namespace,
} from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { EventRecorder, type EventRecorderOptions } from "../../../src/events/index.ts";
import { eventually, kubectl, kubectlJson, testClient, testNamespace } from "../support.ts";

const controller = "kubeloop.dev/events-e2e";

/** A recorder whose warnings fail the test, closed when the test ends. */
function recorder(
  t: TestContext,
  client: Client,
  options: Partial<EventRecorderOptions> = {},
): EventRecorder {
  const warnings: string[] = [];
  const made = new EventRecorder(client, {
    reportingController: controller,
    reportingInstance: "events-e2e-0",
    logger: { warn: (obj, msg) => warnings.push(`${msg} ${JSON.stringify(obj)}`) },
    ...options,
  });
  t.after(async () => {
    await made.close(AbortSignal.timeout(10_000));
    assert.deepEqual(warnings, [], "the recorder logged no failure");
  });
  return made;
}

async function configMap(client: Client, namespace: string, name: string): Promise<ConfigMapObject> {
  return client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace },
    data: {},
  });
}

/** The namespace's Events, once `count` of them exist. */
async function eventsOnceThere(
  client: Client,
  namespace: string,
  count: number,
  what: string,
): Promise<EventObject[]> {
  return eventually(
    async () => {
      const { items } = await client.list(Event, { namespace });
      return items.length === count ? items : undefined;
    },
    { what },
  );
}

test("a recorded event is an events.k8s.io/v1 Event with every field", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const settings = await configMap(client, ns, "settings");
  const job = await configMap(client, ns, "job-source");
  const events = recorder(t, client);

  events.normal(settings, "Created", "Create", "created Job backup-1", { related: job });

  const [event] = await eventsOnceThere(client, ns, 1, "the Event");
  assert.ok(event);
  assert.match(event.metadata.name ?? "", /^settings\.[0-9a-f]+$/);
  assert.match(event.eventTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, "a MicroTime");
  assert.equal(event.type, "Normal");
  assert.equal(event.reason, "Created");
  assert.equal(event.action, "Create");
  assert.equal(event.note, "created Job backup-1");
  assert.equal(event.reportingController, controller);
  assert.equal(event.reportingInstance, "events-e2e-0");
  assert.deepEqual(event.regarding, {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: ns,
    name: "settings",
    uid: settings.metadata.uid,
    resourceVersion: settings.metadata.resourceVersion,
  });
  assert.deepEqual(event.related, {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: ns,
    name: "job-source",
    uid: job.metadata.uid,
    resourceVersion: job.metadata.resourceVersion,
  });
  assert.equal(event.series, undefined);

  const viaKubectl = await kubectlJson<{ items: EventObject[] }>([
    "get",
    "events.v1.events.k8s.io",
    "-n",
    ns,
  ]);
  assert.equal(viaKubectl.items.length, 1);
  const fields = [
    "eventTime",
    "type",
    "reason",
    "action",
    "note",
    "regarding",
    "related",
    "reportingController",
    "reportingInstance",
  ] as const;
  for (const field of fields) assert.deepEqual(viaKubectl.items[0]?.[field], event[field], field);
  assert.equal(viaKubectl.items[0]?.metadata.name, event.metadata.name);
});

test("ten repeats are one Event whose series counts ten, shown once by kubectl events", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const settings = await configMap(client, ns, "settings");
  const events = recorder(t, client, { seriesUpdateIntervalMs: 200 });

  const record = () =>
    events.warning(settings, "BucketMissing", "Reconcile", "bucket backups does not exist");
  record();
  await eventsOnceThere(client, ns, 1, "the first occurrence's Event");
  for (let i = 1; i < 10; i++) record(); // these reach the Event as merge patches of its series

  const event = await eventually(
    async () => {
      const { items } = await client.list(Event, { namespace: ns });
      assert.equal(items.length, 1, "never a second object");
      return items[0]?.series?.count === 10 ? items[0] : undefined;
    },
    { what: "series.count 10" },
  );
  assert.match(event.series?.lastObservedTime ?? "", /\.\d{6}Z$/);
  assert.ok(events.stats.seriesUpdates >= 1, "the count arrived by patch");

  const table = (await kubectl(["events", "-n", ns])).stdout;
  const rows = table.split("\n").filter((line) => line.includes("BucketMissing"));
  assert.equal(rows.length, 1, table);
  assert.match(
    rows[0] ?? "",
    /\(x10 over .*\)\s+Warning\s+BucketMissing\s+ConfigMap\/settings\s+bucket backups does not exist/,
  );
});

test("a Warning and a Normal with the same reason stay two Events", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const settings = await configMap(client, ns, "settings");
  const events = recorder(t, client, { seriesUpdateIntervalMs: 200 });

  events.normal(settings, "Synced", "Sync", "synced");
  events.warning(settings, "Synced", "Sync", "synced");
  events.warning(settings, "Synced", "Sync", "synced");

  const items = await eventsOnceThere(client, ns, 2, "two Events");
  const byType = new Map(items.map((e) => [e.type, e]));
  assert.equal(byType.get("Normal")?.series, undefined);
  await eventually(
    async () =>
      (await client.get(Event, byType.get("Warning")?.metadata.name ?? "", { namespace: ns })).series
        ?.count === 2,
    {
      what: "the Warning's series",
    },
  );
  const warnings = (await kubectl(["events", "-n", ns, "--types=Warning"])).stdout;
  assert.equal(warnings.split("\n").filter((l) => l.includes("Synced")).length, 1, warnings);
});

test("a repeat after its Event was deleted creates it again with the full count", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const settings = await configMap(client, ns, "settings");
  const events = recorder(t, client, { seriesUpdateIntervalMs: 0 });

  events.normal(settings, "Synced", "Sync", "synced");
  const [first] = await eventsOnceThere(client, ns, 1, "the Event");
  const name = first?.metadata.name ?? "";
  await client.delete(Event, name, { namespace: ns });
  events.normal(settings, "Synced", "Sync", "synced");
  events.normal(settings, "Synced", "Sync", "synced");

  const recreated = await eventually(
    async () => {
      const event = await client.get(Event, name, { namespace: ns });
      return event.series?.count === 3 ? event : undefined;
    },
    { what: "the recreated Event" },
  );
  assert.notEqual(recreated.metadata.uid, first?.metadata.uid, "a new object under the same name");
  assert.equal(recreated.eventTime, first?.eventTime);
  assert.equal((await client.list(Event, { namespace: ns })).items.length, 1);
});

test("an event about a cluster-scoped object goes to the default namespace", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const namespace = await client.get(Namespace, ns);
  const events = recorder(t, client);

  events.normal(namespace, "Inspected", "Inspect", "looked at it");

  const event = await eventually(
    async () => {
      const { items } = await client.list(Event, { namespace: "default" });
      return items.find((e) => e.regarding?.uid === namespace.metadata.uid);
    },
    { what: "the Event in default" },
  );
  assert.deepEqual(event.regarding, {
    apiVersion: "v1",
    kind: "Namespace",
    name: ns,
    uid: namespace.metadata.uid,
    resourceVersion: namespace.metadata.resourceVersion,
  });
  await client.delete(Event, event.metadata.name ?? "", { namespace: "default" });
});
