'use strict'
// Scenarios 1 and 2: 100k messages published by an nsqjs Writer (MPUB batches
// of varied sizes plus single PUBs), consumed by 3 nsqjs Readers sharing
// channel "ch-a" (maxInFlight 100 each) and by 1 Reader on channel "ch-b" of
// the same topic. Every message must reach each channel exactly once.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const h = require('./lib/harness')

const N = Number(process.env.NSQ_CONFORMANCE_N || 100000)
const TOPIC = 'fanout_100k'
const PUB_WINDOW = 8 // outstanding PUB/MPUB commands
const QUIET_MS = 1000 // observation window for extra deliveries
const ALL_DELIVERED_TIMEOUT_MS = 75000

const body = (i) => `m${i}:${'x'.repeat(i % 61)}`
const indexOf = (b) => {
  const s = b.toString()
  const m = /^m(\d+):(x*)$/.exec(s)
  if (!m) return -1
  const i = Number(m[1])
  return i < N && m[2].length === i % 61 ? i : -1
}

// Publish plan: every 10th command is a single PUB, the others MPUB with
// batch sizes cycling through a few values (arrays of length 1 are PUBs too).
function* publishPlan() {
  const sizes = [100, 250, 17, 500, 64, 2, 1000, 100, 33]
  let i = 0
  let k = 0
  while (i < N) {
    const n = k % 10 === 0 ? 1 : Math.min(sizes[k % sizes.length], N - i)
    const msgs = []
    for (let j = 0; j < n; j++) msgs.push(body(i + j))
    yield n === 1 ? msgs[0] : msgs
    i += n
    k++
  }
}

function channelTracker(name) {
  return {
    name,
    seen: new Uint8Array(N),
    unique: 0,
    deliveries: 0,
    duplicates: [],
    unknown: [],
    badAttempts: [],
    record(msg) {
      this.deliveries++
      const i = indexOf(msg.body)
      if (i < 0) {
        if (this.unknown.length < 10) this.unknown.push(msg.body.toString())
        return
      }
      if (msg.attempts !== 1 && this.badAttempts.length < 10) {
        this.badAttempts.push({i, attempts: msg.attempts})
      }
      if (this.seen[i]) {
        if (this.duplicates.length < 10) this.duplicates.push(i)
        return
      }
      this.seen[i] = 1
      this.unique++
    },
    missing(max = 10) {
      const out = []
      for (let i = 0; i < N && out.length < max; i++) if (!this.seen[i]) out.push(i)
      return out
    },
  }
}

test(`${N} messages: MPUB+PUB, 3 readers share a channel, a 2nd channel gets all`, {timeout: 120000}, async (t) => {
  const nsqd = await h.startNsqd()
  t.after(() => nsqd.kill())
  const readers = []
  t.after(async () => {
    for (const r of readers) r.close()
  })

  const chA = channelTracker('ch-a')
  const chB = channelTracker('ch-b')
  const perReaderA = [0, 0, 0]
  const allArrived = h.waiter(() => chA.unique === N && chB.unique === N)

  for (let r = 0; r < 3; r++) {
    readers.push(
      await h.connectReader(nsqd, TOPIC, 'ch-a', {maxInFlight: 100}, (msg) => {
        perReaderA[r]++
        chA.record(msg)
        msg.finish()
        allArrived.check()
      })
    )
  }
  readers.push(
    await h.connectReader(nsqd, TOPIC, 'ch-b', {maxInFlight: 100}, (msg) => {
      chB.record(msg)
      msg.finish()
      allArrived.check()
    })
  )

  const writer = await h.connectWriter(nsqd)
  t.after(() => h.closeWriter(writer).catch(() => {}))

  const t0 = Date.now()
  // Publish with a bounded number of outstanding commands; each must get OK.
  const inflight = new Set()
  let commands = 0
  for (const msgs of publishPlan()) {
    const p = h.publish(writer, TOPIC, msgs).finally(() => inflight.delete(p))
    inflight.add(p)
    commands++
    if (inflight.size >= PUB_WINDOW) await h.withTimeout(Promise.race(inflight), 10000, 'PUB/MPUB response')
  }
  await h.withTimeout(Promise.all(inflight), 10000, 'last PUB/MPUB responses')
  const tPub = Date.now()
  t.diagnostic(`published ${N} messages in ${commands} commands in ${tPub - t0} ms`)
  assert.deepEqual(writer.errors, [], 'writer saw no errors')

  try {
    await h.withTimeout(allArrived.promise, ALL_DELIVERED_TIMEOUT_MS, 'all messages delivered on both channels')
  } catch (err) {
    err.message +=
      `\nch-a: ${chA.unique}/${N} unique (missing e.g. ${chA.missing()}), ` +
      `ch-b: ${chB.unique}/${N} unique (missing e.g. ${chB.missing()}), per reader ${perReaderA}` +
      `\nreader errors: ${readers.flatMap((r) => r.errors).slice(0, 5)}`
    throw err
  }
  t.diagnostic(`all delivered ${Date.now() - t0} ms after start; per reader on ch-a: ${perReaderA}`)

  // Bounded observation window: nothing more may arrive (no redelivery).
  await h.delay(QUIET_MS)

  await t.test('ch-a: each message delivered exactly once across the 3 readers, attempts 1', () => {
    assert.deepEqual(chA.unknown, [], 'no unknown/corrupted bodies')
    assert.deepEqual(chA.duplicates, [], 'no duplicate deliveries')
    assert.equal(chA.unique, N)
    assert.equal(chA.deliveries, N, 'no extra deliveries after all arrived')
    assert.deepEqual(chA.badAttempts, [], 'every delivery has attempts 1')
  })
  await t.test('ch-a: all three readers received messages', () => {
    for (let r = 0; r < 3; r++) assert.ok(perReaderA[r] > 0, `reader ${r} got ${perReaderA[r]} messages`)
    assert.equal(perReaderA[0] + perReaderA[1] + perReaderA[2], N)
  })
  await t.test('ch-b (second channel, same topic): every message exactly once', () => {
    assert.deepEqual(chB.unknown, [], 'no unknown/corrupted bodies')
    assert.deepEqual(chB.duplicates, [], 'no duplicate deliveries')
    assert.equal(chB.unique, N)
    assert.equal(chB.deliveries, N, 'no extra deliveries after all arrived')
    assert.deepEqual(chB.badAttempts, [], 'every delivery has attempts 1')
  })
  await t.test('no connection errors or disconnects', () => {
    for (const r of readers) {
      assert.deepEqual(r.errors.map(String), [])
      assert.equal(r.closedEvents, 0)
    }
  })
  await t.test('SIGTERM → clean exit 0', async () => {
    for (const r of readers) await h.closeReader(r)
    await h.closeWriter(writer)
    const exit = await nsqd.stop()
    assert.deepEqual(exit, {code: 0, signal: null}, nsqd.output())
  })
})
