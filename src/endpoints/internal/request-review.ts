/**
 * Authentication and authorization of requests to the metrics endpoint by the apiserver, as
 * controller-runtime's `filters.WithAuthenticationAndAuthorization` (and kube-rbac-proxy) do:
 * the request's bearer token is checked with a TokenReview, then the user it names must be
 * allowed the request's verb (`get`) on its path (`/metrics`) by a SubjectAccessReview. Answers
 * are cached for a minute, like kube-rbac-proxy's; failures to ask are not cached.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { UserInfo } from "../../api/authentication.k8s.io/v1.ts";
import { SubjectAccessReview, TokenReview } from "../../api/index.ts";
import type { Client } from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import type { Denial } from "../server.ts";

/** The one call the reviews make; a `Client` fits. */
export type ReviewClient = Pick<Client, "create">;

/** Options of {@link RequestReview}. */
export interface RequestReviewOptions {
  client: ReviewClient;
  clock: Clock;
  /** How long an answer of the apiserver is reused. Default 60 s. */
  ttlMs?: number;
  /** At most this many answers of each kind are kept; the oldest go first. Default 10,000. */
  maxEntries?: number;
  /** Reports a review the apiserver did not answer; the request gets a 500 with `message`. */
  onError: (err: unknown, message: string) => void;
}

/** What a non-resource request asks for, in SubjectAccessReview terms. */
interface NonResourceAttributes {
  path: string;
  verb: string;
}

const unauthorized: Denial = { status: 401, message: "Unauthorized" };

/** Decides, with the apiserver, whether a request may be served. */
export class RequestReview {
  readonly #client: ReviewClient;
  readonly #onError: RequestReviewOptions["onError"];
  readonly #users: Memo<UserInfo | undefined>;
  readonly #decisions: Memo<boolean>;

  constructor(options: RequestReviewOptions) {
    const { clock, ttlMs = 60_000, maxEntries = 10_000 } = options;
    this.#client = options.client;
    this.#onError = options.onError;
    this.#users = new Memo(clock, ttlMs, maxEntries);
    this.#decisions = new Memo(clock, ttlMs, maxEntries);
  }

  /** Resolves `undefined` when the request may be served, else the answer to give instead. */
  async check(req: IncomingMessage): Promise<Denial | undefined> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return unauthorized;
    let user: UserInfo | undefined;
    try {
      user = await this.#users.get(digest(token), () => this.#authenticate(token));
    } catch (err) {
      return this.#failed(err, "Authentication failed");
    }
    if (!user) return unauthorized;
    const attributes = {
      path: (req.url ?? "/").split("?")[0] ?? "/",
      verb: (req.method ?? "GET").toLowerCase(),
    };
    const name = user.username ?? "";
    try {
      const allowed = await this.#decisions.get(JSON.stringify([user, attributes]), () =>
        this.#authorize(user, attributes),
      );
      return allowed ? undefined : { status: 403, message: `Authorization denied for user ${name}` };
    } catch (err) {
      return this.#failed(err, `Authorization for user ${name} failed`);
    }
  }

  async #authenticate(token: string): Promise<UserInfo | undefined> {
    const review = await this.#client.create(TokenReview, {
      apiVersion: TokenReview.apiVersion,
      kind: TokenReview.kind,
      metadata: {},
      spec: { token },
    });
    return review.status?.authenticated ? (review.status.user ?? {}) : undefined;
  }

  async #authorize(user: UserInfo, attributes: NonResourceAttributes): Promise<boolean> {
    const review = await this.#client.create(SubjectAccessReview, {
      apiVersion: SubjectAccessReview.apiVersion,
      kind: SubjectAccessReview.kind,
      metadata: {},
      spec: {
        user: user.username,
        uid: user.uid,
        groups: user.groups,
        extra: user.extra,
        nonResourceAttributes: attributes,
      },
    });
    return review.status?.allowed === true;
  }

  #failed(err: unknown, message: string): Denial {
    this.#onError(err, message);
    return { status: 500, message };
  }
}

/** The token of an `Authorization: Bearer <token>` header, like client-go's bearertoken authenticator. */
function bearerToken(header: string | undefined): string | undefined {
  const [scheme, token, ...rest] = (header ?? "").trim().split(/\s+/);
  return scheme?.toLowerCase() === "bearer" && token && rest.length === 0 ? token : undefined;
}

/** Tokens are kept only as digests. */
function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Promises by key for `ttlMs`; a rejected one is dropped at once so that the next call asks again. */
class Memo<T> {
  readonly #entries = new Map<string, { expires: number; value: Promise<T> }>();
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(clock: Clock, ttlMs: number, maxEntries: number) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.#clock.monotonicMs();
    const cached = this.#entries.get(key);
    if (cached && cached.expires > now) return cached.value;
    this.#entries.delete(key);
    const value = compute();
    this.#entries.set(key, { expires: now + this.#ttlMs, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    if (this.#entries.size > this.#maxEntries)
      this.#entries.delete(this.#entries.keys().next().value as string);
    return value;
  }
}
