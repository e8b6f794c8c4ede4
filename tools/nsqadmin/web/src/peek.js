// A channel's messages as they wait (nsqd's /channel/peek through
// nsqadmin's /api/topics/T/C/peek): queued, in flight or deferred, nothing
// consumed. Loaded on demand, not with every refresh.
import {h, table} from './dom.js'
import {get, enc} from './api.js'

function text(b64) {
  let s
  try {
    s = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)))
  } catch {
    s = '(binary)'
  }
  return s.length > 200 ? `${s.slice(0, 200)}…` : s
}

const time = (ns) => (ns ? new Date(Number(ns) / 1e6).toISOString() : '')

// The page is rebuilt on every refresh: the section (and what it shows) is
// kept for the channel it was made for.
let kept = {key: null, el: null}

export function peekSection(topic, channel) {
  const key = `${topic}/${channel}`
  if (kept.key === key) return kept.el
  const out = h('div', {'data-testid': 'channel-peek-result'})
  const show = async (state) => {
    out.replaceChildren(h('p', {class: 'note'}, 'loading…'))
    try {
      const d = await get(`/api/topics/${enc(topic)}/${enc(channel)}/peek?state=${state}&n=20`)
      const rows = []
      for (const n of d.nodes || []) {
        for (const m of n.messages || []) {
          rows.push(h('tr', null, h('td', null, n.node), h('td', null, m.id),
            h('td', null, time(m.timestamp)), h('td', {class: 'num'}, m.attempts),
            h('td', null, time(m.due)), h('td', {class: 'body'}, text(m.body))))
        }
      }
      out.replaceChildren(table('channel-peek',
        ['NSQd Host', 'ID', 'Published', 'Attempts', 'Due', 'Body'], rows, `no ${state} messages`))
    } catch (err) {
      out.replaceChildren(h('p', {class: 'note'}, err.message))
    }
  }
  const el = h('div', null,
    h('h3', null, 'Messages'),
    h('div', {class: 'actions'},
      ['queued', 'in_flight', 'deferred'].map((state) => h('button', {
        type: 'button', 'data-testid': `peek-${state}`, onclick: () => show(state),
      }, `Peek ${state.replace('_', '-')}`))),
    out)
  kept = {key, el}
  return el
}
