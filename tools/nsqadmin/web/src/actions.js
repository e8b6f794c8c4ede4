// Admin actions behind a confirmation, as in Go's nsqadmin: the operator
// confirms, the API call goes out, the outcome shows as an alert and the
// page refreshes (or moves away from what was deleted).
import {h} from './dom.js'
import {config} from './config.js'
import {post, del, enc} from './api.js'
import {showAlert} from './alerts.js'

// A button that asks `question` and then runs `run()` (a promise).
// afterDone(result) runs on success (e.g. navigate away).
export function actionButton(label, question, run, afterDone, kind = 'btn') {
  if (!config.isAdmin) return null
  return h('button', {
    class: kind,
    type: 'button',
    onclick: async (ev) => {
      const btn = ev.currentTarget
      if (!window.confirm(question)) return
      btn.disabled = true
      try {
        const result = await run()
        if (result && result.message) showAlert('warning', result.message)
        else showAlert('success', `${label}: done`)
        if (afterDone) afterDone(result)
      } catch (err) {
        showAlert('error', `${label} failed: ${err.message}`)
      } finally {
        btn.disabled = false
      }
    },
  }, label)
}

const path = (topic, channel) =>
  `/api/topics/${enc(topic)}` + (channel ? `/${enc(channel)}` : '')

export function topicActions(topic, paused, refresh, navigate) {
  return h('div', {class: 'actions'},
    paused
      ? actionButton('Unpause Topic', `Are you sure you want to unpause topic ${topic}?`,
        () => post(path(topic), {action: 'unpause'}), refresh)
      : actionButton('Pause Topic', `Are you sure you want to pause topic ${topic}?`,
        () => post(path(topic), {action: 'pause'}), refresh),
    actionButton('Empty Topic', `Are you sure you want to empty topic ${topic}?`,
      () => post(path(topic), {action: 'empty'}), refresh, 'btn warn'),
    actionButton('Delete Topic', `Are you sure you want to delete topic ${topic}?`,
      () => del(path(topic)), () => navigate('/topics'), 'btn danger'))
}

export function channelActions(topic, channel, paused, refresh, navigate) {
  return h('div', {class: 'actions'},
    paused
      ? actionButton('Unpause Channel',
        `Are you sure you want to unpause channel ${channel} of topic ${topic}?`,
        () => post(path(topic, channel), {action: 'unpause'}), refresh)
      : actionButton('Pause Channel',
        `Are you sure you want to pause channel ${channel} of topic ${topic}?`,
        () => post(path(topic, channel), {action: 'pause'}), refresh),
    actionButton('Empty Channel',
      `Are you sure you want to empty channel ${channel} of topic ${topic}?`,
      () => post(path(topic, channel), {action: 'empty'}), refresh, 'btn warn'),
    actionButton('Delete Channel',
      `Are you sure you want to delete channel ${channel} of topic ${topic}?`,
      () => del(path(topic, channel)), () => navigate(`/topics/${enc(topic)}`), 'btn danger'))
}

export function tombstoneButton(topic, node, refresh) {
  if (!config.lookupd.length) return null
  return actionButton('Tombstone',
    `Are you sure you want to tombstone topic ${topic} on node ${node}? ` +
      'nsqlookupd will stop listing this node for the topic, and the topic is deleted on it.',
    () => del(`/api/nodes/${enc(node)}`, {topic}), refresh, 'btn small danger')
}
