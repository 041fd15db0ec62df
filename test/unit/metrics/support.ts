/**
 * A manager's registry, the one its `/metrics` serves (with a webhook, and the webhook server's
 * metrics it registers when it starts), with a series on every metric: each hook called once.
 */
import type { Registry } from "prom-client";
import { ConfigMap } from "../../../src/api/index.ts";
import { WorkQueue } from "../../../src/queue/index.ts";
import { Verdict, validating } from "../../../src/webhook/index.ts";
import { WebhookMetrics } from "../../../src/webhook/metrics.ts";
import { fakeManager } from "../manager/support.ts";

const anyConfigMap = validating(ConfigMap, () => Verdict.allow());

/** Calls the hooks of one controller, its queue included. */
async function controllerSeries(manager: Awaited<ReturnType<typeof fakeManager>>["manager"]) {
  const controller = manager.metrics.controller("widget");
  controller.reconciled("success", 0.1);
  controller.failed(false);
  controller.failed(true);
  controller.timedOut();
  controller.ownWritesWaited("timeout");
  controller.handlingFailed("logger");
  controller.activeWorkers(1);
  controller.maxConcurrent(1);
  controller.triggered("watch:Widget:update");
  controller.driftRepaired("ConfigMap", "kubectl-edit");
  controller.conditionTransitioned("Widget", "Ready", "True");
  controller.queue.retried();
  const queue = new WorkQueue({ metrics: controller.queue });
  manager.metrics.trackQueue("widget", queue);
  queue.add("ns/a", "watch:Widget:update");
  queue.add("ns/b", "watch:Widget:update");
  queue.done((await queue.get())?.key ?? "");
}

/**
 * The registry of a manager whose every metric has a series. It has a metrics endpoint (never
 * started), so its registry has the process metrics too.
 */
export async function everySeries(): Promise<Registry> {
  const { manager } = await fakeManager({ webhooks: [anyConfigMap], metrics: { port: 0 } });
  const { metrics } = manager;
  await controllerSeries(manager);
  // Created, not started: the cache's kinds are what the cache gauges report.
  manager.cache.informer(ConfigMap);
  const informer = metrics.informer(ConfigMap);
  informer.event?.("ADDED");
  informer.bytes?.(100);
  informer.relist?.("expired");
  informer.reconnect?.("closed");
  informer.diverged?.("added");
  informer.restart?.(new Error("died"), 100);
  informer.callbackError?.("handler");
  informer.outsideShard?.();
  const client = metrics.client("apiserver");
  client.request({ method: "GET", verb: "list", code: "200", seconds: 0.01 });
  client.retry?.({ method: "GET", code: "429" });
  metrics.leader.set({ name: "widgets" }, 1);
  metrics.leaseErrors.inc({ phase: "renew", code: "timeout" });
  metrics.shardsHeld.set({}, 1);
  metrics.shardHandover("lost");
  metrics.shardHandover("acquired", { index: 3, unownedMs: 1500 });
  metrics.clientFiltered("Pod", true);
  metrics.cacheBudgetExceeded("Pod", true);
  metrics.shardLabelled("Pod", false);
  metrics.shardLabelFailed("Pod");
  metrics.runnables.running("sweeper", true);
  metrics.runnables.failed("sweeper");
  const webhooks = new WebhookMetrics(metrics.registry);
  webhooks.started("/validate");
  webhooks.finished("/validate", 200, 0.01);
  webhooks.failed("/validate", "timeout");
  return metrics.registry;
}
