// The side panel page's entry point: binds the page's elements, connects
// to the service worker, and renders every change.

import { PanelController } from './controller.js';
import { bind, renderer } from './dom.js';

const els = bind(document);
const controller = new PanelController({
  connect: () => chrome.runtime.connect({ name: 'panel' }),
  render: renderer(els, (id, decision, minutes) =>
    controller.decide(id, decision, minutes),
  ),
});
controller.start();
