/**
 * Webhooks served by the manager against the run's control plane: the apiserver calls them over
 * TLS with the CA the manager injected (URL client config to 127.0.0.1), denials carry the
 * handler's message and field, dry runs have no side effects, defaults are stored, objects convert
 * between two versions of different shapes and back, a rotated CA is applied again, a stopped
 * manager takes its configurations back, and a webhook that is down fails closed (naming itself)
 * or open, as its failure policy says. The configurations are named for this file and select only
 * its namespaces, so other files are not affected.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import {
  ConfigMap,
  CustomResourceDefinition,
  type KubeObject,
  MutatingWebhookConfiguration,
  type ResourceType,
  resourceType,
  ValidatingWebhookConfiguration,
} from "../../../src/api/index.ts";
import { InvalidError, NotFoundError, WriteFencedError } from "../../../src/client/index.ts";
import { manifestsOf } from "../../../src/generate/index.ts";
import { Manager, type WebhookServingOptions } from "../../../src/manager/index.ts";
import { defineOperator, installCrds } from "../../../src/operator/index.ts";
import { defineKind, toYaml } from "../../../src/schema/index.ts";
import {
  type AdmissionContext,
  conversion,
  defaulting,
  Verdict,
  validating,
  writeSelfManagedCertificates,
} from "../../../src/webhook/index.ts";
import {
  eventually,
  kubectl,
  kubectlJson,
  managerMetric,
  onCleanup,
  testClient,
  testLogger,
  testNamespace,
} from "../support.ts";

const group = "webhooks.e2e.kubeloop.dev";
/** A kind whose v1 (hub, storage) splits v1alpha1's `address` into `hostname` and `port`, and adds `tier`. */
function twoVersionKind(kind: string) {
  return defineKind({
    group,
    version: "v1",
    kind,
    scope: "Namespaced",
    spec: z.object({ hostname: z.string(), port: z.int(), tier: z.string().optional() }),
    versions: [{ name: "v1alpha1", spec: z.object({ address: z.string() }) }],
  });
}
const Gizmo = twoVersionKind("Gizmo");
interface GizmoV1 extends KubeObject {
  spec: { hostname: string; port: number; tier?: string };
}
interface GizmoV1alpha1 extends KubeObject {
  spec: { address: string };
}
const GizmoV1alpha1 = resourceType<GizmoV1alpha1>(`${group}/v1alpha1`, "Gizmo", "gizmos", true);
const validatingName = `vgizmo-v1.${group}`;
const mutatingName = `mgizmo-v1.${group}`;

/** What the validating handler saw: each request's object name and `ctx.dryRun`, and refused writes. */
interface Seen {
  calls: { name: string; dryRun: boolean }[];
  refusedWrites: unknown[];
}

/** Tries to write when asked to (a handler must not, on a dry run or with sideEffects None). */
async function tryToWrite(gizmo: GizmoV1, ctx: AdmissionContext, seen: Seen): Promise<void> {
  const metadata = { name: `${gizmo.metadata.name}-side-effect`, namespace: gizmo.metadata.namespace };
  await ctx.client
    .create(ConfigMap, { apiVersion: "v1", kind: "ConfigMap", metadata })
    .catch((err: unknown) => seen.refusedWrites.push(err));
}

/** The three declarations for `kind`, sending only requests from `namespace`. */
function gizmoWebhooks(namespace: string, seen: Seen, kind = Gizmo) {
  const namespaceSelector = {
    matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [namespace] }],
  };
  const validation = validating(
    kind,
    async (gizmo, _old, ctx) => {
      seen.calls.push({ name: gizmo.metadata.name ?? "", dryRun: ctx.dryRun });
      if (gizmo.metadata.name === "writer") await tryToWrite(gizmo as GizmoV1, ctx, seen);
      if (gizmo.spec.hostname.includes("_")) {
        return Verdict.deny("the hostname is not a DNS name", {
          causes: [{ field: "spec.hostname", message: "must not contain underscores" }],
        });
      }
    },
    { namespaceSelector },
  );
  const defaults = defaulting(
    kind,
    (gizmo) => {
      gizmo.spec.tier ??= "standard";
      return gizmo;
    },
    { namespaceSelector },
  );
  const versions = conversion(kind, {
    spokes: {
      v1alpha1: {
        toHub: (old: GizmoV1alpha1): GizmoV1 => {
          const [hostname = "", port = "0"] = old.spec.address.split(":");
          return { ...old, spec: { hostname, port: Number(port) } };
        },
        fromHub: (hub: GizmoV1): GizmoV1alpha1 => ({
          ...hub,
          spec: { address: `${hub.spec.hostname}:${hub.spec.port}` },
        }),
        lacks: ["spec.tier"],
      },
    },
  });
  return [validation, defaults, versions];
}

function gizmoYaml(namespace: string, name: string, spec: string, version = "v1"): string {
  return [
    `apiVersion: ${group}/${version}`,
    "kind: Gizmo",
    `metadata: { name: ${name}, namespace: ${namespace} }`,
    `spec: ${spec}`,
  ].join("\n");
}

/** The Gizmo CRD installed once, and the configurations of one run deleted when its test ends. */
async function prepare(t: TestContext) {
  await installCrds(await testClient(), [Gizmo]);
  const configurationName = `e2e-webhooks-${randomBytes(4).toString("hex")}`;
  onCleanup(t, async () => {
    const client = await testClient();
    await client.delete(ValidatingWebhookConfiguration, configurationName).catch(() => {});
    await client.delete(MutatingWebhookConfiguration, configurationName).catch(() => {});
  });
  return { ns: await testNamespace(t), configurationName, seen: { calls: [], refusedWrites: [] } as Seen };
}

/** Starts a manager serving the Gizmo webhooks on a free port; `stop` stops it before the test ends. */
async function serveGizmoWebhooks(
  t: TestContext,
  ns: string,
  seen: Seen,
  webhookServer: WebhookServingOptions,
) {
  const manager = await Manager.create({
    name: "gizmo-webhooks",
    client: await testClient(),
    metrics: { host: "127.0.0.1", port: 0 },
    health: { host: "127.0.0.1", port: 0 },
    logger: testLogger(),
    webhooks: gizmoWebhooks(ns, seen),
    webhookServer: { port: 0, namespace: "gizmo-system", ...webhookServer },
  });
  const abort = new AbortController();
  const running = manager.start(abort.signal);
  const stop = () => {
    abort.abort();
    return running;
  };
  onCleanup(t, stop);
  // A manager that fails to start rejects here, rather than after the wait for readiness.
  const ended = running.then(() => Promise.reject(new Error("the manager stopped before it was ready")));
  await Promise.race([eventually(() => manager.ready, { what: "the manager ready" }), ended]);
  return { manager, stop };
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

async function caBundleOf(name: string): Promise<string> {
  const configuration = await (await testClient()).get(ValidatingWebhookConfiguration, name);
  return Buffer.from(configuration.webhooks?.[0]?.clientConfig.caBundle ?? "", "base64").toString();
}

describe("webhooks served by the manager", () => {
  it("validate, default and convert through the apiserver, with the manager's own CA", async (t) => {
    const { ns, configurationName, seen } = await prepare(t);
    const { manager } = await serveGizmoWebhooks(t, ns, seen, { configurationName });
    const port = manager.ports.webhook;
    const vwc = await (await testClient()).get(ValidatingWebhookConfiguration, configurationName);
    assert.equal(
      vwc.webhooks?.[0]?.clientConfig.url,
      `https://127.0.0.1:${port}/validate-${group.replaceAll(".", "-")}-v1-gizmo`,
    );
    assert.match(await caBundleOf(configurationName), /BEGIN CERTIFICATE/);

    // kubectl shows an Invalid answer's fields; the status also names the webhook and says why.
    const denied = await untilDenying(ns);
    assert.match(denied.stderr, /The Gizmo "probe" is invalid: spec\.hostname: must not contain underscores/);
    const probe = { apiVersion: `${group}/v1`, kind: "Gizmo", metadata: { name: "probe", namespace: ns } };
    const invalid = { ...probe, spec: { hostname: "bad_host", port: 80 } } as GizmoV1;
    const status = await (await testClient())
      .create(Gizmo, invalid, { dryRun: true })
      .catch((err: Error) => err);
    assert.ok(status instanceof InvalidError, String(status));
    assert.match(
      status.message,
      new RegExp(`admission webhook "${validatingName}" denied the request: the hostname is not a DNS name`),
    );

    // A dry run: validated with ctx.dryRun, nothing stored, and the handler's write refused.
    seen.calls.length = 0;
    await kubectl(["apply", "--dry-run=server", "-f", "-"], {
      input: gizmoYaml(ns, "writer", "{ hostname: dry.example, port: 80 }"),
    });
    assert.deepEqual(seen.calls, [{ name: "writer", dryRun: true }]);
    assert.ok(seen.refusedWrites[0] instanceof WriteFencedError, String(seen.refusedWrites[0]));
    const notStored = await kubectl(["get", `gizmos.v1.${group}`, "writer", "-n", ns], { allowFail: true });
    assert.match(notStored.stderr, /NotFound/);
    const sideEffect = await kubectl(["get", "configmap", "writer-side-effect", "-n", ns], {
      allowFail: true,
    });
    assert.match(sideEffect.stderr, /NotFound/);

    // Defaulting shows in the stored object; an invalid object is refused for real too.
    await kubectl(["apply", "-f", "-"], {
      input: gizmoYaml(ns, "plain", "{ hostname: a.example, port: 80 }"),
    });
    const plain = await kubectlJson<GizmoV1>(["get", `gizmos.v1.${group}`, "plain", "-n", ns]);
    assert.equal(plain.spec.tier, "standard");
    const refused = await kubectl(["apply", "-f", "-"], {
      input: gizmoYaml(ns, "invalid", "{ hostname: bad_host, port: 80 }"),
      allowFail: true,
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.hostname: must not contain underscores/);

    // Written in v1alpha1: read back in v1 (converted, defaulted through the v1 webhook), and in v1alpha1 unchanged.
    await kubectl(["apply", "-f", "-"], {
      input: gizmoYaml(ns, "old", "{ address: 'old.example:8080' }", "v1alpha1"),
    });
    const asV1 = await eventually(
      async () => (await kubectlJson<GizmoV1>(["get", `gizmos.v1.${group}`, "old", "-n", ns])).spec,
    );
    assert.deepEqual(asV1, { hostname: "old.example", port: 8080, tier: "standard" });
    const asV1alpha1 = await (await testClient()).get(GizmoV1alpha1, "old", { namespace: ns });
    assert.deepEqual(asV1alpha1.spec, { address: "old.example:8080" });
    assert.ok(await managerMetric(manager, "controller_runtime_webhook_requests_total", { code: "200" }));

    const crd = await (await testClient()).get(CustomResourceDefinition, `gizmos.${group}`);
    assert.equal(crd.spec.conversion?.strategy, "Webhook");
    assert.deepEqual(crd.spec.conversion?.webhook?.conversionReviewVersions, ["v1"]);
  });

  it("applies a rotated CA again, and fails closed or open as the failure policy says when down", async (t) => {
    const { ns, configurationName, seen } = await prepare(t);
    const certDir = await mkdtemp(join(tmpdir(), "kubeloop-e2e-webhook-certs-"));
    onCleanup(t, () => rm(certDir, { recursive: true, force: true }));
    const hosts = ["127.0.0.1", "localhost"];
    await writeSelfManagedCertificates(certDir, "gizmo-webhook", hosts);
    const { manager, stop } = await serveGizmoWebhooks(t, ns, seen, {
      configurationName,
      certDir,
      injectCa: true,
    });
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

    // A clean stop takes the configurations back (a local run's call this process); a server gone
    // without one (a crash, SIGKILL) leaves them calling a closed port, as put back here.
    const client = await testClient();
    const types = [ValidatingWebhookConfiguration, MutatingWebhookConfiguration] as ResourceType[];
    const applied = await Promise.all(types.map((type) => client.get(type, configurationName)));
    await stop();
    for (const type of types) {
      const left = await client.get(type, configurationName).then(
        () => "still there",
        (err: unknown) => (err instanceof NotFoundError ? "gone" : String(err)),
      );
      assert.equal(left, "gone", `the ${type.kind} once the manager stopped`);
    }
    for (const [i, type] of types.entries()) {
      const { metadata, ...configuration } = applied[i] as KubeObject;
      await client.create(type, { ...configuration, metadata: { name: metadata.name } });
    }

    // Down, failurePolicy Fail (the default): refused, naming the webhook that could not be called.
    const apply = (name: string) =>
      kubectl(["apply", "-f", "-"], {
        input: gizmoYaml(ns, name, "{ hostname: a.example, port: 80 }"),
        allowFail: true,
      });
    const refused = await apply("while-down");
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      new RegExp(
        `failed calling webhook "${mutatingName}": failed to call webhook: Post "https://127\\.0\\.0\\.1:${manager.ports.webhook}/mutate-`,
      ),
    );
    assert.match(refused.stderr, /connection refused/);

    // Down, failurePolicy Ignore: admitted, unvalidated and undefaulted.
    for (const kind of ["validatingwebhookconfiguration", "mutatingwebhookconfiguration"]) {
      const ignore = '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]';
      await kubectl(["patch", kind, configurationName, "--type=json", "-p", ignore]);
    }
    const admitted = await eventually(async () => (await apply("ignored")).code === 0, {
      what: "a Gizmo admitted with the webhooks down and failurePolicy Ignore",
    });
    assert.ok(admitted);
    const ignored = await kubectlJson<GizmoV1>(["get", `gizmos.v1.${group}`, "ignored", "-n", ns]);
    assert.equal(ignored.spec.tier, undefined);
  });

  it("generates manifests the apiserver accepts (server-side dry run), in both certificate modes", async (t) => {
    const { ns, seen } = await prepare(t);
    // A kind of its own: the Gizmo CRD carries the conversion stanza a local run applied.
    const Gadget = twoVersionKind("Gadget");
    const webhooks = gizmoWebhooks(ns, seen, Gadget);
    const operator = defineOperator({
      name: "gadget-ops",
      namespace: ns,
      kinds: [Gadget],
      webhooks,
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
