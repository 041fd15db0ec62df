/**
 * Webhooks served by an operator run as deployed (fixtures/deployed.ts), each test on a control
 * plane of its own (a CRD's conversion is cluster-wide): `kubeloop generate`'s webhook Service,
 * configurations and CRD conversion stanza — with self-managed certificates, since cert-manager is
 * not installed here — and the operator applying its CA to them; the apiserver calls the replica
 * through the Service. Denials carry the handler's message and field, dry runs have no side
 * effects, defaults are stored, objects convert between two versions of different shapes and
 * back, an operator watching only its own namespace validates objects there, and with its
 * replicas down the webhooks fail closed (naming themselves) or open, as the failure policy says.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import {
  CustomResourceDefinition,
  Namespace,
  ValidatingWebhookConfiguration,
} from "../../../src/api/index.ts";
import { InvalidError } from "../../../src/client/index.ts";
import { deploy, ownCluster } from "../fixtures/deployed.ts";
import { eventually, kubectl } from "../support.ts";
import { Gizmo, type GizmoV1, GizmoV1alpha1, gizmosModule, gizmoYaml, group } from "./gizmos.ts";

const validatingName = `vgizmo-v1.${group}`;
const mutatingName = `mgizmo-v1.${group}`;

/**
 * Deploys the Gizmo operator named `name` on a control plane of the test's own and starts one
 * replica (the generated Deployment's count); returns once it is ready.
 */
async function deployGizmos(t: TestContext, name: string, options: { watchNamespace?: string } = {}) {
  const kubeconfig = await ownCluster(t);
  // The generated default, cert-manager, needs cert-manager: the operator makes its certificate.
  const generate = ["--webhook-certs=self"];
  const operator = await deploy(t, { module: gizmosModule(name, options), generate, kubeconfig });
  const replica = await operator.startReplica();
  await replica.ready();
  const cli = (args: string[], input?: string) => kubectl(args, { kubeconfig, input, allowFail: true });
  return { operator, replica, cli, client: operator.client };
}

/** Dry-runs an invalid Gizmo in `ns` until the webhook denies it: the configuration has reached the apiserver. */
function untilDenying(cli: (args: string[], input?: string) => ReturnType<typeof kubectl>, ns: string) {
  return eventually(
    async () => {
      const applied = await cli(
        ["apply", "--dry-run=server", "-f", "-"],
        gizmoYaml(ns, "probe", "{ hostname: bad_host, port: 80 }"),
      );
      if (applied.code !== 0 && applied.stderr.includes("must not contain underscores")) return applied;
      throw new Error(`kubectl apply answered (${applied.code}): ${applied.stderr || applied.stdout}`);
    },
    { what: `the validating webhook to deny an invalid Gizmo in ${ns}`, timeoutMs: 60_000 },
  );
}

async function createNamespace(client: Awaited<ReturnType<typeof deployGizmos>>["client"], name: string) {
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

describe("webhooks served by an operator as deployed", () => {
  it("validate, default and convert through the apiserver, reached through the generated Service with the operator's CA", async (t) => {
    const { operator, replica, cli, client } = await deployGizmos(t, "gizmos");
    const ns = "work";
    await createNamespace(client, ns);
    const vwc = await client.get(ValidatingWebhookConfiguration, "gizmos");
    const { service, caBundle } = vwc.webhooks?.[0]?.clientConfig ?? {};
    assert.deepEqual(service, {
      name: "gizmos-webhook-service",
      namespace: operator.namespace,
      path: `/validate-${group.replaceAll(".", "-")}-v1-gizmo`,
      port: 443,
    });
    assert.match(Buffer.from(caBundle ?? "", "base64").toString(), /BEGIN CERTIFICATE/);

    // kubectl shows an Invalid answer's fields; the status also names the webhook and says why.
    const denied = await untilDenying(cli, ns);
    assert.match(denied.stderr, /The Gizmo "probe" is invalid: spec\.hostname: must not contain underscores/);
    const probe = { apiVersion: `${group}/v1`, kind: "Gizmo", metadata: { name: "probe", namespace: ns } };
    const invalid = { ...probe, spec: { hostname: "bad_host", port: 80 } } as GizmoV1;
    const status = await client.create(Gizmo, invalid, { dryRun: true }).catch((err: Error) => err);
    assert.ok(status instanceof InvalidError, String(status));
    assert.match(
      status.message,
      new RegExp(`admission webhook "${validatingName}" denied the request: the hostname is not a DNS name`),
    );

    // A dry run: validated with ctx.dryRun, nothing stored, and the handler's write refused.
    await cli(
      ["apply", "--dry-run=server", "-f", "-"],
      gizmoYaml(ns, "writer", "{ hostname: dry.example, port: 80 }"),
    );
    const validated = replica.all("validated").filter((e) => e.name === "writer");
    assert.deepEqual(
      validated.map((e) => e.dryRun),
      [true],
    );
    assert.deepEqual(
      replica.all("write-refused").map((e) => e.error),
      ["KL_WRITE_FENCED"],
    );
    assert.match((await cli(["get", `gizmos.v1.${group}`, "writer", "-n", ns])).stderr, /NotFound/);
    assert.match((await cli(["get", "configmap", "writer-side-effect", "-n", ns])).stderr, /NotFound/);

    // Defaulting shows in the stored object; an invalid object is refused for real too.
    await cli(["apply", "-f", "-"], gizmoYaml(ns, "plain", "{ hostname: a.example, port: 80 }"));
    assert.equal((await client.get(Gizmo, "plain", { namespace: ns })).spec.tier, "standard");
    const refused = await cli(
      ["apply", "-f", "-"],
      gizmoYaml(ns, "invalid", "{ hostname: bad_host, port: 80 }"),
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.hostname: must not contain underscores/);

    // Written in v1alpha1: read back in v1 (converted, defaulted through the v1 webhook), and in v1alpha1 unchanged.
    const old = await cli(
      ["apply", "-f", "-"],
      gizmoYaml(ns, "old", "{ address: 'old.example:8080' }", "v1alpha1"),
    );
    assert.equal(old.code, 0, old.stderr);
    const asV1 = await client.get(Gizmo, "old", { namespace: ns });
    assert.deepEqual(asV1.spec, { hostname: "old.example", port: 8080, tier: "standard" });
    const asV1alpha1 = await client.get(GizmoV1alpha1, "old", { namespace: ns });
    assert.deepEqual(asV1alpha1.spec, { address: "old.example:8080" });
    const answered = await operator.metric(replica, "controller_runtime_webhook_requests_total", {
      code: "200",
    });
    assert.ok(answered > 0, "the replica counted the requests it answered");

    const crd = await client.get(CustomResourceDefinition, `gizmos.${group}`);
    assert.equal(crd.spec.conversion?.strategy, "Webhook");
    assert.deepEqual(crd.spec.conversion?.webhook?.conversionReviewVersions, ["v1"]);
    assert.equal(crd.spec.conversion?.webhook?.clientConfig?.service?.name, "gizmos-webhook-service");
  });

  it("validates objects in its own namespace when it watches only that one", async (t) => {
    // The generated namespace is the operator's name: it watches where it runs.
    const { cli } = await deployGizmos(t, "gizmos-own", { watchNamespace: "gizmos-own" });
    await untilDenying(cli, "gizmos-own");
  });

  it("fails closed or open as the failure policy says when its replicas are down", async (t) => {
    const { operator, replica, cli, client } = await deployGizmos(t, "gizmos");
    const ns = "work";
    await createNamespace(client, ns);
    await untilDenying(cli, ns);
    assert.equal(await operator.stop(replica), 0, "the replica stops cleanly on SIGTERM");

    // Down, failurePolicy Fail (the default): refused, naming the webhook that could not be called.
    const apply = (name: string) =>
      cli(["apply", "-f", "-"], gizmoYaml(ns, name, "{ hostname: a.example, port: 80 }"));
    const refused = await apply("while-down");
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`failed calling webhook "${mutatingName}"`));
    assert.match(refused.stderr, /no endpoints available for service "gizmos-webhook-service"/);

    // Down, failurePolicy Ignore: admitted, unvalidated and undefaulted.
    for (const kind of ["validatingwebhookconfiguration", "mutatingwebhookconfiguration"]) {
      const ignore = '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]';
      await cli(["patch", kind, "gizmos", "--type=json", "-p", ignore]);
    }
    await eventually(async () => (await apply("ignored")).code === 0, {
      what: "a Gizmo admitted with the webhooks down and failurePolicy Ignore",
    });
    assert.equal((await client.get(Gizmo, "ignored", { namespace: ns })).spec.tier, undefined);
  });
});
