'use strict'
// Scenario 7: IDENTIFY with feature negotiation as nsqjs does it, the values
// nsqjs takes from the response, and heartbeats (_heartbeat_ → NOP) for
// consumers and producers.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const {performance} = require('node:perf_hooks')
const h = require('./lib/harness')

// Counts the NOPs nsqjs writes on a connection; nsqjs sends NOP only as the
// answer to a _heartbeat_ response frame, so this counts heartbeats received.
function countHeartbeats(conn, onBeat) {
  const beats = []
  const orig = conn.write.bind(conn)
  conn.write = (data) => {
    if (Buffer.from(data).toString() === 'NOP\n') {
      beats.push(performance.now())
      onBeat(beats)
    }
    return orig(data)
  }
  return beats
}

test('Writer IDENTIFY (feature_negotiation): JSON response with the v1.3.0 defaults', {timeout: 15000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())
  const resp = writer.conn.statemachine.identifyResponse
  assert.deepEqual(resp, {
    max_rdy_count: 2500,
    version: '1.3.0',
    max_msg_timeout: 900000,
    msg_timeout: 60000,
    tls_v1: false,
    deflate: false,
    deflate_level: 6,
    max_deflate_level: 6,
    snappy: false,
    sample_rate: 0,
    auth_required: false,
    output_buffer_size: 16384,
    output_buffer_timeout: 250,
  })
  assert.equal(writer.conn.maxRdyCount, 2500)
  assert.equal(writer.conn.maxMsgTimeout, 900000)
  assert.equal(writer.conn.msgTimeout, 60000)
  assert.equal(writer.conn.nsqdVersion, '1.3.0')
  // The connection is usable: PUB and MPUB get OK.
  await h.publish(writer, 'hs_topic', 'one')
  await h.publish(writer, 'hs_topic', ['two', 'three'])
  assert.deepEqual(writer.errors.map(String), [])
})

test('Reader IDENTIFY: requested msg_timeout / output buffer settings are echoed and used', {timeout: 15000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  let got = null
  const first = h.waiter(() => got !== null)
  const reader = await h.connectReader(
    nsqd,
    'hs_topic',
    'ch',
    {maxInFlight: 1, messageTimeout: 5000, outputBufferSize: 4096, outputBufferTimeout: 100},
    (msg) => {
      got = {body: msg.body.toString(), msgTimeout: msg.msgTimeout, maxMsgTimeout: msg.maxMsgTimeout}
      msg.finish()
      first.check()
    }
  )
  t.after(() => reader.close())
  const conn = h.readerConnection(reader)
  const resp = conn.statemachine.identifyResponse
  assert.equal(resp.msg_timeout, 5000)
  assert.equal(resp.output_buffer_size, 4096)
  assert.equal(resp.output_buffer_timeout, 100)
  assert.equal(resp.max_rdy_count, 2500)
  assert.equal(resp.max_msg_timeout, 900000)
  assert.equal(resp.version, '1.3.0')
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())
  await h.publish(writer, 'hs_topic', 'hello')
  await h.withTimeout(first.promise, 5000, 'message delivered')
  assert.deepEqual(got, {body: 'hello', msgTimeout: 5000, maxMsgTimeout: 900000})
  assert.deepEqual(reader.errors.map(String), [])
})

test('Reader honours max_rdy_count: maxInFlight 5000 is clamped to RDY 2500 and accepted', {timeout: 15000}, async (t) => {
  // If max_rdy_count were missing or wrong, nsqjs would send RDY 5000 and
  // nsqd would close the connection with E_INVALID.
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const bodies = []
  const rdyWindow = h.waiter(() => bodies.length >= 2500)
  const reader = await h.connectReader(nsqd, 'rdy_topic', 'ch', {maxInFlight: 5000}, (msg) => {
    bodies.push(msg.body.toString()) // not answered: all stay in flight
    rdyWindow.check()
  })
  t.after(() => reader.close())
  assert.equal(h.readerConnection(reader).maxRdyCount, 2500)
  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())
  const msgs = Array.from({length: 3000}, (_, i) => `r${i}`)
  await h.publish(writer, 'rdy_topic', msgs)
  // Exactly 2500 arrive (RDY is a window of in-flight messages); the rest wait.
  await h.withTimeout(rdyWindow.promise, 10000, '2500 messages in flight')
  await h.delay(500) // bounded window: nothing beyond the RDY window arrives
  assert.equal(bodies.length, 2500, 'in-flight count capped by RDY 2500')
  assert.equal(reader.closedEvents, 0, 'connection not closed by nsqd')
  assert.deepEqual(reader.errors.map(String), [])
})

test('heartbeats: a Reader with heartbeatInterval 1 s stays connected (answers with NOP) and still receives', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const bodies = []
  const gotMsg = h.waiter(() => bodies.length >= 1)
  const reader = await h.connectReader(nsqd, 'hb_topic', 'ch', {maxInFlight: 10, heartbeatInterval: 1}, (msg) => {
    bodies.push(msg.body.toString())
    msg.finish()
    gotMsg.check()
  })
  t.after(() => reader.close())
  const conn = h.readerConnection(reader)
  const three = h.waiter(() => beats.length >= 3)
  const beats = countHeartbeats(conn, () => three.check())
  const t0 = performance.now()
  // 3 heartbeats ≈ 3 s: past the 2 × 1 s read deadline, so nsqd must have
  // taken the NOPs as activity.
  await h.withTimeout(three.promise, 6000, '3 heartbeats at a 1 s interval')
  const gaps = [beats[0] - t0, beats[1] - beats[0], beats[2] - beats[1]].map((x) => Math.round(x))
  t.diagnostic(`heartbeat gaps (ms): ${gaps}`)
  for (const g of gaps.slice(1)) assert.ok(g >= 500 && g <= 2000, `heartbeat gap ${g} ms for a 1000 ms interval`)
  assert.equal(reader.closedEvents, 0, 'reader still connected')

  const writer = await h.connectWriter(nsqd)
  t.after(() => writer.close())
  await h.publish(writer, 'hb_topic', 'after-heartbeats')
  await h.withTimeout(gotMsg.promise, 5000, 'message after heartbeats')
  assert.deepEqual(bodies, ['after-heartbeats'])
  assert.equal(reader.closedEvents, 0)
  assert.deepEqual(reader.errors.map(String), [])
})

test('heartbeats: a Writer with heartbeatInterval 1 s gets heartbeats, stays connected and can publish', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const writer = await h.connectWriter(nsqd, {heartbeatInterval: 1})
  t.after(() => writer.close())
  let closed = 0
  writer.on('closed', () => closed++)
  const three = h.waiter(() => beats.length >= 3)
  const beats = countHeartbeats(writer.conn, () => three.check())
  await h.withTimeout(three.promise, 6000, '3 heartbeats at a 1 s interval')
  assert.equal(closed, 0, 'writer still connected')
  // Producers must match OK responses in order even with heartbeats interleaved.
  await h.publish(writer, 'hb_topic', 'p1')
  await h.publish(writer, 'hb_topic', ['p2', 'p3'])
  assert.equal(closed, 0)
  assert.deepEqual(writer.errors.map(String), [])
})

test('heartbeats: a Reader that stops answering heartbeats is disconnected after ~2 intervals', {timeout: 20000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const reader = await h.connectReader(nsqd, 'hb_topic', 'mute', {maxInFlight: 1, heartbeatInterval: 1}, () => {})
  t.after(() => reader.close())
  const conn = h.readerConnection(reader)
  // Swallow the NOPs: nsqd sees no command after SUB/RDY.
  const orig = conn.write.bind(conn)
  const beats = []
  conn.write = (data) => {
    if (Buffer.from(data).toString() === 'NOP\n') beats.push(performance.now())
    else orig(data)
  }
  const t0 = performance.now()
  const closed = new Promise((resolve) => reader.once('nsqd_closed', resolve))
  await h.withTimeout(closed, 6000, 'nsqd closing a connection that ignores heartbeats (2 × 1 s)')
  const elapsed = performance.now() - t0
  t.diagnostic(`disconnected after ${elapsed.toFixed(0)} ms, ${beats.length} heartbeats unanswered`)
  assert.ok(elapsed >= 1500, `disconnected after only ${elapsed} ms`)
  assert.ok(beats.length >= 1, 'at least one heartbeat was sent before the disconnect')
})
