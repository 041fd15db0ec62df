/** `WebhookServer` over real HTTPS on 127.0.0.1: reviews, failures, malformed bodies, metrics, dry runs, close. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject, type KubeObject, resourceType } from "../../../src/api/index.ts";
import { WriteFencedError } from "../../../src/client/index.ts";
import { FakeClock, untilAborted } from "../../../src/clock/index.ts";
import {
  type AdmissionContext,
  conversion,
  defaulting,
  Verdict,
  validating,
  WebhookDeclarationError,
  WebhookServer,
  WebhookSideEffectError,
  WebhookTimeoutError,
} from "../../../src/webhook/index.ts";
import { stubUndici } from "../client/undici-stub.ts";
import { admissionReview, send, servingPair, startServer } from "./support.ts";

const cm = (data: Record<string, string> = {}): ConfigMapObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "settings", namespace: "ns" },
  data,
});
const validatePath = "/validate--v1-configmap";
/** A kind with no `versions` list, as an imported CRD's descriptor. */
const Thing = resourceType<KubeObject>("example.com/v1", "Thing", "things", true);
const mutatePath = "/mutate--v1-configmap";

/** A promise and its resolver. */
function later<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A server whose handler holds the one request sent to it until `release` is called. */
async function heldRequest(t: Parameters<typeof startServer>[0]) {
  const release = later();
  const started = later();
  const held = validating(ConfigMap, async () => {
    started.resolve();
    await release.promise;
  });
  const served = await startServer(t, [held]);
  const answer = send(served.port, validatePath, admissionReview("CREATE", cm()));
  await started.promise;
  return { ...served, answer, release: () => release.resolve() };
}

describe("WebhookServer connections", () => {
  it("keeps a caller's idle connection open longer than the apiserver keeps its own (90 s)", async (t) => {
    const served = await startServer(t, [validating(ConfigMap, () => undefined)]);
    const answer = await send(served.port, validatePath, admissionReview("CREATE", cm()), {
      headers: { connection: "keep-alive" },
    });
    assert.equal(answer.status, 200);
    const timeout = Number(/timeout=(\d+)/.exec(String(answer.headers["keep-alive"]))?.[1]);
    assert.ok(timeout > 90, `the server closes an idle connection after ${timeout} s`);
  });
});

describe("WebhookServer reviews", () => {
  it("answers an AdmissionReview v1 with the request's uid, at the declared paths", async (t) => {
    const denyEmpty = validating(ConfigMap, (obj) =>
      obj.data?.a ? undefined : Verdict.deny("data.a is required"),
    );
    const setB = defaulting(ConfigMap, (obj) => ({ ...obj, data: { ...obj.data, b: "2" } }));
    const { server, port } = await startServer(t, [denyEmpty, setB]);
    assert.deepEqual(server.paths, [validatePath, mutatePath]);

    const denied = await send(port, validatePath, admissionReview("CREATE", cm()));
    assert.equal(denied.status, 200);
    assert.deepEqual(denied.body, {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: {
        uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
        allowed: false,
        status: { status: "Failure", code: 403, reason: "Forbidden", message: "data.a is required" },
      },
    });
    const mutated = await send(port, mutatePath, admissionReview("CREATE", cm({ a: "1" })));
    assert.equal(mutated.body.response.patchType, "JSONPatch");
    assert.deepEqual(JSON.parse(Buffer.from(mutated.body.response.patch, "base64").toString()), [
      { op: "add", path: "/data/b", value: "2" },
    ]);
  });

  it("echoes admission.k8s.io/v1beta1 when the apiserver sends it", async (t) => {
    const { port } = await startServer(t, [validating(ConfigMap, () => {})]);
    const review = { ...admissionReview("CREATE", cm()), apiVersion: "admission.k8s.io/v1beta1" };
    const answer = await send(port, validatePath, review);
    assert.equal(answer.body.apiVersion, "admission.k8s.io/v1beta1");
    assert.equal(answer.body.response.allowed, true);
  });

  it("converts the objects of a ConversionReview, or answers Failure with the message", async (t) => {
    const toV2 = (obj: KubeObject) => ({ ...obj, spec: { renamed: true } });
    const things = conversion(Thing, { hub: "v1", spokes: { v2: { toHub: (o) => o, fromHub: toV2 } } });
    const { port, logger } = await startServer(t, [things]);
    const thing = { apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "a", namespace: "ns" } };
    const review = (desiredAPIVersion: string) => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: { uid: "c-1", desiredAPIVersion, objects: [thing] },
    });
    const converted = await send(port, "/convert", review("example.com/v2"));
    assert.deepEqual(converted.body, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: {
        uid: "c-1",
        convertedObjects: [{ ...thing, apiVersion: "example.com/v2", spec: { renamed: true } }],
        result: { status: "Success" },
      },
    });
    const failed = await send(port, "/convert", review("example.com/v3"));
    assert.deepEqual(failed.body.response, {
      uid: "c-1",
      convertedObjects: [],
      result: { status: "Failure", message: "Thing.example.com has no version v3: it converts v1, v2" },
    });
    assert.equal(logger.errors.length, 1);
  });

  it("refuses two webhooks on one path, or two conversions of one kind", async () => {
    const options = { tls: await servingPair(), client: undefined as never, cache: undefined as never };
    const twice = [validating(ConfigMap, () => {}), validating(ConfigMap, () => {})];
    assert.throws(() => new WebhookServer({ ...options, webhooks: twice }), WebhookDeclarationError);
    const convert = () => conversion(Thing, { hub: "v1", spokes: {} });
    assert.throws(
      () => new WebhookServer({ ...options, webhooks: [convert(), convert()] }),
      /the conversion of Thing.example.com: is declared twice/,
    );
  });
});

describe("WebhookServer failures", () => {
  it("answers a handler that throws with allowed: false, code 500 and the webhook's name; logs, counts, goes on", async (t) => {
    let calls = 0;
    const flaky = validating(ConfigMap, () => {
      calls++;
      if (calls === 1) throw new Error("cache exploded");
    });
    const { port, logger, registry } = await startServer(t, [flaky]);
    const failed = await send(port, validatePath, admissionReview("CREATE", cm()));
    assert.equal(failed.status, 200);
    assert.deepEqual(failed.body.response.status, {
      status: "Failure",
      code: 500,
      reason: "InternalError",
      message: `webhook ${validatePath} failed: cache exploded`,
    });
    assert.equal(failed.body.response.allowed, false);
    assert.deepEqual(logger.errors, [`webhook ${validatePath} failed: cache exploded`]);
    const metrics = await registry.metrics();
    assert.match(
      metrics,
      /kubeloop_webhook_handler_failures_total\{webhook="\/validate--v1-configmap",reason="error"\} 1/,
    );
    assert.equal(
      (await send(port, validatePath, admissionReview("CREATE", cm()))).body.response.allowed,
      true,
    );
  });

  it("refuses a request whose handler outlives the timeout, and aborts the handler's signal", async (t) => {
    const clock = new FakeClock();
    const started = later<AdmissionContext>();
    const slow = validating(
      ConfigMap,
      (_obj, _old, ctx) => {
        started.resolve(ctx);
        return new Promise<undefined>(() => {});
      },
      { timeoutSeconds: 3 },
    );
    const { port, registry } = await startServer(t, [slow], { clock });
    const answer = send(port, validatePath, admissionReview("CREATE", cm()));
    const ctx = await started.promise;
    clock.advance(2999);
    assert.equal(ctx.signal.aborted, false);
    clock.advance(1);
    const { body } = await answer;
    assert.equal(body.response.allowed, false);
    assert.equal(body.response.status.code, 500);
    assert.match(
      body.response.status.message,
      /^webhook \/validate--v1-configmap did not answer within 3000 ms/,
    );
    assert.ok(ctx.signal.reason instanceof WebhookTimeoutError);
    assert.match(
      await registry.metrics(),
      /kubeloop_webhook_handler_failures_total\{[^}]*reason="timeout"\} 1/,
    );
  });

  const malformed: [string, string, unknown, Record<string, string>, number, RegExp][] = [
    ["a body that is not JSON", validatePath, "{nope", {}, 400, /the body is not JSON/],
    ["an empty body", validatePath, "", {}, 400, /the body is empty/],
    [
      "a review without a uid",
      validatePath,
      {
        ...admissionReview("CREATE", cm()),
        request: { ...admissionReview("CREATE", cm()).request, uid: "" },
      },
      {},
      400,
      /not an AdmissionReview .*request\.uid: Too small/,
    ],
    [
      "another review version",
      validatePath,
      { ...admissionReview("CREATE", cm()), apiVersion: "v1" },
      {},
      400,
      /apiVersion/,
    ],
    [
      "a ConversionReview at an admission path",
      validatePath,
      { kind: "ConversionReview" },
      {},
      400,
      /AdmissionReview/,
    ],
    [
      "another content type",
      validatePath,
      "{}",
      { "content-type": "text/plain" },
      415,
      /send application\/json/,
    ],
    [
      "a body over the limit",
      validatePath,
      { pad: "x".repeat(2000) },
      {},
      413,
      /larger than the limit of 1024 bytes/,
    ],
    ["a path nothing is served at", "/validate-nothing", "{}", {}, 404, /served: \/validate--v1-configmap/],
  ];
  for (const [what, path, body, headers, status, message] of malformed) {
    it(`answers ${what} with ${status} and a Status saying why`, async (t) => {
      const { port } = await startServer(t, [validating(ConfigMap, () => {})], {
        maxBodyBytes: { admission: 1024 },
      });
      const answer = await send(port, path, body, { headers });
      assert.equal(answer.status, status);
      assert.equal(answer.body.kind, "Status");
      assert.equal(answer.body.code, status);
      assert.match(answer.body.message, message);
    });
  }

  it("answers another method than POST with 405", async (t) => {
    const { port } = await startServer(t, [validating(ConfigMap, () => {})]);
    assert.equal((await send(port, validatePath, "", { method: "GET" })).status, 405);
  });
});

describe("WebhookServer metrics", () => {
  it("count requests by webhook and code, time them, and show those in flight, with controller-runtime's names", async (t) => {
    const { port, registry, answer, release } = await heldRequest(t);
    assert.match(
      await registry.metrics(),
      /controller_runtime_webhook_requests_in_flight\{webhook="\/validate--v1-configmap"\} 1/,
    );
    release();
    await answer;
    await send(port, validatePath, "nope");
    const metrics = await registry.metrics();
    assert.match(
      metrics,
      /controller_runtime_webhook_requests_in_flight\{webhook="\/validate--v1-configmap"\} 0/,
    );
    assert.match(
      metrics,
      /controller_runtime_webhook_requests_total\{webhook="\/validate--v1-configmap",code="200"\} 1/,
    );
    assert.match(
      metrics,
      /controller_runtime_webhook_requests_total\{webhook="\/validate--v1-configmap",code="400"\} 1/,
    );
    assert.match(
      metrics,
      /controller_runtime_webhook_latency_seconds_count\{webhook="\/validate--v1-configmap"\} 2/,
    );
  });
});

describe("WebhookServer side effects", () => {
  async function writeAttempt(
    t: Parameters<typeof startServer>[0],
    sideEffects: "None" | "NoneOnDryRun",
    dryRun: boolean,
  ) {
    const sent = stubUndici(t, () => ({ status: 200, body: cm() }));
    const outcome = later<{ ctx: AdmissionContext; read: unknown; write: unknown }>();
    const writer = validating(
      ConfigMap,
      async (_obj, _old, ctx) => {
        const read = await ctx.client.get(ConfigMap, "settings", { namespace: "ns" });
        const write = await ctx.client.create(ConfigMap, cm()).catch((err: unknown) => err);
        outcome.resolve({ ctx, read, write });
      },
      { sideEffects },
    );
    const { port } = await startServer(t, [writer]);
    const answer = await send(port, validatePath, admissionReview("CREATE", cm(), { dryRun }));
    assert.equal(answer.body.response.allowed, true);
    return { ...(await outcome.promise), methods: sent.map((r) => r.method) };
  }

  const refusedWrite = (err: unknown, dryRun: boolean) =>
    err instanceof WriteFencedError &&
    err.cause instanceof WebhookSideEffectError &&
    (dryRun ? /dry-run request/ : /declares sideEffects: "None"/).test(err.message);

  it("gives a dry run's handler ctx.dryRun and a client that reads but refuses writes", async (t) => {
    const { ctx, read, write, methods } = await writeAttempt(t, "NoneOnDryRun", true);
    assert.equal(ctx.dryRun, true);
    assert.deepEqual(read, cm());
    assert.ok(refusedWrite(write, true), String(write));
    assert.deepEqual(methods, ["GET"]);
  });

  it("lets a NoneOnDryRun handler write outside dry runs", async (t) => {
    const { ctx, write, methods } = await writeAttempt(t, "NoneOnDryRun", false);
    assert.equal(ctx.dryRun, false);
    assert.deepEqual(write, cm());
    assert.deepEqual(methods, ["GET", "POST"]);
  });

  it("refuses every write of a handler that declares sideEffects None (the default)", async (t) => {
    const { write, methods } = await writeAttempt(t, "None", false);
    assert.ok(refusedWrite(write, false), String(write));
    assert.deepEqual(methods, ["GET"]);
  });
});

describe("WebhookServer handler contexts", () => {
  it("hands every request of a webhook the same refusing client, one for dry runs and one for the rest", async (t) => {
    const clients: AdmissionContext["client"][] = [];
    const recorder = validating(ConfigMap, (_obj, _old, ctx) => {
      clients.push(ctx.client);
    });
    const { port } = await startServer(t, [recorder]);
    for (const dryRun of [false, false, true, true]) {
      await send(port, validatePath, admissionReview("CREATE", cm(), { dryRun }));
    }
    const [first, second, dry, secondDry] = clients;
    assert.equal(clients.length, 4);
    assert.equal(second, first);
    assert.equal(secondDry, dry);
    assert.notEqual(dry, first);
  });

  it("aborts the handler's signal when the caller hangs up before the answer", async (t) => {
    const started = later<AdmissionContext>();
    const held = validating(ConfigMap, (_obj, _old, ctx) => {
      started.resolve(ctx);
      return untilAborted(ctx.signal);
    });
    const { port } = await startServer(t, [held]);
    const hangup = new AbortController();
    const answer = send(port, validatePath, admissionReview("CREATE", cm()), { signal: hangup.signal });
    const ctx = await started.promise;
    assert.equal(ctx.signal.aborted, false);
    hangup.abort();
    await assert.rejects(answer);
    await untilAborted(ctx.signal);
    assert.match(String(ctx.signal.reason), /the caller closed the connection before the answer/);
  });
});

describe("WebhookServer close", () => {
  it("answers the requests in flight, then stops taking connections", async (t) => {
    const { server, port, answer, release } = await heldRequest(t);
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed, false, "close waits for the request in flight");
    release();
    const { status, body, headers } = await answer;
    assert.equal(status, 200);
    assert.equal(body.response.allowed, true);
    assert.equal(headers.connection, "close");
    await closing;
    await assert.rejects(send(port, validatePath, admissionReview("CREATE", cm())), /ECONNREFUSED/);
  });
});
