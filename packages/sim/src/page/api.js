// The page's calls to the sandbox's API; a refusal or an unreachable sandbox shows as a toast.
import { el } from './dom.js';

function toast(text) {
  const t = el('div', 'toast', text);
  document.getElementById('toasts').append(t);
  setTimeout(() => t.remove(), 6000);
}

/** POST `body` as JSON to `path`; the answer, or `{ ok: false }` when the sandbox did not answer. */
export async function api(path, body) {
  try {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    if (!res.ok || answer.ok === false) toast(answer.error ?? `HTTP ${res.status}`);
    return answer;
  } catch (error) {
    toast(`The sandbox did not answer: ${error.message}`);
    return { ok: false };
  }
}
