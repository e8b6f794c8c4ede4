'use strict'
// Scenario 6: ephemeral channel. Messages queued in (or in flight from) an
// ephemeral channel are dropped with it when its last consumer leaves; a new
// consumer on the same name starts from an empty, fresh channel.
//
// A non-ephemeral channel "keep" (reader K, always connected) stays on the
// topic, so the topic always has a channel and fans messages out at once
// (a topic with no channel would hold them and give them to the next channel
// created, which is not what this test is about). K also serves as the event
// that tells us each publish has been fanned out.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const h = require('./lib/harness')

const TOPIC = 'eph_topic'
const EPH = 'ch#ephemeral'

// Waits until nsqd has deleted the ephemeral channel. With HTTP /stats this is
// an observed event; without an HTTP listener there is no TCP-visible signal,
// so fall back to a bounded wait.
async function channelGone(t, nsqd) {
  const port = nsqd.httpPort
  if (port) {
    const deadline = Date.now() + 5000
    let last
    for (;;) {
      try {
        const stats = await h.httpGetJSON(port, `/stats?format=json&topic=${TOPIC}`)
        const topics = stats.topics || []
        const chans = topics.flatMap((tp) => (tp.channels || []).map((c) => c.channel_name))
        last = chans
        if (!chans.includes(EPH)) return
      } catch (err) {
        last = err.message
        if (/ECONNREFUSED/.test(err.message)) break // no HTTP server after all
      }
      if (Date.now() > deadline) {
        throw new Error(`ephemeral channel still listed in /stats 5 s after its last consumer left: ${JSON.stringify(last)}`)
      }
      await h.delay(50)
    }
  }
  t.diagnostic('no usable HTTP /stats: waiting 500 ms for the ephemeral channel deletion instead')
  await h.delay(500)
}

test('ephemeral channel: dropped with its last consumer, a new consumer starts fresh', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())

  const kGot = []
  const kWait = (n) => h.waiter(() => kGot.length >= n)
  let kWaiter = kWait(0)
  const K = await h.connectReader(nsqd, TOPIC, 'keep', {maxInFlight: 10}, (msg) => {
    kGot.push(msg.body.toString())
    msg.finish()
    kWaiter.check()
  })
  t.after(() => K.close())

  // A holds e1 in flight (never answered) while e2 stays queued in the channel.
  const aGot = []
  const aFirst = h.waiter(() => aGot.length >= 1)
  const A = await h.connectReader(nsqd, TOPIC, EPH, {maxInFlight: 1}, (msg) => {
    aGot.push(msg.body.toString())
    aFirst.check()
  })
  t.after(() => A.close())

  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())

  kWaiter = kWait(2)
  await h.publish(writer, TOPIC, 'e1')
  await h.publish(writer, TOPIC, 'e2')
  await h.withTimeout(Promise.all([aFirst.promise, kWaiter.promise]), 5000, 'e1 to A, e1+e2 to keep')
  assert.deepEqual(aGot, ['e1'], 'A (maxInFlight 1, e1 not answered) got only e1')

  await h.closeReader(A)
  await channelGone(t, nsqd)

  // Published while nobody is on the ephemeral channel.
  kWaiter = kWait(3)
  await h.publish(writer, TOPIC, 'e3')
  await h.withTimeout(kWaiter.promise, 5000, 'e3 to keep')

  const bGot = []
  const bFirst = h.waiter(() => bGot.length >= 1)
  const B = await h.connectReader(nsqd, TOPIC, EPH, {maxInFlight: 10}, (msg) => {
    bGot.push({body: msg.body.toString(), attempts: msg.attempts})
    msg.finish()
    bFirst.check()
  })
  t.after(() => B.close())

  kWaiter = kWait(4)
  await h.publish(writer, TOPIC, 'e4')
  await h.withTimeout(Promise.all([bFirst.promise, kWaiter.promise]), 5000, 'e4 to B and keep')
  await h.delay(500) // bounded window for stray deliveries of e1/e2/e3
  assert.deepEqual(bGot, [{body: 'e4', attempts: 1}], 'new consumer got only what was published after it subscribed')
  assert.deepEqual(kGot, ['e1', 'e2', 'e3', 'e4'], 'the non-ephemeral channel got everything, in order')
  assert.equal(B.closedEvents, 0, 'B was not disconnected')
  assert.deepEqual([...K.errors, ...B.errors].map(String), [])
})

test('ephemeral channel: a second consumer keeps it alive when the first leaves', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const got = {A: [], B: []}
  const mk = (name) => (msg) => {
    got[name].push(msg.body.toString())
    msg.finish()
    w.check()
  }
  let w = h.waiter(() => got.A.length + got.B.length >= 1)
  // messageTimeout 1 s: messages nsqd sends to A before it has read A's
  // CLS/close are lost in flight until they time out; they then go to B.
  const A = await h.connectReader(nsqd, 'eph2', EPH, {maxInFlight: 5, messageTimeout: 1000}, mk('A'))
  t.after(() => A.close())
  const B = await h.connectReader(nsqd, 'eph2', EPH, {maxInFlight: 5}, mk('B'))
  t.after(() => B.close())
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())

  await h.publish(writer, 'eph2', 'x1')
  await h.withTimeout(w.promise, 5000, 'x1 delivered')
  await h.closeReader(A)
  // B stays subscribed: the channel must survive and keep delivering to B.
  const before = got.B.length
  w = h.waiter(() => got.B.length >= before + 3)
  await h.publish(writer, 'eph2', ['x2', 'x3', 'x4'])
  await h.withTimeout(w.promise, 5000, 'x2..x4 delivered to B after A left')
  await h.delay(300)
  assert.deepEqual(got.B.slice(before).sort(), ['x2', 'x3', 'x4'])
  assert.equal(B.closedEvents, 0, 'B was not disconnected')
  assert.deepEqual(B.errors.map(String), [])
})
