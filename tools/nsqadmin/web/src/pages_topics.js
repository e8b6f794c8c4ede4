// The topics list and one topic.
import {h, num, table} from './dom.js'
import {get, enc, noProducers} from './api.js'
import {rate, rateText} from './rates.js'
import {topicActions, tombstoneButton} from './actions.js'
import {graphiteSection} from './graphs.js'
import {historySection} from './history.js'
import {latencyTable} from './latency.js'

export const topicsPage = {
  nav: 'topics',
  title: () => 'Topics',
  load: () => get('/api/topics'),
  render(data, ctx) {
    const topics = data.topics || []
    return h('section', null,
      h('h2', null, 'Topics'),
      table('topics-table', ['Topic'], topics.map((t) =>
        h('tr', null, h('td', null, ctx.link(`/topics/${enc(t)}`, t))))))
  },
}

function nodeRows(topic, nodes, ctx) {
  return nodes.map((n) => h('tr', {'data-node': n.node},
    h('td', null, ctx.link(`/nodes/${enc(n.node)}`, n.node)),
    h('td', {class: 'num'}, num(n.depth)),
    h('td', {class: 'num'}, num(n.memory_depth)),
    h('td', {class: 'num'}, num(n.backend_depth)),
    h('td', {class: 'num'}, num(n.message_count)),
    h('td', {class: 'num'}, rateText(rate(`topic:${topic}:${n.node}`, n.message_count))),
    h('td', null, n.paused ? h('span', {class: 'badge paused'}, 'paused') : ''),
    h('td', null, tombstoneButton(topic, n.node, ctx.refresh))))
}

function channelRows(topic, channels, ctx) {
  return channels.map((c) => h('tr', {'data-channel': c.channel_name},
    h('td', null, ctx.link(`/topics/${enc(topic)}/${enc(c.channel_name)}`, c.channel_name),
      c.paused ? h('span', {class: 'badge paused'}, 'paused') : null),
    h('td', {class: 'num'}, num(c.depth)),
    h('td', {class: 'num'}, num(c.memory_depth)),
    h('td', {class: 'num'}, num(c.backend_depth)),
    h('td', {class: 'num'}, num(c.in_flight_count)),
    h('td', {class: 'num'}, num(c.deferred_count)),
    h('td', {class: 'num'}, num(c.requeue_count)),
    h('td', {class: 'num'}, num(c.timeout_count)),
    h('td', {class: 'num'}, num(c.message_count)),
    h('td', {class: 'num'}, num(c.client_count))))
}

// Cluster mode (nsq-cpp): the topic's replicas as its leader reports them,
// each in sync or not and how many messages of the leader's log it has not
// confirmed.
function replicationSection(r) {
  if (!r) return null
  const lag = r.lag || {}
  const rows = (r.replicas || []).map((node) => {
    const leads = node === r.leader
    const inSync = (r.isr || []).includes(node)
    return h('tr', {'data-replica': node},
      h('td', null, node),
      h('td', null, leads ? h('span', {class: 'badge', 'data-testid': 'replica-leader'}, 'leader') : 'follower'),
      h('td', null, inSync ? 'yes' : h('span', {class: 'badge warn', 'data-testid': 'replica-out-of-sync'}, 'no')),
      h('td', {class: 'num'}, leads ? '' : (node in lag ? num(lag[node]) : '?')))
  })
  return h('div', {'data-testid': 'topic-replication'},
    h('h3', null, 'Replication'),
    h('div', {class: 'stats'},
      stat('Leader', r.leader || 'none', 'replication-leader'),
      stat('Epoch', num(r.epoch), 'replication-epoch'),
      stat('In sync', `${(r.isr || []).length} of ${(r.replicas || []).length}`, 'replication-isr')),
    table('topic-replicas', ['Replica', 'Role', 'In Sync', 'Lag (messages)'], rows, 'no replicas'))
}

export const topicPage = {
  nav: 'topics',
  title: (p) => `Topic ${p.topic}`,
  load: (p) => get(`/api/topics/${enc(p.topic)}`).catch((err) => {
    if (noProducers(err)) return {topic_name: p.topic, nodes: [], channels: [], no_producers: true}
    throw err
  }),
  render(t, ctx, p) {
    const topic = p.topic
    const r = rate(`topic:${topic}`, t.message_count)
    return h('section', null,
      h('h2', null, 'Topic ', h('span', {class: 'name', 'data-testid': 'topic-name'}, topic),
        t.paused ? h('span', {class: 'badge paused', 'data-testid': 'topic-paused'}, 'paused') : null),
      topicActions(topic, t.paused, ctx.refresh, ctx.navigate),
      t.no_producers ? h('p', {class: 'note', 'data-testid': 'topic-no-producers'},
        'No nsqd produces this topic.') : null,
      h('div', {class: 'stats'},
        stat('Depth', num(t.depth), 'topic-depth'),
        stat('Memory + Disk', `${num(t.memory_depth)} + ${num(t.backend_depth)}`, 'topic-mem-disk'),
        stat('Messages', num(t.message_count), 'topic-messages'),
        stat('Rate', rateText(r), 'topic-rate'),
        stat('Channels', num((t.channels || []).length), 'topic-channel-count')),
      graphiteSection('topic-graphite', t.graphite),
      historySection('topic-history', `topics/${enc(topic)}`, 'rate'),
      latencyTable('topic-latency', t.e2e_processing_latency),
      replicationSection(t.replication),
      h('h3', null, 'Nodes'),
      table('topic-nodes', ['NSQd Host', 'Depth', 'Memory', 'Disk', 'Messages', 'Rate', '', ''],
        nodeRows(topic, t.nodes || [], ctx), 'no nsqd produces this topic'),
      h('h3', null, 'Channels'),
      table('topic-channels',
        ['Channel', 'Depth', 'Memory', 'Disk', 'In-Flight', 'Deferred', 'Requeued', 'Timed Out',
          'Messages', 'Connections'],
        channelRows(topic, t.channels || [], ctx), 'no channels'))
  },
}

export function stat(label, value, testid) {
  return h('div', {class: 'stat'},
    h('div', {class: 'label'}, label),
    h('div', {class: 'value', 'data-testid': testid}, value))
}
