// What the server said when calls failed: a run's stats.statusLines, as the gateway words them (per status, its first
// few distinct messages, masked and escaped), for the status line and the live panels. Text only: it goes into the
// page through textContent.

/** " Errors: …." after a sentence, for a run some of whose calls failed; '' otherwise. */
export function errorsSentence(stats) {
  const text = (stats?.statusLines ?? []).join('; ');
  return text ? ` Errors: ${text}.` : '';
}

/** A sentence the page ends with its own full stop: the gateway's sentences already end with one. */
export function withoutStop(text) {
  return text.replace(/\.+$/, '');
}
