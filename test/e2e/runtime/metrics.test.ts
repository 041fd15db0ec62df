/**
 * Secure metrics on the real apiserver, as kubebuilder scaffolds them: the manager runs as a
 * ServiceAccount holding only the generated `<name>-metrics-auth` ClusterRole, serves `/metrics`
 * over HTTPS (certificate from a directory, verified against its CA), and lets a caller read it
 * only when the apiserver authenticates its token (TokenReview) and allows it `get /metrics`
 * (SubjectAccessReview) through the generated `<name>-metrics-reader` ClusterRole.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { Agent, request } from "undici";
import { ClusterRoleBinding, type ClusterRoleBindingObject, ConfigMap } from "../../../src/api/index.ts";
import { controller } from "../../../src/controller/index.ts";
import {
  metricsAuthRbac,
  metricsReaderRole,
  rbacFor,
  watchPermissions,
} from "../../../src/generate/index.ts";
import { createCertificateAuthority, issueCertificate } from "../../../src/tls/index.ts";
import {
  applyRbac,
  createServiceAccount,
  requestToken,
  serviceAccountKubeconfig,
} from "../schema/credentials.ts";
import { eventually, kubectl, onCleanup, startManager, testClient, testNamespace } from "../support.ts";

/** A directory with tls.crt and tls.key for 127.0.0.1, and the CA that signed them. */
async function certDir(t: TestContext): Promise<{ dir: string; caPem: string }> {
  const ca = await createCertificateAuthority("metrics-e2e-ca");
  const pair = await issueCertificate(ca, { commonName: "metrics", hosts: ["127.0.0.1"], usage: "server" });
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-metrics-e2e-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "tls.crt"), pair.certPem);
  await writeFile(join(dir, "tls.key"), pair.keyPem);
  return { dir, caPem: ca.certPem };
}

/** Waits until the apiserver's RBAC says `user` may `verb` `what` (a resource or a non-resource URL). */
async function waitUntilAllowed(user: string, verb: string, what: string): Promise<void> {
  const args = ["auth", "can-i", verb, ...what.split(" "), `--as=${user}`];
  await eventually(async () => (await kubectl(args, { allowFail: true })).stdout.trim() === "yes", {
    what: `RBAC to let ${user} ${verb} ${what}`,
  });
}

test("secure metrics answer 401, 403 or the metrics as the apiserver authenticates and authorizes", async (t) => {
  const admin = await testClient();
  const namespace = await testNamespace(t);
  const name = `metrics-e2e-${randomBytes(3).toString("hex")}`;
  const sa = (who: string) => `system:serviceaccount:${namespace}:${who}`;
  for (const who of [name, "reader", "stranger"]) await createServiceAccount(admin, namespace, who);

  const auth = metricsAuthRbac({ name, serviceAccount: { name, namespace } });
  const reader = metricsReaderRole(name);
  const readerBinding: ClusterRoleBindingObject = {
    apiVersion: ClusterRoleBinding.apiVersion,
    kind: ClusterRoleBinding.kind,
    metadata: { name: `${name}-metrics-reader` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: reader.metadata.name ?? "" },
    subjects: [{ kind: "ServiceAccount", name: "reader", namespace }],
  };
  await applyRbac(t, admin, { roles: [...auth.roles, reader], bindings: [...auth.bindings, readerBinding] });
  await waitUntilAllowed(sa(name), "create", "tokenreviews.authentication.k8s.io");
  await waitUntilAllowed(sa(name), "create", "subjectaccessreviews.authorization.k8s.io");
  await waitUntilAllowed(sa("reader"), "get", "/metrics");

  // A manager runs while its controllers do, so it gets one, on ConfigMaps of its namespace.
  const own = rbacFor(watchPermissions(ConfigMap), { name, namespace, serviceAccount: { name, namespace } });
  await applyRbac(t, admin, own);
  await waitUntilAllowed(sa(name), "watch", `configmaps -n ${namespace}`);

  const certs = await certDir(t);
  const manager = await startManager(
    t,
    {
      name,
      namespace,
      config: { kubeconfig: await serviceAccountKubeconfig(t, admin, namespace, name) },
      metrics: { host: "127.0.0.1", port: 0, secure: true, certDir: certs.dir },
      health: false,
    },
    (manager) =>
      void controller(manager)
        .for(ConfigMap)
        .reconcile(async () => undefined),
  );
  // After the cleanups above (one t.after hook): closing the client waits for its open watches.
  t.after(() => manager.client.close());
  const agent = new Agent({ connect: { ca: certs.caPem } });
  onCleanup(t, () => agent.close());
  const scrape = async (token?: string) => {
    const res = await request(`https://127.0.0.1:${manager.ports.metrics}/metrics`, {
      dispatcher: agent,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    return { status: res.statusCode, body: await res.body.text() };
  };

  await t.test("no token: 401", async () => {
    assert.deepEqual(await scrape(), { status: 401, body: "Unauthorized" });
  });

  await t.test("a token the apiserver does not know: 401", async () => {
    assert.deepEqual(await scrape("not-a-token"), { status: 401, body: "Unauthorized" });
  });

  await t.test("a ServiceAccount without the metrics-reader role: 403", async () => {
    const token = await requestToken(admin, namespace, "stranger");
    assert.deepEqual(await scrape(token), {
      status: 403,
      body: `Authorization denied for user ${sa("stranger")}`,
    });
  });

  await t.test("a ServiceAccount bound to the metrics-reader role: 200 with the metrics", async () => {
    const token = await requestToken(admin, namespace, "reader");
    const { status, body } = await scrape(token);
    assert.equal(status, 200);
    assert.match(body, /^# TYPE rest_client_requests_total counter$/m);
    assert.match(
      body,
      /rest_client_requests_total\{code="201",method="POST"[^}]*\} [1-9]/,
      "the reviews it sent",
    );
  });
});
