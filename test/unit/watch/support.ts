/**
 * A scripted {@link WatchClient}: tests queue list pages and watch responses (bodies are Node
 * Readables the test writes events into), and inspect every request the watcher made.
 */
import { Readable } from "node:stream";
import type { KubeObject, ResourceType } from "../../../src/api/index.ts";
import type { ApiResponse, ListOptions, ObjectList, WatchRequestOptions } from "../../../src/client/index.ts";
import type { WatchClient, WatchEvent, WatchMetrics } from "../../../src/watch/index.ts";

/** Lets every pending promise callback run (one macrotask turn; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A watch response body the test controls. */
export class FakeStream {
  readonly body = new Readable({ read() {} });

  constructor() {
    // Errors reach the watcher through iteration; a body nobody reads any more must not crash the test.
    this.body.on("error", () => {});
  }

  /** Sends one watch event line. */
  send(type: string, object: object): this {
    this.body.push(`${JSON.stringify({ type, object })}\n`);
    return this;
  }

  /** Sends raw text (for partial lines). */
  raw(text: string): this {
    this.body.push(text);
    return this;
  }

  /** Sends a bookmark at `resourceVersion`, marking the end of the initial events when `initialEnd`. */
  bookmark(resourceVersion: string, initialEnd = false): this {
    const annotations = initialEnd ? { "k8s.io/initial-events-end": "true" } : undefined;
    return this.send("BOOKMARK", { kind: "ConfigMap", metadata: { resourceVersion, annotations } });
  }

  /** Ends the stream cleanly, as a server closing the watch. */
  end(): this {
    this.body.push(null);
    return this;
  }

  get destroyed(): boolean {
    return this.body.destroyed;
  }
}

/** A queue whose `take` waits until something is queued, or rejects when `signal` aborts. */
class Script<T> {
  readonly #items: T[] = [];
  readonly #waiters: ((item: T) => void)[] = [];

  push(item: T): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(item);
    else this.#items.push(item);
  }

  take(signal?: AbortSignal): Promise<T> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter = (value: T) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const onAbort = () => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(signal?.reason);
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  get waiting(): number {
    return this.#waiters.length;
  }
}

type ListCall = ListOptions & { continue?: string };

/** A {@link WatchClient} that plays scripted answers; requests wait until an answer is scripted. */
export class FakeWatchClient implements WatchClient {
  readonly lists: ListCall[] = [];
  readonly watches: WatchRequestOptions[] = [];
  readonly streams: FakeStream[] = [];
  readonly #pages = new Script<ObjectList<KubeObject> | Error>();
  readonly #responses = new Script<FakeStream | Error>();

  /** Queues the answer to the next list request. */
  page(items: KubeObject[], resourceVersion: string, next?: string): this {
    this.#pages.push({ items, resourceVersion, continue: next });
    return this;
  }

  /** Queues a failure of the next list request. */
  failList(err: Error): this {
    this.#pages.push(err);
    return this;
  }

  /** Queues a stream as the answer to the next watch request, and returns it. */
  stream(): FakeStream {
    const stream = new FakeStream();
    this.#responses.push(stream);
    return stream;
  }

  /** Queues a failure of the next watch request. */
  failWatch(err: Error): this {
    this.#responses.push(err);
    return this;
  }

  /** True while a watch request waits for its scripted answer. */
  get watchWaiting(): boolean {
    return this.#responses.waiting > 0;
  }

  async listPage<T extends KubeObject>(_type: ResourceType<T>, opts: ListCall): Promise<ObjectList<T>> {
    this.lists.push(opts);
    const page = await this.#pages.take(opts.signal);
    if (page instanceof Error) throw page;
    return page as ObjectList<T>;
  }

  async watchStream(_type: ResourceType, opts: WatchRequestOptions): Promise<ApiResponse> {
    this.watches.push(opts);
    const answer = await this.#responses.take(opts.signal);
    if (answer instanceof Error) throw answer;
    this.streams.push(answer);
    // As undici does, an aborted request destroys its body (at once when the signal aborted meanwhile).
    const destroy = () => answer.body.destroy(opts.signal?.reason);
    if (opts.signal?.aborted) destroy();
    else opts.signal?.addEventListener("abort", destroy, { once: true });
    return { status: 200, headers: {}, body: answer.body as unknown as ApiResponse["body"] };
  }
}

/** A ConfigMap-shaped object with a name, namespace and resourceVersion. */
export function object(name: string, resourceVersion: string, namespace = "ns"): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, resourceVersion } };
}

/** A short, comparable form of a watch event: `init`, `apply a@3`, ... */
export function brief(event: WatchEvent): string {
  if (!("object" in event)) return event.type;
  return `${event.type} ${event.object.metadata.name}@${event.object.metadata.resourceVersion}`;
}

/** Watch metrics that record every call as a string. */
export function recordingWatchMetrics(): { metrics: WatchMetrics; calls: string[]; delays: number[] } {
  const calls: string[] = [];
  const delays: number[] = [];
  return {
    calls,
    delays,
    metrics: {
      event: (type) => calls.push(`event ${type}`),
      relist: (reason) => calls.push(`relist ${reason}`),
      reconnect: (reason) => calls.push(`reconnect ${reason}`),
      retry: (err, delayMs) => {
        calls.push(`retry ${(err as Error).name}`);
        delays.push(delayMs);
      },
      outsideShard: () => calls.push("outside-shard"),
    },
  };
}

/** Whether `promise` has settled, after letting pending callbacks run. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await flush();
  return settled;
}
