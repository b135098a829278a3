// What the server said when calls failed: a run's stats.statusDetails (per status, its first few distinct messages,
// masked and escaped by the gateway) as words, for the status line and the live panels. Text only: it goes into the
// page through textContent.

/** "50 × FailedPrecondition: 'tenant is suspended'; 3 × Unavailable: other messages", or '' when no call failed. */
export function errorsText(stats) {
  const details = stats?.statusDetails ?? [];
  return details.flatMap((detail) => [
    ...detail.messages.map((message) => `${message.calls.toLocaleString('en-US')} × ${detail.status}: ${quoted(message.message)}`),
    ...(detail.otherMessageCalls > 0 ? [`${detail.otherMessageCalls.toLocaleString('en-US')} × ${detail.status}: other messages`] : []),
  ]).join('; ');
}

/** " Errors: …." after a sentence, for a run some of whose calls failed; '' otherwise. */
export function errorsSentence(stats) {
  const text = errorsText(stats);
  return text ? ` Errors: ${text}.` : '';
}

/** A sentence the page ends with its own full stop: the gateway's sentences already end with one. */
export function withoutStop(text) {
  return text.replace(/\.+$/, '');
}

function quoted(message) {
  return message === '' ? '(no message)' : `'${message}'`;
}
