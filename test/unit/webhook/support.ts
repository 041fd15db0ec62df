/** A webhook server on 127.0.0.1 with a certificate of a test CA, and an HTTPS client that trusts it. */
import { request } from "node:https";
import type { TestContext } from "node:test";
import { Registry } from "prom-client";
import { z } from "zod";
import type { KubeObject } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import {
  type CertificateAuthority,
  createCertificateAuthority,
  issueCertificate,
  type KeyPair,
} from "../../../src/tls/index.ts";
import {
  conversion,
  type Webhook,
  type WebhookLogger,
  WebhookServer,
  type WebhookServerOptions,
} from "../../../src/webhook/index.ts";
import { fakeConnection } from "../client/support.ts";

let authority: Promise<CertificateAuthority> | undefined;

/** The test CA, made once per file. */
export function testCa(): Promise<CertificateAuthority> {
  authority ??= createCertificateAuthority("webhook-test-ca");
  return authority;
}

/** A serving certificate for 127.0.0.1 signed by the test CA. */
export async function servingPair(commonName = "webhook"): Promise<KeyPair> {
  return issueCertificate(await testCa(), { commonName, hosts: ["127.0.0.1"], usage: "server" });
}

/** A logger that keeps what it was told. */
export function recordingLogger(): WebhookLogger & { errors: string[]; infos: string[] } {
  const errors: string[] = [];
  const infos: string[] = [];
  return { errors, infos, error: (_obj, msg) => errors.push(msg), info: (_obj, msg) => infos.push(msg) };
}

/** A started server on a free port of 127.0.0.1, closed when the test ends. */
export async function startServer(
  t: TestContext,
  webhooks: readonly Webhook[],
  options: Partial<WebhookServerOptions> = {},
) {
  const registry = new Registry();
  const logger = recordingLogger();
  const server = new WebhookServer({
    webhooks,
    tls: await servingPair(),
    client: new Client(fakeConnection()),
    cache: { reader: () => Promise.reject(new Error("no cache in this test")) },
    host: "127.0.0.1",
    port: 0,
    registry,
    logger,
    ...options,
  });
  const { port } = await server.listen();
  t.after(() => server.close());
  return { server, port, registry, logger };
}

/** An answer: its HTTP status and JSON body. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read any field of the answer
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** Sends `body` (JSON unless a string) to `path` over HTTPS, trusting the test CA. */
export async function send(
  port: number,
  path: string,
  body: unknown,
  options: { method?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Answer> {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  const ca = (await testCa()).certPem;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "POST",
        ca,
        agent: false,
        headers: { "content-type": "application/json", ...options.headers },
        signal: options.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            headers: res.headers,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(options.method === "GET" ? undefined : payload);
  });
}

/** An AdmissionReview of `operation` on `object` (and `oldObject`), as the apiserver sends it. */
export function admissionReview(
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT",
  object: KubeObject | null,
  extra: Record<string, unknown> = {},
) {
  const apiVersion = object?.apiVersion ?? "example.com/v1";
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
  const version = apiVersion.split("/").at(-1);
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: { group, version, kind: object?.kind ?? "Widget" },
      resource: { group, version, resource: "widgets" },
      name: object?.metadata.name,
      namespace: object?.metadata.namespace,
      operation,
      userInfo: { username: "alice", groups: ["system:authenticated"] },
      object,
      oldObject: null,
      dryRun: false,
      ...extra,
    },
  };
}

/** A kind of two versions of one shape, `things.example.com`. */
export const Thing = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Thing",
  scope: "Namespaced",
  spec: z.object({ size: z.int() }),
  versions: [{ name: "v1alpha1", spec: z.object({ size: z.int() }) }],
});

/** Thing's conversion: v1alpha1 to and from the hub v1, unchanged. */
export const thingVersions = conversion(Thing, {
  spokes: { v1alpha1: { toHub: (old: KubeObject) => old, fromHub: (hub: KubeObject) => hub } },
});
