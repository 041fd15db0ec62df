/**
 * Counts every request that reaches the proxy, by verb and by resource, and keeps the most recent
 * ones with their outcome. A request is counted when it arrives, whatever a fault then does to it.
 */
import type { Clock } from "../../clock/index.ts";
import { mutatingVerbs, type RequestInfo, type Verb } from "./request-info.ts";
import type { WatchEventStats } from "./watch-stream.ts";

/** One request seen by the proxy. */
export interface RequestRecord {
  /** Increasing number, in arrival order. */
  id: number;
  method: string;
  /** Path and query string as the client sent them. */
  path: string;
  verb: Verb;
  /** `plural` or `plural/subresource`; absent for non-resource paths. */
  resource?: string;
  namespace?: string;
  name?: string;
  /** Who called: the certificate's common name, `"(bearer)"` or `"(anonymous)"`. */
  caller?: string;
  /** Arrival time, clock milliseconds. */
  startedAt: number;
  /** The status sent to the client; absent while waiting for one, or when the connection was reset. */
  status?: number;
  /** From arrival until the response ended or the connection closed; absent while in flight. */
  durationMs?: number;
  /** The faults applied: `latency`, `blackhole`, `reset`, `status`, `stale` (`listAsOf`), `stream`. */
  faults: string[];
  /** Why the request failed inside the proxy, e.g. the apiserver could not be reached. */
  error?: string;
  /** For watches whose response started: what happened to the events. */
  events?: WatchEventStats;
}

/** How many requests arrived since the last reset. */
export interface RequestCounts {
  total: number;
  /** Only verbs that occurred appear. */
  byVerb: Partial<Record<Verb, number>>;
  /** Keyed by `plural` or `plural/subresource`; only resource requests appear. */
  byResource: Record<string, Partial<Record<Verb, number>>>;
}

/** Request counters and a bounded history of recent requests. */
export class RequestLog {
  readonly #capacity: number;
  readonly #clock: Clock;
  #nextId = 1;
  #records: RequestRecord[] = [];
  #counts: RequestCounts = { total: 0, byVerb: {}, byResource: {} };

  constructor(capacity: number, clock: Clock) {
    this.#capacity = capacity;
    this.#clock = clock;
  }

  /** Counts an arriving request and returns its record, to be completed by {@link RequestLog.finish}. */
  start(info: RequestInfo, caller?: string): RequestRecord {
    const record: RequestRecord = {
      id: this.#nextId++,
      method: info.method,
      path: info.query ? `${info.path}?${info.query}` : info.path,
      verb: info.verb,
      startedAt: this.#clock.now(),
      faults: [],
    };
    const resource = resourceKey(info);
    if (resource !== undefined) record.resource = resource;
    if (info.namespace !== undefined) record.namespace = info.namespace;
    if (info.name !== undefined) record.name = info.name;
    if (caller !== undefined) record.caller = caller;
    this.#count(record.verb, resource);
    this.#records.push(record);
    if (this.#records.length > this.#capacity) this.#records.shift();
    return record;
  }

  /** Marks a request done. */
  finish(record: RequestRecord): void {
    record.durationMs ??= this.#clock.now() - record.startedAt;
  }

  /** A copy of the counters. */
  counts(): RequestCounts {
    return structuredClone(this.#counts);
  }

  /** Requests with a mutating verb (create, update, patch, delete, deletecollection) since the last reset. */
  mutatingCount(): number {
    return mutatingVerbs.reduce((sum, verb) => sum + (this.#counts.byVerb[verb] ?? 0), 0);
  }

  /**
   * Copies of the recent requests, oldest first; with `afterId`, only those whose id is greater.
   * Only those are copied: the conformance kit asks for the newest few every poll.
   */
  records(afterId = 0): RequestRecord[] {
    let first = this.#records.length;
    while (first > 0 && (this.#records[first - 1]?.id ?? 0) > afterId) first--;
    return this.#records.slice(first).map((r) => structuredClone(r));
  }

  /** The id of the last request counted, 0 before the first. */
  lastId(): number {
    return this.#nextId - 1;
  }

  /** Zeroes the counters and forgets the history. */
  reset(): void {
    this.#counts = { total: 0, byVerb: {}, byResource: {} };
    this.#records = [];
  }

  #count(verb: Verb, resource: string | undefined): void {
    const counts = this.#counts;
    counts.total++;
    counts.byVerb[verb] = (counts.byVerb[verb] ?? 0) + 1;
    if (resource === undefined) return;
    const perResource = counts.byResource[resource] ?? {};
    perResource[verb] = (perResource[verb] ?? 0) + 1;
    counts.byResource[resource] = perResource;
  }
}

function resourceKey(info: RequestInfo): string | undefined {
  if (info.resource === undefined) return undefined;
  return info.subresource === undefined ? info.resource : `${info.resource}/${info.subresource}`;
}
