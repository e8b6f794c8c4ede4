// One channel: totals, per-node rows and its clients.
import {h, num, table, duration} from './dom.js'
import {get, enc, noProducers} from './api.js'
import {rate, rateText} from './rates.js'
import {channelActions} from './actions.js'
import {stat} from './pages_topics.js'
import {graphiteSection} from './graphs.js'
import {latencyTable} from './latency.js'

function features(c) {
  const f = []
  if (c.tls) f.push(`TLS${c.tls_version ? ' ' + c.tls_version : ''}`)
  if (c.snappy) f.push('snappy')
  if (c.deflate) f.push('deflate')
  if (c.sample_rate) f.push(`sampled ${c.sample_rate}%`)
  if (c.authed) f.push(`authed${c.auth_identity ? ' as ' + c.auth_identity : ''}`)
  return f.map((x) => h('span', {class: 'badge'}, x))
}

export const channelPage = {
  nav: 'topics',
  title: (p) => `Channel ${p.topic}/${p.channel}`,
  load: (p) => get(`/api/topics/${enc(p.topic)}/${enc(p.channel)}`).catch((err) => {
    if (noProducers(err)) return {nodes: [], clients: [], no_producers: true}
    throw err
  }),
  render(c, ctx, p) {
    const {topic, channel} = p
    const r = rate(`channel:${topic}:${channel}`, c.message_count)
    return h('section', null,
      h('h2', null, 'Topic ', ctx.link(`/topics/${enc(topic)}`, topic), ' / Channel ',
        h('span', {class: 'name', 'data-testid': 'channel-name'}, channel),
        c.paused ? h('span', {class: 'badge paused', 'data-testid': 'channel-paused'}, 'paused') : null),
      channelActions(topic, channel, c.paused, ctx.refresh, ctx.navigate),
      c.no_producers ? h('p', {class: 'note', 'data-testid': 'channel-no-producers'},
        'No nsqd produces this topic.') : null,
      h('div', {class: 'stats'},
        stat('Depth', num(c.depth), 'channel-depth'),
        stat('Memory + Disk', `${num(c.memory_depth)} + ${num(c.backend_depth)}`, 'channel-mem-disk'),
        stat('In-Flight', num(c.in_flight_count), 'channel-in-flight'),
        stat('Deferred', num(c.deferred_count), 'channel-deferred'),
        stat('Requeued', num(c.requeue_count), 'channel-requeued'),
        stat('Timed Out', num(c.timeout_count), 'channel-timed-out'),
        stat('Messages', num(c.message_count), 'channel-messages'),
        stat('Rate', rateText(r), 'channel-rate'),
        stat('Connections', num(c.client_count), 'channel-connections')),
      graphiteSection('channel-graphite', c.graphite),
      latencyTable('channel-latency', c.e2e_processing_latency),
      h('h3', null, 'Nodes'),
      table('channel-nodes',
        ['NSQd Host', 'Depth', 'Memory', 'Disk', 'In-Flight', 'Deferred', 'Requeued', 'Timed Out',
          'Messages', 'Connections', ''],
        (c.nodes || []).map((n) => h('tr', {'data-node': n.node},
          h('td', null, ctx.link(`/nodes/${enc(n.node)}`, n.node)),
          h('td', {class: 'num'}, num(n.depth)),
          h('td', {class: 'num'}, num(n.memory_depth)),
          h('td', {class: 'num'}, num(n.backend_depth)),
          h('td', {class: 'num'}, num(n.in_flight_count)),
          h('td', {class: 'num'}, num(n.deferred_count)),
          h('td', {class: 'num'}, num(n.requeue_count)),
          h('td', {class: 'num'}, num(n.timeout_count)),
          h('td', {class: 'num'}, num(n.message_count)),
          h('td', {class: 'num'}, num(n.client_count)),
          h('td', null, n.paused ? h('span', {class: 'badge paused'}, 'paused') : ''))),
        'no nsqd has this channel'),
      h('h3', null, 'Clients'),
      table('channel-clients',
        ['Client Host', 'Client ID', 'Address', 'User-Agent', 'Features', 'NSQd Host', 'RDY',
          'In-Flight', 'Finished', 'Requeued', 'Messages', 'Connected'],
        (c.clients || []).map((cl) => h('tr', null,
          h('td', null, cl.hostname),
          h('td', null, cl.client_id),
          h('td', null, cl.remote_address),
          h('td', null, cl.user_agent || cl.version),
          h('td', null, features(cl)),
          h('td', null, ctx.link(`/nodes/${enc(cl.node)}`, cl.node)),
          h('td', {class: 'num'}, num(cl.ready_count)),
          h('td', {class: 'num'}, num(cl.in_flight_count)),
          h('td', {class: 'num'}, num(cl.finish_count)),
          h('td', {class: 'num'}, num(cl.requeue_count)),
          h('td', {class: 'num'}, num(cl.message_count)),
          h('td', null, duration(cl.connected)))),
        'no clients connected'))
  },
}
