import { createHash } from "node:crypto";
import type { AuthSnapshot, ClientCertificate, Credentials, TlsSettings } from "./types.ts";

/** What an authentication method yields at one moment. */
export interface AuthParts {
  /** The `authorization` header value (`Bearer ...` or `Basic ...`). */
  readonly authorization?: string;
  /** A client certificate that replaces the kubeconfig's one. */
  readonly clientCertificate?: ClientCertificate;
}

/** An authentication method whose output may change: a token file, an exec plugin. */
export interface AuthSource {
  get(signal?: AbortSignal): Promise<AuthParts>;
  /** Drops what is cached, so that the next `get` reads or runs again. */
  invalidate(): void;
}

/** A source that never changes. */
export function staticSource(parts: AuthParts): AuthSource {
  return { get: async () => parts, invalidate: () => {} };
}

/** The parts of {@link createCredentials}. */
export interface CredentialParts {
  /** Where `authorization` (and possibly a client certificate) comes from. */
  source?: AuthSource;
  /** The client certificate to use unless the source returns one. */
  clientCertificate?: ClientCertificate;
  /** Headers that never change (impersonation). */
  headers?: Readonly<Record<string, string | readonly string[]>>;
  /** The server and TLS settings, which the snapshot identity covers. */
  server: string;
  tls: TlsSettings;
}

/** Combines a changing source with fixed headers and certificate into {@link Credentials}. */
export function createCredentials(parts: CredentialParts): Credentials {
  const source = parts.source ?? staticSource({});
  const connection = JSON.stringify([parts.server, parts.tls.ca, parts.tls.insecure, parts.tls.servername]);
  let snapshot: AuthSnapshot | undefined;
  let builtFrom: AuthParts | undefined;

  const build = (found: AuthParts): AuthSnapshot => {
    const clientCertificate = found.clientCertificate ?? parts.clientCertificate;
    const headers = {
      ...(found.authorization ? { authorization: found.authorization } : {}),
      ...parts.headers,
    };
    const identity = createHash("sha256")
      .update(JSON.stringify([connection, clientCertificate?.cert, clientCertificate?.key]))
      .digest("hex")
      .slice(0, 32);
    return Object.freeze({ headers: Object.freeze(headers), clientCertificate, identity });
  };

  return {
    async get(signal) {
      signal?.throwIfAborted();
      const found = await source.get(signal);
      if (snapshot && found === builtFrom) return snapshot;
      const next = build(found);
      builtFrom = found;
      if (!snapshot || !sameSnapshot(snapshot, next)) snapshot = next;
      return snapshot;
    },
    invalidate(rejected) {
      if (rejected && rejected !== snapshot) return;
      source.invalidate();
    },
  };
}

function sameSnapshot(a: AuthSnapshot, b: AuthSnapshot): boolean {
  return a.identity === b.identity && a.headers.authorization === b.headers.authorization;
}
