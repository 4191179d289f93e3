// A plan's part of its prompt (issue 30): the sites, the kinds of
// action, how long, and each high-risk item the plan names as a box the
// user ticks. Text goes in with textContent.

import { el, fact } from './el.js';

/**
 * A plan's parts: the sites, the kinds of action, how long, and each
 * high-risk item it names as a checkbox the user ticks (none ticked to
 * begin with: an item runs unasked only if the user ticks it).
 */
export function buildPlan(doc, id) {
  const box = el(doc, 'div', 'plan');
  const dl = el(doc, 'dl', 'plan-facts');
  const facts = {};
  for (const [label, key] of [
    ['Sites', 'origins'],
    ['Kinds of action', 'actions'],
    ['Lasts', 'lasts'],
  ]) {
    facts[key] = fact(doc, dl, label, `plan-${key}`)[1];
  }
  const high = el(doc, 'fieldset', 'plan-high');
  const legend = el(
    doc,
    'legend',
    '',
    'High-risk actions it names — tick those it may do without asking you:',
  );
  const list = el(doc, 'ul', 'ticks');
  high.append(legend, list);
  box.append(dl, high);
  const boxes = [];
  let shown = '';
  return {
    box,
    update(plan) {
      box.hidden = !plan;
      if (!plan) return;
      facts.origins.textContent = plan.origins.join(', ');
      facts.actions.textContent = plan.actions.join(', ');
      facts.lasts.textContent = plan.lasts;
      high.hidden = plan.high.length === 0;
      const key = JSON.stringify(plan.high);
      if (key === shown) return;
      shown = key;
      boxes.length = 0;
      list.replaceChildren(
        ...plan.high.map((words, i) => {
          const item = el(doc, 'li', 'tick');
          const label = el(doc, 'label', '');
          const input = el(doc, 'input', 'tick-box');
          input.type = 'checkbox';
          input.checked = false;
          input.id = `prompt-${id}-tick-${i}`;
          label.setAttribute('for', input.id);
          label.append(input, el(doc, 'span', 'tick-text', words));
          boxes.push(input);
          item.append(label);
          return item;
        }),
      );
    },
    /** The indexes of the ticked items. */
    ticked: () => boxes.flatMap((b, i) => (b.checked ? [i] : [])),
  };
}
