/**
 * The webhook server's serving certificate: PEM given in process, or files read at start and
 * read again whenever their directory changes (a Secret volume swaps its `..data` link, an
 * agent such as cert-manager's rewrites them), without a restart.
 */
import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { KeyPair } from "../tls/index.ts";

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
 * Calls `reload` after every change in the directories of `files`, one call at a time (changes
 * during a call bring one more); `reload` must not reject. Returns the watchers, to close.
 */
export function watchFiles(files: CertificateFiles, reload: () => Promise<void>): FSWatcher[] {
  let busy = false;
  let again = false;
  const run = (): void => {
    again = busy;
    if (busy) return;
    busy = true;
    void reload().finally(() => {
      busy = false;
      if (again) run();
    });
  };
  const dirs = new Set([dirname(files.certFile), dirname(files.keyFile)]);
  return [...dirs].map((dir) => watch(dir, { persistent: false }, run));
}
