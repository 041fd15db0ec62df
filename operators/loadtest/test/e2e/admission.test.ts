/**
 * The worker policy at admission: with the ValidatingAdmissionPolicy the operator ships, the
 * apiserver refuses a LoadTest whose image or Secret reference the policy refuses (`422 Invalid`,
 * the operator's message naming the field), and admits the rest. The policy is bound to the test's
 * namespace only, as other tests create LoadTests of other images at the same time.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { InvalidError } from "kubeloop";
import { applyManifests } from "kubeloop/operator";
import { workerAdmissionPolicy } from "../../admission.ts";
import { DEFAULT_IMAGE, LoadTest } from "../../api.ts";
import { workerPolicyFrom } from "../../policy.ts";
import {
  createLoadTest,
  eventually,
  installCrd,
  loadTestManifest,
  namespaceFor,
  startOperator,
  testClient,
} from "./harness.ts";

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

/**
 * Applies the worker policy of `env` bound to `namespace` (deleted when the test ends), and waits
 * until the apiserver, which loads it asynchronously, refuses `refused` (a dry run).
 */
async function enforcePolicy(
  t: TestContext,
  namespace: string,
  env: Record<string, string>,
  refused: Record<string, unknown>,
): Promise<void> {
  const client = await testClient();
  const objects = workerAdmissionPolicy(workerPolicyFrom(env), LoadTest.group, {
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
  await eventually(() => refusal(namespace, "probe", refused, true).catch(() => undefined), {
    what: "the admission policy in force",
    timeoutMs: 60_000,
  });
}

test("the apiserver refuses the images and references the worker policy refuses, naming the field", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  await enforcePolicy(t, namespace, {}, stealing);

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

test("with Docker Hub wildcards, the apiserver admits Docker Hub's images and refuses the others", async (t) => {
  await installCrd();
  const namespace = await namespaceFor(t);
  // The entries whose pattern once matched every image; the apiserver's RE2 runs the pattern here.
  const env = { LOADTEST_ALLOWED_IMAGES: "docker.io/*,docker.io/library/*,library/*" };
  await enforcePolicy(t, namespace, env, { testScript, image: "ghcr.io/org/artillery:2" });
  for (const image of [
    "registry.example.com:5000/perf/artillery",
    "localhost/nginx:1",
    "quay.io/x@sha256:ab",
  ]) {
    const refused = await refusal(namespace, "other", { testScript, image }, true);
    assert.match(refused.message, /spec\.image .* is not among the images this operator runs/, image);
  }
  const client = await testClient();
  for (const image of ["nginx", "artilleryio/artillery:2.0.23", "index.docker.io/library/nginx@sha256:ab"]) {
    await client.create(LoadTest, loadTestManifest(namespace, "hub", { testScript, image }), {
      dryRun: true,
    });
  }
});
