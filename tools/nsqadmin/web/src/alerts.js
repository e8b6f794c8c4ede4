// The alert area above the page: errors and warnings of the last refresh
// (replaced at every refresh) and outcomes of actions (kept until dismissed
// or replaced by the next action).
import {h} from './dom.js'

let pageAlerts = []
let actionAlert = null

function draw() {
  const box = document.getElementById('alerts')
  if (!box) return
  box.replaceChildren(...[...pageAlerts, actionAlert].filter(Boolean))
}

function alertNode(kind, text, testid) {
  return h('div', {class: `alert alert-${kind}`, role: 'alert', 'data-testid': testid},
    text.split('\n').map((line, i) => (i ? [h('br'), line] : line)))
}

// For the page's data: kind "error" (nothing could be loaded) or "warning"
// (some upstream failed; what loaded is shown below).
export function setPageAlerts(list) {
  pageAlerts = list.map(({kind, text}) => alertNode(kind, text, `page-${kind}`))
  draw()
}

export function showAlert(kind, text) {
  actionAlert = alertNode(kind, text, `action-${kind}`)
  actionAlert.appendChild(h('button', {
    class: 'close', type: 'button', title: 'dismiss',
    onclick: () => {
      actionAlert = null
      draw()
    },
  }, '×'))
  draw()
}

export function clearActionAlert() {
  actionAlert = null
  draw()
}
