import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { permissionsOf } from "kubeloop/generate";
import { crdFor } from "kubeloop/schema";
import { parseAllDocuments } from "yaml";
import { DEFAULT_IMAGE, IMMUTABLE_SPEC_MESSAGE, LoadTest } from "../../api.ts";
import operator from "../../operator.ts";

const samples = new URL("../../samples/", import.meta.url);

/** The LoadTest documents of a sample file. */
function sampleSpecs(file: string): unknown[] {
  return parseAllDocuments(readFileSync(new URL(file, samples), "utf8"))
    .map((doc) => doc.toJS() as { kind?: string; spec?: unknown })
    .filter((obj) => obj.kind === "LoadTest")
    .map((obj) => obj.spec);
}

describe("the LoadTest kind", () => {
  it("accepts an Artillery operator manifest's spec unchanged, with defaults", () => {
    const [spec] = sampleSpecs("artillery-compatible.yaml");
    const parsed = LoadTest.parseSpec(spec);
    assert.equal(parsed.count, 2);
    assert.equal(parsed.environment, "dev");
    assert.equal(parsed.testScript.config.configMap, "test-script");
    assert.deepEqual(parsed.testScript.external?.payload?.configMaps, ["payload"]);
    assert.deepEqual([parsed.image, parsed.imagePullPolicy], [DEFAULT_IMAGE, "IfNotPresent"]);
  });

  it("defaults count to 1 and rejects counts below 1", () => {
    const script = { config: { configMap: "s" } };
    assert.equal(LoadTest.parseSpec({ testScript: script }).count, 1);
    assert.equal(LoadTest.safeParseSpec({ count: 0, testScript: script }).success, false);
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

  it("shows Completions, Duration, Environment, Completed, Reason and Age in kubectl get", () => {
    const columns = LoadTest.printerColumns.filter((c) => !c.priority).map((c) => c.name);
    for (const name of ["Completions", "Duration", "Age", "Environment", "Completed", "Reason"])
      assert.ok(columns.includes(name), `${name} in ${columns.join(", ")}`);
    const completed = LoadTest.printerColumns.find((c) => c.name === "Completed");
    assert.equal(completed?.jsonPath, '.status.conditions[?(@.type=="Completed")].status');
  });

  it("bug 1.7.12: the generated permissions read ConfigMaps and create and patch Jobs, never update or delete them", async () => {
    const permissions = await permissionsOf(operator);
    const verbsOf = (plural: string) =>
      new Set(permissions.filter((p) => p.type.plural === plural && !p.subresource).flatMap((p) => p.verbs));
    for (const verb of ["get", "list", "watch"])
      assert.ok(verbsOf("configmaps").has(verb), `configmaps ${verb}`);
    assert.deepEqual(verbsOf("jobs"), new Set(["create", "get", "list", "patch", "watch"]));
    assert.equal(verbsOf("pods").size, 0, "no pod access: pods are the Job's");
  });
});
