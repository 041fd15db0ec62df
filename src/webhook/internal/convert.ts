/**
 * Answers one ConversionReview: each object goes through the conversion declared for its group and
 * kind; any failure answers the whole review `Failure` with the message (the apiserver converts
 * all or nothing), logged and counted.
 */
import { groupOf, type KubeObject } from "../../api/index.ts";
import type { ConversionWebhook } from "../conversion.ts";
import { ConversionError } from "../errors.ts";
import type { WebhookLogger } from "../logger.ts";
import type { WebhookMetrics } from "../metrics.ts";
import { type ConversionResponse, conversionReviewVersion, parseConversionReview } from "../review.ts";

/** A ConversionReview answered. */
export interface AnsweredConversionReview {
  apiVersion: typeof conversionReviewVersion;
  kind: "ConversionReview";
  response: ConversionResponse;
}

/** The key of a conversion in {@link answerConversion}'s map: `<kind>.<group>`. */
export function groupKind(group: string, kind: string): string {
  return `${kind}.${group}`;
}

function convertAll(
  conversions: ReadonlyMap<string, ConversionWebhook>,
  objects: readonly KubeObject[],
  apiVersion: string,
): KubeObject[] {
  return objects.map((obj) => {
    const key = groupKind(groupOf(obj.apiVersion), obj.kind);
    const conversion = conversions.get(key);
    if (!conversion) {
      throw new ConversionError(
        `no conversion is declared for ${key}; converted: ${[...conversions.keys()].join(", ")}`,
      );
    }
    return conversion.convert(obj, apiVersion);
  });
}

/**
 * Answers the ConversionReview `body` with the declared `conversions` (by {@link groupKind}).
 * Throws `BadWebhookRequestError` for a body that is not a ConversionReview.
 */
export function answerConversion(
  conversions: ReadonlyMap<string, ConversionWebhook>,
  body: unknown,
  deps: { metrics: WebhookMetrics; logger: WebhookLogger },
): AnsweredConversionReview {
  const { uid, desiredAPIVersion, objects } = parseConversionReview(body).request;
  const answer = (response: Omit<ConversionResponse, "uid">) =>
    ({
      apiVersion: conversionReviewVersion,
      kind: "ConversionReview",
      response: { uid, ...response },
    }) as const;
  try {
    const convertedObjects = convertAll(conversions, objects as unknown as KubeObject[], desiredAPIVersion);
    return answer({ convertedObjects, result: { status: "Success" } });
  } catch (err) {
    const message = (err as Error).message;
    deps.metrics.failed("/convert", "error");
    deps.logger.error({ err, webhook: "/convert", uid, desiredAPIVersion }, message);
    return answer({ convertedObjects: [], result: { status: "Failure", message } });
  }
}
