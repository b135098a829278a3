// A run shared among load agents: the command that starts each waiting agent (with a Copy button), each shard's state,
// calls and own percentiles, and the sentence that says what the run waits for or why it is Partial.

import { api, showError } from './api.js';
import { el, ms, time, whole } from './format.js';

const $ = (id) => document.getElementById(id);
const pollMs = 1000;
let following = null;

/** The share in words: "1,000 calls" or "250 calls/s". */
const shareWords = (share) => (share.count !== null && share.count !== undefined ? `${whole(share.count)} calls` : `${whole(share.rate)} calls/s`);

/** Hides the panel: the run started is made by this gateway. */
export function hideAgents() {
  stopFollowingAgents();
  $('agents-panel').hidden = true;
}

/** run: GET /api/runs/{id} of a run with plan.agents; draws its shards. */
export function showAgents(run) {
  const reports = run.agentReports ?? [];
  const box = $('agents-panel');
  box.hidden = false;
  box.dataset.state = run.state;
  box.dataset.runId = run.id;
  const waiting = reports.filter((report) => report.state === 'Waiting');
  $('agents-title').textContent = `Agents: ${reports.length} share ${run.plan.strategy}'s ${shareWords(run.plan)}`;
  $('agents-sentence').textContent = sentence(run, reports, waiting);
  $('agents-sentence').className = `agents-sentence state-${run.state}`;
  $('agent-commands').replaceChildren(...waiting.map(commandItem));
  $('agents-table').querySelector('tbody').replaceChildren(...reports.map((report) => shardRow(report, reports.length)));
}

function sentence(run, reports, waiting) {
  const count = reports.length;
  if (run.state === 'Running') {
    if (waiting.length === count) return `Waiting for ${count} agent${count === 1 ? '' : 's'}: start them with these commands (on this machine or any that reaches the service and the history).`;
    if (waiting.length) return `Waiting for ${waiting.length} of ${count} agents: start ${waiting.length === 1 ? 'it' : 'them'} with ${waiting.length === 1 ? 'this command' : 'these commands'}; the others are at work.`;
    return `${count} agents at work: ${whole(reports.reduce((sum, report) => sum + report.callsSoFar, 0))} calls so far.`;
  }
  const calls = whole(run.stats?.calls);
  const merged = `merged p50 ${ms(run.stats?.latency?.p50Ms)} ms, p99 ${ms(run.stats?.latency?.p99Ms)} ms, from their histograms`;
  if (run.state === 'Completed') return `Completed: ${count} agents made ${calls} calls; ${merged}.`;
  if (run.state === 'Partial') return `${run.error ?? 'Partial: some agent\'s share is missing.'} Not the whole plan: ${calls} calls, ${merged}.`;
  return `${run.state}: ${run.error ?? 'no reason given'}`;
}

function commandItem(report) {
  const code = el('code', { text: report.command });
  const copy = el('button', { text: 'Copy', attrs: { type: 'button', 'aria-label': `Copy the command that starts the agent of shard ${report.shard}` } });
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(report.command).then(() => {
      copy.textContent = 'Copied';
    }, (failure) => showError(new Error(`The command could not be copied (${failure.message}); select it and copy it by hand.`)));
  });
  return el('li', { attrs: { 'data-shard': String(report.shard) } }, [el('span', { className: 'shard', text: `Shard ${report.shard}:` }), code, copy]);
}

/** Shard and state first: in a narrow window (a projector) they stay in sight while the box scrolls. */
function shardRow(report, count) {
  const latency = report.stats?.latency;
  const seen = report.finishedAt ?? report.lastSeenAt;
  return el('tr', { attrs: { 'data-shard': String(report.shard) } }, [
    el('th', { text: `${report.shard}/${count}`, attrs: { scope: 'row' } }),
    el('td', { text: report.state, className: `state-${report.state}` }),
    el('td', { text: whole(report.stats?.calls ?? report.callsSoFar), className: 'num calls' }),
    el('td', { text: shareWords(report.share), className: 'num' }),
    el('td', { text: ms(latency?.p50Ms), className: 'num' }),
    el('td', { text: ms(latency?.p99Ms), className: 'num' }),
    el('td', { text: report.agent ? `${report.agent}${seen ? ` (seen ${time(seen)})` : ''}` : '—', className: 'agent' }),
    el('td', { text: report.error ?? '', className: 'error' }),
  ]);
}

/**
 * The shards are in the shared store, not in the run's event stream: read the run once a second while it runs, and
 * once more when it has ended. Resolves with the ended run.
 */
export function followAgents(id) {
  stopFollowingAgents();
  const current = { stopped: false, timer: 0 };
  following = current;
  return new Promise((resolve, reject) => {
    const read = async () => {
      if (current.stopped) return;
      try {
        const run = await api(`/api/runs/${id}`);
        if (current.stopped) return;
        showAgents(run);
        if (run.state !== 'Running') {
          current.stopped = true;
          resolve(run);
          return;
        }
      } catch (failure) {
        current.stopped = true;
        reject(failure);
        return;
      }
      current.timer = setTimeout(read, pollMs);
    };
    read();
  });
}

export function stopFollowingAgents() {
  if (!following) return;
  following.stopped = true;
  clearTimeout(following.timer);
  following = null;
}
