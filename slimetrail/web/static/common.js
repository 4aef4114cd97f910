// Helpers shared by the pages: the page's messages in its language, JSON calls with readable
// errors, and the record import form.

// The server puts every message the scripts use, in the page's language, in #messages
// (base.html); `_("Hello {name}", { name })` gives one with its {placeholders} filled in.
const MESSAGES = JSON.parse(document.getElementById("messages")?.textContent || "{}");

export function _(text, values = {}) {
  const said = MESSAGES[text] || text;
  return said.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// FastAPI errors come as {"detail": "text"} or, for a malformed body, a list of problems.
function errorText(status, body) {
  const detail = body && body.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((d) => `${(d.loc || []).slice(1).join(".") || "request"}: ${d.msg}`).join("; ");
  }
  return _("the server answered {status}", { status });
}

// A 503 (the server shedding load, or a full queue) was refused before anything changed: ask
// again after its Retry-After, a few times, before showing the error.
const BUSY_RETRIES = 3;
const BUSY_WAIT_MAX = 5; // seconds

export async function api(path, { method = "GET", body } = {}) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  for (let attempt = 0; ; attempt += 1) {
    try {
      response = await fetch(path, options);
    } catch {
      throw new ApiError(0, _("cannot reach the server; check the connection and try again"));
    }
    if (response.status !== 503 || attempt === BUSY_RETRIES) break;
    const wait = Math.min(BUSY_WAIT_MAX, Number(response.headers.get("Retry-After")) || 1);
    await new Promise((resume) => setTimeout(resume, wait * 1000));
  }
  let data = null;
  const text = await response.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text };
  }
  if (!response.ok) throw new ApiError(response.status, errorText(response.status, data));
  return data;
}

// The import form: a textarea and/or a file; on success open the replayed game.
export function setupImport(form) {
  if (!form) return;
  const text = form.querySelector("textarea");
  const file = form.querySelector('input[type="file"]');
  const error = form.querySelector(".error");
  file?.addEventListener("change", async () => {
    if (file.files.length) text.value = await file.files[0].text();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if (!text.value.trim()) {
      error.textContent = _("Paste a game record or choose a file first.");
      return;
    }
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const result = await api("/api/import", { method: "POST", body: { record: text.value } });
      window.location.assign(result.url);
    } catch (exc) {
      error.textContent = _("Could not import the record: {error}", { error: exc.message });
    } finally {
      button.disabled = false;
    }
  });
}
