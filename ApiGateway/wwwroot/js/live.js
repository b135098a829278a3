// Follows one run, suite, comparison, checkup or lesson experiment over Server-Sent Events and never lets a long run go silent; says how far it is.

import { refusal, send } from './api.js';
import { EventStreamParser, readEvents } from './sse.js';

const silenceMs = 4000;
// How long EventSource waits before it reconnects when the stream names no retry: the stream is read as it would read it.
const reconnectMs = 3000;

/**
 * kind: 'runs', 'suites', 'comparisons', 'checkups' or a lesson's 'lessons/{id}/experiments'. handlers: progress(data), run(view),
 * experiment(view) or checkup(record) (each optional), final(view), silent(seconds), lost(message). Returns a function that stops following.
 * The stream is read with fetch(), which sends the key as a header (EventSource cannot), and reconnects as EventSource
 * does: after a dropped stream, not after a refusal.
 */
export function follow(kind, id, handlers) {
  const path = `/api/${kind}/${id}/events`;
  const stopped = new AbortController();
  let lastEvent = performance.now();

  const named = {
    progress: handlers.progress,
    run: handlers.run,
    experiment: handlers.experiment,
    checkup: handlers.checkup,
    final: (view) => {
      stop();
      handlers.final(view);
    },
  };
  const heard = (event) => {
    lastEvent = performance.now();
    // A handler that throws is reported as a listener's error would be, and the stream goes on.
    try {
      named[event.type]?.(JSON.parse(event.data));
    } catch (failure) {
      reportError(failure);
    }
  };

  (async () => {
    const parser = new EventStreamParser();
    while (!stopped.signal.aborted) {
      let response = null;
      try {
        response = await send(path, { headers: { accept: 'text/event-stream' }, cache: 'no-store', signal: stopped.signal });
        if (!response.ok || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
          const why = response.ok ? `it answered ${response.headers.get('content-type')}, not an event stream` : await refusal(response);
          stop();
          handlers.lost(`The event stream of ${kind.split('/').at(-1).slice(0, -1)} ${id} was refused (${response.status}): ${why}`);
          return;
        }
        for await (const event of readEvents(response.body, parser)) {
          heard(event);
          if (stopped.signal.aborted) return;
        }
      } catch {
        // A stream that failed or dropped (or was stopped): reconnect below unless stopped.
      }
      if (stopped.signal.aborted) return;
      handlers.silent(Math.round((performance.now() - lastEvent) / 1000), 'the event stream dropped; reconnecting');
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, parser.retry ?? reconnectMs);
        stopped.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
  })();

  const watchdog = setInterval(() => {
    const quiet = performance.now() - lastEvent;
    if (quiet >= silenceMs) handlers.silent(Math.round(quiet / 1000), 'still waiting for the gateway');
  }, 1000);

  function stop() {
    clearInterval(watchdog);
    stopped.abort();
  }
  return stop;
}

const phases = { Starting: 'starting', Warmup: 'warm-up', Measured: 'measuring', Finished: 'finished' };

/** How far a sequence of runs is, 0 to 1, while run `index` (from 1) of `of` has made `progress`. */
export function doneFraction(index, of, progress) {
  const done = progress.total > 0 ? progress.completed / progress.total
    : progress.durationMs ? Math.min(1, progress.elapsedMs / progress.durationMs) : 0;
  return Math.min(1, (index - 1 + (progress.phase === 'Finished' ? 1 : done)) / of);
}

/** "measuring, 400 of 1,000 calls, 2 failed, 905 calls/s" (with late and dropped sends under an arrival rate). */
export function progressText(progress) {
  const tally = progress.total > 0 ? ` of ${progress.total.toLocaleString('en-US')}` : ` in ${(progress.elapsedMs / 1000).toFixed(1)} s`;
  return `${phases[progress.phase] ?? progress.phase}, ${progress.completed.toLocaleString('en-US')}${tally} calls` +
    `${progress.failed ? `, ${progress.failed} failed` : ''}, ${Math.round(progress.currentThroughputPerSecond).toLocaleString('en-US')} calls/s` +
    `${progress.late ? `, ${progress.late} sent late` : ''}${progress.dropped ? `, ${progress.dropped} dropped` : ''}`;
}
