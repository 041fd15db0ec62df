/**
 * What the myproxy end-to-end tests share: the CRDs installed from the kinds, the operator running
 * in a Manager in the test process (one per test, watching only the test's namespace), objects to
 * create, and reads of the operator's metrics and events.
 */
import type { TestContext } from "node:test";
import {
  type Client,
  ConfigMap,
  type ConfigMapObject,
  Event,
  type EventObject,
  type InputOf,
  InvalidError,
  type KubeObject,
  type Manager,
  NotFoundError,
  Pod,
  type PodObject,
  type ResourceType,
  Service,
} from "kubeloop";
import { ValidatingWebhookConfiguration } from "kubeloop/api";
import { webhooksServedInTest } from "kubeloop/testing";
import {
  eventually,
  installKinds,
  kubeconfigPath,
  managerMetric,
  onCleanup,
  startManager,
  testClient,
  writesSent,
} from "../../../../test/e2e/support.ts";
import { MyProxy, type MyProxyObject, ProxyRoute, type ProxyRouteObject } from "../../api.ts";
import { configMapName, INSTANCE_LABEL } from "../../deployment.ts";
import { CONFIG_FILE, routesListed } from "../../nginx.ts";
import operator from "../../operator.ts";
import { nginxAccepts } from "../nginx.ts";

export { eventually, kubectl, testClient, testNamespace } from "../../../../test/e2e/support.ts";

/** The operator's name: its field manager and the reporting controller of its events. */
export const OPERATOR = operator.name;

/** Installs the CRDs generated from the operator's kinds (idempotent) and waits until they are served. */
export async function installCrds(): Promise<void> {
  await installKinds(operator.kinds);
}

/** Options of {@link startOperator}. */
export interface OperatorOptions {
  /** Authenticate with this kubeconfig. Default: the admin's. */
  kubeconfig?: string;
  /** Serve the operator's admission webhook for the namespace. Default true. */
  webhooks?: boolean;
  /** Campaign for a Lease in the namespace before reconciling, as in a cluster. Default false. */
  leaderElection?: boolean;
}

/**
 * Runs the operator in a Manager watching `namespace` until the test ends; /metrics on a free port.
 * It serves the ProxyRoute admission webhook on a free port (unless told not to) through a
 * ValidatingWebhookConfiguration of its own, `myproxy-<namespace>`, admitting only that namespace
 * and deleted when the test ends. Every nginx configuration it writes during the test must pass
 * the real `nginx -t` when the test ends.
 */
export async function startOperator(
  t: TestContext,
  namespace: string,
  { kubeconfig = kubeconfigPath(), webhooks = true, leaderElection = false }: OperatorOptions = {},
): Promise<Manager> {
  const config = { kubeconfig };
  const clientOptions = { qps: Number.POSITIVE_INFINITY };
  // Its conversion webhook is served for the whole cluster by the run (test/run.ts).
  const served = webhooksServedInTest(operator.definition.webhooks ?? []);
  const admission = webhooks ? { webhooks: served, webhookServer: { port: 0 } } : {};
  // Registered first, so that it runs once the manager has stopped.
  if (webhooks) onCleanup(t, () => deleteWebhookConfiguration(`${OPERATOR}-${namespace}`));
  const options = {
    name: OPERATOR,
    config,
    clientOptions,
    namespace,
    health: false as const,
    ...admission,
    ...(leaderElection ? { leaderElection: { namespace } } : {}),
  };
  const manager = await startManager(t, options, async (m) => {
    await operator.setup(m);
    checkEveryConfig(t, m);
  });
  if (webhooks) await untilAdmitting(namespace);
  return manager;
}

async function deleteWebhookConfiguration(name: string): Promise<void> {
  await (await testClient()).delete(ValidatingWebhookConfiguration, name).catch(() => {});
}

/**
 * Waits until the apiserver calls the webhook for `namespace` (its configuration reaches the
 * apiserver's admission a moment after the manager applied it): a dry run of an unsafe route is denied.
 */
async function untilAdmitting(namespace: string): Promise<void> {
  const probe = {
    apiVersion: ProxyRoute.apiVersion,
    kind: ProxyRoute.kind,
    metadata: { name: "admission-probe", namespace },
    spec: { proxy: "probe", host: "probe.example", path: "//", backend: { service: "probe", port: 80 } },
  } as ProxyRouteObject;
  const client = await testClient();
  await eventually(
    async () => {
      const answer = await client.create(ProxyRoute, probe, { dryRun: true }).catch((err: Error) => err);
      return answer instanceof InvalidError && answer.message.includes("admission webhook");
    },
    { what: `the ProxyRoute webhook admitting namespace ${namespace}` },
  );
}

/**
 * Collects each configuration the operator wrote into its ConfigMaps (a test's tampering is left
 * out: the operator is no longer the only writer then); when the test ends, `nginx -t` must accept each.
 */
function checkEveryConfig(t: TestContext, manager: Manager): void {
  const configs = new Set<string>();
  const collect = (obj: KubeObject) => {
    const config = (obj as ConfigMapObject).data?.[CONFIG_FILE];
    if (obj.metadata.labels?.[INSTANCE_LABEL] && config && ownsConfig(obj, manager.client.fieldManager)) {
      configs.add(config);
    }
  };
  for (const informer of manager.cache.informers().filter((i) => i.type.kind === ConfigMap.kind)) {
    informer.addHandler({ onAdd: collect, onUpdate: (_, obj) => collect(obj) });
  }
  t.after(async () => {
    for (const config of configs) {
      const { ok, output } = await nginxAccepts(config);
      if (!ok) throw new Error(`nginx -t refused a configuration the operator wrote:\n${output}\n${config}`);
    }
    t.diagnostic(`nginx -t accepted the ${configs.size} configuration(s) the operator wrote`);
  });
}

/** Creates a MyProxy; the fields of `spec` left out take their defaults. */
export async function createProxy(
  namespace: string,
  name: string,
  spec: InputOf<typeof MyProxy>["spec"] = {},
): Promise<MyProxyObject> {
  const client = await testClient();
  return client.create(MyProxy, {
    apiVersion: MyProxy.apiVersion,
    kind: MyProxy.kind,
    metadata: { name, namespace },
    spec,
  });
}

/** Creates a ProxyRoute of MyProxy `proxy`. */
export async function createRoute(
  namespace: string,
  name: string,
  spec: { proxy: string; host: string; path?: string; service: string; port: number | string },
): Promise<ProxyRouteObject> {
  const { service, port, ...rest } = spec;
  const route = {
    apiVersion: ProxyRoute.apiVersion,
    kind: ProxyRoute.kind,
    metadata: { name, namespace },
    spec: { ...rest, backend: { service, port } },
  };
  return (await testClient()).create(ProxyRoute, route as ProxyRouteObject);
}

/** Creates a Service with the given ports (a backend; nothing needs to run behind it). */
export async function createService(
  namespace: string,
  name: string,
  ports: { port: number; name?: string }[],
): Promise<void> {
  await (await testClient()).create(Service, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace },
    spec: { selector: { app: name }, ports },
  });
}

/** The object, or undefined when it does not exist. */
export async function getOrGone<T extends import("kubeloop").KubeObject>(
  type: ResourceType<T>,
  namespace: string,
  name: string,
): Promise<T | undefined> {
  try {
    return await (await testClient()).get(type, name, { namespace });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** A condition of a MyProxy or ProxyRoute. */
export function conditionOf(obj: MyProxyObject | ProxyRouteObject | undefined, type: string) {
  return obj?.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the object's condition `type` has `status` (and `reason`, when given); returns the object. */
export async function waitForCondition<T extends MyProxyObject | ProxyRouteObject>(
  type: ResourceType<T>,
  namespace: string,
  name: string,
  condition: { type: string; status: string; reason?: string },
  timeoutMs = 30_000,
): Promise<T> {
  return eventually(
    async () => {
      const obj = await getOrGone(type, namespace, name);
      const found = conditionOf(obj, condition.type);
      const matches =
        found?.status === condition.status && (!condition.reason || found.reason === condition.reason);
      return matches && found.observedGeneration === obj?.metadata.generation && obj;
    },
    {
      what: `${type.kind} ${name} ${condition.type}=${condition.status} ${condition.reason ?? ""}`,
      timeoutMs,
    },
  );
}

/**
 * Whether the ConfigMap holds what `fieldManager` wrote: it is its only writer. The cache keeps only
 * a summary of `managedFields` (who wrote, not which fields), so any other writer (a test's
 * tampering) leaves the configuration out.
 */
function ownsConfig(configMap: KubeObject, fieldManager: string): boolean {
  const writers = (configMap.metadata.managedFields ?? []).map((entry) => entry.manager);
  return writers.length > 0 && writers.every((manager) => manager === fieldManager);
}

/** The generated nginx configuration of a MyProxy, or undefined without a ConfigMap. */
export async function configOf(namespace: string, proxy: string): Promise<string | undefined> {
  const cm = await getOrGone<ConfigMapObject>(ConfigMap, namespace, configMapName(proxy));
  return cm?.data?.[CONFIG_FILE];
}

/** Names of the routes the configuration's header lists. */
export function routesIn(config: string | undefined): string[] {
  return routesListed(config ?? "");
}

/** The pods of a MyProxy that are not terminating, as the API lists them. */
export async function livePods(namespace: string, proxy: string): Promise<PodObject[]> {
  const client: Client = await testClient();
  const { items } = await client.list(Pod, { namespace, labelSelector: `${INSTANCE_LABEL}=${proxy}` });
  return items.filter((p) => !p.metadata.deletionTimestamp);
}

/** Metrics of a test manager, shared with the other end-to-end suites. */
export { managerMetric as metric, writesSent };

/** Events with `reason` about the object named `regarding` in `namespace`. */
export async function eventsAbout(
  namespace: string,
  regarding: string,
  reason: string,
): Promise<EventObject[]> {
  const { items } = await (await testClient()).list(Event, { namespace });
  return items.filter((e) => e.reason === reason && e.regarding?.name === regarding);
}
