/**
 * The worker policy at admission: with the ValidatingAdmissionPolicy the operator ships, the
 * apiserver refuses a LoadTest whose image or Secret reference the policy refuses (`422 Invalid`,
 * the operator's message naming the field), and admits the rest. The policy is bound to the test's
 * namespace only, as other tests create LoadTests of other images at the same time.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidError } from "kubeloop";
import { applyManifests } from "kubeloop/operator";
import { workerAdmissionPolicy } from "../../admission.ts";
import { DEFAULT_IMAGE, LoadTest } from "../../api.ts";
import { workerPolicyFrom } from "../../policy.ts";
import { createLoadTest, eventually, loadTestManifest, startOperator, testClient } from "./harness.ts";

const testScript = { config: { configMap: "script" } };
const stealing = { testScript, image: "attacker.example/steal:latest" };
const peeking = {
  testScript,
  env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "db", key: "password" } } }],
};

/** The error the apiserver refused creating the LoadTest `name` of `spec` with (a dry run if asked). */
async function refusal(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  dryRun = false,
): Promise<InvalidError> {
  const client = await testClient();
  const created = client.create(LoadTest, loadTestManifest(namespace, name, spec), { dryRun });
  return created.then(
    () => assert.fail(`the LoadTest ${name} was admitted`),
    (err: unknown) => {
      if (err instanceof InvalidError) return err;
      throw err;
    },
  );
}

test("the apiserver refuses the images and references the worker policy refuses, naming the field", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  const objects = workerAdmissionPolicy(workerPolicyFrom({}), LoadTest.group, {
    name: `loadtest-worker-policy-${namespace}`,
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
  });
  t.after(async () => {
    for (const object of objects) {
      const type = await client.discovery.resolve(object.apiVersion, object.kind);
      await client.delete(type, object.metadata.name ?? "").catch(() => undefined);
    }
  });
  await applyManifests(client, objects);
  // The apiserver loads the policy and its binding asynchronously: probe (dry run) until it denies.
  await eventually(() => refusal(namespace, "probe", stealing, true).catch(() => undefined), {
    what: "the admission policy in force",
    timeoutMs: 60_000,
  });

  const image = await refusal(namespace, "steal", stealing);
  assert.match(image.message, /spec\.image attacker\.example\/steal:latest .*LOADTEST_ALLOWED_IMAGES/);
  const env = await refusal(namespace, "peek", peeking);
  assert.match(env.message, /spec\.env TOKEN reads a ConfigMap or Secret .*LOADTEST_ALLOW_VALUE_FROM=true/);

  await createLoadTest(namespace, "admitted");
  const admitted = await client.get(LoadTest, "admitted", { namespace });
  assert.equal(
    admitted.spec.image,
    DEFAULT_IMAGE,
    "the default image, defaulted before admission, is allowed",
  );
});
