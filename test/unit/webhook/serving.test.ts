/**
 * A manager's webhooks: served from start with a certificate it made, its CA applied to its
 * configurations and conversion stanzas, `/readyz` saying so; a port in use fails start with one
 * error naming the port and the flag; the `--webhook-*` flags; `runOperator`'s options; the
 * configurations of a namespace-scoped manager; a rotated CA applied again, its failures retried.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { get as httpGet } from "node:http";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { pino } from "pino";
import { Registry } from "prom-client";
import { ConfigMap } from "../../../src/api/index.ts";
import { InformerCache } from "../../../src/cache/index.ts";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { type Manager, parseEndpointFlags } from "../../../src/manager/index.ts";
import { defineOperator } from "../../../src/operator/index.ts";
import { managerOptionsOf } from "../../../src/operator/operator.ts";
import { eventually } from "../../../src/testing/index.ts";
import {
  ManagerWebhooks,
  Verdict,
  validating,
  WebhookListenError,
  WebhookNamespaceError,
  writeSelfManagedCertificates,
} from "../../../src/webhook/index.ts";
import { fakeConnection } from "../client/support.ts";
import { pathOf, queryOf, type SentRequest, stubUndici } from "../client/undici-stub.ts";
import { fakeManager } from "../manager/support.ts";
import { admissionReview, Thing, thingVersions } from "./support.ts";

const emptyMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "empty", namespace: "ns" } };
const noEmpty = validating(ConfigMap, (cm) => (cm.data ? undefined : Verdict.deny("data is required")));

/** Posts `body` to the server at `port` over HTTPS, trusting `ca`; resolves with the parsed answer. */
function post(
  port: number,
  path: string,
  body: unknown,
  ca: string,
): Promise<{ response: { allowed: boolean } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "POST", ca, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The body of a GET over plain HTTP (undici, and so fetch, is stubbed in these tests). */
function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve(Buffer.concat(chunks).toString()));
    }).on("error", reject);
  });
}

async function started(t: TestContext, options: Parameters<typeof fakeManager>[0]) {
  const { manager, clock } = await fakeManager({ health: { host: "127.0.0.1", port: 0 }, ...options });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  t.after(() => {
    stop.abort();
    return running;
  });
  return { manager, running, clock };
}

describe("a manager's webhooks", () => {
  it("are served from start with a certificate the manager made, whose CA it applies", async (t) => {
    const sent = stubUndici(t, (req) => ({ status: 200, body: JSON.parse(req.body ?? "{}") }));
    const { manager } = await started(t, {
      webhooks: [noEmpty, thingVersions],
      webhookServer: { port: 0, namespace: "widgets-system" },
    });
    const applied = await eventually(() => sent.length === 2 && sent, { what: "two applies" });
    assert.deepEqual(
      applied.map((r) => [r.method, pathOf(r), queryOf(r).fieldManager]),
      [
        [
          "PATCH",
          "/prefix/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widgets",
          "widgets-webhook-ca",
        ],
        [
          "PATCH",
          "/prefix/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com",
          "widgets-webhook-ca",
        ],
      ],
    );
    const [configuration, crd] = applied.map((r) => JSON.parse(r.body ?? "{}"));
    const entry = configuration.webhooks[0];
    const port = manager.ports.webhook;
    assert.equal(entry.clientConfig.url, `https://127.0.0.1:${port}/validate--v1-configmap`);
    // A built-in kind: kube-system and the operator's own objects left out, not its namespace.
    assert.deepEqual(entry.namespaceSelector, {
      matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }],
    });
    assert.deepEqual(entry.objectSelector, {
      matchExpressions: [{ key: "kubeloop.dev/operator", operator: "NotIn", values: ["widgets"] }],
    });
    assert.equal(crd.spec.conversion.webhook.clientConfig.url, `https://127.0.0.1:${port}/convert`);
    assert.equal(crd.spec.conversion.webhook.clientConfig.caBundle, entry.clientConfig.caBundle);

    // The apiserver's view: the server's certificate verifies against the CA applied.
    const ca = Buffer.from(entry.clientConfig.caBundle, "base64").toString();
    const answer = await post(
      port as number,
      "/validate--v1-configmap",
      admissionReview("CREATE", emptyMap),
      ca,
    );
    assert.equal(answer.response.allowed, false);
    const readyz = await get(`http://127.0.0.1:${manager.ports.health}/readyz?verbose`);
    assert.match(readyz, new RegExp(`\\[\\+\\]webhook ok: listening on port ${port}`));
  });

  it("are not ready for the CA until the configurations carry it, from before the CA file is read", async (t) => {
    const webhooks = new ManagerWebhooks(
      [noEmpty],
      { port: 0, host: "127.0.0.1" },
      {
        name: "widgets",
        client: new Client(fakeConnection()),
        cache: new InformerCache(new Client(fakeConnection())),
        registry: new Registry(),
        logger: pino({ level: "silent" }),
        clock: new FakeClock(),
        inCluster: false,
      },
    );
    assert.throws(() => webhooks.trusted(), /applied to the configurations yet/);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    stubUndici(t, async (req) => {
      await held;
      return { status: 200, body: JSON.parse(req.body ?? "{}") };
    });
    const starting = webhooks.start();
    t.after(() => webhooks.stop());
    await eventually(() => webhooks.port !== undefined, { what: "the server listening" });
    assert.throws(() => webhooks.trusted(), /applied to the configurations yet/);
    release();
    await starting;
    assert.equal(webhooks.trusted(), "configurations carry the serving CA");
  });

  it("fail start with one error naming the port in use and the flag that changes it", async (t) => {
    stubUndici(t, () => ({ status: 200, body: {} }));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    t.after(() => taken.close());
    const port = (taken.address() as { port: number }).port;
    const { manager } = await fakeManager({
      webhooks: [noEmpty],
      webhookServer: { port, host: "127.0.0.1" },
    });
    const failure = await manager.start(new AbortController().signal).catch((err: unknown) => err);
    assert.ok(failure instanceof WebhookListenError, String(failure));
    assert.match(
      failure.message,
      new RegExp(
        `cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is in use; .*--webhook-bind-address=:9444`,
      ),
    );
  });
});

describe("the webhook flags and runOperator's webhook options", () => {
  it("read --webhook-bind-address and the certificate directory, as kubebuilder names them", () => {
    const flags = ["--webhook-bind-address=:9444", "--webhook-cert-path=/certs", "--webhook-cert-name=c.pem"];
    assert.deepEqual(parseEndpointFlags(flags).webhookServer, {
      host: "0.0.0.0",
      port: 9444,
      certDir: "/certs",
      certName: "c.pem",
    });
    assert.throws(() => parseEndpointFlags(["--webhook-bind-address=0"]), /must be served/);
  });

  it("serve an operator's webhooks in its namespace, flags overriding", () => {
    const operator = defineOperator({ name: "widgets", kinds: [], setup() {}, webhooks: [noEmpty] });
    const options = managerOptionsOf(operator, { webhookServer: { port: 9444 } }, { POD_NAMESPACE: "ops" });
    assert.deepEqual(options.webhooks, [noEmpty]);
    assert.deepEqual(options.webhookServer, { namespace: "ops", port: 9444 });
    const none = managerOptionsOf(defineOperator({ name: "w", kinds: [], setup() {} }), {}, {});
    assert.equal(none.webhooks, undefined);
  });
});

describe("a manager's webhook configurations", () => {
  it("admit only the namespace a namespace-scoped manager watches, under a name of their own", async (t) => {
    const sent = stubUndici(t, (req) => ({ status: 200, body: JSON.parse(req.body ?? "{}") }));
    await started(t, {
      namespace: "team-a",
      webhooks: [noEmpty],
      webhookServer: {
        port: 0,
        namespace: "widgets-system",
        namespaceSelector: { matchLabels: { run: "r1" } },
      },
    });
    const [applied] = await eventually(() => sent.length === 1 && sent, { what: "one apply" });
    assert.equal(
      pathOf(applied as SentRequest),
      "/prefix/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widgets-team-a",
    );
    const entry = JSON.parse(applied?.body ?? "{}").webhooks[0];
    assert.deepEqual(entry.namespaceSelector.matchExpressions, [
      { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
      { key: "kubernetes.io/metadata.name", operator: "In", values: ["team-a"] },
      { key: "run", operator: "In", values: ["r1"] },
    ]);
  });

  it("of an operator watching its own namespace admit that namespace, its own objects left out only for built-in kinds", async (t) => {
    const sent = stubUndici(t, (req) => ({ status: 200, body: JSON.parse(req.body ?? "{}") }));
    const thingCheck = validating(Thing, () => undefined);
    await started(t, {
      namespace: "widgets-system",
      webhooks: [thingCheck, noEmpty],
      webhookServer: { port: 0, namespace: "widgets-system" },
    });
    const [applied] = await eventually(() => sent.length === 1 && sent, { what: "one apply" });
    const [thing, configMap] = JSON.parse(applied?.body ?? "{}").webhooks;
    const watched = { key: "kubernetes.io/metadata.name", operator: "In", values: ["widgets-system"] };
    assert.deepEqual(thing.namespaceSelector, { matchExpressions: [watched] });
    assert.equal(thing.objectSelector, undefined);
    assert.deepEqual(configMap.namespaceSelector.matchExpressions.at(-1), watched);
    assert.deepEqual(configMap.objectSelector.matchExpressions, [
      { key: "kubeloop.dev/operator", operator: "NotIn", values: ["widgets"] },
    ]);
  });

  it("are refused at start when they admit none of the namespaces the manager watches", async () => {
    const elsewhere = validating(Thing, () => undefined, {
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "team-b" } },
    });
    for (const [webhook, namespace] of [
      [elsewhere, "team-a"],
      [noEmpty, "kube-system"],
    ] as const) {
      const failure = await fakeManager({ namespace, webhooks: [webhook] }).catch((err: unknown) => err);
      assert.ok(failure instanceof WebhookNamespaceError, String(failure));
      assert.match(
        failure.message,
        new RegExp(`no request from namespace ${namespace}, which the operator watches`),
      );
    }
  });

  it("apply a rotated CA again, retrying a failure with backoff, counted, /readyz failing until it is applied", async (t) => {
    let refuse = false;
    const sent = stubUndici(t, (req) =>
      refuse
        ? { status: 403, body: { kind: "Status", code: 403, reason: "Forbidden", message: "no" } }
        : { status: 200, body: JSON.parse(req.body ?? "{}") },
    );
    const certDir = await mkdtemp(join(tmpdir(), "kubeloop-unit-webhook-"));
    t.after(() => rm(certDir, { recursive: true, force: true }));
    await writeSelfManagedCertificates(certDir, "widgets-webhook", ["127.0.0.1"]);
    const { manager, clock } = await started(t, {
      webhooks: [noEmpty],
      webhookServer: { port: 0, certDir, injectCa: true },
    });
    await eventually(() => sent.length === 1, { what: "the first apply" });
    const readyz = () => get(`http://127.0.0.1:${manager.ports.health}/readyz?verbose`);
    assert.match(await readyz(), /\[\+\]webhook-ca ok/);

    refuse = true;
    await writeSelfManagedCertificates(certDir, "widgets-webhook", ["127.0.0.1"]);
    const rotated = await readFile(join(certDir, "ca.crt"), "utf8");
    await eventually(() => sent.length === 2, { what: "the rotated CA's apply, refused" });
    await eventually(async () => /\[-\]webhook-ca failed/.test(await readyz()), { what: "/readyz failing" });
    assert.equal(await metricTotal(manager, "kubeloop_webhook_configuration_failures_total"), 1);

    refuse = false;
    clock.advance(1000); // the first retry comes within a second
    await eventually(() => sent.length === 3, { what: "the retry" });
    const caBundle = JSON.parse(sent[2]?.body ?? "{}").webhooks[0].clientConfig.caBundle;
    assert.equal(Buffer.from(caBundle, "base64").toString(), rotated);
    await eventually(async () => /\[\+\]webhook-ca ok/.test(await readyz()), { what: "/readyz ok again" });
  });
});

/** The sum of a metric's values in the manager's registry. */
async function metricTotal(manager: Manager, name: string): Promise<number> {
  const metric = manager.metrics.registry.getSingleMetric(name);
  const values = metric ? (await metric.get()).values : [];
  return values.reduce((sum, v) => sum + v.value, 0);
}

/**
 * An apiserver in memory for these tests, by path: an apply stores its body (resourceVersion
 * "1"), a get answers what is stored or 404, a delete removes it.
 */
function memoryApiserver(t: TestContext) {
  const objects = new Map<string, { metadata: { resourceVersion?: string } }>();
  const notFound = { status: 404, body: { kind: "Status", code: 404, reason: "NotFound", message: "gone" } };
  const sent = stubUndici(t, (req) => {
    const path = pathOf(req);
    const stored = objects.get(path);
    if (req.method === "GET") return stored ? { status: 200, body: stored } : notFound;
    if (req.method === "DELETE") {
      objects.delete(path);
      return stored ? { status: 200, body: stored } : notFound;
    }
    const body = JSON.parse(req.body ?? "{}");
    if (req.method === "POST") return { status: 201, body };
    objects.set(path, { ...body, metadata: { ...body.metadata, resourceVersion: "1" } });
    return { status: 200, body: objects.get(path) };
  });
  return { objects, sent };
}

/** Starts a manager serving `webhooks` and resolves once it applied `applies` objects; `stop` stops it. */
async function startedUntilApplied(
  t: TestContext,
  sent: SentRequest[],
  options: Parameters<typeof fakeManager>[0],
  applies: number,
) {
  const { manager } = await fakeManager({ health: false, ...options });
  const stopping = new AbortController();
  const running = manager.start(stopping.signal);
  t.after(() => {
    stopping.abort();
    return running;
  });
  const isApply = (r: SentRequest) => r.method === "PATCH";
  await eventually(() => sent.filter(isApply).length === applies, { what: `${applies} applies` });
  const stop = async () => {
    const before = sent.length;
    stopping.abort();
    await running;
    return sent.slice(before).map((r) => [r.method, pathOf(r)]);
  };
  return { manager, stop };
}

const vwcPath = "/prefix/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widgets";
const crdPath = "/prefix/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com";

describe("a manager's webhooks, stopping", () => {
  it("take back, outside a cluster, the configurations they applied, and point conversions at the Service", async (t) => {
    const { objects, sent } = memoryApiserver(t);
    const webhookServer = { port: 0, namespace: "widgets-system" };
    const { stop } = await startedUntilApplied(
      t,
      sent,
      { webhooks: [noEmpty, thingVersions], webhookServer },
      2,
    );
    const after = sent.length;
    assert.deepEqual(await stop(), [
      ["GET", vwcPath],
      ["DELETE", vwcPath],
      ["GET", crdPath],
      ["PATCH", crdPath],
    ]);
    const [, deleted, , released] = sent.slice(after);
    assert.deepEqual(JSON.parse(deleted?.body ?? "{}").preconditions, { resourceVersion: "1" });
    // The conversion calls the operator's Service, as deployed, without the run's CA.
    assert.deepEqual(JSON.parse(released?.body ?? "{}"), {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "things.example.com", resourceVersion: "1" },
      spec: {
        conversion: {
          strategy: "Webhook",
          webhook: {
            clientConfig: {
              service: {
                name: "widgets-webhook-service",
                namespace: "widgets-system",
                path: "/convert",
                port: 443,
              },
            },
            conversionReviewVersions: ["v1"],
          },
        },
      },
    });
    assert.equal(queryOf(released as SentRequest).fieldManager, "widgets-webhook-ca");
    assert.equal(objects.has(vwcPath), false);
  });

  it("leave a configuration that calls another server now, as another run's", async (t) => {
    const { objects, sent } = memoryApiserver(t);
    const { stop } = await startedUntilApplied(
      t,
      sent,
      { webhooks: [noEmpty], webhookServer: { port: 0 } },
      1,
    );
    const live = objects.get(vwcPath) as unknown as { webhooks: { clientConfig: { url: string } }[] };
    for (const entry of live.webhooks) entry.clientConfig.url = "https://127.0.0.1:1/validate--v1-configmap";
    assert.deepEqual(await stop(), [["GET", vwcPath]]);
    assert.equal(objects.has(vwcPath), true);
  });

  it("leave them in a cluster, where they call the Service the other replicas serve", async (t) => {
    const { objects, sent } = memoryApiserver(t);
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    process.env.KUBERNETES_SERVICE_HOST = "10.96.0.1";
    t.after(() => {
      if (saved === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
      else process.env.KUBERNETES_SERVICE_HOST = saved;
    });
    const options = { webhooks: [noEmpty], webhookServer: { port: 0, host: "127.0.0.1", namespace: "ops" } };
    const { stop } = await startedUntilApplied(t, sent, options, 1);
    assert.deepEqual(await stop(), []);
    assert.equal(objects.has(vwcPath), true);
  });
});
