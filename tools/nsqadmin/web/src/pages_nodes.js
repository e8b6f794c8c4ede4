// The nodes list and one node.
import {h, num, table} from './dom.js'
import {get, enc} from './api.js'
import {config} from './config.js'
import {stat} from './pages_topics.js'
import {tombstoneButton} from './actions.js'
import {graphiteSection} from './graphs.js'
import {historySection} from './history.js'

export const nodesPage = {
  nav: 'nodes',
  title: () => 'Nodes',
  load: () => get('/api/nodes'),
  render(data, ctx) {
    const nodes = data.nodes || []
    const withTopology = nodes.some((n) => n.topology_zone || n.topology_region)
    const addr = (n) => (n.broadcast_address.includes(':') ? `[${n.broadcast_address}]` : n.broadcast_address)
    return h('section', null,
      h('h2', null, 'NSQd Nodes ', h('span', {class: 'count', 'data-testid': 'node-count'}, `(${nodes.length})`)),
      table('nodes-table',
        ['Hostname', 'Broadcast Address', 'TCP Port', 'HTTP Port', 'Version',
          withTopology ? 'Topology' : null,
          config.lookupd.length ? 'Lookupd Conns.' : null, 'Topics'].filter((x) => x !== null),
        nodes.map((n) => h('tr', {'data-node': `${addr(n)}:${n.http_port}`},
          h('td', null, n.hostname),
          h('td', null, ctx.link(`/nodes/${enc(`${addr(n)}:${n.http_port}`)}`, n.broadcast_address)),
          h('td', {class: 'num'}, n.tcp_port),
          h('td', {class: 'num'}, n.http_port),
          h('td', null, n.version, n.out_of_date ? h('span', {class: 'badge warn'}, 'out of date') : null),
          withTopology ? h('td', {'data-testid': 'node-topology'},
            [n.topology_region, n.topology_zone].filter(Boolean).join(' / ')) : null,
          config.lookupd.length ? h('td', null, (n.remote_addresses || []).map((a) => h('div', null, a))) : null,
          h('td', null, (n.topics || []).map((t) => h('span', {class: t.tombstoned ? 'badge tombstoned' : 'badge'},
            ctx.link(`/topics/${enc(t.topic)}`, t.topic), t.tombstoned ? ' (tombstoned)' : ''))))),
        'no nsqd nodes'))
  },
}

export const nodePage = {
  nav: 'nodes',
  title: (p) => `Node ${p.node}`,
  load: (p) => get(`/api/nodes/${enc(p.node)}`),
  render(d, ctx, p) {
    const topics = d.topics || []
    let channels = 0
    for (const t of topics) channels += (t.channels || []).length
    return h('section', null,
      h('h2', null, 'NSQd ', h('span', {class: 'name', 'data-testid': 'node-name'}, p.node),
        d.draining ? h('span', {class: 'badge warn', 'data-testid': 'node-draining'}, 'draining') : null),
      d.draining ? h('p', {class: 'note'},
        'Draining: it takes no new messages and exits once every queue is delivered.') : null,
      h('div', {class: 'stats'},
        stat('Topics', num(topics.length), 'node-topics'),
        stat('Channels', num(channels), 'node-channels'),
        stat('Messages', num(d.total_messages), 'node-messages'),
        stat('Clients', num(d.total_clients), 'node-clients')),
      graphiteSection('node-graphite', d.graphite),
      historySection('node-history', `nodes/${enc(p.node)}`, 'clients'),
      table('node-table',
        ['Topic / Channel', 'Depth', 'Memory + Disk', 'In-Flight', 'Deferred', 'Requeued',
          'Timed Out', 'Messages', 'Connections', ''],
        topics.flatMap((t) => [
          h('tr', {class: 'topic-row'},
            h('td', null, ctx.link(`/topics/${enc(t.topic_name)}`, t.topic_name),
              t.paused ? h('span', {class: 'badge paused'}, 'paused') : null),
            h('td', {class: 'num'}, num(t.depth)),
            h('td', {class: 'num'}, `${num(t.memory_depth)} + ${num(t.backend_depth)}`),
            h('td'), h('td'), h('td'), h('td'),
            h('td', {class: 'num'}, num(t.message_count)),
            h('td'),
            h('td', null, tombstoneButton(t.topic_name, p.node, ctx.refresh))),
          ...(t.channels || []).map((c) => h('tr', {class: 'channel-row'},
            h('td', {class: 'indent'},
              ctx.link(`/topics/${enc(t.topic_name)}/${enc(c.channel_name)}`, c.channel_name),
              c.paused ? h('span', {class: 'badge paused'}, 'paused') : null),
            h('td', {class: 'num'}, num(c.depth)),
            h('td', {class: 'num'}, `${num(c.memory_depth)} + ${num(c.backend_depth)}`),
            h('td', {class: 'num'}, num(c.in_flight_count)),
            h('td', {class: 'num'}, num(c.deferred_count)),
            h('td', {class: 'num'}, num(c.requeue_count)),
            h('td', {class: 'num'}, num(c.timeout_count)),
            h('td', {class: 'num'}, num(c.message_count)),
            h('td', {class: 'num'}, num(c.client_count)),
            h('td'))),
        ]), 'no topics on this node', {sortable: false}))
  },
}
