/**
 * The webhook server's serving certificate: PEM given in process, or files read at start and
 * read again whenever their directory changes (a Secret volume swaps its `..data` link, an
 * agent such as cert-manager's rewrites them), without a restart.
 */
import { type FSWatcher, watch } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  type CertificateAuthority,
  issueCertificate,
  type KeyPair,
  selfSignedServingCertificate,
} from "../tls/index.ts";

/** Certificate and key files (PEM), e.g. `tls.crt` and `tls.key` of a mounted Secret. */
export interface CertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** The serving certificate and key: PEM, or files watched for changes. */
export type ServingTls = KeyPair | CertificateFiles;

/** Reads the certificate and key now. */
export async function readKeyPair(tls: ServingTls): Promise<KeyPair> {
  if ("certPem" in tls) return tls;
  const [certPem, keyPem] = await Promise.all([
    readFile(tls.certFile, "utf8"),
    readFile(tls.keyFile, "utf8"),
  ]);
  return { certPem, keyPem };
}

/**
 * The Secret, in the operator's namespace, of the CA its replicas sign their self-managed serving
 * certificates with (in a cluster), so that they share one `caBundle`.
 */
export function webhookCaSecretName(operator: string): string {
  return `${operator}-webhook-ca`;
}

/** The CA certificate's file in a certificate directory, as cert-manager's Secrets name it. */
export const CA_FILE = "ca.crt";

/**
 * The serving certificate and key in `dir`, named as controller-runtime's `--webhook-cert-name`
 * and `--webhook-cert-key` default them (`tls.crt`, `tls.key`).
 */
export function certificateFilesIn(dir: string, certName = "tls.crt", keyName = "tls.key"): CertificateFiles {
  return { certFile: join(dir, certName), keyFile: join(dir, keyName) };
}

/**
 * Makes a serving certificate for `hosts` (DNS names and IP addresses), signed by `ca` or by a CA
 * made for it alone, and writes them to `dir` (made if missing) as `ca.crt`, `tls.crt` and
 * `tls.key`: the layout of a cert-manager Secret, so the server reads them the same way.
 */
export async function writeSelfManagedCertificates(
  dir: string,
  commonName: string,
  hosts: readonly string[],
  ca?: CertificateAuthority,
): Promise<void> {
  const { certPem, keyPem, caPem } = ca
    ? {
        ...(await issueCertificate(ca, { commonName, hosts: [...hosts], usage: "server" })),
        caPem: ca.certPem,
      }
    : await selfSignedServingCertificate(commonName, hosts);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = certificateFilesIn(dir);
  await writeFile(files.keyFile, keyPem, { mode: 0o600 });
  await writeFile(files.certFile, certPem);
  await writeFile(join(dir, CA_FILE), caPem);
}

/** How long the files must stay unchanged before they are read: a writer replaces them one by one. */
const settleMs = 200;

/**
 * Calls `reload` once changes in the directories of `files` have settled ({@link settleMs}), one
 * call at a time (changes during a call bring one more); `reload` must not reject. Returns the
 * watchers, to close.
 */
export function watchFiles(files: readonly string[], reload: () => Promise<void>): FSWatcher[] {
  let busy = false;
  let again = false;
  let settling: NodeJS.Timeout | undefined;
  const settled = (): void => {
    clearTimeout(settling);
    settling = setTimeout(run, settleMs).unref();
  };
  const run = (): void => {
    again = busy;
    if (busy) return;
    busy = true;
    void reload().finally(() => {
      busy = false;
      if (again) run();
    });
  };
  const dirs = new Set(files.map((file) => dirname(file)));
  return [...dirs].map((dir) => watch(dir, { persistent: false }, settled));
}
