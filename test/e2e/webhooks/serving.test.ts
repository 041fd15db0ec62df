/**
 * The manager's webhook server through its options, on the run's control plane: a certificate
 * directory rotated under a running manager is applied again, and a clean stop takes its
 * configurations back (`certDir` with `injectCa`: a setting
 * of the manager's API that `kubeloop generate` does not produce — a deployed operator makes its
 * certificate, or cert-manager's CA injector sets it — so this runs a manager in the test, its
 * configuration named for this file and admitting only the test's namespace); and the manifests
 * `kubeloop generate` writes for webhooks are accepted by the apiserver in both certificate modes.
 * admission.test.ts runs the webhooks as deployed.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import {
  type KubeObject,
  MutatingWebhookConfiguration,
  type ResourceType,
  ValidatingWebhookConfiguration,
} from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { manifestsOf } from "../../../src/generate/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { defineOperator, installCrds } from "../../../src/operator/index.ts";
import { toYaml } from "../../../src/schema/index.ts";
import { writeSelfManagedCertificates } from "../../../src/webhook/index.ts";
import { eventually, kubectl, onCleanup, testClient, testLogger, testNamespace } from "../support.ts";
import { Gizmo, gizmoWebhooks, gizmoYaml, twoVersionKind } from "./gizmos.ts";

const onlyIn = (namespace: string) => ({
  namespaceSelector: {
    matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [namespace] }],
  },
});

async function caBundleOf(name: string): Promise<string> {
  const configuration = await (await testClient()).get(ValidatingWebhookConfiguration, name);
  return Buffer.from(configuration.webhooks?.[0]?.clientConfig.caBundle ?? "", "base64").toString();
}

/** Dry-runs an invalid Gizmo until the webhook denies it: the configuration has reached the apiserver. */
function untilDenying(ns: string) {
  return eventually(
    async () => {
      const applied = await kubectl(["apply", "--dry-run=server", "-f", "-"], {
        input: gizmoYaml(ns, "probe", "{ hostname: bad_host, port: 80 }"),
        allowFail: true,
      });
      if (applied.code !== 0 && applied.stderr.includes("must not contain underscores")) return applied;
      throw new Error(`kubectl apply answered (${applied.code}): ${applied.stderr || applied.stdout}`);
    },
    { what: "the validating webhook to deny an invalid Gizmo", timeoutMs: 60_000 },
  );
}

describe("the manager's webhook server", () => {
  it("applies a rotated CA again, and takes its configurations back when it stops", async (t) => {
    const client = await testClient();
    await installCrds(client, [Gizmo]);
    const ns = await testNamespace(t);
    const configurationName = `e2e-webhooks-${randomBytes(4).toString("hex")}`;
    onCleanup(t, async () => {
      await client.delete(ValidatingWebhookConfiguration, configurationName).catch(() => {});
      await client.delete(MutatingWebhookConfiguration, configurationName).catch(() => {});
    });
    const certDir = await mkdtemp(join(tmpdir(), "kubeloop-e2e-webhook-certs-"));
    onCleanup(t, () => rm(certDir, { recursive: true, force: true }));
    const hosts = ["127.0.0.1", "localhost"];
    await writeSelfManagedCertificates(certDir, "gizmo-webhook", hosts);
    const manager = await Manager.create({
      name: "gizmo-webhooks",
      client,
      metrics: { host: "127.0.0.1", port: 0 },
      health: { host: "127.0.0.1", port: 0 },
      logger: testLogger(),
      webhooks: gizmoWebhooks(() => {}, onlyIn(ns)),
      webhookServer: { port: 0, namespace: "gizmo-system", configurationName, certDir, injectCa: true },
    });
    const abort = new AbortController();
    const running = manager.start(abort.signal);
    const stop = () => {
      abort.abort();
      return running;
    };
    onCleanup(t, stop);
    await eventually(() => manager.ready, { what: "the manager ready" });
    await untilDenying(ns);
    const readyz = await fetch(`http://127.0.0.1:${manager.ports.health}/readyz?verbose`);
    assert.match(await readyz.text(), /\[\+\]webhook ok: listening on port \d+/);

    // Rotation: new files (a new CA), read again and applied again without a restart.
    await writeSelfManagedCertificates(certDir, "gizmo-webhook", hosts);
    const rotatedCa = await readFile(join(certDir, "ca.crt"), "utf8");
    await eventually(async () => (await caBundleOf(configurationName)) === rotatedCa, {
      what: "the rotated CA in the ValidatingWebhookConfiguration",
    });
    await untilDenying(ns);

    // A clean stop takes the configurations back: an in-process manager is a local run.
    await stop();
    for (const type of [ValidatingWebhookConfiguration, MutatingWebhookConfiguration] as ResourceType[]) {
      const left = await client.get(type, configurationName).then(
        () => "still there",
        (err: unknown) => (err instanceof NotFoundError ? "gone" : String(err)),
      );
      assert.equal(left, "gone", `the ${type.kind} once the manager stopped`);
    }
  });

  it("generates manifests the apiserver accepts (server-side dry run), in both certificate modes", async (t) => {
    const ns = await testNamespace(t);
    // A kind of its own: the Gizmo CRD carries the conversion stanza a local run applied.
    const Gadget = twoVersionKind("Gadget");
    const operator = defineOperator({
      name: "gadget-ops",
      namespace: ns,
      kinds: [Gadget],
      webhooks: gizmoWebhooks(() => {}, { kind: Gadget, ...onlyIn(ns) }),
      setup() {},
    });
    for (const webhookCerts of ["self", "cert-manager"] as const) {
      for (const [file, text] of await manifestsOf(operator, { webhookCerts })) {
        if (!file.endsWith(".yaml") || file === "kustomization.yaml") continue;
        // monitoring/ is for a Prometheus (a rules file, the Prometheus Operator's kinds): not served here.
        if (file.startsWith("monitoring/")) continue;
        // cert-manager's own CRDs (Issuer, Certificate) are not installed on the test cluster.
        const objects = parseAllDocuments(text)
          .map((doc) => doc.toJS() as KubeObject)
          .filter((o) => !o.apiVersion.startsWith("cert-manager.io/"));
        const dryRun = ["apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", "-"];
        const applied = await kubectl(dryRun, { input: toYaml(objects), allowFail: true });
        assert.equal(applied.code, 0, `${webhookCerts} ${file}: ${applied.stderr}`);
      }
    }
  });
});
