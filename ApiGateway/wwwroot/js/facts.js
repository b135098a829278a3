// The engine's rules the page shows — the loads, the payload's default and limit, the charts' palette — read once from
// GET /api/plan-facts, so the page keeps no copy of them (the HTML reports take the same palette from the same place).

import { api, showError } from './api.js';

export const facts = await api('/api/plan-facts').catch((failure) => {
  showError(failure);
  throw failure;
});

/** The facts of one load by its name ("open"), or undefined for "the strategy's own". */
export const loadFact = (name) => facts.loads.find((load) => load.name === name);
