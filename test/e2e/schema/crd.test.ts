/**
 * Issue 5 acceptance, part 1: CRDs generated from `defineKind` install into the real apiserver,
 * and the apiserver enforces what the zod schema says — types, bounds, lengths, patterns, enums,
 * defaults, pruning, CEL rules, immutability and the condition schema — and shows the printer
 * columns and serves every version.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CustomResourceDefinition } from "../../../src/api/index.ts";
import { Client, InvalidError, loadKubeconfig, NotFoundError } from "../../../src/client/index.ts";
import { eventually, kubeconfigPath, kubectl, testClient, testNamespace } from "../support.ts";
import { gadgetBody, invalidCases, type LooseSpec, minimalSpec } from "./invalid-cases.ts";
import { Gadget, type GadgetObject, GadgetV1beta1, installCrds, Sprocket } from "./kinds.ts";

const crdName = `${Gadget.plural}.${Gadget.group}`;

/** A client that collects the apiserver's `Warning` headers. */
async function warningClient(): Promise<{ client: Client; warnings: string[] }> {
  const warnings: string[] = [];
  const client = new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), {
    qps: Number.POSITIVE_INFINITY,
    onWarning: (warning) => warnings.push(warning),
  });
  return { client, warnings };
}

test("the generated CRDs install with server-side apply and become Established", async () => {
  await installCrds([Gadget, Sprocket]);
  const client = await testClient();
  for (const kind of [Gadget, Sprocket]) {
    const installed = await client.get(CustomResourceDefinition, `${kind.plural}.${kind.group}`);
    for (const type of ["NamesAccepted", "Established"]) {
      const condition = installed.status?.conditions?.find((c) => c.type === type);
      assert.equal(condition?.status, "True", `${kind.kind}: ${type} condition`);
    }
  }
  const crd = await client.get(CustomResourceDefinition, crdName);
  const status = crd.status as { storedVersions?: string[] };
  assert.deepEqual(
    crd.spec.versions.map(({ name, served, storage }) => ({ name, served, storage })),
    [
      { name: "v1", served: true, storage: true },
      { name: "v1beta1", served: true, storage: false },
    ],
  );
  assert.deepEqual(status.storedVersions, ["v1"]);
});

test("valid Gadgets are accepted and stored with their defaults applied", async (t) => {
  await installCrds([Gadget]);
  const ns = await testNamespace(t);
  const client = await testClient();

  await client.create(Gadget, gadgetBody(ns, "minimal", minimalSpec()));
  const minimal = await client.get(Gadget, "minimal", { namespace: ns });
  assert.deepEqual(minimal.spec, {
    name: "gizmo",
    tier: "silver",
    owner: "team-a",
    replicas: 1,
    network: { port: 8080, protocol: "TCP" },
  });
  assert.deepEqual(Gadget.parseSpec(minimalSpec()), minimal.spec, "zod and the apiserver default alike");

  const full: LooseSpec = {
    name: "full-gadget",
    replicas: 3,
    tier: "gold",
    description: "every optional field set",
    owner: "team-a",
    network: { port: 5353, protocol: "UDP", host: "dns.example.com" },
    tags: ["a", "b", "c"],
    labels: { env: "prod", team: "a" },
    targetPort: "http",
    startAt: "2026-05-01T12:00:00Z",
  };
  await client.create(Gadget, gadgetBody(ns, "full", full));
  assert.deepEqual((await client.get(Gadget, "full", { namespace: ns })).spec, full);

  const numericPort = { ...minimalSpec(), targetPort: 8443 };
  await client.create(Gadget, gadgetBody(ns, "numeric-port", numericPort));
  assert.equal((await client.get(Gadget, "numeric-port", { namespace: ns })).spec.targetPort, 8443);
});

test("invalid Gadgets are rejected with the apiserver's field-level causes", async (t) => {
  await installCrds([Gadget]);
  const ns = await testNamespace(t);
  const client = await testClient();
  const existing = "existing";
  await client.create(Gadget, gadgetBody(ns, existing, minimalSpec()));
  const before = await client.get(Gadget, existing, { namespace: ns });

  let index = 0;
  for (const row of invalidCases) {
    const freshName = `rejected-${index++}`;
    await t.test(row.name, async () => {
      await assert.rejects(row.write({ client, namespace: ns, existing, freshName }), (err: unknown) => {
        assert.ok(err instanceof InvalidError, `expected InvalidError, got ${String(err)}`);
        const cause = err.causes.find((c) => c.field === row.field);
        assert.ok(cause, `no cause for ${row.field} in ${JSON.stringify(err.causes)}`);
        assert.equal(cause.reason, row.reason);
        assert.ok(
          cause.message?.includes(row.fragment),
          `cause message ${JSON.stringify(cause.message)} lacks ${JSON.stringify(row.fragment)}`,
        );
        return true;
      });
    });
  }

  const names = (await client.list(Gadget, { namespace: ns })).items.map((g) => g.metadata.name);
  assert.deepEqual(names, [existing], "no rejected create left an object behind");
  const after = await client.get(Gadget, existing, { namespace: ns });
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, "no rejected write landed");
  assert.ok(invalidCases.length >= 15);
});

test("unknown fields are pruned, with a warning, and refused under strict field validation", async (t) => {
  await installCrds([Gadget]);
  const ns = await testNamespace(t);
  const { client, warnings } = await warningClient();
  t.after(() => client.close());
  const spec = { ...minimalSpec(), colour: "blue", network: { port: 8080, weight: 3 } };

  await client.create(Gadget, gadgetBody(ns, "pruned", spec));
  const stored = await client.get(Gadget, "pruned", { namespace: ns });
  assert.equal("colour" in stored.spec, false, "unknown spec field pruned");
  assert.equal("weight" in stored.spec.network, false, "unknown nested field pruned");
  assert.deepEqual(stored.spec.network, { port: 8080, protocol: "TCP" });
  assert.ok(warnings.includes('unknown field "spec.colour"'), `warnings: ${JSON.stringify(warnings)}`);
  assert.ok(
    warnings.includes('unknown field "spec.network.weight"'),
    `warnings: ${JSON.stringify(warnings)}`,
  );

  await assert.rejects(
    client.create(Gadget, gadgetBody(ns, "strict", spec), { fieldValidation: "Strict" }),
    (err: unknown) => {
      assert.ok(err instanceof InvalidError, String(err));
      assert.equal(err.statusCode, 400);
      assert.match(err.message, /unknown field "spec\.colour"/);
      return true;
    },
  );
  await assert.rejects(client.get(Gadget, "strict", { namespace: ns }), NotFoundError);
});

/** `kubectl get` output as rows of cells (columns are separated by at least two spaces). */
function table(stdout: string): string[][] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));
}

test("kubectl get shows the summary condition, its reason, custom columns and age", async (t) => {
  await installCrds([Gadget]);
  const ns = await testNamespace(t);
  const client = await testClient();
  await client.create(Gadget, gadgetBody(ns, "shown", { ...minimalSpec(), tier: "gold", replicas: 3 }));
  await client.status.patch(
    Gadget,
    "shown",
    {
      status: {
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "AllReplicasUp",
            message: "3 of 3 replicas up",
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
          },
        ],
      },
    },
    { type: "merge", namespace: ns },
  );

  let shown = "";
  const rows = await eventually(
    async () => {
      shown = (await kubectl(["get", `${Gadget.plural}.${Gadget.group}`, "-n", ns])).stdout;
      const out = table(shown);
      return out[1]?.[1] === "True" ? out : undefined;
    },
    { what: "the Ready column to show True", timeoutMs: 60_000 },
  ).catch((err: Error) => assert.fail(`${err.message}; kubectl get printed:\n${shown}`));
  assert.deepEqual(rows[0], ["NAME", "READY", "REASON", "TIER", "AGE"]);
  assert.deepEqual(rows[1]?.slice(0, 4), ["shown", "True", "AllReplicasUp", "gold"]);
  assert.match(rows[1]?.[4] ?? "", /^\d+s$/);

  const wide = table((await kubectl(["get", "gdg", "-n", ns, "-o", "wide"])).stdout);
  assert.deepEqual(wide[0], ["NAME", "READY", "REASON", "TIER", "REPLICAS", "AGE"], "priority-1 column");
  assert.deepEqual(wide[1]?.slice(0, 5), ["shown", "True", "AllReplicasUp", "gold", "3"]);
});

test("both versions are served; v1beta1 warns it is deprecated and objects are stored as v1", async (t) => {
  await installCrds([Gadget]);
  const ns = await testNamespace(t);
  const { client, warnings } = await warningClient();
  t.after(() => client.close());
  const body = { ...gadgetBody(ns, "old-style", minimalSpec()), apiVersion: GadgetV1beta1.apiVersion };

  const created = await client.create(GadgetV1beta1, body as GadgetObject);
  assert.equal(created.apiVersion, GadgetV1beta1.apiVersion);
  assert.ok(
    warnings.includes("schema.e2e.kubeloop.dev/v1beta1 Gadget is deprecated; use v1"),
    `warnings: ${JSON.stringify(warnings)}`,
  );
  const asV1 = await client.get(Gadget, "old-style", { namespace: ns });
  assert.equal(asV1.apiVersion, Gadget.apiVersion);
  assert.deepEqual(asV1.spec, created.spec);
  assert.equal(asV1.spec.replicas, 1, "v1beta1 applies the same defaults");

  await assert.rejects(
    client.patch(GadgetV1beta1, "old-style", { spec: { owner: "team-b" } }, { type: "merge", namespace: ns }),
    (err: unknown) => err instanceof InvalidError && err.causes.some((c) => c.field === "spec.owner"),
    "v1beta1 carries the same CEL rules",
  );
  const crd = await client.get(CustomResourceDefinition, crdName);
  assert.deepEqual((crd.status as { storedVersions?: string[] }).storedVersions, ["v1"]);
});
