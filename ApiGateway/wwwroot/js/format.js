// Numbers as a room reads them: few digits, units spelled out by the caller.

export function ms(value) {
  if (value === null || value === undefined) return '—';
  if (Number.isInteger(value) || value >= 100) return Math.round(value).toLocaleString('en-US');
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function whole(value) {
  return value === null || value === undefined ? '—' : Math.round(value).toLocaleString('en-US');
}

export function time(iso) {
  return new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function dateTime(iso) {
  const date = new Date(iso);
  return `${date.toLocaleDateString('en-CA')} ${time(iso)}`;
}

/** Creates an element whose text comes only through textContent, so data never becomes markup. */
export function el(tag, { text, className, attrs } = {}, children = []) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attrs ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}
