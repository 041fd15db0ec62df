import assert from "node:assert/strict";
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { test } from "node:test";
import { createServiceAccountKey } from "../../../src/cluster/pki.ts";

test("the service-account key pair signs and verifies", () => {
  const { privatePem, publicPem } = createServiceAccountKey();
  const signature = sign("sha256", Buffer.from("token"), createPrivateKey(privatePem));
  assert.ok(verify("sha256", Buffer.from("token"), createPublicKey(publicPem), signature));
});
