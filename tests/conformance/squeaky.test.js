'use strict'
// squeaky (a second, independent NSQ client from npm) against our nsqd:
// PUB, MPUB, DPUB, consume, touch, requeue. squeaky builds MPUB with a
// declared body size equal to the sum of the payloads alone, which Go nsqd
// accepts because it reads the messages from the stream (issue 17).
//
// Reconnecting: squeaky keeps a socket half-open when nsqd closes it. A
// subscriber notices a restarted nsqd when its lookupd poll finds the
// producer gone or a FIN meets the reset, then connects again, IDENTIFYs,
// SUBscribes and (after its next poll) sends RDY. A publisher never
// notices: its next PUB waits for ever for an answer on the half-open
// socket. Both hold against Go's nsqd exactly as against ours.

const test = require('node:test')
const assert = require('node:assert')
const Squeaky = require('squeaky')
const h = require('./lib/harness')
const {startLookupd} = require('./lib/lookupd')

const SLACK_MS = 5

function publisher(nsqd, extra = {}) {
  const p = new Squeaky.Publisher({host: nsqd.host, port: nsqd.tcpPort, ...extra})
  p.on('error', () => {}) // reconnect noise; each test checks what it needs
  return p
}

function subscriber(nsqd, topic, channel, extra = {}) {
  const s = new Squeaky.Subscriber({
    host: nsqd.host,
    port: nsqd.tcpPort,
    topic,
    channel,
    concurrency: 100,
    ...extra,
  })
  s.errors = []
  s.on('error', (err) => s.errors.push(String(err)))
  return s
}

const text = (body) => (Buffer.isBuffer(body) ? body.toString() : JSON.stringify(body))

test('PUB, MPUB and DPUB arrive, each message once, and are finished', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const pub = publisher(nsqd)
  t.after(() => pub.close())
  const sub = subscriber(nsqd, 'sq_pub', 'c')
  t.after(() => sub.close())
  const seen = new Map()
  const all = h.waiter(() => seen.size >= 7)
  sub.on('message', (msg) => {
    seen.set(text(msg.body), {attempts: msg.attempts, at: performance.now()})
    msg.finish()
    all.check()
  })
  await h.withTimeout(pub.publish('sq_pub', 'single'), 5000, 'PUB')
  await h.withTimeout(pub.publish('sq_pub', ['m1', 'm2', 'm3', Buffer.from('m4')]), 5000, 'MPUB')
  // A big MPUB: squeaky's short declared size must not cut it.
  const big = Array.from({length: 200}, (_, i) => `big-${i}-${'x'.repeat(i * 10)}`)
  await h.withTimeout(pub.publish('sq_pub_big', big), 5000, 'MPUB of 200')
  const dpubSent = performance.now()
  await h.withTimeout(pub.publish('sq_pub', 'deferred', 800), 5000, 'DPUB')
  await h.withTimeout(pub.publish('sq_pub', {json: true}), 5000, 'PUB of an object')
  await h.withTimeout(all.promise, 10000, 'every message delivered')
  assert.deepEqual([...seen.keys()].sort(), ['deferred', 'm1', 'm2', 'm3', 'm4', 'single', '{"json":true}'].sort())
  for (const [body, m] of seen) assert.equal(m.attempts, 1, body)
  assert.ok(seen.get('deferred').at - dpubSent >= 800 - SLACK_MS, 'DPUB not before its delay')

  const bigSub = subscriber(nsqd, 'sq_pub_big', 'c')
  t.after(() => bigSub.close())
  const got = []
  const done = h.waiter(() => got.length >= big.length)
  bigSub.on('message', (msg) => {
    got.push(text(msg.body))
    msg.finish()
    done.check()
  })
  await h.withTimeout(done.promise, 10000, 'the 200 messages of the big MPUB')
  assert.deepEqual(got.sort(), [...big].sort())
  await h.delay(200)
  assert.equal(seen.size, 7, 'nothing delivered twice')
  assert.deepEqual(sub.errors, [])
})

test('requeue comes back with attempts 2, after its delay', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const pub = publisher(nsqd)
  t.after(() => pub.close())
  const sub = subscriber(nsqd, 'sq_req', 'c', {concurrency: 1})
  t.after(() => sub.close())
  const deliveries = []
  const twice = h.waiter(() => deliveries.length >= 2)
  let requeuedAt = 0
  sub.on('message', (msg) => {
    deliveries.push({attempts: msg.attempts, at: performance.now()})
    if (deliveries.length === 1) {
      requeuedAt = performance.now()
      msg.requeue(500)
    } else {
      msg.finish()
    }
    twice.check()
  })
  await pub.publish('sq_req', 'again')
  await h.withTimeout(twice.promise, 10000, 'requeued message delivered again')
  assert.deepEqual(deliveries.map((d) => d.attempts), [1, 2])
  assert.ok(deliveries[1].at - requeuedAt >= 500 - SLACK_MS, 'not before the requeue delay')
  assert.deepEqual(sub.errors, [])
})

test('touch keeps a message past its timeout without redelivery', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const pub = publisher(nsqd)
  t.after(() => pub.close())
  // timeout: squeaky's IDENTIFY msg_timeout.
  const sub = subscriber(nsqd, 'sq_touch', 'c', {concurrency: 1, timeout: 1000})
  t.after(() => sub.close())
  const deliveries = []
  const finished = h.waiter(() => deliveries.length >= 1 && deliveries[0].finished)
  sub.on('message', async (msg) => {
    const d = {attempts: msg.attempts, finished: false}
    deliveries.push(d)
    if (deliveries.length > 1) return
    for (let i = 0; i < 4; ++i) {
      await h.delay(500)
      await msg.touch()
    }
    await msg.finish() // 2 s after delivery, twice the timeout
    d.finished = true
    finished.check()
  })
  await pub.publish('sq_touch', 'held')
  await h.withTimeout(finished.promise, 10000, 'touched message finished')
  await h.delay(1200)
  assert.equal(deliveries.length, 1, 'a touched message is not redelivered')
  assert.deepEqual(sub.errors, [])
})

// A second nsqd on the stopped one's TCP port and data path, as a restarted
// service comes back.
function restart(nsqd, extraArgs = []) {
  return h.startNsqd([`--tcp-address=127.0.0.1:${nsqd.tcpPort}`, ...extraArgs], {dataPath: nsqd.dataPath})
}

test('a subscriber gets its unfinished message again from a restarted nsqd, found through lookupd', {timeout: 45000}, async (t) => {
  const lookupd = await startLookupd()
  t.after(() => lookupd.kill())
  const lookupArgs = [`--lookupd-tcp-address=127.0.0.1:${lookupd.tcpPort}`, '--broadcast-address=127.0.0.1']
  const first = await h.startNsqd(lookupArgs)
  t.after(() => first.kill())
  const pub = publisher(first)
  t.after(() => pub.close())
  await h.withTimeout(pub.publish('sq_rc_sub', 'held'), 5000, 'PUB')

  // A short discovery interval: squeaky re-sends RDY only after a poll.
  const sub = subscriber(first, 'sq_rc_sub', 'c', {
    concurrency: 1,
    lookup: [`127.0.0.1:${lookupd.httpPort}`],
    discoverFrequency: 250,
  })
  t.after(() => sub.close())
  let second = null
  t.after(() => second && second.kill())
  const deliveries = []
  const done = h.waiter(() => deliveries.some((d) => d.body === 'after'))
  sub.on('message', async (msg) => {
    deliveries.push({body: text(msg.body), attempts: msg.attempts})
    done.check()
    if (deliveries.length === 1) {
      // nsqd stops (SIGTERM keeps the in-flight message) and comes back
      // before the handler finishes: the FIN goes down the dead socket.
      await first.stop()
      second = await restart(first, lookupArgs)
      await msg.finish().catch(() => {})
      const pub2 = publisher(second)
      t.after(() => pub2.close())
      await h.withTimeout(pub2.publish('sq_rc_sub', 'after'), 5000, 'PUB to the restarted nsqd')
      return
    }
    await msg.finish()
  })
  await h.withTimeout(done.promise, 30000, 'redelivery and the new message from the restarted nsqd')
  await h.delay(200)
  // 'held' again with attempts 2 (the restarted nsqd loaded it from disk),
  // then 'after'; the order of the two is nsqd's.
  const byBody = Object.fromEntries(deliveries.map((d) => [d.body + '#' + d.attempts, true]))
  assert.deepEqual(Object.keys(byBody).sort(), ['after#1', 'held#1', 'held#2'])
  assert.equal(deliveries.length, 3, JSON.stringify(deliveries))
})
