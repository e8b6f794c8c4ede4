// The history nsqadmin keeps itself (GET /api/history/..., when there is no
// --graphite-url): one larger chart of a page's main series and a sparkline
// per series, each showing the value under the pointer.
//
// Pages are rebuilt at every refresh; a chart rebuilt under the pointer
// would lose its hover, so each page's section element is kept here and
// moved into the new page, and only redrawn when a new sample arrived.
import {h} from './dom.js'
import {get, ApiError} from './api.js'
import {config} from './config.js'
import {lineChart, clock} from './charts.js'

const rate = (v) => `${v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')}/s`
const count = (v) => Math.round(v).toLocaleString('en-US')
const ms = (v) => `${(v / 1e6).toFixed(1)} ms`

const SERIES = {
  rate: ['Messages', rate],
  depth: ['Depth', count],
  in_flight: ['In-Flight', count],
  deferred: ['Deferred', count],
  requeue_rate: ['Requeued', rate],
  timeout_rate: ['Timed Out', rate],
  clients: ['Connections', count],
}

function describe(name) {
  if (SERIES[name]) return SERIES[name]
  const m = /^e2e_p(.+)$/.exec(name)
  if (m) return [`E2E p${m[1]}`, ms]
  return [name, count]
}

// Pages visited recently, by API path; a few kept so going back is instant.
const sections = new Map()
const KEEP = 8

function textOrNull(values, i, format) {
  const v = values[i]
  return v === null || v === undefined ? '–' : format(v)
}

function lastKnown(values) {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return i
  return -1
}

function chartBlock(d, name, big, testid) {
  const [label, format] = describe(name)
  const values = d.series[name]
  const times = d.time
  const latest = lastKnown(values)
  const readout = h('span', {class: 'value', 'data-testid': big ? `${testid}-readout` : null},
    latest < 0 ? '–' : format(values[latest]))
  const when = h('span', {class: 'when'}, latest < 0 ? '' : clock(times[latest]))
  const svg = lineChart(times, values, {
    width: big ? 760 : 180, height: big ? 200 : 40, axes: big, format, label, series: name,
    onHover: (i) => {
      const at = i === null ? latest : i
      readout.textContent = at < 0 ? '–' : textOrNull(values, at, format)
      when.textContent = at < 0 ? '' : clock(times[at])
    },
  })
  return h('figure', {class: big ? 'history-big' : 'history-spark', 'data-series': name},
    h('figcaption', null, h('span', {class: 'label'}, label), ' ', readout, ' ', when), svg)
}

function draw(sec, primary, testid) {
  const d = sec.data
  const span = config.historyIntervalMs ? `one sample every ${config.historyIntervalMs / 1000}s` : ''
  if (!d || !d.time.length) {
    sec.el.replaceChildren(h('h3', null, 'History'),
      h('p', {class: 'note', 'data-testid': `${testid}-empty`},
        sec.error || `Collecting: the first samples appear within a poll (${span}).`))
    return
  }
  const names = Object.keys(d.series)
  const main = names.includes(primary) ? primary : names[0]
  sec.el.replaceChildren(
    h('h3', null, 'History ', h('span', {class: 'note'},
      `since ${clock(d.time[0])}, ${span}; older points are averaged`)),
    chartBlock(d, main, true, testid),
    h('div', {class: 'sparks'}, names.map((n) => chartBlock(d, n, false, testid))))
}

function refresh(sec, path, primary, testid) {
  if (sec.loading) return
  sec.loading = true
  get(`/api/history/${path}`).then((d) => {
    const last = d.time.length ? d.time[d.time.length - 1] : null
    const changed = sec.error || !sec.data || last !== sec.last || d.time.length !== sec.data.time.length
    sec.data = d
    sec.last = last
    sec.error = null
    if (changed) draw(sec, primary, testid)
  }).catch((err) => {
    // 404: not sampled yet (a topic created since the last poll) or gone.
    sec.error = err instanceof ApiError && err.status === 404 ? null : `History unavailable: ${err.message}`
    sec.data = null
    draw(sec, primary, testid)
  }).finally(() => {
    sec.loading = false
  })
}

// The history section of a page: path is the API's ("topics/T",
// "topics/T/C", "nodes/N", each part encoded), primary the series of the
// larger chart. null when nsqadmin keeps no history (graphite draws instead).
export function historySection(testid, path, primary) {
  if (!config.historyEnabled) return null
  let sec = sections.get(path)
  if (!sec) {
    sec = {el: h('section', {class: 'history', 'data-testid': testid}), data: null, last: null,
      error: null, loading: false}
    sections.set(path, sec)
    if (sections.size > KEEP) sections.delete(sections.keys().next().value)
    draw(sec, primary, testid)
  }
  refresh(sec, path, primary, testid)
  return sec.el
}
