import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { test } from "node:test";
import {
  createCertificateAuthority,
  issueCertificate,
  selfSignedServingCertificate,
} from "../../../src/tls/index.ts";
import * as der from "../../../src/tls/internal/der.ts";

test("DER integers are minimal and positive", () => {
  assert.deepEqual(der.integer(Buffer.from([0, 0, 5])), Buffer.from([0x02, 0x01, 0x05]));
  assert.deepEqual(der.integer(Buffer.from([0x80])), Buffer.from([0x02, 0x02, 0x00, 0x80]));
});

test("DER object identifiers encode multi-byte arcs", () => {
  // 1.2.840.10045.4.3.2 (ecdsa-with-SHA256)
  assert.equal(der.oid("1.2.840.10045.4.3.2").toString("hex"), "06082a8648ce3d040302");
});

test("DER lengths switch to the long form above 127 bytes", () => {
  const encoded = der.octetString(Buffer.alloc(300));
  assert.deepEqual([...encoded.subarray(0, 4)], [0x04, 0x82, 0x01, 0x2c]);
});

test("a serving certificate chains to its CA and names every host", () => {
  const ca = createCertificateAuthority("test-ca");
  const pair = issueCertificate(ca, {
    commonName: "apiserver",
    hosts: ["127.0.0.1", "localhost", "::1"],
    usage: "server",
  });
  const cert = new X509Certificate(pair.certPem);
  const caCert = new X509Certificate(ca.certPem);
  assert.ok(caCert.ca, "the CA certificate is a CA");
  assert.ok(cert.checkIssued(caCert));
  assert.ok(cert.verify(caCert.publicKey));
  assert.equal(cert.ca, false);
  assert.equal(cert.subjectAltName, "IP Address:127.0.0.1, DNS:localhost, IP Address:0:0:0:0:0:0:0:1");
  assert.ok(cert.checkIP("127.0.0.1"));
  assert.ok(cert.keyUsage?.includes("1.3.6.1.5.5.7.3.1"), "serverAuth");
  assert.ok(new Date(cert.validTo) > new Date(), "valid now");
});

test("a client certificate carries its groups as organizations and its key matches", () => {
  const ca = createCertificateAuthority("test-ca");
  const pair = issueCertificate(ca, {
    commonName: "alice",
    organizations: ["system:masters", "dev"],
    usage: "client",
  });
  const cert = new X509Certificate(pair.certPem);
  assert.equal(cert.subject, "O=system:masters\nO=dev\nCN=alice");
  assert.ok(cert.keyUsage?.includes("1.3.6.1.5.5.7.3.2"), "clientAuth");
  assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
});

test("a self-signed serving certificate chains to the CA it returns and names its hosts", () => {
  const serving = selfSignedServingCertificate("metrics", ["localhost", "127.0.0.1"]);
  const cert = new X509Certificate(serving.certPem);
  const caCert = new X509Certificate(serving.caPem);
  assert.ok(caCert.ca);
  assert.ok(cert.verify(caCert.publicKey));
  assert.equal(cert.subject, "CN=metrics");
  assert.equal(caCert.subject, "CN=metrics-ca");
  assert.ok(cert.checkHost("localhost") && cert.checkIP("127.0.0.1"));
  assert.ok(cert.checkPrivateKey(createPrivateKey(serving.keyPem)));
});
