// Server-Sent Events read from a fetch() body, parsed as the HTML standard's EventSource parses them. EventSource itself
// cannot send a header, and beyond loopback an event stream needs the key, which must never go in a URL.

/**
 * Takes the stream's text as it arrives, in pieces of any size, and gives back each event it completes:
 * { type, data, id }. lastEventId and retry (milliseconds, or null) keep what the stream last said.
 */
export class EventStreamParser {
  #partial = [];
  #data = [];
  #type = '';
  // A piece that ended in CR: an LF that starts the next one ends the same line.
  #afterCarriageReturn = false;
  lastEventId = '';
  retry = null;

  /** The events the text completes, in order; a line cut short waits for the next piece. */
  push(text) {
    const events = [];
    let at = this.#afterCarriageReturn && text.startsWith('\n') ? 1 : 0;
    if (text.length > 0) this.#afterCarriageReturn = false;
    const lineEnd = /[\r\n]/g;
    while (at < text.length) {
      lineEnd.lastIndex = at;
      const end = lineEnd.exec(text)?.index ?? -1;
      if (end === -1) {
        this.#partial.push(text.slice(at));
        break;
      }
      const line = this.#partial.join('') + text.slice(at, end);
      this.#partial = [];
      at = end + 1;
      if (text[end] === '\r') {
        if (at === text.length) this.#afterCarriageReturn = true;
        else if (text[at] === '\n') at += 1;
      }
      const event = this.#take(line);
      if (event) events.push(event);
    }
    return events;
  }

  #take(line) {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#type = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.retry = Number(value);
    return null;
  }

  /** A blank line ends an event; one without a data line is no event. */
  #dispatch() {
    const event = this.#data.length === 0 ? null : { type: this.#type || 'message', data: this.#data.join('\n'), id: this.lastEventId };
    this.#data = [];
    this.#type = '';
    return event;
  }
}

/** Each event of a response body (a ReadableStream of bytes) as it arrives; an event the stream cut off is dropped. */
export async function* readEvents(body, parser = new EventStreamParser()) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* parser.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
