/** Errors a user of the endpoints can cause. */
import { KubeloopError } from "../errors/index.ts";

/**
 * The serving certificate of secure metrics could not be read from its directory, or is not a
 * PEM certificate and matching key. Code `KL_METRICS_CERTIFICATE`.
 */
export class MetricsCertificateError extends KubeloopError {
  constructor(file: string, cause: unknown) {
    super(
      "KL_METRICS_CERTIFICATE",
      `cannot use the metrics serving certificate ${file} (${cause instanceof Error ? cause.message : String(cause)}); ` +
        "mount the certificate Secret at the directory given as certDir (--metrics-cert-path) with " +
        "tls.crt and tls.key (or name the files with certName/keyName), or omit certDir to serve a self-signed certificate",
      { cause },
    );
  }
}
