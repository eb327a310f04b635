// What every page's script (app.js, records.js, learn.js) asks the server with, as ES module
// exports: call() and its ApiError, the tab name the server knows a tab's requests by, and
// how a signed value is written.

export class ApiError extends Error {}

// GET path (no body) or POST body (an object as JSON, a string as it is); the answer's JSON
// (its text with raw), else an ApiError with the server's one-line message and .status
export async function call(path, body, raw = false) {
  let response;
  try {
    response = body === undefined ? await fetch(path) : await fetch(path, {
      method: "POST", headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError("the server cannot be reached: is python -m mancala serve running?");
  }
  if (response.ok) return raw ? response.text() : response.json();
  let message = `the server answered ${response.status}`;
  try { message = (await response.json()).error || message; } catch (error) { /* not JSON */ }
  const failure = new ApiError(message);
  failure.status = response.status;
  throw failure;
}

// a name for this tab's requests (/api/ai, /api/explain, /api/review): a newer one replaces the older
export function tabName(prefix = "") {
  return prefix + Math.random().toString(36).slice(2) + Date.now().toString(36);
}

export function signed(value) { return value > 0 ? `+${value}` : String(value); }
