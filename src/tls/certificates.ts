/**
 * X.509 certificates made in process: a certificate authority, and leaf certificates it signs for
 * serving (with DNS and IP subject alternative names), client authentication, or both. Keys are
 * ECDSA P-256 (fast to generate, accepted by every Kubernetes component); certificates are built
 * with the DER writer in `internal/der.ts` and signed with `node:crypto`, so no `openssl` binary
 * is needed.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";
import * as der from "./internal/der.ts";

const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  subjectKeyId: "2.5.29.14",
  authorityKeyId: "2.5.29.35",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/** A certificate with its private key, both PEM-encoded. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

/** The signing half of a CA: its certificate plus the key objects needed to issue more. */
export interface CertificateAuthority extends KeyPair {
  privateKey: KeyObject;
  keyId: Buffer;
  subject: Buffer;
}

/** What a leaf certificate is for and whom it names. */
export interface LeafRequest {
  commonName: string;
  organizations?: string[];
  /** DNS names and IP addresses; makes this a serving certificate. */
  hosts?: string[];
  usage: "server" | "client" | "both";
}

function name(commonName: string, organizations: string[] = []): Buffer {
  const rdn = (type: string, value: string) => der.set(der.sequence(der.oid(type), der.utf8String(value)));
  return der.sequence(...organizations.map((o) => rdn(OID.organization, o)), rdn(OID.commonName, commonName));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.oid(id), ...(critical ? [der.boolean(true)] : []), der.octetString(value));
}

function keyUsageBits(bits: number[]): Buffer {
  // DER BIT STRING, named bits: bit 0 is the most significant bit of the first byte.
  let byte = 0;
  for (const b of bits) byte |= 0x80 >> b;
  const unused = Math.min(7, 7 - Math.max(...bits));
  return der.tlv(0x03, Buffer.from([unused, byte]));
}

function subjectAltNames(hosts: string[]): Buffer {
  return der.sequence(
    ...hosts.map((h) => {
      const family = isIP(h);
      if (family === 4) return der.implicit(7, Buffer.from(h.split(".").map(Number)));
      if (family === 6) return der.implicit(7, ipv6Bytes(h));
      return der.implicit(2, Buffer.from(h, "ascii"));
    }),
  );
}

function ipv6Bytes(address: string): Buffer {
  const [head = "", tail = ""] = address.split("::");
  const groups = (s: string) => (s ? s.split(":") : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array(address.includes("::") ? missing : 0).fill("0"), ...groups(tail)];
  return Buffer.from(all.flatMap((g) => [Number.parseInt(g, 16) >> 8, Number.parseInt(g, 16) & 0xff]));
}

function newKey(): { privateKey: KeyObject; spki: Buffer; keyPem: string; keyId: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  // RFC 5280 method 1 would hash only the key bits; any stable hash of the key serves as an identifier.
  const keyId = createHash("sha1").update(spki).digest();
  return { privateKey, spki, keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), keyId };
}

function issue(opts: {
  subject: Buffer;
  issuer: Buffer;
  spki: Buffer;
  signer: KeyObject;
  extensions: Buffer[];
}): string {
  const now = Date.now();
  const algorithm = der.sequence(der.oid(OID.ecdsaWithSha256));
  const tbs = der.sequence(
    der.explicit(0, der.integer(Buffer.from([2]))),
    der.integer(randomBytes(16)),
    algorithm,
    opts.issuer,
    der.sequence(der.utcTime(new Date(now - 3_600_000)), der.utcTime(new Date(now + 5 * 365 * 86_400_000))),
    opts.subject,
    opts.spki,
    der.explicit(3, der.sequence(...opts.extensions)),
  );
  const signature = sign("sha256", tbs, opts.signer);
  const certificate = der.sequence(tbs, algorithm, der.bitString(signature));
  const b64 = certificate.toString("base64").replace(/.{64}/g, "$&\n");
  return `-----BEGIN CERTIFICATE-----\n${b64.trimEnd()}\n-----END CERTIFICATE-----\n`;
}

/**
 * Creates a self-signed certificate authority.
 *
 * @example
 * ```ts
 * const ca = createCertificateAuthority("my-ca");
 * const client = issueCertificate(ca, { commonName: "alice", organizations: ["dev"], usage: "client" });
 * ```
 */
export function createCertificateAuthority(commonName: string): CertificateAuthority {
  const key = newKey();
  const subject = name(commonName);
  const certPem = issue({
    subject,
    issuer: subject,
    spki: key.spki,
    signer: key.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, der.sequence(der.boolean(true))),
      extension(OID.keyUsage, true, keyUsageBits([0, 5, 6])),
      extension(OID.subjectKeyId, false, der.octetString(key.keyId)),
    ],
  });
  return { certPem, keyPem: key.keyPem, privateKey: key.privateKey, keyId: key.keyId, subject };
}

/**
 * Issues a leaf certificate signed by `ca`.
 *
 * @example
 * ```ts
 * const serving = issueCertificate(ca, { commonName: "webhook", hosts: ["webhook.default.svc"], usage: "server" });
 * ```
 */
export function issueCertificate(ca: CertificateAuthority, request: LeafRequest): KeyPair {
  const key = newKey();
  const usages = {
    server: [OID.serverAuth],
    client: [OID.clientAuth],
    both: [OID.serverAuth, OID.clientAuth],
  }[request.usage];
  const extensions = [
    extension(OID.basicConstraints, true, der.sequence()),
    extension(OID.keyUsage, true, keyUsageBits([0])),
    extension(OID.extKeyUsage, false, der.sequence(...usages.map(der.oid))),
    extension(OID.authorityKeyId, false, der.sequence(der.implicit(0, ca.keyId))),
  ];
  if (request.hosts?.length)
    extensions.push(extension(OID.subjectAltName, false, subjectAltNames(request.hosts)));
  const certPem = issue({
    subject: name(request.commonName, request.organizations),
    issuer: ca.subject,
    spki: key.spki,
    signer: ca.privateKey,
    extensions,
  });
  return { certPem, keyPem: key.keyPem };
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
 * const { certPem, keyPem } = selfSignedServingCertificate("metrics", ["localhost", "127.0.0.1"]);
 * https.createServer({ cert: certPem, key: keyPem }, handler);
 * ```
 */
export function selfSignedServingCertificate(
  commonName: string,
  hosts: readonly string[],
): ServingCertificate {
  const ca = createCertificateAuthority(`${commonName}-ca`);
  return { ...issueCertificate(ca, { commonName, hosts: [...hosts], usage: "server" }), caPem: ca.certPem };
}
