/**
 * Certificates encoded by `@peculiar/x509` and signed with `node:crypto`'s WebCrypto. Loaded on
 * first use by `../certificates.ts`, which documents what they hold.
 */
// `@peculiar/x509` resolves its algorithms through tsyringe, which needs a Reflect metadata
// polyfill loaded before it; this import must stay above the library's.
import "reflect-metadata";
import { createPrivateKey, KeyObject, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  type Extension,
  KeyUsageFlags,
  KeyUsagesExtension,
  Name,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  type X509CertificateCreateWithKeyParams,
  X509CertificateGenerator,
} from "@peculiar/x509";
import type { KeyPair, LeafRequest } from "../certificates.ts";

const ecdsa = { name: "ECDSA", namedCurve: "P-256" };
const hour = 3_600_000;

/**
 * One relative name per organization, then the common name, as Kubernetes reads users and groups.
 * Values are given as UTF8Strings: as plain strings the library would read them as RFC 4514 text
 * (unescaping backslashes, hex after `#`).
 */
function name(commonName: string, organizations: string[] = []): Name {
  const rdn = (type: string, value: string) => ({ [type]: [{ utf8String: value }] });
  return new Name([...organizations.map((o) => rdn("O", o)), rdn("CN", commonName)]);
}

/** A fresh key pair, and its private key as PKCS#8 PEM. */
async function newKey(): Promise<{ keys: webcrypto.CryptoKeyPair; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"]);
  const keyPem = KeyObject.from(keys.privateKey).export({ type: "pkcs8", format: "pem" }).toString();
  return { keys, keyPem };
}

/** Valid from an hour ago (clock skew between processes) for five years. */
async function certificate(
  params: Omit<X509CertificateCreateWithKeyParams, "notBefore" | "notAfter">,
): Promise<string> {
  const now = Date.now();
  const cert = await X509CertificateGenerator.create(
    { ...params, notBefore: new Date(now - hour), notAfter: new Date(now + 5 * 365 * 24 * hour) },
    webcrypto,
  );
  return cert.toString("pem");
}

/** A self-signed CA: CA flag, may sign certificates and CRLs, with a subject key identifier. */
export async function certificateAuthority(commonName: string): Promise<KeyPair> {
  const { keys, keyPem } = await newKey();
  const certPem = await certificate({
    subject: name(commonName),
    issuer: name(commonName),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    extensions: [
      new BasicConstraintsExtension(true, undefined, true),
      new KeyUsagesExtension(
        KeyUsageFlags.digitalSignature | KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign,
        true,
      ),
      await SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
    ],
  });
  return { certPem, keyPem };
}

/** A leaf certificate signed by `ca` (a CA's certificate and ECDSA P-256 key), for `request`. */
export async function leafCertificate(ca: KeyPair, request: LeafRequest): Promise<KeyPair> {
  const caCert = new X509Certificate(ca.certPem);
  const signingKey = await webcrypto.subtle.importKey(
    "pkcs8",
    createPrivateKey(ca.keyPem).export({ type: "pkcs8", format: "der" }),
    ecdsa,
    false,
    ["sign"],
  );
  const { keys, keyPem } = await newKey();
  const usages = {
    server: [ExtendedKeyUsage.serverAuth],
    client: [ExtendedKeyUsage.clientAuth],
    both: [ExtendedKeyUsage.serverAuth, ExtendedKeyUsage.clientAuth],
  }[request.usage];
  const extensions: Extension[] = [
    new BasicConstraintsExtension(false, undefined, true),
    new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
    new ExtendedKeyUsageExtension(usages),
  ];
  // Verifiers match this to the CA's subject key identifier (OpenSSL rejects a mismatch), so it is
  // copied, as Go's x509.CreateCertificate does, rather than computed afresh.
  const caKeyId = caCert.getExtension(SubjectKeyIdentifierExtension)?.keyId;
  if (caKeyId) extensions.push(new AuthorityKeyIdentifierExtension(caKeyId));
  if (request.hosts?.length)
    extensions.push(
      new SubjectAlternativeNameExtension(
        request.hosts.map((host) => ({ type: isIP(host) ? "ip" : "dns", value: host })),
      ),
    );
  const certPem = await certificate({
    subject: name(request.commonName, request.organizations),
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey,
    extensions,
  });
  return { certPem, keyPem };
}
