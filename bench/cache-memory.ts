/**
 * Heap bytes per cached Pod-like object (about 4.7 KB of JSON, two `managedFields` entries),
 * stored the way an informer stores its initial list: each object's JSON text is generated,
 * parsed (so no string is shared with the generator), fed as `init` / `initApply` × N /
 * `initDone` through the real `reflect` into a real `createStore` (with its namespace index).
 * Per object: heapUsed after forced GCs, minus heapUsed before, divided by N; the transform, and
 * so its pools of shared strings and records, is kept alive as an informer keeps its own.
 *
 * Every measurement runs in a fresh child process: in one process, a store from the previous
 * measurement can stay reachable (a context slot, a settled promise) until the next one is
 * built, and then its release hides the new store's cost.
 *
 * Variants, interleaved within every repetition:
 * - the informer's default transform (`managedFields` stripped, repeated strings and metadata
 *   records shared through bounded pools, `internStrings`): the headline figure, goal ≤ 4 KB per
 *   object;
 * - `managedFields` stripped only, and kept (identity transform);
 * - metadata only (what a `metadataOnly` informer holds), goal ≤ 600 B per object, and a bare
 *   name + namespace object, which shows the fixed cost of a store entry (its slot in its
 *   namespace's map, keyed by the object's own name).
 *
 * Then heap snapshots of smaller stores attribute the bytes to V8 node
 * types and count the bytes held by duplicate strings.
 *
 * Usage: `node --expose-gc --import tsx bench/cache-memory.ts [N=20000] [repetitions=5]`.
 *
 * Relist peak: `node --expose-gc --import tsx bench/cache-memory.ts --relist N` fills a store of N
 * objects (default transform), then reflects a second complete list of N freshly parsed objects
 * with the same keys, and prints the live heap (after forced GCs, every N/20 objects and before
 * `initDone`) at its highest, as a multiple of the steady store's heap. Goal ≤ 1.5.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { getHeapSnapshot } from "node:v8";
import type { KubeObject } from "../src/api/index.ts";
import {
  createStore,
  estimateBytes,
  internStrings,
  reflect,
  stripManagedFields,
  type Transform,
} from "../src/cache/index.ts";
import type { WatchEvent } from "../src/watch/index.ts";
import { podJson } from "./support/pods.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

/** Heap per object each goal allows, by variant: the default transform's, and metadata only's. */
const goals = [
  { variant: 0, bytes: 4096, what: "with the default transform" },
  { variant: 3, bytes: 600, what: "metadata only" },
];
const snapshotN = 2000;

/** The informer's default: `managedFields` dropped and repeated strings shared (one pool per informer). */
function informerDefault(): Transform<KubeObject> {
  const intern = internStrings<KubeObject>();
  return (obj) => intern(stripManagedFields(obj));
}

/** `interned`: the transform shares strings as the informer's default does (what `estimateBytes` is told). */
const variants: { name: string; transform: () => Transform<KubeObject>; interned?: boolean }[] = [
  {
    name: "default transform (managedFields stripped, repeated strings shared)",
    transform: informerDefault,
    interned: true,
  },
  { name: "managedFields stripped only", transform: () => stripManagedFields },
  { name: "managedFields kept (identity)", transform: () => (o) => o },
  {
    // A metadataOnly informer runs the same default transform on the PartialObjectMetadata it receives.
    name: "metadata only (default transform, as a metadataOnly informer stores it)",
    transform: () => {
      const shared = informerDefault();
      return (o) => shared({ apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata });
    },
    interned: true,
  },
  {
    name: "store entry only (name + namespace)",
    transform: () => (o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace },
    }),
  },
];

/** An informer's initial list of `count` objects, each parsed from its own JSON text. */
async function* initialList(count: number, offset: number): AsyncGenerator<WatchEvent> {
  yield { type: "init" };
  for (let i = 0; i < count; i++) yield { type: "initApply", object: JSON.parse(podJson(offset + i)) };
  yield { type: "initDone" };
}

async function fill(count: number, offset: number, transform: Transform<KubeObject>) {
  const store = createStore<KubeObject>();
  for await (const _ of reflect(store, initialList(count, offset), transform));
  if (store.reader.size !== count) throw new Error(`stored ${store.reader.size} of ${count}`);
  return store;
}

// ---- child: one measurement in a fresh process ----------------------------------------------

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the child needs --expose-gc");
  for (let k = 0; k < 4; k++) gc();
}

function settledHeap(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

/** What one child reports. */
interface Measured {
  bytesPerObject: number;
  jsonBytesPerObject: number;
  /** What `kubeloop_cache_bytes` would say, per object (`estimateBytes` summed over the store). */
  estimatedBytesPerObject: number;
}

/** What an informer keeps beside its store, kept here too: its transform and the transform's pools. */
const kept: Transform<KubeObject>[] = [];

async function measure(variant: number, count: number, offset: number): Promise<Measured> {
  const { transform, interned = false } = variants[variant] as (typeof variants)[number];
  const before = settledHeap();
  kept.push(transform());
  const store = await fill(count, offset, kept[0] as Transform<KubeObject>);
  const after = settledHeap();
  const stored = store.reader.list();
  const sample = stored.slice(0, 200);
  const json = sample.reduce((sum, o) => sum + JSON.stringify(o).length, 0) / sample.length;
  const estimate = stored.reduce((sum, o) => sum + estimateBytes(o, interned), 0) / count;
  return {
    bytesPerObject: (after - before) / count,
    jsonBytesPerObject: json,
    estimatedBytesPerObject: estimate,
  };
}

/** Peak live heap during a relist of `count` objects, against the steady store's heap. */
async function relistPeak(count: number): Promise<{ steadyBytes: number; peakBytes: number; ratio: number }> {
  const base = settledHeap();
  const transform = informerDefault();
  const store = createStore<KubeObject>();
  for await (const _ of reflect(store, initialList(count, 0), transform));
  const steady = settledHeap() - base;
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, settledHeap() - base);
  };
  async function* relist(): AsyncGenerator<WatchEvent> {
    for await (const event of initialList(count, 0)) {
      if (event.type === "initDone") sample();
      yield event;
    }
  }
  let applied = 0;
  for await (const change of reflect(store, relist(), transform)) {
    if (change.type === "update" && ++applied % Math.ceil(count / 20) === 0) sample();
  }
  if (store.reader.size !== count || applied !== count) throw new Error(`relisted ${applied} of ${count}`);
  return { steadyBytes: steady, peakBytes: peak, ratio: peak / steady };
}

interface HeapCensus {
  bytesByType: Record<string, number>;
  /** Bytes of strings whose content another string in the heap already has. */
  duplicateStringBytes: number;
}

/** Self sizes by V8 node type, and duplicate string bytes, of the whole heap after a GC. */
async function census(): Promise<HeapCensus> {
  collect();
  let text = "";
  for await (const chunk of getHeapSnapshot()) text += chunk;
  const snapshot = JSON.parse(text) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const bytesByType: Record<string, number> = {};
  const seen = new Set<number>();
  let duplicateStringBytes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt] as number] as string;
    const size = snapshot.nodes[i + sizeAt] as number;
    bytesByType[type] = (bytesByType[type] ?? 0) + size;
    if (type !== "string") continue;
    const name = snapshot.nodes[i + nameAt] as number; // index into the snapshot's deduplicated names
    if (seen.has(name)) duplicateStringBytes += size;
    else seen.add(name);
  }
  return { bytesByType, duplicateStringBytes };
}

/** Bytes per object by V8 node type (and duplicate strings) that a store of `count` objects adds. */
async function attribute(variant: number, count: number): Promise<Record<string, number>> {
  kept.push((variants[variant] as (typeof variants)[number]).transform());
  const before = await census(); // only this small summary survives into the second snapshot
  const store = await fill(count, 0, kept[0] as Transform<KubeObject>);
  const after = await census();
  if (store.reader.size !== count) throw new Error("the store lost objects");
  const perObject: Record<string, number> = {};
  for (const [type, bytes] of Object.entries(after.bytesByType)) {
    const delta = (bytes - (before.bytesByType[type] ?? 0)) / count;
    if (Math.abs(delta) >= 1) perObject[type] = delta;
  }
  perObject["duplicate string copies"] = (after.duplicateStringBytes - before.duplicateStringBytes) / count;
  return perObject;
}

// ---- parent: spawn the children, interleaved, and report -----------------------------------

const self = fileURLToPath(import.meta.url);
const childArgv = [...new Set(["--expose-gc", ...process.execArgv])];

async function child<T>(...args: (string | number)[]): Promise<T> {
  const { stdout } = await promisify(execFile)(process.execPath, [...childArgv, self, ...args.map(String)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as T;
}

async function parent(n: number, repetitions: number): Promise<void> {
  const inputJson = Array.from({ length: 200 }, (_, i) => podJson(i).length).reduce((a, b) => a + b) / 200;
  const samples = variants.map(() => [] as Measured[]);
  for (let rep = 0; rep < repetitions; rep++) {
    for (const v of variants.keys()) {
      // Fresh objects every run (the offset), as a different cluster would have.
      samples[v]?.push(await child<Measured>("--measure", v, n, (rep * variants.length + v) * n));
    }
    process.stderr.write(`repetition ${rep + 1}/${repetitions} done\n`);
  }
  const attributed = [
    { variant: 0, perObject: await child<Record<string, number>>("--attribute", 0, snapshotN) },
    { variant: 1, perObject: await child<Record<string, number>>("--attribute", 1, snapshotN) },
  ];

  const rows = variants.map((variant, v) => {
    const list = samples[v] ?? [];
    return {
      name: variant.name,
      bytesPerObject: median(list.map((s) => s.bytesPerObject)),
      jsonBytesPerObject: median(list.map((s) => s.jsonBytesPerObject)),
      estimatedBytesPerObject: median(list.map((s) => s.estimatedBytesPerObject)),
      samples: list.map((s) => s.bytesPerObject),
    };
  });
  console.log(machineLine());
  console.log(loadLine());
  console.log(
    `N = ${fmt(n)} Pod-like objects of ${fmt(inputJson)} B JSON each (two managedFields entries), each parsed ` +
      "from its own JSON text and reflected into a store as an initial list; heapUsed after forced GC minus " +
      `before, / N, one fresh process per measurement. Median of ${repetitions} repetitions.\n`,
  );
  console.log(
    table(
      [
        "what is cached",
        "heap B/object",
        "stored JSON B/object",
        "heap / JSON",
        "estimate B/object",
        "estimate / heap",
      ],
      rows.map((r) => [
        r.name,
        fmt(r.bytesPerObject),
        fmt(r.jsonBytesPerObject),
        fmt(r.bytesPerObject / r.jsonBytesPerObject, 2),
        fmt(r.estimatedBytesPerObject),
        fmt(r.estimatedBytesPerObject / r.bytesPerObject, 2),
      ]),
    ),
  );
  console.log();
  for (const goal of goals) {
    const measured = rows[goal.variant]?.bytesPerObject ?? Number.NaN;
    const verdict = measured <= goal.bytes ? "met" : "MISSED";
    console.log(`goal: ≤ ${fmt(goal.bytes)} B/object ${goal.what}: ${verdict} (${fmt(measured)} B)`);
  }
  console.log(`\nwhere the bytes go (heap snapshot diff, ${fmt(snapshotN)} objects, B/object):\n`);
  const types = [...new Set(attributed.flatMap((a) => Object.keys(a.perObject)))].sort(
    (a, b) => (attributed[0]?.perObject[b] ?? 0) - (attributed[0]?.perObject[a] ?? 0),
  );
  console.log(
    table(
      ["V8 node type", ...attributed.map((a) => (variants[a.variant] as (typeof variants)[number]).name)],
      types.map((type) => [type, ...attributed.map((a) => fmt(a.perObject[type] ?? 0))]),
    ),
  );
  const path = writeResult("cache-memory", {
    n,
    repetitions,
    inputJsonBytes: inputJson,
    goals: goals.map((g) => ({ variant: variants[g.variant]?.name, bytesPerObject: g.bytes })),
    variants: rows,
    snapshot: {
      n: snapshotN,
      perObject: attributed.map((a) => ({ variant: variants[a.variant]?.name, ...a.perObject })),
    },
  });
  console.log(`\nwrote ${path}`);
}

const [mode, ...rest] = process.argv.slice(2);
const numbers = rest.map(Number);
if (mode === "--measure") {
  process.stdout.write(JSON.stringify(await measure(numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0)));
} else if (mode === "--relist") {
  console.log(JSON.stringify({ n: numbers[0], ...(await relistPeak(numbers[0] ?? 0)) }));
} else if (mode === "--attribute") {
  process.stdout.write(JSON.stringify(await attribute(numbers[0] ?? 0, numbers[1] ?? 0)));
} else {
  await parent(Number(mode ?? 20_000), Number(rest[0] ?? 5));
}
