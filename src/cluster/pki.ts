/**
 * The local control plane's service-account signing key. Its certificates (CA, apiserver serving
 * certificate, client certificates) come from `src/tls`.
 */
import { generateKeyPairSync } from "node:crypto";

/** A key pair for signing service-account tokens: PKCS#8 private key and SPKI public key, PEM. */
export function createServiceAccountKey(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}
