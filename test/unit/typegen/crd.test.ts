import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type CrdDocument,
  crdModules,
  formatWithBiome,
  readCrdFile,
  TypegenError,
} from "../../../src/typegen/index.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const fixtures = "test/fixtures/crds";

test("the committed modules of the CRD fixtures are what kubeloop import generates", () => {
  for (const file of ["certificates.yaml", "httproutes.yaml", "servicemonitors.yaml"]) {
    for (const module of readCrdFile(join(root, fixtures, file)).flatMap((crd) => crdModules(crd))) {
      const path = join(fixtures, "generated", module.path);
      assert.equal(
        formatWithBiome(module.source, path, root),
        readFileSync(join(root, path), "utf8"),
        `${path} is stale: run the command in ${fixtures}/README.md`,
      );
    }
  }
});

test("one module per served version, with the descriptor's scope and subresources", () => {
  const modules = readCrdFile(join(root, fixtures, "httproutes.yaml")).flatMap((crd) => crdModules(crd));
  assert.deepEqual(
    modules.map((m) => m.path),
    ["gateway.networking.k8s.io/v1/httproutes.ts", "gateway.networking.k8s.io/v1beta1/httproutes.ts"],
  );
  assert.match(
    modules[0]?.source ?? "",
    /resourceType<HTTPRouteObject>\("gateway.networking.k8s.io\/v1", "HTTPRoute", "httproutes", true, \["status"\]\)/,
  );
  assert.match(
    modules[0]?.source ?? "",
    /^export type HTTPRoute = HTTPRouteObject;$/m,
    "the kind's name is its object type too",
  );
});

function crd(schema: unknown, kind = "CustomResourceDefinition"): CrdDocument {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind,
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", plural: "widgets" },
      scope: "Cluster",
      versions: [{ name: "v1", served: true, schema: { openAPIV3Schema: schema as never } }],
    },
  };
}

test("bad input is one TypegenError naming the cause and the fix", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-import-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const notCrd = join(dir, "cm.yaml");
  writeFileSync(notCrd, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
  assert.throws(() => readCrdFile(join(dir, "missing.yaml")), {
    name: "TypegenError",
    message: /cannot read .*missing\.yaml.*Fix: pass the path of a CRD YAML file/,
  });
  assert.throws(() => readCrdFile(notCrd), { message: /holds no CustomResourceDefinition.*Fix:/ });
  assert.throws(() => crdModules(crd({ type: "object" }, "ConfigMap")), {
    message: /is a ConfigMap .*not a CustomResourceDefinition/,
  });
  const untyped = { type: "object", properties: { spec: { type: "object", properties: { size: {} } } } };
  assert.throws(
    () => crdModules(crd(untyped)),
    (err: unknown) =>
      err instanceof TypegenError &&
      err.code === "KL_TYPEGEN" &&
      /\.spec\.size has no type, so the schema is not structural\. Fix: give every field a type/.test(
        err.message,
      ),
  );
});

test("a CRD whose schema omits apiVersion, kind and metadata still types them", () => {
  const [module] = crdModules(crd({ type: "object", properties: { spec: { type: "object" } } }), "kubeloop");
  assert.match(
    module?.source ?? "",
    /apiVersion: "example.com\/v1";\n {2}kind: "Widget";\n {2}metadata: ObjectMeta;/,
  );
  assert.match(module?.source ?? "", /import \{ type ObjectMeta, resourceType \} from "kubeloop";/);
});
