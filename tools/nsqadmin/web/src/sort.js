// Sortable tables: a click on a header sorts the rows by that column, a
// second click reverses it. Numbers sort as numbers ("1,200" after "300",
// "12.5/s" by 12.5); cells without one ("–") go last either way.
//
// Pages are rebuilt at every refresh, so the chosen order is kept here by
// table (its data-testid) and applied again to each new table.
const chosen = new Map()  // testid -> {col, desc}

// The number a cell starts with, or null: "1,234" -> 1234, "3.5 ms" -> 3.5.
export function cellNumber(text) {
  const m = /^[-+]?\d[\d,]*(\.\d+)?/.exec(text.trim())
  return m ? Number(m[0].replace(/,/g, '')) : null
}

function key(row, col) {
  const cell = row.cells[col]
  if (!cell) return {n: null, s: ''}
  const text = cell.dataset.sort ?? cell.textContent
  return {n: cellNumber(text), s: text.trim()}
}

// Ascending order of two cell keys; null numbers and empty text last.
function compare(a, b) {
  if (a.n !== null && b.n !== null) return a.n - b.n
  if (a.n !== null) return -1
  if (b.n !== null) return 1
  if (!a.s !== !b.s) return a.s ? -1 : 1
  return a.s.localeCompare(b.s, 'en', {numeric: true})
}

function apply(table, testid) {
  const state = chosen.get(testid)
  const ths = table.tHead.rows[0].cells
  for (let i = 0; i < ths.length; i++) {
    const on = state && state.col === i
    if (on) ths[i].setAttribute('aria-sort', state.desc ? 'descending' : 'ascending')
    else ths[i].removeAttribute('aria-sort')
  }
  if (!state) return
  const body = table.tBodies[0]
  const rows = [...body.rows].filter((r) => !r.querySelector('td.empty'))
  const keyed = rows.map((r, i) => ({r, i, k: key(r, state.col)}))
  keyed.sort((a, b) => {
    const bothKnown = (a.k.n !== null) === (b.k.n !== null) && !a.k.s === !b.k.s
    let c = compare(a.k, b.k)
    if (state.desc && bothKnown) c = -c  // unknown cells stay last when reversed
    return c || a.i - b.i  // stable: equal cells keep the server's order
  })
  for (const {r} of keyed) body.appendChild(r)
}

// Makes table's headers (those with text) sort it; call once per table.
export function sortable(table, testid) {
  const ths = table.tHead.rows[0].cells
  for (let i = 0; i < ths.length; i++) {
    const th = ths[i]
    if (!th.textContent.trim()) continue
    th.classList.add('sortable')
    th.tabIndex = 0
    th.title = 'Sort by this column (again to reverse)'
    const click = () => {
      const cur = chosen.get(testid)
      chosen.set(testid, {col: i, desc: cur && cur.col === i ? !cur.desc : false})
      apply(table, testid)
    }
    th.addEventListener('click', click)
    th.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault()
        click()
      }
    })
  }
  apply(table, testid)
  return table
}
