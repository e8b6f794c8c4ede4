// Line charts as inline SVG, no charting library: a page draws a few dozen
// points per series, which a polyline does well. Used for nsqadmin's own
// history (history.js): small sparklines and one larger chart with axes.
//
// The <svg> carries what a reader needs to turn its points back into values
// (data-y-min/max and the plot's pixel top/bottom): the browser test checks
// the drawn line against the published rate that way.

const SVG_NS = 'http://www.w3.org/2000/svg'

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) el.setAttribute(k, String(v))
  }
  for (const c of children) {
    if (c === null || c === undefined) continue
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)))
  }
  return el
}

export function clock(ms) {
  return new Date(ms).toLocaleTimeString('en-GB')
}

// A y range starting at 0 (counts and rates are never negative, and a chart
// whose floor moves makes a small wobble look like a cliff), topped at a
// round number above the largest value.
function yMax(values) {
  let max = 0
  for (const v of values) if (v !== null && v > max) max = v
  if (max <= 0) return 1
  const step = 10 ** Math.floor(Math.log10(max))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= max) return m * step
  return 10 * step
}

// Splits the points at nulls (unknown samples) so a gap shows as a gap.
function segments(xs, ys, values) {
  const out = []
  let cur = []
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null || values[i] === undefined) {
      if (cur.length) out.push(cur)
      cur = []
    } else {
      cur.push(`${xs[i].toFixed(1)},${ys[i].toFixed(1)}`)
    }
  }
  if (cur.length) out.push(cur)
  return out
}

// The nearest sample to time t (times ascending).
function nearest(times, t) {
  let lo = 0
  let hi = times.length - 1
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (times[mid] <= t) lo = mid
    else hi = mid
  }
  return Math.abs(times[hi] - t) < Math.abs(times[lo] - t) ? hi : lo
}

// An SVG line chart of values (null = unknown) over times (Unix ms).
// opts: width, height (the viewBox), axes (labels and grid), format (value
// -> text), label, series (its name, for data-series), onHover(index|null).
export function lineChart(times, values, opts) {
  const {width, height, axes = false, format = String, label = '', series = ''} = opts
  const pad = axes ? {left: 56, right: 12, top: 10, bottom: 22} : {left: 2, right: 2, top: 3, bottom: 3}
  const plotW = width - pad.left - pad.right
  const plotH = height - pad.top - pad.bottom
  const top = yMax(values)
  const t0 = times.length ? times[0] : 0
  const t1 = times.length ? times[times.length - 1] : 1
  const x = (t) => pad.left + (t1 > t0 ? ((t - t0) / (t1 - t0)) * plotW : plotW / 2)
  const y = (v) => pad.top + plotH - (v / top) * plotH
  const xs = times.map(x)
  const ys = values.map((v) => (v === null ? 0 : y(v)))

  const svg = s('svg', {
    class: axes ? 'chart big' : 'chart spark', viewBox: `0 0 ${width} ${height}`,
    role: 'img', 'aria-label': label, 'data-series': series, 'data-count': values.length,
    'data-y-min': 0, 'data-y-max': top, 'data-plot-top': pad.top, 'data-plot-bottom': pad.top + plotH,
  })
  if (axes) {
    for (const f of [0, 0.5, 1]) {
      const gy = y(top * f)
      svg.appendChild(s('line', {class: 'grid', x1: pad.left, x2: pad.left + plotW, y1: gy, y2: gy}))
      svg.appendChild(s('text', {class: 'tick', x: pad.left - 6, y: gy + 4, 'text-anchor': 'end'},
        format(top * f)))
    }
    if (times.length) {
      svg.appendChild(s('text', {class: 'tick', x: pad.left, y: height - 6}, clock(t0)))
      svg.appendChild(s('text', {class: 'tick', x: pad.left + plotW, y: height - 6, 'text-anchor': 'end'},
        clock(t1)))
    }
  }
  for (const seg of segments(xs, ys, values)) {
    svg.appendChild(s('polyline', {class: 'line', points: seg.join(' ')}))
    if (seg.length === 1) {  // a lone point has no line: show it as a dot
      const [px, py] = seg[0].split(',')
      svg.appendChild(s('circle', {class: 'dot', cx: px, cy: py, r: axes ? 2.5 : 1.5}))
    }
  }

  // Hover: a guide line and a marker at the nearest sample; the caller
  // shows the value (onHover), since text inside a tiny sparkline is unreadable.
  const guide = s('line', {class: 'guide', x1: 0, x2: 0, y1: pad.top, y2: pad.top + plotH, visibility: 'hidden'})
  const marker = s('circle', {class: 'marker', r: axes ? 4 : 2.5, visibility: 'hidden'})
  svg.appendChild(guide)
  svg.appendChild(marker)
  const hide = () => {
    guide.setAttribute('visibility', 'hidden')
    marker.setAttribute('visibility', 'hidden')
    if (opts.onHover) opts.onHover(null)
  }
  svg.addEventListener('mousemove', (ev) => {
    if (!times.length) return
    const box = svg.getBoundingClientRect()
    if (!box.width) return
    // The viewBox scales uniformly (meet): map the pointer back into it.
    const scale = Math.min(box.width / width, box.height / height)
    const offsetX = (box.width - width * scale) / 2
    const vx = (ev.clientX - box.left - offsetX) / scale
    const t = t0 + (t1 > t0 ? ((vx - pad.left) / plotW) * (t1 - t0) : 0)
    const i = nearest(times, t)
    guide.setAttribute('x1', xs[i])
    guide.setAttribute('x2', xs[i])
    guide.setAttribute('visibility', 'visible')
    if (values[i] === null) {
      marker.setAttribute('visibility', 'hidden')
    } else {
      marker.setAttribute('cx', xs[i])
      marker.setAttribute('cy', ys[i])
      marker.setAttribute('visibility', 'visible')
    }
    if (opts.onHover) opts.onHover(i)
  })
  svg.addEventListener('mouseleave', hide)
  return svg
}
