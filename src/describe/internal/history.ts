/**
 * What happened to a tree, from its Events and its root's conditions: the Events about any of its
 * objects in time order (a series counted once, at its last occurrence), and the root's
 * conditions as a timeline — each current condition at its `lastTransitionTime`, and the earlier
 * transitions that kubeloop's condition events tell (`Ready: False → True (Reason): message`,
 * repeats as the event's series).
 */
import type { EventObject } from "../../api/index.ts";
import { parseTransitionNote } from "../../status/index.ts";

/** A condition as an object reports it, read loosely (any kind's conditions, not only metav1's). */
export interface ConditionState {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** The object an event is about. */
export interface EventRegarding {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
}

/** One Event (or series of it) about an object of the tree. */
export interface TreeEvent {
  /** When it last happened. */
  readonly time: string;
  /** When it first happened. */
  readonly firstTime: string;
  /** How many times it happened (a series' count). */
  readonly count: number;
  /** `Normal` or `Warning`. */
  readonly type: string;
  readonly reason: string;
  readonly note: string;
  readonly regarding: EventRegarding;
  /** The controller that reported it. */
  readonly reporter?: string;
}

/** One transition of a condition of the root. */
export interface TimelineEntry {
  /** When the condition took `status` (first time, for a repeated transition); absent when nobody recorded it. */
  readonly time?: string;
  /** When it last did, for a transition repeated as an event series. */
  readonly lastTime?: string;
  readonly condition: string;
  /** The status before, when an event told it (`Absent` for a new condition). */
  readonly from?: string;
  /** The status it took (`Absent` when it was removed). */
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  /** How many times this transition happened. */
  readonly count: number;
  /** True for the conditions the object holds now. */
  readonly current: boolean;
}

/** The events about the objects whose uids are given, oldest first. */
export function treeEvents(events: readonly EventObject[], uids: ReadonlySet<string>): TreeEvent[] {
  return events
    .filter((e) => e.regarding?.uid && uids.has(e.regarding.uid))
    .map(treeEvent)
    .sort((a, b) => byTime(a.time, b.time));
}

function treeEvent(e: EventObject): TreeEvent {
  const created = e.metadata.creationTimestamp ?? "";
  const firstTime = e.eventTime ?? e.deprecatedFirstTimestamp ?? created;
  const regarding = e.regarding ?? {};
  return {
    time: e.series?.lastObservedTime ?? e.deprecatedLastTimestamp ?? firstTime,
    firstTime,
    count: e.series?.count ?? e.deprecatedCount ?? 1,
    type: e.type ?? "Normal",
    reason: e.reason ?? "",
    note: e.note ?? "",
    regarding: {
      kind: regarding.kind ?? "",
      name: regarding.name ?? "",
      ...(regarding.namespace ? { namespace: regarding.namespace } : {}),
      ...(regarding.uid ? { uid: regarding.uid } : {}),
    },
    ...(e.reportingController ? { reporter: e.reportingController } : {}),
  };
}

/**
 * The timeline of `conditions` (the root's, now) with the transitions `events` (about the root)
 * tell, oldest first. A transition event to a condition's current status at or after its
 * `lastTransitionTime` (less a second: the apiserver keeps whole seconds) is that transition: it
 * lends the current entry its `from` and count instead of being listed twice.
 */
export function conditionTimeline(
  conditions: readonly ConditionState[],
  events: readonly TreeEvent[],
): TimelineEntry[] {
  const told = events.flatMap(transitionOf);
  const current = conditions.map((c) => {
    const same = told.filter((t) => t.condition === c.type && t.status === c.status && isSince(t, c));
    for (const t of same) told.splice(told.indexOf(t), 1);
    return currentEntry(c, same.at(-1));
  });
  return [...told, ...current].sort(inTimelineOrder);
}

/**
 * Oldest first. A condition keeps whole seconds while events keep microseconds: within one second
 * the transitions events tell come first, and the conditions held now last.
 */
function inTimelineOrder(a: TimelineEntry, b: TimelineEntry): number {
  const second = (t: TimelineEntry) => Math.floor(msOf(t.time) / 1000);
  return second(a) - second(b) || Number(a.current) - Number(b.current) || byTime(a.time, b.time);
}

function transitionOf(e: TreeEvent): TimelineEntry[] {
  const t = parseTransitionNote(e.note);
  if (!t) return [];
  const { condition, from, to: status, reason, message } = t;
  const lastTime = e.count > 1 ? { lastTime: e.time } : {};
  return [
    {
      time: e.firstTime,
      ...lastTime,
      condition,
      from,
      status,
      reason,
      message,
      count: e.count,
      current: false,
    },
  ];
}

function isSince(entry: TimelineEntry, c: ConditionState): boolean {
  if (!c.lastTransitionTime) return true;
  return Date.parse(entry.lastTime ?? entry.time ?? "") >= Date.parse(c.lastTransitionTime) - 1000;
}

function currentEntry(c: ConditionState, told: TimelineEntry | undefined): TimelineEntry {
  return {
    ...(c.lastTransitionTime ? { time: c.lastTransitionTime } : {}),
    condition: c.type,
    ...(told?.from ? { from: told.from } : {}),
    status: c.status,
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message } : {}),
    count: told?.count ?? 1,
    current: true,
  };
}

/** Oldest first; an unknown time last. */
function byTime(a: string | undefined, b: string | undefined): number {
  const at = msOf(a);
  const bt = msOf(b);
  return at === bt ? 0 : at < bt ? -1 : 1;
}

function msOf(time: string | undefined): number {
  return time ? Date.parse(time) : Number.POSITIVE_INFINITY;
}
