// With --graphite-url, nsqadmin's topic, channel and node answers carry a
// "graphite" part: chart image URLs of graphite's render API (or of
// nsqadmin's /render proxy) and the target of the message rate, read here
// through /api/graphite. Without it: nothing, and no request to graphite.
import {h} from './dom.js'
import {get, enc} from './api.js'

export function graphiteSection(testid, g) {
  if (!g) return null
  const rate = h('span', {class: 'value', 'data-testid': `${testid}-rate`}, '…')
  get(`/api/graphite?metric=rate&target=${enc(g.rate_target)}`)
    .then((d) => { rate.textContent = `${d.rate}/s` })
    .catch((err) => { rate.textContent = 'N/A'; rate.title = err.message })
  return h('section', {class: 'graphite', 'data-testid': testid},
    h('h3', null, 'Graphite'),
    h('p', null, 'Messages/s over the last statsd interval: ', rate),
    h('div', {class: 'charts'}, (g.charts || []).map((c) =>
      h('figure', {class: 'chart', 'data-metric': c.metric},
        h('img', {src: c.url, alt: c.title, loading: 'lazy'}),
        h('figcaption', null, c.title)))))
}
