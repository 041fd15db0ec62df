/** Errors of webhook declarations, of the requests a webhook server gets, and of its handlers. */
import { KubeloopError } from "../errors/index.ts";

/**
 * A webhook declaration or a server's set of webhooks cannot be served: a conversion names a
 * version the kind does not have or leaves a served version without a spoke, a timeout is out of
 * the apiserver's range, or two webhooks claim one path. Code `KL_WEBHOOK_DECLARATION`.
 */
export class WebhookDeclarationError extends KubeloopError {
  constructor(what: string, problem: string, fix: string) {
    super("KL_WEBHOOK_DECLARATION", `${what}: ${problem}; ${fix}`);
  }
}

/**
 * A request the webhook server cannot answer with a review: not JSON, not an AdmissionReview or
 * ConversionReview of a version it speaks, too large, or sent to a path or with a method it does
 * not serve. `status` is the HTTP status it answers with. Code `KL_WEBHOOK_BAD_REQUEST`.
 */
export class BadWebhookRequestError extends KubeloopError {
  /** The HTTP status of the answer: 400, 404, 405, 413 or 415. */
  readonly status: number;

  constructor(status: number, message: string) {
    super("KL_WEBHOOK_BAD_REQUEST", message);
    this.status = status;
  }
}

/**
 * The reason a webhook handler's `ctx.client` refuses writes (the refused write rejects with the
 * client's `WriteFencedError`, whose `cause` is this): the request is a dry run, or the webhook
 * declares `sideEffects: "None"`. Code `KL_WEBHOOK_SIDE_EFFECT`.
 */
export class WebhookSideEffectError extends KubeloopError {
  constructor(webhook: string, dryRun: boolean) {
    super(
      "KL_WEBHOOK_SIDE_EFFECT",
      dryRun
        ? `webhook ${webhook} is answering a dry-run request, which must have no side effects; ` +
            "write only when ctx.dryRun is false"
        : `webhook ${webhook} declares sideEffects: "None", so its handler may not write; ` +
            'declare sideEffects: "NoneOnDryRun" to write outside dry runs',
    );
  }
}

/**
 * A webhook handler did not answer within the webhook's timeout; its `ctx.signal` aborts with
 * this and the request is refused. Code `KL_WEBHOOK_TIMEOUT`.
 */
export class WebhookTimeoutError extends KubeloopError {
  constructor(webhook: string, timeoutMs: number) {
    super(
      "KL_WEBHOOK_TIMEOUT",
      `webhook ${webhook} did not answer within ${timeoutMs} ms; make the handler faster, ` +
        "or raise the declaration's timeoutSeconds (at most 30)",
    );
  }
}

/**
 * A conversion that cannot be made: the object is of a kind or version no declaration converts,
 * or a converter threw (its error is the `cause`). Answered as a `Failure` ConversionReview.
 * Code `KL_WEBHOOK_CONVERSION`.
 */
export class ConversionError extends KubeloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("KL_WEBHOOK_CONVERSION", message, options);
  }
}

/**
 * The webhook server could not listen: most often its port is in use (another operator, or a
 * second `kubeloop run`). Code `KL_WEBHOOK_LISTEN`.
 */
export class WebhookListenError extends KubeloopError {
  constructor(host: string | undefined, port: number, cause: unknown) {
    const address = `${host ?? "*"}:${port}`;
    const code = (cause as NodeJS.ErrnoException)?.code;
    const problem =
      code === "EADDRINUSE"
        ? `port ${port} is in use`
        : `${cause instanceof Error ? cause.message : String(cause)}`;
    super(
      "KL_WEBHOOK_LISTEN",
      `the webhook server cannot listen on ${address}: ${problem}; stop what listens there, or serve ` +
        "the webhooks on another port (--webhook-bind-address=:9444, or the manager's webhookServer.port; 0 picks a free one)",
      { cause },
    );
  }
}

/**
 * An admission webhook would be sent no request from the namespaces the operator watches, so it
 * would admit invalid objects there while `/readyz` stays green: its selectors, or kube-system's
 * exclusion from webhooks for built-in kinds, leave them out. Refused when the manager starts and
 * by `kubeloop generate`. Code `KL_WEBHOOK_ADMITS_NOTHING`.
 */
export class WebhookNamespaceError extends KubeloopError {
  constructor(webhook: string, where: string, why: string, fix: string) {
    super("KL_WEBHOOK_ADMITS_NOTHING", `webhook ${webhook} is sent no request from ${where}: ${why}; ${fix}`);
  }
}

/**
 * The manager could not apply a webhook configuration or a CRD's conversion stanza with its CA.
 * Code `KL_WEBHOOK_CONFIGURATION`.
 */
export class WebhookConfigurationError extends KubeloopError {
  constructor(kind: string, name: string, cause: unknown) {
    const fix =
      kind === "CustomResourceDefinition"
        ? `install the CRD first (kubeloop install, or kubeloop run --install-crds), and let the operator patch it`
        : "let the operator patch it (kubeloop generate grants this with --webhook-certs self)";
    super(
      "KL_WEBHOOK_CONFIGURATION",
      `cannot apply the webhook CA to the ${kind} ${name} (${cause instanceof Error ? cause.message : String(cause)}); ${fix}, ` +
        "or give the manager a certificate directory (webhookServer.certDir, --webhook-cert-path) whose CA something else injects",
      { cause },
    );
  }
}

/**
 * The manager could not read or create the Secret that holds its replicas' shared webhook CA.
 * Code `KL_WEBHOOK_CA_SECRET`.
 */
export class WebhookCaSecretError extends KubeloopError {
  constructor(namespace: string, name: string, cause: unknown) {
    super(
      "KL_WEBHOOK_CA_SECRET",
      `cannot read or create the Secret ${namespace}/${name} holding the webhook CA its replicas share ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); let the operator get and create Secrets ` +
        "in its namespace (kubeloop generate grants this with --webhook-certs self), or give it a certificate " +
        "directory (--webhook-cert-path, e.g. cert-manager's Secret)",
      { cause },
    );
  }
}
