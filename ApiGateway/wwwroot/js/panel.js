// What the run panel and the Protocols part share: a status line, a state (for the styles and the browser test), Start
// and Cancel, and following what was started over Server-Sent Events until it ends, fails or goes quiet.

import { api, showError } from './api.js';
import { follow } from './live.js';

/** root: the element whose data-state says idle, running, done or error; the other three are element ids. */
export function workPanel({ root, status, start, cancel }) {
  const $ = (id) => document.getElementById(id);
  let current = null;
  const panel = {
    setState: (state) => {
      root.dataset.state = state;
    },
    say: (text) => {
      $(status).textContent = text;
    },
    /** A progress line, also kept to repeat when the stream goes quiet. */
    progress: (text) => {
      $(status).dataset.last = text;
      panel.say(text);
    },
    setBusy: (busy) => {
      $(start).disabled = busy;
      $(cancel).disabled = !busy;
    },
    /**
     * kind: 'runs', 'suites', 'comparisons', 'checkups' or a lesson's experiments; what: how the status line names it;
     * handlers: progress, run, final, and silent(quiet, why) when the panel says more than "No news" in a quiet stream.
     */
    follow: (kind, id, what, handlers) => {
      current = { path: `/api/${kind}/${id}`, stop: null };
      const noNews = (quiet, why) => panel.say(`No news for ${quiet} s (${why}); the ${what} goes on — ${$(status).dataset.last ?? 'waiting for the first call'}.`);
      current.stop = follow(kind, id, {
        ...handlers,
        silent: (quiet, why) => (handlers.silent ?? noNews)(quiet, why, noNews),
        lost: (message) => panel.fail(new Error(message)),
      });
    },
    /**
     * Posts what the panel starts and answers the gateway's answer, or null when it did not start: a refusal made here
     * (a sentence) or the gateway's (its problem's own sentence) is said as "Not started: …".
     */
    post: async (path, { body, refusal }) => {
      if (refusal) {
        panel.setState('error');
        panel.say(`Not started: ${refusal}`);
        return null;
      }
      panel.setBusy(true);
      panel.setState('running');
      panel.say('Starting…');
      try {
        return await api(path, { method: 'POST', body });
      } catch (failure) {
        panel.setBusy(false);
        panel.setState('error');
        panel.say(`Not started: ${failure.detail ?? failure.message}`);
        return null;
      }
    },
    /** What was followed has ended: Start again, Cancel off. */
    ended: () => {
      panel.setBusy(false);
      current = null;
    },
    cancel: async () => {
      if (!current) return;
      panel.say('Cancelling…');
      await api(`${current.path}/cancel`, { method: 'POST' });
    },
    fail: (failure) => {
      showError(failure);
      panel.say(`Stopped: ${failure.message}`);
      current?.stop?.();
      panel.ended();
      panel.setState('error');
    },
  };
  return panel;
}
