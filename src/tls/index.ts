/**
 * @module tls
 *
 * Certificates made in process, with no `openssl` binary: a certificate authority
 * ({@link createCertificateAuthority}), leaf certificates it signs for serving, client
 * authentication or both ({@link issueCertificate}), and a self-signed serving certificate for a
 * server given none ({@link selfSignedServingCertificate}). The local control plane issues its
 * PKI with them; the manager serves secure metrics with one.
 *
 * Not a certificate manager: nothing here rotates, stores or watches certificates, and there is
 * no parser (use `node:crypto`'s `X509Certificate` to read one).
 *
 * @example
 * ```ts
 * import { createServer } from "node:https";
 * import { createCertificateAuthority, issueCertificate } from "kubeloop/tls";
 *
 * const ca = await createCertificateAuthority("dev-ca");
 * const serving = await issueCertificate(ca, {
 *   commonName: "api",
 *   hosts: ["127.0.0.1", "localhost"],
 *   usage: "server",
 * });
 * createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem }, handler);
 * ```
 */
export {
  type CertificateAuthority,
  createCertificateAuthority,
  issueCertificate,
  type KeyPair,
  type LeafRequest,
  type ServingCertificate,
  selfSignedServingCertificate,
} from "./certificates.ts";
