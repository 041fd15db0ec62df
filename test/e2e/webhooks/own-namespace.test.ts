/**
 * An operator deployed as the generated manifests deploy it, watching its own namespace (its
 * definition's `namespace` and `watchNamespace` the same, `POD_NAMESPACE` naming it, options as
 * `runOperator` derives them): its webhooks are sent that namespace's requests, so an invalid
 * object there is refused; for a built-in kind only the operator's own objects (labelled
 * `kubeloop.dev/operator`) are let through unchecked. Once, the namespace was left out of the
 * configuration it was the only one admitted by, and every object was admitted unchecked.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { z } from "zod";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { InvalidError } from "../../../src/client/index.ts";
import { defineOperator, installCrds } from "../../../src/operator/index.ts";
import { managerOptionsOf } from "../../../src/operator/operator.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { OPERATOR_LABEL, Verdict, validating } from "../../../src/webhook/index.ts";
import { eventually, startManager, testClient, testNamespace } from "../support.ts";

const Sprocket = defineKind({
  group: "webhooks.e2e.kubeloop.dev",
  version: "v1",
  kind: "Sprocket",
  scope: "Namespaced",
  spec: z.object({ teeth: z.int() }),
});

/** Sprockets need an even number of teeth; ConfigMaps need data. */
const webhooks = [
  validating(Sprocket, (sprocket) =>
    sprocket.spec.teeth % 2 === 0
      ? undefined
      : Verdict.deny("a sprocket's teeth must be even", {
          causes: [{ field: "spec.teeth", message: "must be even" }],
        }),
  ),
  validating(ConfigMap, (configMap) =>
    configMap.data
      ? undefined
      : Verdict.deny("a ConfigMap needs data", { causes: [{ field: "data", message: "is required" }] }),
  ),
];

/**
 * Starts the Sprocket operator as `runOperator` would in a pod of `namespace` (the options it
 * derives), but on a free webhook port and without leader election, which this test is not about.
 */
async function startAsDeployed(t: TestContext, namespace: string) {
  const operator = defineOperator({
    name: "sprockets",
    namespace,
    watchNamespace: namespace,
    kinds: [Sprocket],
    webhooks,
    setup() {},
  });
  const client = await testClient();
  await installCrds(client, operator.kinds);
  // A free webhook port (files run in parallel); the rest as runOperator derives it in the pod.
  const local = { client, leaderElection: false as const, webhookServer: { port: 0 } };
  const options = managerOptionsOf(operator, local, { POD_NAMESPACE: namespace });
  assert.equal(options.webhookServer?.namespace, namespace, "the operator's namespace is the watched one");
  return startManager(t, options, operator.setup);
}

/** Resolves with the apiserver's refusal of `create`, or undefined when it was admitted. */
function refusalOf(create: () => Promise<unknown>): Promise<InvalidError | undefined> {
  return create().then(
    () => undefined,
    (err: unknown) => {
      if (err instanceof InvalidError) return err;
      throw err;
    },
  );
}

test("an operator watching its own namespace refuses an invalid object there", async (t) => {
  const namespace = await testNamespace(t);
  await startAsDeployed(t, namespace);
  const client = await testClient();
  const sprocket = (name: string, teeth: number) => ({
    apiVersion: Sprocket.apiVersion,
    kind: Sprocket.kind,
    metadata: { name, namespace },
    spec: { teeth },
  });

  const refused = await eventually(
    () => refusalOf(() => client.create(Sprocket, sprocket("probe", 3), { dryRun: true })),
    { what: "the webhook to refuse an odd sprocket in the operator's namespace", timeoutMs: 60_000 },
  );
  assert.ok(refused instanceof InvalidError, String(refused));
  assert.match(refused.message, /a sprocket's teeth must be even/);
  await client.create(Sprocket, sprocket("even", 4));

  // A built-in kind: refused in the operator's namespace too, unless it is the operator's own object.
  const configMap = (name: string, labels: Record<string, string> = {}): ConfigMapObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels },
  });
  const empty = await refusalOf(() => client.create(ConfigMap, configMap("empty")));
  assert.match(String(empty?.message), /a ConfigMap needs data/);
  const own = configMap("own", { [OPERATOR_LABEL]: "sprockets" });
  assert.equal(await refusalOf(() => client.create(ConfigMap, own)), undefined);
  const others = configMap("others", { [OPERATOR_LABEL]: "another-operator" });
  assert.match(String((await refusalOf(() => client.create(ConfigMap, others)))?.message), /needs data/);
});
