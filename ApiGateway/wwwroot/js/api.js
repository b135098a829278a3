// Every call to the gateway's run API goes through here, so every failure becomes one readable sentence.

export class ApiError extends Error {}

// Beyond loopback the gateway asks for a key before it starts, cancels or deletes work (a 401): the field in the header
// appears then, and what is typed there stays in this tab only and goes with every request that is not a GET.
const keyStorage = 'gateway-api-key';
const keyField = document.getElementById('api-key-field');
const keyInput = document.getElementById('api-key');
keyInput.value = sessionStorage.getItem(keyStorage) ?? '';
keyField.hidden = keyInput.value === '';
keyInput.addEventListener('change', () => {
  const key = keyInput.value.trim();
  if (key) sessionStorage.setItem(keyStorage, key);
  else sessionStorage.removeItem(keyStorage);
});

export async function api(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = sessionStorage.getItem(keyStorage);
  if (method !== 'GET' && key) headers['x-api-key'] = key;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (failure) {
    throw new ApiError(`${method} ${path}: the gateway did not answer (${failure.message}). Is it still running?`);
  }

  const text = await response.text();
  const json = text ? parseJson(text) : null;
  if (response.status === 401) {
    keyField.hidden = false;
    keyInput.focus();
  }
  if (!response.ok) {
    const detail = json?.detail ?? json?.title ?? (text.slice(0, 300) || response.statusText);
    throw Object.assign(new ApiError(`${method} ${path} answered ${response.status}: ${detail}`), { status: response.status, detail });
  }
  return json;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 300) };
  }
}

const errors = () => document.getElementById('errors');

/** Shows the failure in the page's alert region (and the console, for whoever has it open). */
export function showError(failure) {
  const region = errors();
  const line = document.createElement('p');
  line.textContent = failure instanceof Error ? failure.message : String(failure);
  if (region.hidden) {
    region.replaceChildren();
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.textContent = 'Dismiss';
    dismiss.addEventListener('click', clearErrors);
    region.append(dismiss);
  }
  region.insertBefore(line, region.lastElementChild);
  region.hidden = false;
  console.warn(line.textContent);
}

export function clearErrors() {
  const region = errors();
  region.replaceChildren();
  region.hidden = true;
}
