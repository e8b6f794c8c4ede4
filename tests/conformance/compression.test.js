'use strict'
// IDENTIFY upgrades as nsqjs performs them: deflate (raw DEFLATE with sync
// flushes) and snappy (framing format). Writer and Reader both negotiate the
// compression; an MPUB goes through the compressed stream and every message
// comes back through the consumer's compressed stream.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const h = require('./lib/harness')

const COUNT = 10000 // the issue asks 10k messages through each compressed stream
const body = (i) => `c${i}:${'compressible-'.repeat(i % 20)}`

async function roundTrip(t, options, expectResp) {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const topic = 'comp_topic'
  const got = new Set()
  let dups = 0
  const all = h.waiter(() => got.size >= COUNT)
  const reader = await h.connectReader(nsqd, topic, 'ch', {maxInFlight: 200, ...options}, (msg) => {
    const b = msg.body.toString()
    if (got.has(b)) dups++
    got.add(b)
    msg.finish()
    all.check()
  })
  t.after(() => reader.close())
  const rresp = h.readerConnection(reader).statemachine.identifyResponse
  for (const [k, v] of Object.entries(expectResp)) assert.equal(rresp[k], v, `reader IDENTIFY response ${k}`)

  const writer = await h.connectWriter(nsqd, options)
  t.after(() => writer.close())
  const wresp = writer.conn.statemachine.identifyResponse
  for (const [k, v] of Object.entries(expectResp)) assert.equal(wresp[k], v, `writer IDENTIFY response ${k}`)

  const msgs = Array.from({length: COUNT}, (_, i) => body(i))
  await h.publish(writer, topic, msgs.slice(0, COUNT / 2))
  await h.publish(writer, topic, msgs[COUNT / 2])
  await h.publish(writer, topic, msgs.slice(COUNT / 2 + 1))
  await h.withTimeout(all.promise, 30000, `${COUNT} messages through the compressed streams (got ${got.size})`)
  await h.delay(200)
  assert.equal(dups, 0, 'no duplicates')
  for (let i = 0; i < COUNT; i++) assert.ok(got.has(body(i)), `message ${i} missing or corrupted`)
  assert.equal(got.size, COUNT)
  assert.deepEqual([...reader.errors, ...writer.errors].map(String), [])
  assert.deepEqual([...reader.streamErrors, ...writer.streamErrors].map(String), [], 'no decompression errors')
  assert.equal(reader.closedEvents, 0)
}

test('deflate (level 3): negotiated and usable by nsqjs Reader and Writer', {timeout: 45000}, async (t) => {
  await roundTrip(t, {deflate: true, deflateLevel: 3}, {deflate: true, deflate_level: 3, snappy: false, max_deflate_level: 6})
})

test('deflate level above --max-deflate-level is capped', {timeout: 45000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const writer = await h.connectWriter(nsqd, {deflate: true, deflateLevel: 9})
  t.after(() => writer.close())
  const resp = writer.conn.statemachine.identifyResponse
  assert.equal(resp.deflate, true)
  assert.equal(resp.deflate_level, 6)
  await h.publish(writer, 'capped', 'ok through deflate level 6')
  assert.deepEqual(writer.errors.map(String), [])
})

test('snappy: negotiated and usable by nsqjs Reader and Writer', {timeout: 45000}, async (t) => {
  await roundTrip(t, {snappy: true}, {snappy: true, deflate: false})
})
