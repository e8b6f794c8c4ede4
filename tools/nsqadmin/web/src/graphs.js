// With --graphite-url, links to the statsd series nsqd sends for a topic or
// channel (a rendered graph in graphite); nothing otherwise.
import {h} from './dom.js'
import {config} from './config.js'

export function graphLink(kind, topic, channel) {
  if (!config.graphEnabled) return null
  const key = kind === 'topic'
    ? `nsq.*.topic.${topic}.message_count`
    : `nsq.*.topic.${topic}.channel.${channel}.message_count`
  let series = key
  if (config.statsdCounterFormat) series = config.statsdCounterFormat.replace('%s', key)
  const target = `sumSeries(${series})`
  const href = `${config.graphiteUrl.replace(/\/$/, '')}/render?target=${encodeURIComponent(target)}&from=-2h`
  return h('p', {class: 'graph'}, h('a', {href, target: '_blank', rel: 'noopener'}, 'Graphite: message rate'))
}
