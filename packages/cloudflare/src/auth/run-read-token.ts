import { AgentToolsError } from "@agent-tools/core-runs";

/**
 * Run-scoped read tokens: a parent signs a token naming one of its runs and an expiry (HMAC-SHA-256 over Web Crypto,
 * with a secret from a binding); drill-in to that run accepts the token in place of the parent's own authorization,
 * so a page can share a link to one child's conversation without sharing access to the parent.
 *
 * Format: `v1.<payload>.<signature>`, both base64url; the payload is JSON `{ p, a, r, e, g }` — the parent's id, the
 * run's agentType and runId, the expiry in epoch ms, and the run's generation (its `startedAt`). A token is valid only
 * for that parent, that run, until then; the parent also checks the generation against the run's row, so a run
 * cleared and started again with the same id is not opened by a token of the one before.
 */

/** What a token grants. `generation` is the run's `startedAt` when the token was signed (absent in older tokens). */
export type RunReadTokenClaims = {
  parentId: string;
  agentType: string;
  runId: string;
  expiresAt: number;
  generation?: number;
};

/**
 * Why a token was refused: `malformed`/`forged`/`expired` → 401; `wrong-run` (another parent or run) and `stale` (the
 * run was cleared and started again since the token was signed) → 403.
 */
export type RunReadTokenRefusal = "missing" | "malformed" | "forged" | "expired" | "wrong-run" | "stale";

export type RunReadTokenCheck = { ok: true; claims: RunReadTokenClaims } | { ok: false; refusal: RunReadTokenRefusal };

/** The HMAC key tokens are signed with (a Web Crypto `CryptoKey`). */
export type RunReadTokenKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const VERSION = "v1";
const encoder = new TextEncoder();

/** The shortest secret run read tokens may be signed with, in characters. */
export const MIN_RUN_TOKEN_SECRET_LENGTH = 16;

/** The HMAC key for a secret (cache it: importing costs a little on every call). */
export function importRunReadTokenKey(secret: string): Promise<RunReadTokenKey> {
  if (secret.length < MIN_RUN_TOKEN_SECRET_LENGTH) {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `The run token secret must be at least ${MIN_RUN_TOKEN_SECRET_LENGTH} characters`,
    );
  }
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

/** Sign a token for one run of one parent, valid until `claims.expiresAt`. */
export async function signRunReadToken(key: RunReadTokenKey, claims: RunReadTokenClaims): Promise<string> {
  const payload = base64url(
    encoder.encode(
      JSON.stringify({
        p: claims.parentId,
        a: claims.agentType,
        r: claims.runId,
        e: claims.expiresAt,
        g: claims.generation,
      }),
    ),
  );
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(`${VERSION}.${payload}`));
  return `${VERSION}.${payload}.${base64url(new Uint8Array(signature))}`;
}

/**
 * Check a token for a request to run `expected.runId` (of `expected.agentType`) of parent `expected.parentId` at
 * `now`. The signature is checked first, in constant time (Web Crypto's `verify`), so nothing is read from a forged
 * payload. Never throws.
 */
export async function verifyRunReadToken(
  key: RunReadTokenKey,
  token: string | null | undefined,
  expected: { parentId: string; agentType: string; runId: string; now: number },
): Promise<RunReadTokenCheck> {
  if (token === null || token === undefined || token === "") return { ok: false, refusal: "missing" };
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, refusal: "malformed" };
  const [, payload, signature] = parts as [string, string, string];
  const signatureBytes = fromBase64url(signature);
  const payloadBytes = fromBase64url(payload);
  if (!signatureBytes || !payloadBytes) return { ok: false, refusal: "malformed" };
  let isValid = false;
  try {
    isValid = await crypto.subtle.verify("HMAC", key, signatureBytes, encoder.encode(`${VERSION}.${payload}`));
  } catch {
    return { ok: false, refusal: "malformed" };
  }
  if (!isValid) return { ok: false, refusal: "forged" };
  const claims = readClaims(payloadBytes);
  if (!claims) return { ok: false, refusal: "malformed" };
  if (claims.expiresAt <= expected.now) return { ok: false, refusal: "expired" };
  if (
    claims.parentId !== expected.parentId ||
    claims.runId !== expected.runId ||
    claims.agentType !== expected.agentType
  ) {
    return { ok: false, refusal: "wrong-run" };
  }
  return { ok: true, claims };
}

/** The HTTP status for a refusal: 403 for a valid token of another run (or of the run before a clear), else 401. */
export function runReadTokenStatus(refusal: RunReadTokenRefusal): 401 | 403 {
  return refusal === "wrong-run" || refusal === "stale" ? 403 : 401;
}

/** Whether a token's claims are of the run's current generation (`startedAt` of its row now). */
export function isCurrentGeneration(claims: RunReadTokenClaims, startedAt: number): boolean {
  return claims.generation === startedAt;
}

function readClaims(bytes: Uint8Array): RunReadTokenClaims | null {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { p, a, r, e, g } = value as Record<string, unknown>;
  if (typeof p !== "string" || typeof a !== "string" || typeof r !== "string") return null;
  if (typeof e !== "number" || !Number.isFinite(e)) return null;
  const claims = { parentId: p, agentType: a, runId: r, expiresAt: e };
  return typeof g === "number" && Number.isFinite(g) ? { ...claims, generation: g } : claims;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  } catch {
    return null;
  }
}
