// The lookupd view: the nsqlookupd nsqadmin reads, the topics they list
// that no nsqd produces (with their channels), and creating a topic/channel.
import {h, table} from './dom.js'
import {get, post, enc} from './api.js'
import {config} from './config.js'
import {showAlert} from './alerts.js'

export const lookupPage = {
  nav: 'lookup',
  title: () => 'Lookup',
  load: async () => {
    if (!config.lookupd.length) return {topics: {}, message: ''}
    return get('/api/topics?inactive=true')
  },
  render(data, ctx) {
    const inactive = data.topics || {}
    const names = Object.keys(inactive).sort()
    return h('section', null,
      h('h2', null, 'nsqlookupd'),
      config.lookupd.length
        ? table('lookupd-table', ['nsqlookupd HTTP address'],
          config.lookupd.map((a) => h('tr', null, h('td', null, a))))
        : h('p', {class: 'note'}, 'nsqadmin reads the nsqd list given by --nsqd-http-address: ',
          config.nsqd.join(', ')),
      h('h3', null, 'Inactive topics'),
      h('p', {class: 'note'}, 'Topics and channels nsqlookupd knows that no nsqd produces.'),
      table('inactive-table', ['Topic', 'Channels'], names.map((t) => h('tr', null,
        h('td', null, ctx.link(`/topics/${enc(t)}`, t)),
        h('td', null, (inactive[t] || []).join(', ')))), 'none'),
      createForm(ctx))
  },
}

function createForm(ctx) {
  if (!config.isAdmin) return null
  const topic = h('input', {name: 'topic', placeholder: 'topic', required: true, 'data-testid': 'create-topic'})
  const channel = h('input', {name: 'channel', placeholder: 'channel (optional)', 'data-testid': 'create-channel'})
  return h('form', {
    class: 'create',
    onsubmit: async (ev) => {
      ev.preventDefault()
      const body = {topic: topic.value.trim(), channel: channel.value.trim()}
      const what = body.channel ? `topic ${body.topic} and channel ${body.channel}` : `topic ${body.topic}`
      if (!window.confirm(`Are you sure you want to create ${what}?`)) return
      try {
        const r = await post('/api/topics', body)
        showAlert(r.message ? 'warning' : 'success', r.message || `Created ${what}`)
        ctx.refresh()
      } catch (err) {
        showAlert('error', `Create failed: ${err.message}`)
      }
    },
  },
  h('h3', null, 'Create a topic / channel'),
  topic, channel, h('button', {class: 'btn', type: 'submit'}, 'Create'))
}
