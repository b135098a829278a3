// What a run or a lesson calls: the configured targets (GET /api/targets), one of their methods, and the request's JSON,
// filled in from the method's template to edit, checked here as JSON before the run starts and by the gateway against the
// method. The pick (target and method, never the request, which may hold a token) is remembered across reloads.

import { api } from './api.js';
import { el } from './format.js';

const $ = (id) => document.getElementById(id);
// The built-in target's own call: the chapter's Monitor call, shaped by the delay and payload fields.
const chapterCall = '';
const pickKey = 'grpcbp.pick';
let targets = [];

export async function initTargets() {
  targets = await api('/api/targets');
  $('target').replaceChildren(...targets.map((target) => el('option', {
    text: target.builtIn ? `${target.name} (built-in)` : `${target.name} — ${target.address}`,
    attrs: { value: target.name },
  })));
  $('target').addEventListener('change', () => { showMethods(); remember(); });
  $('call').addEventListener('change', () => { showMethod(); remember(); });
  $('data').addEventListener('input', () => showProblem('data-problem', ''));
  restore();
}

/** The remembered pick, when its target and method still exist; else the first target's first call. */
function restore() {
  const saved = readPick();
  if (targets.some((target) => target.name === saved?.target)) $('target').value = saved.target;
  showMethods(saved?.call);
}

function readPick() {
  try {
    return JSON.parse(localStorage.getItem(pickKey) ?? 'null');
  } catch {
    return null;
  }
}

function remember() {
  localStorage.setItem(pickKey, JSON.stringify({ target: $('target').value, call: $('call').value }));
}

const picked = () => targets.find((target) => target.name === $('target').value);

/** call: the method to pick, when the target has it (a remembered pick); else the first. */
function showMethods(call) {
  const target = picked();
  const chapter = target?.builtIn ? [el('option', { text: 'the chapter\'s call (Monitor, with the delay and payload below)', attrs: { value: chapterCall } })] : [];
  $('call').replaceChildren(...chapter, ...(target?.methods ?? []).map((method) => el('option', {
    text: `${method.call} (${method.kind})`,
    attrs: { value: method.call },
  })));
  if (call !== undefined && [...$('call').options].some((option) => option.value === call)) $('call').value = call;
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
  // The lessons follow the pick: each card says where it will run, or why it cannot.
  document.dispatchEvent(new CustomEvent('target-picked'));
}

const pickedMethod = () => picked()?.methods.find((candidate) => candidate.call === $('call').value);

/**
 * Where the lessons run: { where, kind } of the picked target and method, in words, or null for the built-in service's
 * chapter call (the lessons' own design).
 */
export function pickedForLessons() {
  const method = pickedMethod();
  if (!method) return null;
  return { where: `${picked().name}'s ${method.call}`, call: method.call, kind: method.kind };
}

/** A described method's kind (ghz's words), from GET /api/targets; null when the target or method is not listed. */
export function kindOf(targetName, call) {
  return targets.find((target) => target.name === targetName)?.methods.find((method) => method.call === call)?.kind ?? null;
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

/**
 * A refusal of the run's target, method or data, shown next to them (and nowhere else); true when it was one. A suite's
 * refusal names the strategy it checked first ("For factory-client: …"), but the request is the same for each, so the
 * sentence stands without it.
 */
export function showRefusal(failure) {
  if (!callsMethod() || ![400, 503].includes(failure?.status)) return false;
  showProblem(failure.status === 503 ? 'target-problem' : 'data-problem', failure.detail?.replace(/^For [a-z-]+: /, ''));
  return true;
}
