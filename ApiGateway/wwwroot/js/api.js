// Every call to the gateway's run API goes through here, so every failure becomes one readable sentence.

export class ApiError extends Error {}

export async function api(path, { method = 'GET', body } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (failure) {
    throw new ApiError(`${method} ${path}: the gateway did not answer (${failure.message}). Is it still running?`);
  }

  const text = await response.text();
  const json = text ? parseJson(text) : null;
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
