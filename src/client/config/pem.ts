import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { fieldError, type Origin } from "./kubeconfig-entries.ts";

/** What a PEM value must hold. */
export type PemKind = "certificate" | "private key";

const markers: Record<PemKind, RegExp> = {
  certificate: /-----BEGIN CERTIFICATE-----/,
  "private key": /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/,
};

const certificateBlock = /-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g;

/**
 * What is wrong with `pem` as a PEM value of the given kind, or undefined when it is usable: it
 * must hold such a block, and every certificate in it (a CA bundle holds several) and the key
 * must parse. Checked when the configuration is loaded, as client-go's `tls.X509KeyPair` and
 * `AppendCertsFromPEM` check at client creation, rather than by OpenSSL at the first connection.
 */
export function pemProblem(pem: string, kind: PemKind): string | undefined {
  if (!markers[kind].test(pem))
    return `does not hold a PEM ${kind} (no "-----BEGIN ...${kind.toUpperCase()}-----" line)`;
  try {
    if (kind === "private key") createPrivateKey(pem);
    else for (const [block] of pem.matchAll(certificateBlock)) new X509Certificate(block);
  } catch (err) {
    return `holds a PEM ${kind} that cannot be parsed (${(err as Error).message})`;
  }
  return undefined;
}

/**
 * What is wrong with a client certificate and its key as a pair, or undefined when the key is the
 * certificate's (both already parse, {@link pemProblem}).
 */
export function keyPairProblem(cert: string, key: string): string | undefined {
  return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))
    ? undefined
    : "is not the private key of the client certificate; set the key that goes with the certificate";
}

/**
 * Reads a kubeconfig file reference: `path` resolved against the directory of the kubeconfig
 * that names it.
 */
export async function readReferencedFile(origin: Origin, field: string, path: string): Promise<string> {
  const absolute = resolve(origin.dir, path);
  try {
    return await readFile(absolute, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    const relative = isAbsolute(path) ? "" : ` (relative paths resolve against ${origin.dir})`;
    throw fieldError(
      origin,
      field,
      `names ${absolute}, which cannot be read (${reason}); fix the path${relative}`,
      err,
    );
  }
}

function decodeBase64(origin: Origin, field: string, value: string): string {
  const compact = value.replace(/\s+/g, "");
  if (compact === "" || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw fieldError(
      origin,
      field,
      "is not valid base64; it must hold the base64 of a PEM file (for example the output of `base64 -w0 file.pem`)",
    );
  }
  return Buffer.from(compact, "base64").toString("utf8");
}

/**
 * Loads a PEM value given either inline as `<field>-data` (base64, which wins, as in client-go) or
 * as a file path in `<field>`. Undefined when neither is set.
 */
export async function loadPem(
  origin: Origin,
  field: string,
  values: { file: string | undefined; data: string | undefined },
  kind: PemKind,
): Promise<string | undefined> {
  let pem: string;
  let from: string;
  if (values.data !== undefined) {
    from = `${field}-data`;
    pem = decodeBase64(origin, from, values.data);
  } else if (values.file !== undefined) {
    from = field;
    pem = await readReferencedFile(origin, from, values.file);
  } else {
    return undefined;
  }
  const problem = pemProblem(pem, kind);
  if (problem) throw fieldError(origin, from, problem);
  return pem;
}
