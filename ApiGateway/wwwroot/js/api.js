// Every request to the gateway goes through here, so every failure becomes one readable sentence and every request carries
// the key once one is typed.

export class ApiError extends Error {}

// Beyond loopback the gateway answers nothing but its page without a key (a 401): the field in the header appears on the
// first refusal, and what is typed there stays in this tab only and goes as a header with every request, never in a URL.
const keyStorage = 'gateway-api-key';
const keyField = document.getElementById('api-key-field');
const keyInput = document.getElementById('api-key');
keyInput.value = sessionStorage.getItem(keyStorage) ?? '';
keyField.hidden = keyInput.value === '';
// The reads refused for want of a key, waiting together for one to be typed: { typed, resolve, line }.
let waiting = null;
keyInput.addEventListener('change', () => {
  const key = keyInput.value.trim();
  if (key) sessionStorage.setItem(keyStorage, key);
  else sessionStorage.removeItem(keyStorage);
  if (key && waiting) {
    const { resolve, line } = waiting;
    waiting = null;
    withdraw(line);
    resolve();
  }
});

const currentKey = () => sessionStorage.getItem(keyStorage);

/** fetch() with the key as X-Api-Key when one was typed; a 401 shows the key field. The key is never put in the URL. */
export async function send(path, { headers = {}, ...init } = {}) {
  const key = currentKey();
  const response = await fetch(path, { ...init, headers: key ? { ...headers, 'x-api-key': key } : headers });
  if (response.status === 401) keyField.hidden = false;
  return response;
}

/**
 * A GET refused for want of a key waits for one to be typed, then asks again, so the page loads what it could not
 * without a reload; work (any other method) is refused at once, with the refusal's sentence.
 */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (;;) {
    const sentKey = currentKey();
    let response;
    try {
      response = await send(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (failure) {
      throw new ApiError(`${method} ${path}: the gateway did not answer (${failure.message}). Is it still running?`);
    }

    const text = await response.text();
    if (response.ok) return text ? parseJson(text) : null;
    const detail = sentence(text, response.statusText);
    if (response.status === 401 && method === 'GET') {
      // A key typed while this request was on its way is tried at once.
      if (currentKey() === sentKey) await keyTyped(detail);
      continue;
    }
    if (response.status === 401) keyInput.focus();
    throw Object.assign(new ApiError(`${method} ${path} answered ${response.status}: ${detail}`), { status: response.status, detail });
  }
}

/** Resolves once a key is typed; until then the refusal's sentence stands in the error region, once for every read waiting. */
function keyTyped(detail) {
  if (!waiting) {
    waiting = { line: showError(new ApiError(detail)) };
    waiting.typed = new Promise((resolve) => { waiting.resolve = resolve; });
    keyInput.focus();
  }
  return waiting.typed;
}

/** The sentence of a response that is not ok: its problem's detail, else its text. */
export async function refusal(response) {
  return sentence(await response.text().catch(() => ''), response.statusText);
}

function sentence(text, statusText) {
  const json = text ? parseJson(text) : null;
  return json?.detail ?? json?.title ?? (text.slice(0, 300) || statusText);
}

/**
 * Makes a link to a file of the gateway (a report, an export) download it with the key: fetched here, handed to the
 * browser as a blob under the file name the gateway gave, so the key never goes in a URL. Its href stays for reading.
 */
export function downloadsWithKey(link) {
  link.addEventListener('click', (event) => {
    event.preventDefault();
    download(link.getAttribute('href')).catch(showError);
  });
  return link;
}

async function download(path) {
  let response;
  try {
    response = await send(path);
  } catch (failure) {
    throw new ApiError(`GET ${path}: the gateway did not answer (${failure.message}). Is it still running?`);
  }
  if (!response.ok) throw new ApiError(`GET ${path} answered ${response.status}: ${await refusal(response)}`);
  const url = URL.createObjectURL(await response.blob());
  const save = document.createElement('a');
  save.href = url;
  save.download = fileName(response.headers.get('content-disposition')) ?? path.split('/').pop();
  document.body.append(save);
  save.click();
  save.remove();
  // The browser reads the blob after click() returns; a minute is long enough for any report, short for the tab's memory.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The file name of a Content-Disposition (filename*=UTF-8''… first, as RFC 6266 has it), or null. */
function fileName(disposition) {
  const encoded = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition ?? '');
  if (encoded) return decodeURIComponent(encoded[1].trim());
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition ?? '');
  return plain ? (plain[2] ?? plain[1]).trim() : null;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 300) };
  }
}

const errors = () => document.getElementById('errors');

/** Shows the failure in the page's alert region (and the console, for whoever has it open); returns its line. */
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
  return line;
}

/** Takes one line back out of the alert region, which closes when none is left. */
function withdraw(line) {
  line.remove();
  if (!errors().querySelector('p')) clearErrors();
}

export function clearErrors() {
  const region = errors();
  region.replaceChildren();
  region.hidden = true;
}
