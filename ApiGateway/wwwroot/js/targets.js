// What a run calls: the configured targets (GET /api/targets), one of their methods, and the request's JSON, filled in
// from the method's template to edit, checked here as JSON before the run starts and by the gateway against the method.

import { api } from './api.js';
import { el } from './format.js';

const $ = (id) => document.getElementById(id);
// The built-in target's own call: the chapter's Monitor call, shaped by the delay and payload fields.
const chapterCall = '';
let targets = [];

export async function initTargets() {
  targets = await api('/api/targets');
  $('target').replaceChildren(...targets.map((target) => el('option', {
    text: target.builtIn ? `${target.name} (built-in)` : `${target.name} — ${target.address}`,
    attrs: { value: target.name },
  })));
  $('target').addEventListener('change', showMethods);
  $('call').addEventListener('change', showMethod);
  $('data').addEventListener('input', () => showProblem('data-problem', ''));
  showMethods();
}

const picked = () => targets.find((target) => target.name === $('target').value);

function showMethods() {
  const target = picked();
  const chapter = target?.builtIn ? [el('option', { text: 'the chapter\'s call (Monitor, with the delay and payload below)', attrs: { value: chapterCall } })] : [];
  $('call').replaceChildren(...chapter, ...(target?.methods ?? []).map((method) => el('option', {
    text: `${method.call} (${method.kind})`,
    attrs: { value: method.call },
  })));
  showProblem('target-problem', target && !target.reachable ? target.problem : '');
  showMethod();
}

function showMethod() {
  const method = picked()?.methods.find((candidate) => candidate.call === $('call').value);
  $('call-kind').textContent = method ? method.kind : '';
  $('data-field').hidden = !method;
  $('data').value = method ? method.requestTemplate : '';
  // The delay and payload shape the built-in service's answer only.
  document.querySelectorAll('[data-builtin]').forEach((label) => { label.hidden = Boolean(method); });
  showProblem('data-problem', '');
}

function showProblem(id, sentence) {
  $(id).textContent = sentence ?? '';
  $(id).hidden = !sentence;
}

/** Whether the form names a method of a target (then delay and payload are not the run's). */
export const callsMethod = () => Boolean($('call').value);

/**
 * The run's target, call and data, or null (the problem shown next to the request) when the request is not JSON. Data
 * with ghz templates is JSON only once rendered, so the gateway checks it.
 */
export function readTarget() {
  const target = $('target').value;
  const call = $('call').value;
  if (!call) return target && !picked()?.builtIn ? { target } : {};
  const data = $('data').value.trim();
  if (data && !data.includes('{{')) {
    try {
      JSON.parse(data);
    } catch (failure) {
      showProblem('data-problem', `The request is not JSON: ${failure.message}. Fix it, or pick the method again for its template.`);
      $('data').focus();
      return null;
    }
  }
  return { target, call, data: data || undefined };
}

/** A refusal of the run's target, method or data, shown next to them too; true when it was one. */
export function showRefusal(failure) {
  if (!callsMethod() || ![400, 503].includes(failure?.status)) return false;
  showProblem(failure.status === 503 ? 'target-problem' : 'data-problem', failure.detail);
  return true;
}
