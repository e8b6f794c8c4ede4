'use strict'
// Scenarios 3-5: REQ with a delay, msg_timeout redelivery, DPUB.
// Times are measured with the monotonic clock (performance.now()).
// The server's deferred/timeout scan runs every 100 ms, so the upper bounds
// are generous; the lower bounds ("not before") are strict up to SLACK_MS of
// timer/clock granularity.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const {performance} = require('node:perf_hooks')
const h = require('./lib/harness')

const SLACK_MS = 5
const LATE_MS = 2000 // allowed lateness beyond the nominal time

test('REQ with delay: message comes back not before the delay, attempts 2', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const DELAY = 1500
  const deliveries = []
  const second = h.waiter(() => deliveries.length >= 2)
  const reader = await h.connectReader(nsqd, 'req_topic', 'ch', {maxInFlight: 1}, (msg) => {
    deliveries.push({at: performance.now(), id: msg.id, attempts: msg.attempts, body: msg.body.toString()})
    if (deliveries.length === 1) {
      // backoff=false: keep nsqjs's client-side backoff (RDY 0 for ~3.6 s)
      // out of the measurement; the server only sees REQ <id> 1500.
      msg.requeue(DELAY, false)
    } else {
      msg.finish()
    }
    second.check()
  })
  t.after(() => reader.close())
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())

  await h.publish(writer, 'req_topic', 'requeue-me')
  await h.withTimeout(second.promise, DELAY + LATE_MS + 3000, 'requeued message redelivered')
  const [a, b] = deliveries
  assert.equal(a.attempts, 1, 'first delivery attempts')
  assert.equal(b.attempts, 2, 'redelivery attempts')
  assert.equal(b.id, a.id, 'same message id')
  assert.equal(b.body, 'requeue-me')
  const elapsed = b.at - a.at
  t.diagnostic(`redelivered ${elapsed.toFixed(1)} ms after REQ ${DELAY}`)
  assert.ok(elapsed >= DELAY - SLACK_MS, `redelivered after ${elapsed} ms, before the ${DELAY} ms delay`)
  assert.ok(elapsed <= DELAY + LATE_MS, `redelivered after ${elapsed} ms, far later than ${DELAY} ms`)

  // FIN'd: nothing more arrives within a bounded window.
  await h.delay(300)
  assert.equal(deliveries.length, 2, 'no delivery after FIN')
  assert.deepEqual(reader.errors.map(String), [])
})

test('REQ 0 (immediate) and a second REQ: attempts keep counting', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const attempts = []
  const third = h.waiter(() => attempts.length >= 3)
  const reader = await h.connectReader(nsqd, 'req0_topic', 'ch', {maxInFlight: 1}, (msg) => {
    attempts.push(msg.attempts)
    if (attempts.length < 3) msg.requeue(0, false)
    else msg.finish()
    third.check()
  })
  t.after(() => reader.close())
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())
  await h.publish(writer, 'req0_topic', 'again')
  await h.withTimeout(third.promise, 5000, 'three deliveries of a twice-requeued message')
  assert.deepEqual(attempts, [1, 2, 3])
  assert.deepEqual(reader.errors.map(String), [])
})

test('msg_timeout: an un-FIN\'d message is redelivered with attempts 2 after the timeout', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const TIMEOUT = 1000
  const deliveries = []
  const second = h.waiter(() => deliveries.length >= 2)
  const reader = await h.connectReader(
    nsqd,
    'timeout_topic',
    'ch',
    {maxInFlight: 1, messageTimeout: TIMEOUT},
    (msg) => {
      deliveries.push({
        at: performance.now(),
        id: msg.id,
        attempts: msg.attempts,
        msgTimeout: msg.msgTimeout, // from the IDENTIFY response
      })
      if (deliveries.length >= 2) msg.finish() // first one: no response at all
      second.check()
    }
  )
  t.after(() => reader.close())
  assert.equal(h.readerConnection(reader).msgTimeout, TIMEOUT, 'IDENTIFY response msg_timeout echoes the requested value')
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())

  const published = performance.now()
  await h.publish(writer, 'timeout_topic', 'do-not-fin')
  await h.withTimeout(second.promise, TIMEOUT + LATE_MS + 3000, 'timed-out message redelivered')
  const [a, b] = deliveries
  assert.equal(a.attempts, 1)
  assert.equal(b.attempts, 2, 'redelivery after timeout has attempts 2')
  assert.equal(b.id, a.id, 'same message id')
  const elapsed = b.at - a.at
  t.diagnostic(`redelivered ${elapsed.toFixed(1)} ms after first delivery (msg_timeout ${TIMEOUT})`)
  // The timeout runs from when nsqd sent the first delivery, which is after
  // the PUB was sent but may be well before this process got to read it (a
  // busy machine): measured from the PUB, redelivery is never early.
  const sincePublish = b.at - published
  assert.ok(sincePublish >= TIMEOUT - SLACK_MS, `redelivered ${sincePublish} ms after the PUB, before msg_timeout ${TIMEOUT}`)
  assert.ok(elapsed <= TIMEOUT + LATE_MS, `redelivered after ${elapsed} ms, far later than msg_timeout ${TIMEOUT}`)
  await h.delay(300)
  assert.equal(deliveries.length, 2, 'no delivery after FIN')
  assert.deepEqual(reader.errors.map(String), [])
})

test('DPUB: deferred message delivered not before the delay; a later PUB overtakes it', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const DEFER = 1500
  const deliveries = []
  const both = h.waiter(() => deliveries.length >= 2)
  const reader = await h.connectReader(nsqd, 'dpub_topic', 'ch', {maxInFlight: 10}, (msg) => {
    deliveries.push({at: performance.now(), body: msg.body.toString(), attempts: msg.attempts})
    msg.finish()
    both.check()
  })
  t.after(() => reader.close())
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())

  const t0 = performance.now()
  await h.deferPublish(writer, 'dpub_topic', 'deferred', DEFER)
  await h.publish(writer, 'dpub_topic', 'immediate')
  await h.withTimeout(both.promise, DEFER + LATE_MS + 3000, 'deferred and immediate messages delivered')
  assert.deepEqual(
    deliveries.map((d) => d.body),
    ['immediate', 'deferred'],
    'the immediate PUB is delivered first'
  )
  const d = deliveries[1]
  assert.equal(d.attempts, 1)
  const elapsed = d.at - t0
  t.diagnostic(`deferred message delivered ${elapsed.toFixed(1)} ms after DPUB ${DEFER}`)
  assert.ok(elapsed >= DEFER - SLACK_MS, `delivered after ${elapsed} ms, before the ${DEFER} ms defer`)
  assert.ok(elapsed <= DEFER + LATE_MS, `delivered after ${elapsed} ms, far later than ${DEFER} ms`)
  assert.ok(deliveries[0].at - t0 < DEFER, 'immediate message not held back by the deferred one')
  assert.deepEqual(reader.errors.map(String), [])
  assert.deepEqual(writer.errors.map(String), [])
})
