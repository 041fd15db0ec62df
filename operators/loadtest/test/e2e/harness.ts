/**
 * Runs the LoadTest operator in a Manager inside the test process, against the run's cluster
 * (`test/run.ts` starts it), with its CRD generated from the kind and installed, one namespace per test, and a
 * client whose requests are counted.
 */
import { randomBytes } from "node:crypto";
import type { TestContext } from "node:test";
import {
  Client,
  type Condition,
  ConfigMap,
  type ConfigMapObject,
  Event,
  type EventObject,
  findCondition,
  Manager,
  Namespace,
} from "kubeloop";
import { loadKubeconfig } from "kubeloop/client";
import {
  eventually,
  installKinds,
  kubeconfigPath,
  kubectl,
  managerMetric,
  RequestCounter,
  testClient,
  testLogger,
} from "../../../../test/e2e/support.ts";
import { LoadTest, type LoadTestObject } from "../../api.ts";
import operator, { setupLoadTests } from "../../operator.ts";

export { eventually, kubectl, managerMetric, RequestCounter, testClient };

/** The operator running for one test. */
export interface Harness {
  namespace: string;
  manager: Manager;
  requests: RequestCounter;
  /** Reconciles of LoadTests finished so far, whatever their result. */
  reconciles(): Promise<number>;
}

/** Installs the LoadTest CRD generated from the kind (idempotent) and waits until it is served. */
export async function installCrd(): Promise<void> {
  await installKinds([LoadTest]);
}

/** A namespace for the test, named after it; `cleanup` runs (the operator stops) before it is deleted. */
export async function namespaceFor(
  t: TestContext,
  cleanup: () => Promise<void> = async () => {},
): Promise<string> {
  const slug = t.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  const name = `${slug || "loadtest"}-${randomBytes(3).toString("hex")}`.replace(/^-/, "");
  const admin = await testClient();
  await admin.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  t.after(async () => {
    await cleanup();
    await admin.delete(Namespace, name).catch(() => undefined);
  });
  return name;
}

/**
 * Installs the CRD, makes a namespace (or uses `opts.namespace`, left in place) and starts the
 * operator's Manager scoped to it, as the admin unless `credentials` returns a kubeconfig (it runs
 * once the namespace exists), with the settings of `process.env` and `opts.env` over them. The
 * Manager stops before the namespace is deleted.
 */
export async function startOperator(
  t: TestContext,
  opts: {
    credentials?: (namespace: string) => Promise<string>;
    namespace?: string;
    env?: Record<string, string>;
  } = {},
): Promise<Harness> {
  await installCrd();
  const stop = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let client: Client | undefined;
  const cleanup = async () => {
    stop.abort();
    await running;
    await client?.close();
  };
  if (opts.namespace) t.after(cleanup);
  const namespace = opts.namespace ?? (await namespaceFor(t, cleanup));
  const requests = new RequestCounter();
  const kubeconfig = opts.credentials ? await opts.credentials(namespace) : kubeconfigPath();
  client = new Client(await loadKubeconfig({ kubeconfig }), {
    qps: Number.POSITIVE_INFINITY,
    fieldManager: operator.name,
    metrics: requests,
  });
  const manager = await Manager.create({
    name: operator.name,
    client,
    namespace,
    metrics: { host: "127.0.0.1", port: 0 },
    health: false,
    logger: testLogger(),
  });
  setupLoadTests(manager, { ...process.env, ...opts.env });
  running = manager.start(stop.signal);
  await eventually(() => manager.ready, { what: "the operator's caches synced" });
  return { namespace, manager, requests, reconciles: () => reconcileCount(manager) };
}

async function reconcileCount(manager: Manager): Promise<number> {
  const metric = manager.metrics.registry.getSingleMetric("controller_runtime_reconcile_total");
  const values = (await metric?.get())?.values ?? [];
  return values.filter((v) => v.labels.controller === "loadtest").reduce((sum, v) => sum + v.value, 0);
}

/** A test-script ConfigMap holding a small Artillery script (under `key`). */
export function scriptConfigMap(namespace: string, name: string, key = "test-script.yaml"): ConfigMapObject {
  const script =
    'config:\n  target: "http://shop.example"\n  phases:\n    - duration: 5\n      arrivalRate: 1\n';
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { [key]: script } };
}

/** A LoadTest manifest; the spec is sent as is, so the CRD's defaults apply. */
export function loadTestManifest(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): LoadTestObject {
  return {
    apiVersion: LoadTest.apiVersion,
    kind: LoadTest.kind,
    metadata: { name, namespace },
    spec: spec as LoadTestObject["spec"],
  };
}

/** Creates a LoadTest (and, unless `script: false`, its test-script ConfigMap named `<name>-script`). */
export async function createLoadTest(
  namespace: string,
  name: string,
  spec: Record<string, unknown> = {},
  opts: { script?: boolean } = {},
): Promise<void> {
  const client = await testClient();
  const script = `${name}-script`;
  if (opts.script !== false) await client.create(ConfigMap, scriptConfigMap(namespace, script));
  const full = { count: 4, testScript: { config: { configMap: script } }, ...spec };
  await client.create(LoadTest, loadTestManifest(namespace, name, full));
}

/** The condition of `type` of a LoadTest. */
export function conditionOf(obj: LoadTestObject, type: string): Condition | undefined {
  return findCondition(obj.status?.conditions ?? [], type);
}

/** Polls the LoadTest until `check` holds for it; returns that copy. */
export function waitForLoadTest(
  namespace: string,
  name: string,
  check: (obj: LoadTestObject) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<LoadTestObject> {
  return eventually(
    async () => {
      const obj = await (await testClient()).get(LoadTest, name, { namespace });
      return check(obj) ? obj : undefined;
    },
    { what, timeoutMs, intervalMs: 500 },
  );
}

/** `kubectl wait --for=condition=Completed loadtest/<name>`. */
export function kubectlWaitCompleted(namespace: string, name: string, timeout = "120s") {
  return kubectl(
    ["wait", "-n", namespace, "--for=condition=Completed", `loadtest/${name}`, `--timeout=${timeout}`],
    {
      allowFail: true,
    },
  );
}

/**
 * The operator's events about `name` in `namespace`, once each of `reasons` is among them: events
 * are written in the background, a moment after the status change they tell of.
 */
export async function operatorEvents(
  namespace: string,
  name: string,
  reasons: readonly string[] = [],
): Promise<EventObject[]> {
  const read = async () => {
    const events = await (await testClient()).list(Event, { namespace });
    return events.items.filter((e) => e.reportingController === operator.name && e.regarding?.name === name);
  };
  return eventually(
    async () => {
      const events = await read();
      return reasons.every((reason) => events.some((e) => e.reason === reason)) && events;
    },
    { what: `the events ${reasons.join(", ")} about ${name}` },
  );
}

/**
 * Waits until the operator is idle over LoadTest `name`: nothing queued or in flight, every event
 * it recorded sent (and counted by `requests`), and its cache holding the live copy. Take a
 * "nothing happens" baseline only after this, or a write still in flight reads as a loop.
 */
export async function idle(h: Harness, name: string): Promise<LoadTestObject> {
  const client = await testClient();
  const cache = await h.manager.cache.reader(LoadTest);
  const queue = h.manager.controllers[0]?.queue;
  return eventually(
    async () => {
      const live = await client.get(LoadTest, name, { namespace: h.namespace });
      const quiet = queue?.length === 0 && queue.unfinishedWorkSeconds() === 0;
      await h.manager.recorder.flush(AbortSignal.timeout(10_000));
      const cached = cache.get(name, h.namespace);
      return quiet && cached?.metadata.resourceVersion === live.metadata.resourceVersion ? live : undefined;
    },
    { what: `the operator idle over ${name}` },
  );
}

/**
 * Asserts that `value()` stays equal to its first reading for `ms` (polled): for checking that
 * nothing happens, e.g. no reconcile loop. Fails as soon as it changes.
 */
export async function staysFor<T>(value: () => Promise<T> | T, ms: number, what: string): Promise<T> {
  const first = await value();
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await value();
    if (JSON.stringify(now) !== JSON.stringify(first))
      throw new Error(`${what}: changed from ${JSON.stringify(first)} to ${JSON.stringify(now)}`);
  }
  return first;
}
