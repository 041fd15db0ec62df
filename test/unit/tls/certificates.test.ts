import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { connect, createServer } from "node:tls";
import { promisify } from "node:util";
import {
  createCertificateAuthority,
  issueCertificate,
  selfSignedServingCertificate,
} from "../../../src/tls/index.ts";

test("a CA is self-signed, marked as a CA, and valid from before now for years", async () => {
  const ca = await createCertificateAuthority("test-ca");
  const cert = new X509Certificate(ca.certPem);
  assert.ok(cert.ca, "the CA flag");
  assert.equal(cert.subject, "CN=test-ca");
  assert.equal(cert.issuer, "CN=test-ca");
  assert.ok(cert.checkIssued(cert));
  assert.ok(cert.verify(cert.publicKey));
  assert.ok(cert.checkPrivateKey(createPrivateKey(ca.keyPem)));
  const now = Date.now();
  assert.ok(new Date(cert.validFrom).getTime() < now - 30 * 60_000, "valid from before now (clock skew)");
  assert.ok(new Date(cert.validTo).getTime() > now + 4 * 365 * 86_400_000, "valid for years");
});

test("a serving certificate chains to its CA and names every host", async () => {
  const ca = await createCertificateAuthority("test-ca");
  const pair = await issueCertificate(ca, {
    commonName: "apiserver",
    hosts: ["127.0.0.1", "localhost", "::1"],
    usage: "server",
  });
  const cert = new X509Certificate(pair.certPem);
  const caCert = new X509Certificate(ca.certPem);
  assert.ok(cert.checkIssued(caCert));
  assert.ok(cert.verify(caCert.publicKey));
  assert.equal(cert.ca, false);
  assert.equal(cert.subject, "CN=apiserver");
  assert.equal(cert.issuer, "CN=test-ca");
  assert.equal(cert.subjectAltName, "IP Address:127.0.0.1, DNS:localhost, IP Address:0:0:0:0:0:0:0:1");
  assert.ok(cert.checkIP("127.0.0.1") && cert.checkIP("::1") && cert.checkHost("localhost"));
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"], "serverAuth only");
  assert.ok(new Date(cert.validTo) > new Date(), "valid now");
  assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
});

test("a client certificate carries its groups as organizations and its key matches", async () => {
  const ca = await createCertificateAuthority("test-ca");
  const pair = await issueCertificate(ca, {
    commonName: "alice",
    organizations: ["system:masters", "dev"],
    usage: "client",
  });
  const cert = new X509Certificate(pair.certPem);
  assert.equal(cert.subject, "O=system:masters\nO=dev\nCN=alice");
  assert.equal(cert.subjectAltName, undefined);
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.2"], "clientAuth only");
  assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
});

test("names are kept verbatim, not read as RFC 4514 text", async () => {
  const ca = await createCertificateAuthority("test-ca");
  const pair = await issueCertificate(ca, { commonName: '#a\\b"c', organizations: ["x,y"], usage: "client" });
  // Node prints the subject escaped per RFC 4514: `#`, `\`, `"` and `,` each behind a backslash.
  assert.equal(new X509Certificate(pair.certPem).subject, 'O=x\\,y\nCN=\\#a\\\\b\\"c');
});

test("a self-signed serving certificate chains to the CA it returns and names its hosts", async () => {
  const serving = await selfSignedServingCertificate("metrics", ["localhost", "127.0.0.1"]);
  const cert = new X509Certificate(serving.certPem);
  const caCert = new X509Certificate(serving.caPem);
  assert.ok(caCert.ca);
  assert.ok(cert.checkIssued(caCert) && cert.verify(caCert.publicKey));
  assert.equal(cert.subject, "CN=metrics");
  assert.equal(caCert.subject, "CN=metrics-ca");
  assert.ok(cert.checkHost("localhost") && cert.checkIP("127.0.0.1"));
  assert.ok(cert.checkPrivateKey(createPrivateKey(serving.keyPem)));
});

test("a TLS server with a serving certificate is trusted by clients given the CA, by IP and DNS name", async (t) => {
  const ca = await createCertificateAuthority("tls-test-ca");
  const serving = await issueCertificate(ca, {
    commonName: "server",
    hosts: ["127.0.0.1", "server.test"],
    usage: "server",
  });
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (socket) =>
    socket.end("hello"),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const handshake = (servername: string | undefined, trusted: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, servername, ca: trusted }, () => {
        socket.setEncoding("utf8");
        let data = "";
        socket.on("data", (chunk: string) => {
          data += chunk;
        });
        socket.on("end", () => resolve(data));
      });
      socket.on("error", reject);
    });

  assert.equal(await handshake(undefined, ca.certPem), "hello", "by IP");
  assert.equal(await handshake("server.test", ca.certPem), "hello", "by DNS name");
  await assert.rejects(handshake("other.test", ca.certPem), { code: "ERR_TLS_CERT_ALTNAME_INVALID" });
  const stranger = await createCertificateAuthority("stranger-ca");
  await assert.rejects(handshake("server.test", stranger.certPem), {
    code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  });
});

test("a CA read back from its PEM (a file, a Secret) issues certificates for both uses", async () => {
  const { certPem, keyPem } = await createCertificateAuthority("stored-ca");
  const pair = await issueCertificate({ certPem, keyPem }, { commonName: "bob", usage: "both" });
  const cert = new X509Certificate(pair.certPem);
  assert.ok(cert.checkIssued(new X509Certificate(certPem)));
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
});

test("importing kubeloop/tls does not load the X.509 library until a certificate is made", async () => {
  const tls = new URL("../../../src/tls/index.ts", import.meta.url).href;
  // reflect-metadata, which the library needs, defines Reflect.getMetadata when it loads.
  const loaded = async (then: string) => {
    const code = `const tls = await import("${tls}"); ${then} console.log(typeof Reflect.getMetadata);`;
    const args = ["--import", "tsx", "--input-type=module", "-e", code];
    return (await promisify(execFile)(process.execPath, args)).stdout.trim() === "function";
  };
  assert.equal(await loaded(""), false);
  assert.equal(await loaded(`await tls.createCertificateAuthority("ca");`), true);
});
