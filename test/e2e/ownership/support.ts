/**
 * Shared pieces of the lifecycle end-to-end tests: a manager per test (its own field manager and
 * /metrics), reading Prometheus samples and Events, conditions on Widgets written through the
 * status subresource, and a teardown that releases finalizers so test namespaces can go away.
 */
import type { TestContext } from "node:test";
import { ConfigMap, type ConfigMapObject, Event, type EventObject } from "../../../src/api/index.ts";
import { type Client, NotFoundError } from "../../../src/client/index.ts";
import type { Manager, ManagerOptions } from "../../../src/manager/index.ts";
import { Widget, type WidgetObject } from "../fixtures/widgets.ts";
import {
  kubeconfigPath,
  managerMetric,
  startManager as startTestManager,
  testClient,
  writesSent,
} from "../support.ts";

/** The finalizer the lifecycle test controllers guard their "external" resources with. */
export const FINALIZER = "lifecycle.e2e.kubeloop.dev/external";

/**
 * Starts a manager named `name` watching `namespace`; its client writes as field manager `name`.
 * `register` builds its controllers; `options` overrides the quiet test logger. Stopped (and awaited) when the test ends.
 */
export async function startManager(
  t: TestContext,
  name: string,
  namespace: string,
  options: Pick<ManagerOptions, "logger">,
  register: (manager: Manager) => void,
): Promise<Manager> {
  const config = { kubeconfig: kubeconfigPath() };
  const clientOptions = { qps: Number.POSITIVE_INFINITY };
  return startTestManager(t, { name, config, clientOptions, namespace, health: false, ...options }, register);
}

/** Metrics of a test manager, shared with the other end-to-end suites. */
export { managerMetric as metric, writesSent };

/** Events in `namespace` with `reason` about the object named `regarding`. */
export async function eventsAbout(
  client: Client,
  namespace: string,
  regarding: string,
  reason: string,
): Promise<EventObject[]> {
  const { items } = await client.list(Event, { namespace });
  return items.filter((e) => e.reason === reason && e.regarding?.name === regarding);
}

/** A condition as the test controllers write it. */
export interface TestCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** The condition of `type` on a Widget's status. */
export function conditionOf(w: WidgetObject | undefined, type: string): TestCondition | undefined {
  const status = (w as { status?: { conditions?: TestCondition[] } } | undefined)?.status;
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * Sets one condition on a Widget through the status subresource, writing only when its status,
 * reason or message changed (a settled object gets no write).
 */
export async function setCondition(client: Client, w: WidgetObject, condition: TestCondition): Promise<void> {
  const current = conditionOf(w, condition.type);
  if (
    current?.status === condition.status &&
    current.reason === condition.reason &&
    current.message === condition.message
  )
    return;
  const others = ((w as { status?: { conditions?: TestCondition[] } }).status?.conditions ?? []).filter(
    (c) => c.type !== condition.type,
  );
  const lastTransitionTime =
    current?.status === condition.status
      ? current.lastTransitionTime
      : new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await client.status.patch(
    Widget,
    w.metadata.name as string,
    { status: { conditions: [...others, { ...condition, lastTransitionTime }] } },
    { type: "merge", namespace: w.metadata.namespace },
  );
}

/** The Widget, or undefined once it is gone. */
export async function widgetOrGone(client: Client, namespace: string, name: string) {
  try {
    return await client.get(Widget, name, { namespace });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** The ConfigMap, or undefined when there is none. */
export async function configMapOrGone(
  client: Client,
  namespace: string,
  name: string,
): Promise<ConfigMapObject | undefined> {
  try {
    return await client.get(ConfigMap, name, { namespace });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * When the test ends (before its namespace is deleted), strips the finalizers of the Widgets left
 * in `namespace`, so that a failed test does not leave a namespace stuck terminating.
 */
export function releaseWidgetsAfter(t: TestContext, namespace: string): void {
  t.after(async () => {
    const client = await testClient();
    const { items } = await client.list(Widget, { namespace });
    for (const w of items.filter((i) => i.metadata.finalizers?.length)) {
      await client
        .patch(
          Widget,
          w.metadata.name as string,
          { metadata: { finalizers: null } },
          { type: "merge", namespace },
        )
        .catch(() => {});
    }
  });
}
