// The page's Server-Sent Events reader (ApiGateway/wwwroot/js/sse.js) against the HTML standard's parsing rules, in Node
// without a browser: node --test sse.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// The page's module as the browser loads it: Node would read a .js file outside a package of type module as CommonJS.
const source = readFileSync(new URL('../../ApiGateway/wwwroot/js/sse.js', import.meta.url));
const { EventStreamParser, readEvents } = await import(`data:text/javascript;base64,${source.toString('base64')}`);

/** Every event of the text, fed to one parser in pieces of the given sizes (the last repeated). */
function parse(text, sizes = [text.length]) {
  const parser = new EventStreamParser();
  const events = [];
  for (let at = 0, piece = 0; at < text.length; piece += 1) {
    const size = sizes[Math.min(piece, sizes.length - 1)];
    events.push(...parser.push(text.slice(at, at + size)));
    at += size;
  }
  return { events, parser };
}

const gateway = 'event: progress\ndata: {"completed":400,"total":1000}\n\nevent: final\ndata: {"id":"3f2b","state":"Completed"}\n\n';

test('the events the gateway writes come out named, with their data', () => {
  assert.deepEqual(parse(gateway).events, [
    { type: 'progress', data: '{"completed":400,"total":1000}', id: '' },
    { type: 'final', data: '{"id":"3f2b","state":"Completed"}', id: '' },
  ]);
});

test('a stream cut into pieces anywhere gives the same events', () => {
  const whole = parse(gateway).events;
  for (const size of [1, 2, 3, 5, 7, 13, 64]) {
    assert.deepEqual(parse(gateway, [size]).events, whole, `pieces of ${size}`);
  }
});

test('CRLF, CR and LF each end a line, and a CRLF split between two pieces ends one line only', () => {
  const text = 'event: run\r\ndata: a\rdata: b\ndata: c\r\n\r\n';
  const expected = [{ type: 'run', data: 'a\nb\nc', id: '' }];
  assert.deepEqual(parse(text).events, expected);
  for (let cut = 1; cut < text.length; cut += 1) {
    assert.deepEqual(parse(text, [cut, text.length]).events, expected, `cut after ${JSON.stringify(text.slice(0, cut))}`);
  }
});

test('a type-less event is a message, and the type does not carry over to the next event', () => {
  assert.deepEqual(parse('event: progress\ndata: 1\n\ndata: 2\n\n').events, [
    { type: 'progress', data: '1', id: '' },
    { type: 'message', data: '2', id: '' },
  ]);
});

test('comments, unknown fields and an event without data are no event', () => {
  assert.deepEqual(parse(': keep-alive\n\nevent: progress\n\nfoo: bar\n\n').events, []);
});

test('one space after the colon is dropped, no more; a field without a colon is empty; data lines join with LF', () => {
  assert.deepEqual(parse('data:a\ndata:  b\ndata\ndata: \n\n').events, [{ type: 'message', data: 'a\n b\n\n', id: '' }]);
});

test('id and retry are kept across events; a retry that is not a number, and an id with NUL, are ignored', () => {
  const { events, parser } = parse('id: 7\nretry: 1500\ndata: x\n\nretry: soon\nid: a\0b\ndata: y\n\n');
  assert.deepEqual(events, [{ type: 'message', data: 'x', id: '7' }, { type: 'message', data: 'y', id: '7' }]);
  assert.equal(parser.retry, 1500);
  assert.equal(parser.lastEventId, '7');
});

test('a body read as bytes: UTF-8 split between chunks, a BOM dropped, and the event a dropped stream cut off is lost', async () => {
  const bytes = new TextEncoder().encode('\uFEFFevent: run\ndata: {"name":"café ✓"}\n\ndata: half');
  const body = new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 3) controller.enqueue(bytes.slice(at, at + 3));
      controller.close();
    },
  });
  const events = [];
  for await (const event of readEvents(body)) events.push(event);
  assert.deepEqual(events, [{ type: 'run', data: '{"name":"café ✓"}', id: '' }]);
});

test('a large event (a final run of megabytes) in many pieces is one event', () => {
  const data = JSON.stringify({ series: 'x'.repeat(2_000_000) });
  const { events } = parse(`event: final\ndata: ${data}\n\n`, [65536]);
  assert.equal(events.length, 1);
  assert.equal(events[0].data, data);
});
