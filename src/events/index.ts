/**
 * @module events
 *
 * Events as history for humans: an events.k8s.io/v1 recorder with client-go's `tools/events`
 * semantics. An event is about one object (`regarding`, optionally `related`), says what
 * happened (`reason`) and what the controller did (`action`), in a `note`, as `Normal` or
 * `Warning`, reported by a controller and its instance. The first occurrence creates an Event
 * named `<object name>.<suffix>` in the object's namespace (`default` for cluster-scoped
 * objects). Repeats of the same event (same object at any resourceVersion, related object,
 * action, reason, reporter, type and note) within the series window (6 minutes after the previous
 * one) become its series (`series.count`, `series.lastObservedTime`), written by merge patch at
 * most once per update interval (30 s) with repeats in between coalesced; a series whose Event
 * was deleted is created again. Each object gets a token bucket for new Events (burst 25, one
 * more every 5 minutes), beyond which events are dropped and counted.
 *
 * Recording is fire and forget: the methods return at once and never throw, a background sender
 * writes through a bounded queue (the oldest pending write is dropped when it is full), retries
 * transient failures, and logs what it gives up through the injected logger. All time comes
 * from an injected `Clock`.
 *
 * Not for automation: nothing should react to Events (they are deduplicated, rate limited and
 * may be dropped); state that matters goes into `status` conditions. Not a reader of Events
 * either: list them with the client.
 *
 * @example
 * ```ts
 * import { Client } from "kubeloop";
 * import { EventRecorder } from "kubeloop/events";
 *
 * const client = await Client.load();
 * const recorder = new EventRecorder(client, { reportingController: "example.com/backup-controller", logger });
 * // in a reconcile:
 * recorder.normal(backup, "Created", "Create", `created Job ${job.metadata.name}`, { related: job });
 * recorder.warning(backup, "BackupFailed", "Reconcile", "the bucket does not exist");
 * // at shutdown:
 * await recorder.close(AbortSignal.timeout(5000));
 * ```
 */
export * from "./errors.ts";
export type {
  EventClient,
  EventLogger,
  EventRateLimit,
  EventRecorderOptions,
  EventRetry,
  EventType,
} from "./options.ts";
export { type EventOptions, EventRecorder } from "./recorder.ts";
export { type EventSubject, objectReference } from "./reference.ts";
export type { RecorderStats } from "./stats.ts";
