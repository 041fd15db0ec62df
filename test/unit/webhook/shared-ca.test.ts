/**
 * The webhook CA a self-managed operator's replicas share through a Secret: made by the first,
 * read by the others (a replica that loses the race to make it reads the winner's), and one
 * error naming the fix when the Secret can be neither read nor made.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { describe, it } from "node:test";
import { Client } from "../../../src/client/index.ts";
import { WebhookCaSecretError } from "../../../src/manager/index.ts";
import { createCertificateAuthority } from "../../../src/tls/index.ts";
import { sharedCertificateAuthority } from "../../../src/webhook/shared-ca.ts";
import { fakeConnection } from "../client/support.ts";
import { pathOf, stubUndici } from "../client/undici-stub.ts";

const status = (code: number, reason: string) => ({
  status: code,
  body: {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code,
    reason,
    message: `${reason.toLowerCase()}`,
  },
});
const secretPath = "/prefix/api/v1/namespaces/ops/secrets";

describe("the webhook CA shared by an operator's replicas", () => {
  it("is made by the first replica and stored in a Secret the others read", async (t) => {
    let stored: { data: Record<string, string> } | undefined;
    const sent = stubUndici(t, (req) => {
      if (req.method === "POST") {
        stored = JSON.parse(req.body ?? "{}");
        return { status: 201, body: stored };
      }
      return stored ? { status: 200, body: stored } : status(404, "NotFound");
    });
    const client = new Client(fakeConnection());
    const first = await sharedCertificateAuthority(client, "ops", "widgets");
    const second = await sharedCertificateAuthority(client, "ops", "widgets");
    assert.deepEqual(second, first);
    assert.ok(new X509Certificate(first.certPem).ca, "a CA certificate");
    assert.deepEqual(
      sent.map((r) => [r.method, pathOf(r)]),
      [
        ["GET", `${secretPath}/widgets-webhook-ca`],
        ["POST", secretPath],
        ["GET", `${secretPath}/widgets-webhook-ca`],
      ],
    );
    const made = JSON.parse(sent[1]?.body ?? "{}");
    assert.equal(made.type, "kubernetes.io/tls");
  });

  it("is read from the winner when another replica made it first", async (t) => {
    const winner = await createCertificateAuthority("widgets-webhook-ca");
    const data = {
      "tls.crt": Buffer.from(winner.certPem).toString("base64"),
      "tls.key": Buffer.from(winner.keyPem).toString("base64"),
    };
    let gets = 0;
    stubUndici(t, (req) => {
      if (req.method === "POST") return status(409, "AlreadyExists");
      gets += 1;
      return gets === 1 ? status(404, "NotFound") : { status: 200, body: { data } };
    });
    const ca = await sharedCertificateAuthority(new Client(fakeConnection()), "ops", "widgets");
    assert.deepEqual(ca, winner);
  });

  it("fails with one error naming the Secret and the fix when it may not be read", async (t) => {
    stubUndici(t, () => status(403, "Forbidden"));
    const failure = await sharedCertificateAuthority(new Client(fakeConnection()), "ops", "widgets").catch(
      (err: unknown) => err,
    );
    assert.ok(failure instanceof WebhookCaSecretError, String(failure));
    assert.match(failure.message, /Secret ops\/widgets-webhook-ca .*get and create Secrets/);
  });
});
