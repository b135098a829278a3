// Follows one run or suite over Server-Sent Events and never lets a long run go silent.

const silenceMs = 4000;

/**
 * kind: 'runs' or 'suites'. handlers: progress(data), run(view), final(view), silent(seconds), lost(message).
 * Returns a function that stops following.
 */
export function follow(kind, id, handlers) {
  const source = new EventSource(`/api/${kind}/${id}/events`);
  let lastEvent = performance.now();
  let finished = false;

  const heard = (handler) => (event) => {
    lastEvent = performance.now();
    handler(JSON.parse(event.data));
  };
  source.addEventListener('progress', heard(handlers.progress));
  source.addEventListener('run', heard(handlers.run));
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
      handlers.lost(`The event stream of ${kind.slice(0, -1)} ${id} closed; the gateway may have stopped.`);
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
