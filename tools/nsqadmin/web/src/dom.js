import {sortable} from './sort.js'

// A tiny DOM builder: h('td', {class: 'num'}, 'text', childNode, ...).
// Attributes starting with "on" are event listeners; null/false children
// are skipped, arrays are flattened. Text is always set as text (never as
// HTML), so names coming from the cluster cannot inject markup.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2).toLowerCase(), value)
    } else {
      el.setAttribute(key, value === true ? '' : String(value))
    }
  }
  append(el, children)
  return el
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(el, child)
    else if (child instanceof Node) el.appendChild(child)
    else el.appendChild(document.createTextNode(String(child)))
  }
}

// 1234567 -> "1,234,567"
export function num(n) {
  return Number(n || 0).toLocaleString('en-US')
}

// A table with a header row; rows is an array of <tr> (or an empty-state
// text). A column whose cells are numbers (td.num) gets a th.num too, so the
// header sits over its right-aligned numbers. Sortable by its headers unless
// opts.sortable is false (rows that belong together, such as a topic and its
// channels, must not be sorted apart).
export function table(testid, headers, rows, empty = 'none', opts = {}) {
  const numeric = headers.map((_, i) => rows.length > 0 && rows.some((r) => {
    const cell = r.cells && r.cells[i]
    return cell && cell.classList.contains('num')
  }))
  const t = h('table', {class: 'grid', 'data-testid': testid},
    h('thead', null, h('tr', null, headers.map((x, i) => h('th', {class: numeric[i] ? 'num' : null}, x)))),
    h('tbody', null, rows.length ? rows
      : h('tr', null, h('td', {colspan: headers.length, class: 'empty'}, empty))))
  return opts.sortable === false ? t : sortable(t, testid)
}

// Go-style duration text from nanoseconds: "1h2m3s".
export function duration(ns) {
  let s = Math.max(0, Math.floor(Number(ns || 0) / 1e9))
  const hours = Math.floor(s / 3600)
  s -= hours * 3600
  const minutes = Math.floor(s / 60)
  s -= minutes * 60
  return (hours ? `${hours}h` : '') + (hours || minutes ? `${minutes}m` : '') + `${s}s`
}
