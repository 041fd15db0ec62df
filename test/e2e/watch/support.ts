/**
 * Helpers for the watch tests: a fault proxy in front of the run's cluster with a client that
 * goes through it, a background `watch()` of one namespace's ConfigMaps that records what it
 * yields and what its metrics hooks report, and the watch requests the proxy saw.
 */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import {
  type FaultProxy,
  type RequestRecord,
  startProxy,
  upstreamFromKubeconfig,
} from "../../../src/testing/proxy/index.ts";
import { type RestartReason, type WatchEvent, type WatcherOptions, watch } from "../../../src/watch/index.ts";
import { eventually, kubeconfigPath, onCleanup, testClient } from "../support.ts";

export { onCleanup };

/** A proxy in front of the run's cluster and an admin client that talks through it. */
export async function proxiedClient(t: TestContext): Promise<{ proxy: FaultProxy; client: Client }> {
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  const client = new Client(await loadKubeconfig({ kubeconfig: proxy.kubeconfig() }), {
    qps: Number.POSITIVE_INFINITY,
  });
  onCleanup(t, () => client.close());
  return { proxy, client };
}

/** What a background watch yielded and reported. */
export interface Recording {
  events: WatchEvent<ConfigMapObject>[];
  relists: RestartReason[];
  reconnects: RestartReason[];
  /** Delays of the retries the watcher announced, in order. */
  retryDelays: number[];
  /** How many bookmarks arrived (each may advance the resourceVersion a reconnect resumes from). */
  bookmarks: number;
  /** True once the first (re)list completed. */
  readonly synced: boolean;
}

/** Runs `watch()` on the ConfigMaps of `namespace` until the test ends, recording everything. */
export async function recordWatch(
  t: TestContext,
  client: Client,
  namespace: string,
  options: Omit<WatcherOptions, "namespace" | "signal" | "metrics"> = {},
): Promise<Recording> {
  const recording = {
    events: [] as WatchEvent<ConfigMapObject>[],
    relists: [] as RestartReason[],
    reconnects: [] as RestartReason[],
    retryDelays: [] as number[],
    bookmarks: 0,
    get synced() {
      return this.events.some((e) => e.type === "initDone");
    },
  };
  const stop = new AbortController();
  const events = watch(client, ConfigMap, {
    labelSelector: selector,
    ...options,
    namespace,
    signal: stop.signal,
    metrics: {
      relist: (reason) => recording.relists.push(reason),
      reconnect: (reason) => recording.reconnects.push(reason),
      retry: (_err, delayMs) => recording.retryDelays.push(delayMs),
      event: (type) => {
        if (type === "BOOKMARK") recording.bookmarks++;
      },
    },
  });
  const running = (async () => {
    for await (const event of events) recording.events.push(event);
  })();
  onCleanup(t, async () => {
    stop.abort();
    await running;
  });
  await eventually(() => recording.synced, { what: "the watch's initial state" });
  return recording;
}

/** The `step` values that `apply` events carried for ConfigMap `name`, in arrival order. */
export function appliedSteps(recording: Recording, name: string): (string | undefined)[] {
  return recording.events
    .filter((e) => e.type === "apply" && e.object.metadata.name === name)
    .map((e) => (e.type === "apply" ? e.object.data?.step : undefined));
}

/** Waits until an `apply` of ConfigMap `name` with `data.step === step` arrived. */
export function arrives(recording: Recording, name: string, step: string): Promise<true> {
  return eventually(() => appliedSteps(recording, name).includes(step), {
    what: `the watch to deliver ${name} at step ${step}`,
  });
}

/** A request the proxy saw, with its query parsed. */
export interface SeenRequest extends RequestRecord {
  query: URLSearchParams;
}

/** The ConfigMap list and watch requests of `namespace` the proxy saw, oldest first. */
export function configMapRequests(
  proxy: FaultProxy,
  namespace: string,
  verb: "list" | "watch",
): SeenRequest[] {
  return proxy
    .requests()
    .filter((r) => r.verb === verb && r.resource === "configmaps" && r.namespace === namespace)
    .map((r) => ({ ...r, query: new URL(r.path, "https://proxy").searchParams }));
}

/** The label every ConfigMap of these tests carries (the watches select it, so other ConfigMaps stay out). */
export const selector = "e2e.kubeloop.dev/watch=yes";

/** Creates or updates ConfigMap `name` directly on the apiserver, with `data.step = step`; returns its resourceVersion. */
export async function setStep(namespace: string, name: string, step: string): Promise<string> {
  const client = await testClient();
  const applied = await client.apply(
    ConfigMap,
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace, labels: { "e2e.kubeloop.dev/watch": "yes" } },
      data: { step },
    },
    { fieldManager: "watch-e2e", force: true },
  );
  return applied.metadata.resourceVersion as string;
}

/**
 * Every reconnect resumes from the last resourceVersion the watcher saw: `lastSeen`, or a later
 * one a bookmark carried (the apiserver sends them on its own schedule). None starts over.
 */
export function assertResumesFrom(requests: SeenRequest[], lastSeen: string, bookmarks: number): void {
  const resumedFrom = requests.map((request) => request.query.get("resourceVersion") ?? "");
  const seen = `resumed from ${resumedFrom.join(", ")}; last event at ${lastSeen}, ${bookmarks} bookmarks`;
  assert.ok(
    resumedFrom.every(
      (rv, i) => /^[1-9][0-9]*$/.test(rv) && BigInt(rv) >= BigInt(resumedFrom[i - 1] ?? lastSeen),
    ),
    `every reconnect resumes from a resourceVersion at or after the last seen, none relists: ${seen}`,
  );
  assert.ok(
    bookmarks > 0 || resumedFrom.every((rv) => rv === lastSeen),
    `only a bookmark moves it on: ${seen}`,
  );
}
