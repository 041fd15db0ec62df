/**
 * X.509 certificates made in process: a certificate authority, and leaf certificates it signs for
 * serving (with DNS and IP subject alternative names), client authentication, or both. Keys are
 * ECDSA P-256 (fast to generate, accepted by every Kubernetes component). Certificates are encoded
 * by `@peculiar/x509` (`internal/x509.ts`) and signed with `node:crypto`'s WebCrypto, so no
 * `openssl` binary is needed and no ASN.1 encoding is ours to maintain. Certificates are valid
 * from an hour ago (clock skew between processes) for five years.
 */

/** A certificate with its private key, both PEM-encoded. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

/**
 * A certificate authority: its certificate and ECDSA P-256 private key, PEM. One made by
 * {@link createCertificateAuthority}, or one read back from files or a Secret, signs alike.
 */
export type CertificateAuthority = KeyPair;

/** What a leaf certificate is for and whom it names. */
export interface LeafRequest {
  commonName: string;
  organizations?: string[];
  /** DNS names and IP addresses; makes this a serving certificate. */
  hosts?: string[];
  usage: "server" | "client" | "both";
}

/**
 * The encoder, imported on first use: `@peculiar/x509` with its ASN.1 schemas takes a few tenths
 * of a second and about 18 MB to load, which an operator that makes no certificate (every manager
 * imports this module) should not pay.
 */
const encoder = () => import("./internal/x509.ts");

/**
 * Creates a self-signed certificate authority.
 *
 * @example
 * ```ts
 * const ca = await createCertificateAuthority("my-ca");
 * const client = await issueCertificate(ca, { commonName: "alice", organizations: ["dev"], usage: "client" });
 * ```
 */
export async function createCertificateAuthority(commonName: string): Promise<CertificateAuthority> {
  return (await encoder()).certificateAuthority(commonName);
}

/**
 * Issues a leaf certificate signed by `ca`.
 *
 * @example
 * ```ts
 * const serving = await issueCertificate(ca, {
 *   commonName: "webhook",
 *   hosts: ["webhook.default.svc"],
 *   usage: "server",
 * });
 * ```
 */
export async function issueCertificate(ca: CertificateAuthority, request: LeafRequest): Promise<KeyPair> {
  return (await encoder()).leafCertificate(ca, request);
}

/** A serving certificate and key, with the certificate (PEM) of the CA that issued it. */
export interface ServingCertificate extends KeyPair {
  caPem: string;
}

/**
 * A serving certificate for `hosts` (DNS names and IP addresses) issued by a CA made for it
 * alone, as client-go's `GenerateSelfSignedCertKey` does for servers given no certificate.
 * Clients verify it with `caPem`.
 *
 * @example
 * ```ts
 * const { certPem, keyPem } = await selfSignedServingCertificate("metrics", ["localhost", "127.0.0.1"]);
 * https.createServer({ cert: certPem, key: keyPem }, handler);
 * ```
 */
export async function selfSignedServingCertificate(
  commonName: string,
  hosts: readonly string[],
): Promise<ServingCertificate> {
  const ca = await createCertificateAuthority(`${commonName}-ca`);
  const serving = await issueCertificate(ca, { commonName, hosts: [...hosts], usage: "server" });
  return { ...serving, caPem: ca.certPem };
}
