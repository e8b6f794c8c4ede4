// One channel: totals, per-node rows and its clients.
import {h, num, table, duration} from './dom.js'
import {get, enc, noProducers} from './api.js'
import {rate, rateText} from './rates.js'
import {channelActions} from './actions.js'
import {stat} from './pages_topics.js'
import {graphiteSection} from './graphs.js'
import {historySection} from './history.js'
import {latencyTable} from './latency.js'
import {peekSection} from './peek.js'

function features(c) {
  const f = []
  if (c.tls) f.push(`TLS${c.tls_version ? ' ' + c.tls_version : ''}`)
  if (c.snappy) f.push('snappy')
  if (c.deflate) f.push('deflate')
  if (c.sample_rate) f.push(`sampled ${c.sample_rate}%`)
  if (c.authed) f.push(`authed${c.auth_identity ? ' as ' + c.auth_identity : ''}`)
  return f.map((x) => h('span', {class: 'badge'}, x))
}

// Topology-aware consumption (nsqd --enable-experiment): where a client runs
// relative to its nsqd; '' when neither side has a topology.
function locality(c) {
  if (!c.topology_zone && !c.topology_region) return ''
  if (c.node_topology_zone && c.topology_zone === c.node_topology_zone) return 'zone-local'
  if (c.node_topology_region && c.topology_region === c.node_topology_region) return 'region-local'
  return 'remote'
}

const closeness = {'zone-local': 0, 'region-local': 1, 'remote': 2, '': 3}

// By node, then the closest first (as Go master's nsqadmin).
function byNodeThenTopology(a, b) {
  if (a.node !== b.node) return a.node < b.node ? -1 : 1
  const d = closeness[locality(a)] - closeness[locality(b)]
  if (d !== 0) return d
  const ta = `${a.topology_region || ''}/${a.topology_zone || ''}`
  const tb = `${b.topology_region || ''}/${b.topology_zone || ''}`
  return ta < tb ? -1 : ta > tb ? 1 : 0
}

function topologyCell(cl) {
  const where = [cl.topology_region, cl.topology_zone].filter(Boolean).join(' / ')
  const l = locality(cl)
  return h('td', {'data-locality': l}, where, l ? h('span', {class: 'badge'}, l) : null)
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
    const clients = [...(c.clients || [])].sort(byNodeThenTopology)
    const withTopology = clients.some((cl) => locality(cl) !== '')
    const byLocality = c.zone_local_msg_count || c.region_local_msg_count || c.global_msg_count
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
        stat('Connections', num(c.client_count), 'channel-connections'),
        byLocality ? stat('Zone-Local', num(c.zone_local_msg_count || 0), 'channel-zone-local') : null,
        byLocality ? stat('Region-Local', num(c.region_local_msg_count || 0), 'channel-region-local') : null,
        byLocality ? stat('Global', num(c.global_msg_count || 0), 'channel-global') : null,
        c.expired_count ? stat('Expired (TTL)', num(c.expired_count), 'channel-expired') : null,
        c.dead_letter_count ? stat('Dead-Lettered', num(c.dead_letter_count), 'channel-dead-lettered') : null,
        c.discarded_count ? stat('Discarded', num(c.discarded_count), 'channel-discarded') : null,
        c.max_attempts ? stat('Max Attempts', num(c.max_attempts), 'channel-max-attempts') : null,
        c.dead_letter_topic ? stat('Dead-Letter Topic',
          ctx.link(`/topics/${enc(c.dead_letter_topic)}`, c.dead_letter_topic), 'channel-dead-letter-topic') : null,
        c.message_ttl ? stat('Message TTL', c.message_ttl, 'channel-message-ttl') : null,
        c.max_depth ? stat('Max Depth', `${num(c.max_depth)} (${c.depth_policy})`, 'channel-max-depth') : null,
        c.dropped_count ? stat('Dropped (Max Depth)', num(c.dropped_count), 'channel-dropped') : null),
      graphiteSection('channel-graphite', c.graphite),
      historySection('channel-history', `topics/${enc(topic)}/${enc(channel)}`, 'rate'),
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
      peekSection(topic, channel),
      h('h3', null, 'Clients'),
      table('channel-clients',
        ['Client Host', 'Client ID', 'Address', 'User-Agent', 'Features',
          ...(withTopology ? ['Topology'] : []), 'NSQd Host', 'RDY',
          'In-Flight', 'Finished', 'Requeued', 'Messages', 'Connected'],
        clients.map((cl) => h('tr', null,
          h('td', null, cl.hostname),
          h('td', null, cl.client_id),
          h('td', null, cl.remote_address),
          h('td', null, cl.user_agent || cl.version),
          h('td', null, features(cl)),
          withTopology ? topologyCell(cl) : null,
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
