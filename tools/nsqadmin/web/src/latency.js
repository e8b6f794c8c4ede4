// The end-to-end processing latency quantiles of a topic or channel, when
// nsqd measures them (--e2e-processing-latency-percentile).
import {h, table} from './dom.js'

// nsqd reports the quantiles in nanoseconds.
export function latencyTable(testid, e) {
  const ps = (e && e.percentiles) || []
  if (!ps.length) return null
  return [h('h3', null, 'E2E Processing Latency'),
    table(testid, ['Quantile', 'Average', 'Min', 'Max'], ps.map((p) => h('tr', null,
      h('td', null, `p${Math.round(p.quantile * 1000) / 10}`),
      h('td', {class: 'num'}, `${(p.average / 1e6).toFixed(1)} ms`),
      h('td', {class: 'num'}, `${(p.min / 1e6).toFixed(1)} ms`),
      h('td', {class: 'num'}, `${(p.max / 1e6).toFixed(1)} ms`))))]
}
