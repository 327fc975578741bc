import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";

/**
 * The dashboard's one page script (no framework): passkey sign-in on the sign-in page and "Add a passkey" on the
 * account page, through @simplewebauthn/browser. Each call carries the page's CSRF token as X-CSRF-Token.
 */
async function post<T>(path: string, csrf: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: body === undefined ? "{}" : JSON.stringify(body),
  });
  const data = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`);
  return data;
}

function wire(id: string, run: (csrf: string) => Promise<void>) {
  const button = document.getElementById(id);
  if (!(button instanceof HTMLButtonElement) || !browserSupportsWebAuthn()) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await run(button.dataset.csrf ?? "");
    } catch (error) {
      alert(`Passkey: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      button.disabled = false;
    }
  });
}

wire("passkey-sign-in", async (csrf) => {
  const { challengeId, options } = await post<{
    challengeId: string;
    options: Parameters<typeof startAuthentication>[0]["optionsJSON"];
  }>("/dashboard/sign-in/passkey/options", csrf);
  const response = await startAuthentication({ optionsJSON: options });
  // The page asked for before signing in (the server keeps it only if it is a dashboard path).
  const next = document.getElementById("passkey-sign-in")?.dataset.next;
  const done = await post<{ location: string }>("/dashboard/sign-in/passkey", csrf, { challengeId, response, next });
  location.assign(done.location);
});

wire("passkey-register", async (csrf) => {
  const { challengeId, options } = await post<{
    challengeId: string;
    options: Parameters<typeof startRegistration>[0]["optionsJSON"];
  }>("/dashboard/passkeys/options", csrf);
  const response = await startRegistration({ optionsJSON: options });
  await post("/dashboard/passkeys", csrf, { challengeId, response });
  location.reload();
});
