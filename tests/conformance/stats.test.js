'use strict'
// /stats as nsqjs clients see the broker: a Reader holding messages in flight
// and a Writer that published must show up with the figures they caused, and
// with the identity nsqjs sent in IDENTIFY.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const h = require('./lib/harness')

const TOPIC = 'stats_topic'
const CHANNEL = 'stats_ch'

function findChannel(stats) {
  const topic = (stats.topics || []).find((t) => t.topic_name === TOPIC)
  return topic && (topic.channels || []).find((c) => c.channel_name === CHANNEL)
}

test('/stats reflects nsqjs readers and writers', {timeout: 30000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  assert.ok(nsqd.httpPort, 'nsqd logs its HTTP port')

  // The reader takes 5 messages and answers none: they stay in flight.
  const held = []
  const fiveHeld = h.waiter(() => held.length >= 5)
  const reader = await h.connectReader(nsqd, TOPIC, CHANNEL, {maxInFlight: 5}, (msg) => {
    held.push(msg)
    fiveHeld.check()
  })
  t.after(() => reader.close())

  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())
  const bodies = Array.from({length: 8}, (_, i) => `s${i}`)
  await h.publish(writer, TOPIC, bodies)
  await h.withTimeout(fiveHeld.promise, 5000, 'five messages to the reader')

  const stats = await h.httpGetJSON(nsqd.httpPort, '/stats?format=json')
  const ch = findChannel(stats)
  assert.ok(ch, `channel in /stats: ${JSON.stringify(stats)}`)
  assert.equal(ch.in_flight_count, 5, 'in flight: what the reader holds')
  assert.equal(ch.depth, 3, 'depth: what is left queued')
  assert.equal(ch.message_count, 8)
  assert.equal(ch.client_count, 1)
  const client = ch.clients[0]
  assert.match(client.user_agent, /^nsqjs\//, 'user_agent from nsqjs IDENTIFY')
  assert.equal(client.ready_count, 5, 'RDY sent by nsqjs for maxInFlight 5')
  assert.equal(client.in_flight_count, 5)
  assert.equal(client.message_count, 5)
  assert.equal(client.state, 3, 'subscribed')

  const producer = (stats.producers || []).find((p) => (p.pub_counts || []).some((c) => c.topic === TOPIC))
  assert.ok(producer, `the writer is listed as a producer: ${JSON.stringify(stats.producers)}`)
  assert.match(producer.user_agent, /^nsqjs\//)
  assert.equal(producer.pub_counts.find((c) => c.topic === TOPIC).count, 8)

  // Finishing two and requeueing one moves the counters.
  held[0].finish()
  held[1].finish()
  held[2].requeue(0, false)
  // The FIN/REQ have no reply to wait for: poll /stats, bounded.
  const deadline = Date.now() + 5000
  for (;;) {
    const c = findChannel(await h.httpGetJSON(nsqd.httpPort, '/stats?format=json'))
    if (c && c.clients[0].finish_count === 2 && c.clients[0].requeue_count === 1) break
    if (Date.now() > deadline) break
    await h.delay(20)
  }
  const s2 = await h.httpGetJSON(nsqd.httpPort, '/stats?format=json')
  const c2 = findChannel(s2)
  assert.equal(c2.clients[0].finish_count, 2, JSON.stringify(c2))
  assert.equal(c2.clients[0].requeue_count, 1)
  assert.equal(c2.requeue_count, 1)
})
