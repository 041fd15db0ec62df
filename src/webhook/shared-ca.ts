/**
 * The CA every replica of an operator signs its webhook serving certificate with, when it makes
 * its own certificate in a cluster: kept in a Secret of the operator's namespace, made by the
 * first replica and read by the others, so that the `caBundle` each applies is the same and the
 * apiserver trusts them all (a CA per replica would have them overwrite each other's).
 */
import { type KubeObject, Secret, type SecretObject } from "../api/index.ts";
import { AlreadyExistsError, type Client, NotFoundError } from "../client/index.ts";
import { type CertificateAuthority, createCertificateAuthority } from "../tls/index.ts";
import { webhookCaSecretName } from "./certificates.ts";
import { WebhookCaSecretError } from "./errors.ts";
import { operatorLabels } from "./selectors.ts";

const base64 = (pem: string) => Buffer.from(pem).toString("base64");
const pem = (data: string | undefined) => Buffer.from(data ?? "", "base64").toString();

/**
 * Reads the shared CA from the Secret `<operator>-webhook-ca` in `namespace`, making it first
 * when there is none (a replica that loses the race to make it reads the winner's). Rejects with
 * {@link WebhookCaSecretError} when the Secret can be neither read nor made.
 */
export async function sharedCertificateAuthority(
  client: Client,
  namespace: string,
  operator: string,
): Promise<CertificateAuthority> {
  const name = webhookCaSecretName(operator);
  const read = async () => {
    const { data } = await client.get(Secret, name, { namespace });
    return { certPem: pem(data?.["tls.crt"]), keyPem: pem(data?.["tls.key"]) };
  };
  try {
    return await read().catch(async (err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
      const ca = await createCertificateAuthority(`${operator}-webhook-ca`);
      const secret: SecretObject & KubeObject = {
        apiVersion: "v1",
        kind: "Secret",
        type: "kubernetes.io/tls",
        // The operator's own: its webhooks for Secrets must not refuse what they need to start.
        metadata: { name, namespace, labels: operatorLabels(operator) },
        data: { "tls.crt": base64(ca.certPem), "tls.key": base64(ca.keyPem) },
      };
      return client.create(Secret, secret).then(
        () => ca,
        (raced: unknown) => (raced instanceof AlreadyExistsError ? read() : Promise.reject(raced)),
      );
    });
  } catch (err) {
    throw new WebhookCaSecretError(namespace, name, err);
  }
}
