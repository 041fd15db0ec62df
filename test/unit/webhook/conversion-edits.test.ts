/**
 * Edits made through a spoke that partly expresses a field it `lacks` (conversion's own example:
 * v1alpha1 shows the first of v1's `hosts` as `host`): over random hub objects and random spoke
 * edits, no edit is lost, and an untouched round trip gives the hub object back.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import type { KubeObject } from "../../../src/api/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { seededRandom } from "../../../src/testing/proxy/match.ts";
import {
  CONVERSION_DATA_ANNOTATION,
  CONVERSION_SHOWN_ANNOTATION,
  conversion,
  restoreFields,
  stashFields,
} from "../../../src/webhook/index.ts";

interface RouteV1 extends KubeObject {
  spec: { hosts: string[]; port?: number; tls?: { secretName: string } };
}
interface RouteV1alpha1 extends KubeObject {
  spec: { host: string; port?: number };
}

const Route = defineKind({
  group: "routes.example.com",
  version: "v1",
  kind: "Route",
  scope: "Namespaced",
  spec: z.object({
    hosts: z.array(z.string()),
    port: z.int().optional(),
    tls: z.object({ secretName: z.string() }).optional(),
  }),
  versions: [{ name: "v1alpha1", spec: z.object({ host: z.string(), port: z.int().optional() }) }],
});

const toHub = ({ spec: { host, ...spec }, ...old }: RouteV1alpha1): RouteV1 => ({
  ...old,
  spec: { hosts: [host], ...spec },
});
const fromHub = ({ spec: { hosts, tls: _lacked, ...spec }, ...hub }: RouteV1): RouteV1alpha1 => ({
  ...hub,
  spec: { host: hosts[0] ?? "", ...spec },
});
/** As `conversion()`'s TSDoc has it: v1alpha1 shows only the first host, and no TLS. */
const routeConversion = conversion<RouteV1>(Route, {
  spokes: { v1alpha1: { toHub, fromHub, lacks: ["spec.hosts", "spec.tls"] } },
});
const V1 = "routes.example.com/v1";
const V1ALPHA1 = "routes.example.com/v1alpha1";

type Random = () => number;
const pick = <T>(random: Random, choices: readonly T[]): T =>
  choices[Math.floor(random() * choices.length)] as T;
const names = ["a.example", "b.example", "c.example", ""];

/** The object as the apiserver hands it on: JSON, its keys in Go's sorted order. */
function overTheWire<T>(value: T): T {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (typeof v !== "object" || v === null) return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  };
  return sorted(JSON.parse(JSON.stringify(value))) as T;
}

function randomHub(random: Random): RouteV1 {
  const hosts = Array.from({ length: Math.floor(random() * 4) }, () => pick(random, names));
  const port = random() < 0.5 ? { port: 80 + Math.floor(random() * 3) } : {};
  const tls = random() < 0.5 ? { tls: { secretName: pick(random, ["t1", "t2"]) } } : {};
  const labels = random() < 0.5 ? { labels: { app: pick(random, ["x", "y"]) } } : {};
  return {
    apiVersion: V1,
    kind: "Route",
    metadata: { name: "r", namespace: "ns", ...labels },
    spec: { hosts, ...port, ...tls },
  };
}

/** A random change made through v1alpha1: its host, its port, a label, or several of them. */
function randomEdit(random: Random, spoke: RouteV1alpha1): RouteV1alpha1 {
  const edited = structuredClone(spoke);
  const edits = 1 + Math.floor(random() * 3);
  for (let i = 0; i < edits; i++) {
    const what = random();
    if (what < 0.45) edited.spec.host = pick(random, names);
    else if (what < 0.7) edited.spec.port = 80 + Math.floor(random() * 3);
    else if (what < 0.85) delete edited.spec.port;
    else edited.metadata.labels = { ...edited.metadata.labels, app: pick(random, ["x", "z"]) };
  }
  return edited;
}

/** `obj` without the annotations conversion writes (a spoke read back carries them anew). */
function withoutConversionData<T extends KubeObject>(obj: T): T {
  const {
    [CONVERSION_DATA_ANNOTATION]: _data,
    [CONVERSION_SHOWN_ANNOTATION]: _shown,
    ...rest
  } = obj.metadata.annotations ?? {};
  const { annotations: _all, ...metadata } = obj.metadata;
  return { ...obj, metadata: { ...metadata, ...(Object.keys(rest).length ? { annotations: rest } : {}) } };
}

const convert = <T extends KubeObject>(obj: RouteV1 | RouteV1alpha1, apiVersion: string) =>
  overTheWire(routeConversion.convert(overTheWire(obj), apiVersion)) as T;

describe("a spoke that partly expresses a field it lacks", () => {
  it("gives the hub object back from an untouched round trip, for random hub objects", () => {
    const random = seededRandom(7);
    for (let i = 0; i < 2000; i++) {
      const hub = overTheWire(randomHub(random));
      const spoke = convert<RouteV1alpha1>(hub, V1ALPHA1);
      assert.deepEqual(convert(spoke, V1), hub);
    }
  });

  it("loses no edit made through it, and keeps what the edit did not touch, for random edits", () => {
    const random = seededRandom(11);
    for (let i = 0; i < 2000; i++) {
      const hub = overTheWire(randomHub(random));
      const spoke = convert<RouteV1alpha1>(hub, V1ALPHA1);
      const edited = overTheWire(randomEdit(random, spoke));
      const written = convert<RouteV1>(edited, V1);
      const readBack = convert<RouteV1alpha1>(written, V1ALPHA1);
      const what = `${JSON.stringify(hub.spec)} edited to ${JSON.stringify(edited.spec)}`;
      assert.deepEqual(withoutConversionData(readBack), withoutConversionData(edited), what);
      assert.deepEqual(written.spec.tls, hub.spec.tls, `${what}: spec.tls, which v1alpha1 does not show`);
      if (edited.spec.host === spoke.spec.host) assert.deepEqual(written.spec.hosts, hub.spec.hosts, what);
    }
  });

  it("takes the host written through it, dropping the hosts it did not show (the TSDoc example)", () => {
    const hub: RouteV1 = {
      apiVersion: V1,
      kind: "Route",
      metadata: { name: "r", namespace: "ns" },
      spec: { hosts: ["a.example", "b.example"], tls: { secretName: "t1" } },
    };
    const spoke = convert<RouteV1alpha1>(hub, V1ALPHA1);
    const written = convert<RouteV1>({ ...spoke, spec: { host: "c.example" } }, V1);
    assert.deepEqual(written.spec, { hosts: ["c.example"], tls: { secretName: "t1" } });
    assert.equal(written.metadata.annotations, undefined, "no conversion annotation is stored");
  });

  it("keeps every host through a chain of writes that leave the host alone", () => {
    const random = seededRandom(3);
    let hub: RouteV1 = overTheWire({
      ...randomHub(random),
      spec: { hosts: ["a.example", "b.example", "c.example"] },
    });
    for (let i = 0; i < 20; i++) {
      const spoke = convert<RouteV1alpha1>(hub, V1ALPHA1);
      hub = convert<RouteV1>({ ...spoke, spec: { ...spoke.spec, port: 80 + i } }, V1);
    }
    assert.deepEqual(hub.spec, { hosts: ["a.example", "b.example", "c.example"], port: 99 });
  });
});

describe("the conversion data helpers, written by hand", () => {
  const hub: RouteV1 = {
    apiVersion: V1,
    kind: "Route",
    metadata: { name: "r" },
    spec: { hosts: ["a.example", "b.example"] },
  };
  const fields = ["spec.hosts"];
  /** A hand-written pair of converters, as the helpers' TSDoc shows them. */
  const out = (h: RouteV1) => {
    const spoke = fromHub(h);
    return stashFields(spoke, h, fields, toHub(spoke));
  };
  const back = (s: RouteV1alpha1) => restoreFields(toHub(s), s, fields);

  it("restore a stashed field the spoke still shows as it was", () => {
    assert.deepEqual(back(overTheWire(out(hub))).spec, hub.spec);
  });

  it("leave a field whose part the spoke shows was changed as the spoke has it", () => {
    const spoke = overTheWire(out(hub));
    assert.deepEqual(back({ ...spoke, spec: { host: "c.example" } }).spec, { hosts: ["c.example"] });
  });
});
