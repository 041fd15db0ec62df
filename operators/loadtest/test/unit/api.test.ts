import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { permissionsOf } from "kubeloop/generate";
import { crdFor } from "kubeloop/schema";
import { parseAllDocuments } from "yaml";
import {
  API_GROUP_ENV,
  ARTILLERY_GROUP,
  apiGroupFrom,
  DEFAULT_IMAGE,
  IMMUTABLE_SPEC_MESSAGE,
  KUBELOOP_GROUP,
  LoadTest,
  workerCount,
} from "../../api.ts";
import { desiredJob } from "../../job.ts";
import operator from "../../operator.ts";
import { loadTest } from "./fixtures.ts";

const upstream = new URL("../upstream/", import.meta.url);

/** The LoadTest documents of a copy of an Artillery operator sample. */
function upstreamSpecs(file: string): unknown[] {
  return parseAllDocuments(readFileSync(new URL(file, upstream), "utf8"))
    .map((doc) => doc.toJS() as { kind?: string; spec?: unknown })
    .filter((obj) => obj.kind === "LoadTest")
    .map((obj) => obj.spec);
}

describe("the LoadTest kind", () => {
  it("serves the Artillery operator's CRD by default, kubeloop's group when asked", () => {
    assert.equal(crdFor(LoadTest).metadata.name, "loadtests.loadtest.artillery.io");
    assert.equal(apiGroupFrom({}), ARTILLERY_GROUP);
    assert.equal(apiGroupFrom({ [API_GROUP_ENV]: KUBELOOP_GROUP }), KUBELOOP_GROUP);
    assert.throws(() => apiGroupFrom({ [API_GROUP_ENV]: "example.com" }), /use loadtest\.artillery\.io or/);
  });

  it("accepts an Artillery operator manifest's spec unchanged, with defaults", () => {
    const [spec] = upstreamSpecs("config/samples/loadtest_v1alpha1_loadtest.yaml");
    const parsed = LoadTest.parseSpec(spec);
    assert.equal(parsed.count, 10);
    assert.equal(parsed.environment, "stage");
    assert.equal(parsed.environmentToWorkers, undefined);
    assert.equal(parsed.testScript.config.configMap, "load-test-config");
    assert.deepEqual(parsed.testScript.external?.payload?.configMaps, [
      "csv-payload-1",
      "csv-payload-2",
      "csv-payload-3",
    ]);
    assert.deepEqual([parsed.image, parsed.imagePullPolicy], [DEFAULT_IMAGE, "IfNotPresent"]);
  });

  it("defaults count to 1, takes 0 as one worker (as the Artillery operator), rejects negative counts", () => {
    const script = { config: { configMap: "s" } };
    assert.equal(LoadTest.parseSpec({ testScript: script }).count, 1);
    const zero = LoadTest.parseSpec({ count: 0, testScript: script });
    assert.equal(workerCount(zero), 1);
    assert.equal(desiredJob(loadTest({ count: 0 })).spec?.completions, 1);
    assert.equal(LoadTest.safeParseSpec({ count: -1, testScript: script }).success, false);
  });

  it("refuses an image with whitespace, a start timeout out of range, a name over 63 characters", () => {
    const script = { config: { configMap: "s" } };
    assert.equal(
      LoadTest.safeParseSpec({ image: " artilleryio/artillery", testScript: script }).success,
      false,
    );
    assert.equal(LoadTest.safeParseSpec({ startTimeoutSeconds: 0, testScript: script }).success, false);
    assert.equal(LoadTest.parseSpec({ testScript: script }).startTimeoutSeconds, 300);
    assert.equal(LoadTest.maxNameLength, 63);
  });

  it("bug 1.7.6: the CRD makes the whole spec immutable, saying to delete and recreate", () => {
    const crd = crdFor(LoadTest);
    const spec = crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec;
    assert.deepEqual(spec?.["x-kubernetes-validations"], [
      { rule: "self == oldSelf", message: IMMUTABLE_SPEC_MESSAGE },
    ]);
    assert.match(IMMUTABLE_SPEC_MESSAGE, /delete the LoadTest and create it again/);
  });

  it("bug 1.7.5: the CRD has the status subresource, metav1 conditions and observedGeneration", () => {
    const version = crdFor(LoadTest).spec.versions[0];
    assert.deepEqual(version?.subresources, { status: {} });
    const status = version?.schema?.openAPIV3Schema?.properties?.status?.properties;
    assert.equal(status?.conditions?.["x-kubernetes-list-type"], "map");
    assert.equal(status?.observedGeneration?.type, "integer");
  });

  it("shows the Artillery operator's columns first, in its order (Age third), then the conditions, Image at -o wide", () => {
    const columns = LoadTest.printerColumns.map((c) => `${c.name}${c.priority ? `:${c.priority}` : ""}`);
    assert.deepEqual(columns, [
      "Completions",
      "Duration",
      "Age",
      "Environment",
      "Succeeded",
      "Reason",
      "Completed",
      "Image:10",
    ]);
    const crd = readFileSync(
      new URL("config/crd/bases/loadtest.artillery.io_loadtests.yaml", upstream),
      "utf8",
    );
    const theirs = parseAllDocuments(crd)[0]?.toJS().spec.versions[0].additionalPrinterColumns as {
      name: string;
    }[];
    const ours = LoadTest.printerColumns.filter((c) => !c.priority).map((c) => c.name);
    const upstreamShown = theirs.filter((c) => !("priority" in c)).map((c) => c.name);
    assert.deepEqual(ours.slice(0, upstreamShown.length), upstreamShown, "upstream's columns, first");
    const completed = LoadTest.printerColumns.find((c) => c.name === "Completed");
    assert.equal(completed?.jsonPath, '.status.conditions[?(@.type=="Completed")].status');
  });

  it("bug 1.7.12: the generated permissions read ConfigMaps and pods, create and patch Jobs, never update or delete them", async () => {
    const permissions = await permissionsOf(operator);
    const verbsOf = (plural: string) =>
      new Set(permissions.filter((p) => p.type.plural === plural && !p.subresource).flatMap((p) => p.verbs));
    for (const verb of ["get", "list", "watch"])
      assert.ok(verbsOf("configmaps").has(verb), `configmaps ${verb}`);
    assert.deepEqual(verbsOf("jobs"), new Set(["create", "get", "list", "patch", "watch"]));
    assert.deepEqual(verbsOf("pods"), new Set(["get", "list", "watch"]), "pods are read, never written");
  });
});

/** A JSON schema node, as far as the comparison below reads it. */
interface SchemaNode {
  type?: string;
  required?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/**
 * The paths where `ours` does not accept what `theirs` accepts, as far as types and required
 * fields go: a field of theirs we lack or type differently, a field we require and they do not.
 */
function narrowings(theirs: SchemaNode, ours: SchemaNode | undefined, path: string): string[] {
  if (!ours) return [`${path}: missing`];
  if (ours.type !== theirs.type) return [`${path}: ${ours.type} instead of ${theirs.type}`];
  const required = (ours.required ?? []).filter((name) => !theirs.required?.includes(name));
  const fields = Object.entries(theirs.properties ?? {}).flatMap(([name, node]) =>
    narrowings(node, ours.properties?.[name], `${path}.${name}`),
  );
  const items = theirs.items ? narrowings(theirs.items, ours.items, `${path}[]`) : [];
  return [...required.map((name) => `${path}.${name}: required`), ...fields, ...items];
}

describe("the CRD, against the Artillery operator's", () => {
  const upstreamCrd = parseAllDocuments(
    readFileSync(new URL("config/crd/bases/loadtest.artillery.io_loadtests.yaml", upstream), "utf8"),
  )
    .map((doc) => doc.toJS())
    .find((obj) => obj?.kind === "CustomResourceDefinition");
  const theirs = upstreamCrd.spec.versions[0];
  const ours = crdFor(LoadTest).spec.versions[0];

  it("has the same name, group, names, scope and version", () => {
    const crd = crdFor(LoadTest);
    assert.equal(crd.metadata.name, upstreamCrd.metadata.name);
    assert.deepEqual(
      [crd.spec.group, crd.spec.names.kind, crd.spec.names.plural, crd.spec.names.singular, crd.spec.scope],
      [upstreamCrd.spec.group, "LoadTest", "loadtests", "loadtest", upstreamCrd.spec.scope],
    );
    assert.equal(ours?.name, theirs.name);
  });

  it("accepts every spec field of theirs with its type, requiring nothing more", () => {
    const spec = theirs.schema.openAPIV3Schema.properties.spec;
    assert.deepEqual(
      narrowings(spec, ours?.schema?.openAPIV3Schema?.properties?.spec as SchemaNode, "spec"),
      [],
    );
  });

  it("keeps every status field of theirs but the conditions, now metav1.Conditions", () => {
    const { conditions: _theirs, ...status } = theirs.schema.openAPIV3Schema.properties.status.properties;
    const ourStatus = ours?.schema?.openAPIV3Schema?.properties?.status as SchemaNode;
    assert.deepEqual(narrowings({ type: "object", properties: status }, ourStatus, "status"), []);
  });

  it("shows every printer column of theirs, Image still at priority 10", () => {
    const names = new Map(ours?.additionalPrinterColumns?.map((c) => [c.name, c]));
    for (const column of theirs.additionalPrinterColumns) {
      assert.equal(names.get(column.name)?.jsonPath, column.jsonPath, column.name);
      assert.equal(names.get(column.name)?.priority, column.priority, column.name);
    }
  });
});
