// The counter: every message ever delivered to a channel, summed over the
// cluster, and how fast it grows.
import {h, num, table} from './dom.js'
import {get} from './api.js'
import {rate, rateText} from './rates.js'

export const counterPage = {
  nav: 'counter',
  title: () => 'Counter',
  load: () => get('/api/counter'),
  render(data) {
    const stats = Object.values(data.stats || {})
    const total = stats.reduce((sum, s) => sum + (s.message_count || 0), 0)
    const r = rate('counter', total)
    stats.sort((a, b) => (a.topic_name + a.channel_name + a.node).localeCompare(b.topic_name + b.channel_name + b.node))
    return h('section', {class: 'counter'},
      h('h2', null, 'Messages processed'),
      h('div', {class: 'big', 'data-testid': 'counter-total'}, num(total)),
      h('div', {class: 'rate', 'data-testid': 'counter-rate'}, rateText(r)),
      table('counter-table', ['Topic', 'Channel', 'NSQd Host', 'Messages'],
        stats.map((s) => h('tr', null, h('td', null, s.topic_name), h('td', null, s.channel_name),
          h('td', null, s.node), h('td', {class: 'num'}, num(s.message_count)))), 'no channels'))
  },
}
