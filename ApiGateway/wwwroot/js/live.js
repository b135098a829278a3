// Follows one run, suite, comparison or lesson experiment over Server-Sent Events and never lets a long run go silent; says how far it is.

const silenceMs = 4000;

/**
 * kind: 'runs', 'suites', 'comparisons' or a lesson's 'lessons/{id}/experiments'. handlers: progress(data), run(view) or
 * experiment(view) (each optional), final(view), silent(seconds), lost(message). Returns a function that stops following.
 */
export function follow(kind, id, handlers) {
  const source = new EventSource(`/api/${kind}/${id}/events`);
  let lastEvent = performance.now();
  let finished = false;

  const heard = (handler) => (event) => {
    lastEvent = performance.now();
    handler(JSON.parse(event.data));
  };
  for (const name of ['progress', 'run', 'experiment']) {
    if (handlers[name]) source.addEventListener(name, heard(handlers[name]));
  }
  source.addEventListener('final', heard((view) => {
    finished = true;
    stop();
    handlers.final(view);
  }));
  source.addEventListener('error', () => {
    if (finished) return;
    // The browser reconnects by itself unless the gateway refused the stream outright.
    if (source.readyState === EventSource.CLOSED) {
      stop();
      handlers.lost(`The event stream of ${kind.split('/').at(-1).slice(0, -1)} ${id} closed; the gateway may have stopped.`);
    } else {
      handlers.silent(Math.round((performance.now() - lastEvent) / 1000), 'the event stream dropped; reconnecting');
    }
  });

  const watchdog = setInterval(() => {
    const quiet = performance.now() - lastEvent;
    if (quiet >= silenceMs) handlers.silent(Math.round(quiet / 1000), 'still waiting for the gateway');
  }, 1000);

  function stop() {
    clearInterval(watchdog);
    source.close();
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
