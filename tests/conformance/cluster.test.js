'use strict'
// Discovery through nsqlookupd (lookupd.md): 2 nsqlookupd (NSQLOOKUPD_BIN) and
// 3 nsqd, every nsqd registered with both. nsqjs Readers know ONLY the
// lookupds' HTTP addresses; they must find all three nsqds and consume 100k
// messages published across them (MPUB via nsqjs Writers, one per nsqd)
// exactly once - while one lookupd is SIGKILLed and restarted on the same
// ports halfway through. Afterwards the restarted lookupd must have learned
// the nsqds again (nsqd re-registers on its next PINGs), so a new Reader that
// knows only that lookupd discovers all three, and the old Readers (which
// never lost their nsqd connections) keep consuming.

const {test} = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const h = require('./lib/harness')
const {startLookupd} = require('./lib/lookupd')

const N = Number(process.env.NSQ_CONFORMANCE_CLUSTER_N || 100000)
const TOPIC = 'cluster_topic'
const CHANNEL = 'ch'
const BATCH = 100 // messages per MPUB
const PUB_WINDOW = 4 // outstanding MPUBs per Writer
const AFTER = 3000 // messages published after the lookupd restart (1000 per nsqd)
const ALL_DELIVERED_TIMEOUT_MS = 60000
// nsqd pings each lookupd every 15 s (§4): the first PING after the kill finds
// the connection dead and closes it, the next one reconnects and re-registers.
const REREGISTER_TIMEOUT_MS = 40000

function httpPost(port, urlPath) {
  return new Promise((resolve, reject) => {
    const req = http.request({host: '127.0.0.1', port, path: urlPath, method: 'POST', timeout: 2000}, (res) => {
      res.resume()
      res.on('end', () =>
        res.statusCode === 200 ? resolve() : reject(new Error(`POST ${urlPath}: HTTP ${res.statusCode}`))
      )
    })
    req.on('timeout', () => req.destroy(new Error(`POST ${urlPath} timed out`)))
    req.on('error', reject)
    req.end()
  })
}

// tcp ports of the producers lookupd lists for TOPIC (all with broadcast_address 127.0.0.1), sorted.
async function lookupPorts(lookupd) {
  try {
    const r = await h.httpGetJSON(lookupd.httpPort, `/lookup?topic=${TOPIC}`)
    return r.producers
      .filter((p) => p.broadcast_address === '127.0.0.1')
      .map((p) => p.tcp_port)
      .sort((a, b) => a - b)
  } catch {
    return []
  }
}

async function waitFor(pred, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await pred()) return
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`)
    await h.delay(100)
  }
}

// Message i has body "m<i>"; indexes are global (0..N+AFTER-1), split between the nsqds.
const TOTAL = N + AFTER
const body = (i) => `m${i}`
const indexOf = (b) => {
  const m = /^m(\d+)$/.exec(b.toString())
  if (!m) return -1
  const i = Number(m[1])
  return i < TOTAL ? i : -1
}

function tracker(name) {
  return {
    name,
    seen: new Uint8Array(TOTAL),
    unique: 0,
    duplicates: [],
    unknown: [],
    record(msg) {
      const i = indexOf(msg.body)
      if (i < 0) {
        if (this.unknown.length < 10) this.unknown.push(msg.body.toString())
        return
      }
      if (this.seen[i]) {
        if (this.duplicates.length < 10) this.duplicates.push(i)
        return
      }
      this.seen[i] = 1
      this.unique++
    },
    countIn(from, to) {
      let n = 0
      for (let i = from; i < to; i++) n += this.seen[i]
      return n
    },
    missing(from, to, max = 10) {
      const out = []
      for (let i = from; i < to && out.length < max; i++) if (!this.seen[i]) out.push(i)
      return out
    },
  }
}

// A Reader that knows only lookupd HTTP addresses (polled every second).
function lookupdReader(channel, lookupds, onMessage) {
  const r = new h.nsq.Reader(TOPIC, channel, {
    lookupdHTTPAddresses: lookupds.map((l) => `127.0.0.1:${l.httpPort}`),
    lookupdPollInterval: 1,
    maxInFlight: 200,
  })
  r.errors = []
  r.closedEvents = 0
  r.on('error', (err) => r.errors.push(err))
  r.on('nsqd_closed', () => {
    r.closedEvents++
  })
  r.on('message', onMessage)
  r.connect()
  return r
}

// Number of clients subscribed to TOPIC/channel on nsqd (0 if it has no such channel yet).
async function channelClients(nsqd, channel) {
  try {
    const s = await h.httpGetJSON(nsqd.httpPort, `/stats?format=json&topic=${TOPIC}&channel=${channel}`)
    const tp = (s.topics || []).find((x) => x.topic_name === TOPIC)
    const c = tp && (tp.channels || []).find((x) => x.channel_name === channel)
    return c && c.clients ? c.clients.length : 0
  } catch {
    return 0
  }
}

// Waits until every nsqd has `count` clients on `channel` (discovered through lookupd).
async function waitSubscribed(nsqds, channel, count, what) {
  await waitFor(
    async () => (await Promise.all(nsqds.map((n) => channelClients(n, channel)))).every((c) => c === count),
    10000,
    what
  )
}

// Publishes messages [from, to) over `writer` in MPUBs of BATCH, at most PUB_WINDOW outstanding.
async function publishRange(writer, from, to, onProgress) {
  const inflight = new Set()
  for (let i = from; i < to; i += BATCH) {
    const msgs = []
    for (let j = i; j < Math.min(i + BATCH, to); j++) msgs.push(body(j))
    const p = h.publish(writer, TOPIC, msgs).then(() => onProgress(msgs.length))
    const tracked = p.finally(() => inflight.delete(tracked))
    inflight.add(tracked)
    if (inflight.size >= PUB_WINDOW) await h.withTimeout(Promise.race(inflight), 10000, 'MPUB response')
  }
  await h.withTimeout(Promise.all(inflight), 10000, 'last MPUB responses')
}

test(`2 lookupds + 3 nsqds: lookupd-only Readers get ${N} messages exactly once across a lookupd restart`, {timeout: 115000}, async (t) => {
  const la = await startLookupd()
  t.after(() => la.kill())
  const lb = await startLookupd()
  t.after(() => lb.kill())
  const lookupArgs = [
    '--broadcast-address=127.0.0.1',
    `--lookupd-tcp-address=127.0.0.1:${la.tcpPort}`,
    `--lookupd-tcp-address=127.0.0.1:${lb.tcpPort}`,
  ]
  const nsqds = []
  for (let k = 0; k < 3; k++) {
    const n = await h.startNsqd(lookupArgs)
    t.after(() => n.kill())
    nsqds.push(n)
  }
  const nsqdPorts = nsqds.map((n) => n.tcpPort).sort((a, b) => a - b)
  const readers = []
  t.after(() => {
    for (const r of readers) r.close()
  })
  const writers = []
  t.after(async () => {
    for (const w of writers) await h.closeWriter(w).catch(() => {})
  })

  // The topic exists on every nsqd and both lookupds list all three.
  for (const n of nsqds) {
    await waitFor(() => n.httpPort !== null, 5000, 'nsqd HTTP port')
    await httpPost(n.httpPort, `/topic/create?topic=${TOPIC}`)
  }
  for (const l of [la, lb]) {
    await waitFor(
      async () => JSON.stringify(await lookupPorts(l)) === JSON.stringify(nsqdPorts),
      10000,
      `lookupd :${l.httpPort} listing the 3 nsqds for ${TOPIC}`
    )
  }

  // Two Readers sharing one channel, discovering the nsqds through the lookupds only.
  const ch = tracker(CHANNEL)
  const late = tracker('late')
  const perReader = [0, 0]
  const waiters = []
  const checkAll = () => waiters.forEach((w) => w.check())
  const phase1 = h.waiter(() => ch.countIn(0, N) === N)
  waiters.push(phase1)
  for (let r = 0; r < 2; r++) {
    readers.push(
      lookupdReader(CHANNEL, [la, lb], (msg) => {
        perReader[r]++
        ch.record(msg)
        msg.finish()
        checkAll()
      })
    )
  }
  await waitSubscribed(nsqds, CHANNEL, 2, 'both Readers subscribed on all 3 nsqds through lookupd')

  for (const n of nsqds) writers.push(await h.connectWriter(n))

  // Publish N messages, a third through each nsqd; kill and restart lookupd A
  // (same ports) once half of them are out.
  let published = 0
  let restart = null
  let restartedAt = 0
  const restartLookupd = async () => {
    const {tcpPort, httpPort} = la
    const st = await la.kill('SIGKILL')
    assert.equal(st.signal, 'SIGKILL', 'lookupd A did not die from SIGKILL')
    const la2 = await startLookupd({tcp: `127.0.0.1:${tcpPort}`, http: `127.0.0.1:${httpPort}`})
    t.after(() => la2.kill())
    restartedAt = Date.now()
    return la2
  }
  const onProgress = (n) => {
    published += n
    if (!restart && published >= N / 2) restart = restartLookupd()
  }
  const t0 = Date.now()
  const per = Math.ceil(N / 3)
  await Promise.all(
    writers.map((w, k) => publishRange(w, k * per, Math.min((k + 1) * per, N), onProgress))
  )
  assert.equal(published, N)
  assert.ok(restart, 'lookupd A was not restarted')
  const la2 = await restart
  for (const w of writers) assert.deepEqual(w.errors, [], 'Writer errors')

  await h.withTimeout(phase1.promise, ALL_DELIVERED_TIMEOUT_MS, `all ${N} messages consumed`).catch((err) => {
    throw new Error(
      `${err.message}: ${ch.countIn(0, N)} of ${N} unique; missing e.g. ${ch.missing(0, N)}; ` +
        `duplicates ${ch.duplicates}; per reader ${perReader}`
    )
  })
  t.diagnostic(`${N} messages through 3 nsqds in ${Date.now() - t0} ms; per reader ${perReader}`)
  await h.delay(500) // a window for redeliveries
  assert.deepEqual(ch.duplicates, [], 'messages delivered twice')
  assert.deepEqual(ch.unknown, [], 'unknown message bodies')
  assert.equal(ch.countIn(0, N), N)
  assert.ok(perReader.every((c) => c > 0), `a Reader got nothing: ${perReader}`)
  for (const r of readers) {
    assert.deepEqual(r.errors, [], 'Reader errors')
    assert.equal(r.closedEvents, 0, 'a Reader lost an nsqd connection')
  }

  // The restarted lookupd learns the nsqds again (their PINGs reconnect).
  await waitFor(
    async () => JSON.stringify(await lookupPorts(la2)) === JSON.stringify(nsqdPorts),
    Math.max(1000, REREGISTER_TIMEOUT_MS - (Date.now() - restartedAt)),
    'the restarted lookupd listing the 3 nsqds again'
  )
  t.diagnostic(`nsqds re-registered ${Date.now() - restartedAt} ms after the lookupd restart`)
  assert.deepEqual(await lookupPorts(lb), nsqdPorts, 'the other lookupd lost producers')

  // A new Reader that knows only the restarted lookupd finds all three nsqds.
  const done = h.waiter(() => late.countIn(N, TOTAL) === AFTER && ch.countIn(N, TOTAL) === AFTER)
  waiters.push(done)
  const lateReader = lookupdReader('late', [la2], (msg) => {
    late.record(msg)
    msg.finish()
    checkAll()
  })
  readers.push(lateReader)
  await waitSubscribed(nsqds, 'late', 1, 'a Reader given only the restarted lookupd subscribed on all 3 nsqds')

  // Both channels get every message published now.
  const perAfter = AFTER / 3
  await Promise.all(
    writers.map((w, k) => publishRange(w, N + k * perAfter, N + (k + 1) * perAfter, () => {}))
  )
  await h.withTimeout(done.promise, 20000, `the ${AFTER} later messages consumed on both channels`).catch((err) => {
    throw new Error(
      `${err.message}: '${CHANNEL}' ${ch.countIn(N, TOTAL)}, 'late' ${late.countIn(N, TOTAL)} of ${AFTER}; ` +
        `missing e.g. ${ch.missing(N, TOTAL)} / ${late.missing(N, TOTAL)}`
    )
  })
  await h.delay(500)
  assert.deepEqual(ch.duplicates, [], `messages delivered twice on '${CHANNEL}'`)
  assert.deepEqual(late.duplicates, [], "messages delivered twice on 'late'")
  assert.equal(late.countIn(0, N), 0, "'late' got messages published before it existed")
  assert.deepEqual(lateReader.errors, [], 'late Reader errors')

  // Everything shuts down cleanly.
  for (const r of readers) r.close()
  for (const w of writers) await h.closeWriter(w)
  for (const n of nsqds) {
    const st = await n.stop()
    assert.deepEqual(st, {code: 0, signal: null}, `nsqd exit\n${n.output()}`)
  }
  for (const l of [la2, lb]) {
    const st = await l.kill('SIGTERM')
    assert.deepEqual(st, {code: 0, signal: null}, `nsqlookupd exit\n${l.output()}`)
  }
})
