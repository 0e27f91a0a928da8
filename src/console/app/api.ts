
/** A failed admin call, with the API's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = "";

/** Reads the session's CSRF token; false when there is no session (the caller goes to sign-in). */
export async function loadSession(): Promise<boolean> {
  const response = await fetch("/console/api/session", { credentials: "same-origin" });
  if (!response.ok) return false;
  csrfToken = ((await response.json()) as { csrf_token: string }).csrf_token;
  return true;
}

export function signInPage(): void {
  window.location.assign("/console/sign-in");
}

/**
 * One admin API call with the session cookie (sent by the browser; the page never sees it) and,
 * on writes, the session's CSRF token. A lost session goes back to sign-in.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 401) {
    signInPage();
    throw new ApiError(401, "signed out");
  }
  if (response.status === 204) return undefined as T;
  const json = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new ApiError(response.status, json.error?.message ?? `HTTP ${response.status}`);
  return json as T;
}

export async function signOut(): Promise<void> {
  await fetch("/console/sign-out", { method: "POST", credentials: "same-origin", headers: { "x-csrf-token": csrfToken } });
  signInPage();
}
