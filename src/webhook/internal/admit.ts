/**
 * Answers one AdmissionReview: the declaration's handler runs with its context, within its
 * timeout; a handler that throws or times out is answered `allowed: false` with code 500 and a
 * message naming the webhook, logged and counted, and the server goes on.
 */
import type { Client } from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import type { AdmissionAnswer, AdmissionContext, AdmissionWebhook, WebhookCache } from "../admission.ts";
import { BadWebhookRequestError, WebhookSideEffectError, WebhookTimeoutError } from "../errors.ts";
import type { WebhookLogger } from "../logger.ts";
import type { WebhookMetrics } from "../metrics.ts";
import { type AdmissionRequest, type AdmissionResponse, parseAdmissionReview } from "../review.ts";

/** What answering an admission request needs from the server. */
export interface AdmitDeps {
  readonly client: Client;
  readonly cache: WebhookCache;
  readonly clock: Clock;
  readonly metrics: WebhookMetrics;
  readonly logger: WebhookLogger;
}

/** An AdmissionReview answered: the request's apiVersion, echoed. */
export interface AnsweredAdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  response: AdmissionResponse;
}

/**
 * The client a webhook's handlers get: the server's, or a view of it that refuses writes (in a
 * dry run, and always for `sideEffects: "None"`). Each view is made once per webhook, on its first
 * request that needs it, not once per request.
 */
function clientsOf(webhook: AdmissionWebhook, client: Client): (dryRun: boolean) => Client {
  const refusing = new Map<boolean, Client>();
  return (dryRun) => {
    if (!dryRun && webhook.sideEffects !== "None") return client;
    let view = refusing.get(dryRun);
    if (!view) {
      view = client.fenced(AbortSignal.abort(new WebhookSideEffectError(webhook.path, dryRun)));
      refusing.set(dryRun, view);
    }
    return view;
  };
}

function failure(webhook: AdmissionWebhook, request: AdmissionRequest, err: unknown, deps: AdmitDeps) {
  const timedOut = err instanceof WebhookTimeoutError;
  deps.metrics.failed(webhook.path, timedOut ? "timeout" : "error");
  const message = timedOut
    ? err.message
    : `webhook ${webhook.path} failed: ${(err as Error)?.message ?? err}`;
  const { uid, operation, namespace, name } = request;
  deps.logger.error({ err, webhook: webhook.path, uid, operation, namespace, name }, message);
  return {
    allowed: false,
    status: { status: "Failure" as const, code: 500, reason: "InternalError", message },
  };
}

/**
 * Runs the handler within the webhook's timeout. `controller` is the request's: aborted by the
 * server when the caller hangs up, and here when the timeout passes; its signal is `ctx.signal`.
 */
async function admitWithin(
  webhook: AdmissionWebhook,
  request: AdmissionRequest,
  deps: AdmitDeps,
  ctx: AdmissionContext,
  controller: AbortController,
): Promise<AdmissionAnswer> {
  const timeoutMs = webhook.timeoutSeconds * 1000;
  let timeout!: (err: WebhookTimeoutError) => void;
  const timedOut = new Promise<never>((_, reject) => {
    timeout = reject;
  });
  const timer = deps.clock.setTimer(timeoutMs, () => {
    const err = new WebhookTimeoutError(webhook.path, timeoutMs);
    controller.abort(err);
    timeout(err);
  });
  try {
    return await Promise.race([webhook.admit(request, ctx), timedOut]);
  } catch (err) {
    if (err instanceof BadWebhookRequestError) throw err;
    return failure(webhook, request, err, deps);
  } finally {
    timer.cancel();
  }
}

/** Answers AdmissionReviews for one webhook; see {@link admissionOf}. */
export type AnswerAdmission = (
  body: unknown,
  controller: AbortController,
) => Promise<AnsweredAdmissionReview>;

/**
 * What answers the AdmissionReviews of `webhook`: given a body and the request's controller
 * (aborted when the apiserver goes away, and by the webhook's timeout), it runs the handler and
 * answers. It throws {@link BadWebhookRequestError} for a body that is not an AdmissionReview.
 */
export function admissionOf(webhook: AdmissionWebhook, deps: AdmitDeps): AnswerAdmission {
  const clientFor = clientsOf(webhook, deps.client);
  return async (body, controller) => {
    const { apiVersion, request } = parseAdmissionReview(body);
    const dryRun = request.dryRun === true;
    const { operation, userInfo } = request;
    const ctx: AdmissionContext = {
      operation,
      dryRun,
      userInfo,
      request,
      client: clientFor(dryRun),
      cache: deps.cache,
      signal: controller.signal,
    };
    const answer = await admitWithin(webhook, request, deps, ctx, controller);
    return { apiVersion, kind: "AdmissionReview", response: { uid: request.uid, ...answer } };
  };
}
